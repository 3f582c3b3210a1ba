# A2A connector (issue 5): mapping + transcripts, end-to-end against the A2A simulator, the CLI,
# and the official @a2a-js/sdk server (tests/a2a-peer, installed by scripts/setup-test-peers.sh).
runwatch_add_test(tst_a2a_mapping SOURCES tst_a2a_mapping.cpp LIBS runwatch_core)
runwatch_add_test(tst_a2a_e2e SOURCES tst_a2a_e2e.cpp LIBS runwatch_core runwatch_sim TIMEOUT 600)

if(TARGET runwatch-cli)
    runwatch_add_test(tst_a2a_cli SOURCES tst_a2a_cli.cpp LIBS runwatch_sim TIMEOUT 300)
    target_compile_definitions(tst_a2a_cli PRIVATE RUNWATCH_CLI_PATH="$<TARGET_FILE:runwatch-cli>")
    add_dependencies(tst_a2a_cli runwatch-cli)
endif()

# Skipped (QSKIP, with the reason) when node or tests/a2a-peer/node_modules is absent.
find_program(RUNWATCH_NODE_EXECUTABLE NAMES node nodejs)
if(NOT RUNWATCH_NODE_EXECUTABLE)
    set(RUNWATCH_NODE_EXECUTABLE "")
endif()
runwatch_add_test(tst_a2a_peer SOURCES tst_a2a_peer.cpp LIBS runwatch_core TIMEOUT 300)
target_compile_definitions(tst_a2a_peer PRIVATE
    RUNWATCH_NODE="${RUNWATCH_NODE_EXECUTABLE}"
    RUNWATCH_A2A_PEER_DIR="${CMAKE_CURRENT_SOURCE_DIR}/a2a-peer")
