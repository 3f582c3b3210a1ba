# Generic HTTP job APIs: connector (core/backends/jobs), simulator (core/sim/jobssim*), CLI.
runwatch_add_test(tst_jobs_mapping SOURCES tst_jobs_mapping.cpp LIBS runwatch_core)
# Simulator tests: a plain QNetworkAccessManager client, never runwatch_core.
runwatch_add_test(tst_jobs_sim SOURCES tst_jobs_sim.cpp LIBS runwatch_sim Qt6::Network)
runwatch_add_test(tst_jobs_e2e SOURCES tst_jobs_e2e.cpp LIBS runwatch_core runwatch_sim TIMEOUT 600)
runwatch_add_test(tst_jobs_cli SOURCES tst_jobs_cli.cpp LIBS runwatch_sim Qt6::Network TIMEOUT 600)
target_compile_definitions(tst_jobs_cli PRIVATE RUNWATCH_CLI_PATH="$<TARGET_FILE:runwatch-cli>")
add_dependencies(tst_jobs_cli runwatch-cli)
