runwatch_add_test(tst_openai_e2e SOURCES tst_openai_e2e.cpp LIBS runwatch_core runwatch_sim TIMEOUT 300)
