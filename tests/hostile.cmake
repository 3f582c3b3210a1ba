# Quality gates (issue 7). Hostile servers: oversized events, endless lines, drip-feeding, invalid
# UTF-8, unknown statuses, HTML with 200, cross-host redirects — each a clear run error, no hang.
runwatch_add_test(tst_hostile SOURCES tst_hostile.cpp LIBS runwatch_core runwatch_sim TIMEOUT 300)
# Security basics: keys never logged/stored/printed, TLS for non-loopback, no credential forwarding.
runwatch_add_test(tst_security SOURCES tst_security.cpp LIBS runwatch_core runwatch_sim TIMEOUT 300)
target_compile_definitions(tst_security PRIVATE RUNWATCH_CLI_PATH="$<TARGET_FILE:runwatch-cli>")
add_dependencies(tst_security runwatch-cli)
# One readable test per bug the gates found (fuzzing, hostile servers, security).
runwatch_add_test(tst_gates_regressions SOURCES tst_gates_regressions.cpp LIBS runwatch_core)
