# HTTP layer: retries, timeouts, redirects, body caps, streams (core/net/httpclient.*).
runwatch_add_test(tst_httpclient SOURCES tst_httpclient.cpp LIBS runwatch_core)
# HTTP/1.1 response framing of the stream pump (core/net/http1response.*).
runwatch_add_test(tst_http1response SOURCES tst_http1response.cpp LIBS runwatch_core)
# The stream pump (core/net/stream*, http1response) end to end against raw loopback servers.
runwatch_add_test(tst_streamreply SOURCES tst_streamreply.cpp LIBS runwatch_core)
