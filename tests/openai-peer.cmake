# The official `openai` npm client (tests/openai-peer, installed by scripts/setup-test-peers.sh)
# driven against runwatch-sim: proves the simulator our connector is tested against speaks the
# real Responses API as the vendor's own client understands it. Skipped (exit 77) when node or the
# package is missing.
find_program(RUNWATCH_NODE_FOR_PEERS NAMES node nodejs)
if(RUNWATCH_NODE_FOR_PEERS AND TARGET runwatch-sim)
    add_test(NAME openai_peer
             COMMAND ${RUNWATCH_NODE_FOR_PEERS} ${CMAKE_CURRENT_SOURCE_DIR}/openai-peer/client.mjs
                     $<TARGET_FILE:runwatch-sim>)
    set_tests_properties(openai_peer PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120)
endif()
