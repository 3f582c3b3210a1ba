# SSE parser (core/net/sseparser.*).
runwatch_add_test(tst_sseparser SOURCES tst_sseparser.cpp LIBS runwatch_core)
