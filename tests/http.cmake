# HTTP layer: retries, timeouts, redirects, body caps, streams (core/net/httpclient.*).
runwatch_add_test(tst_httpclient SOURCES tst_httpclient.cpp LIBS runwatch_core)
