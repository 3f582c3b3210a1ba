runwatch_add_test(tst_cli SOURCES tst_cli.cpp LIBS runwatch_core runwatch_sim TIMEOUT 300)
target_compile_definitions(tst_cli PRIVATE RUNWATCH_CLI_PATH="$<TARGET_FILE:runwatch-cli>")
add_dependencies(tst_cli runwatch-cli)

runwatch_add_test(tst_crash SOURCES tst_crash.cpp LIBS runwatch_core runwatch_sim TIMEOUT 600)
target_compile_definitions(tst_crash PRIVATE RUNWATCH_CLI_PATH="$<TARGET_FILE:runwatch-cli>")
add_dependencies(tst_crash runwatch-cli)
