# SSE framing throughput (core/net/sseparser.*). Run a Release build: bench_sse [megabytes=100]
add_executable(bench_sse bench_sse.cpp)
target_link_libraries(bench_sse PRIVATE runwatch_core)
