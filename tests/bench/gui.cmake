# GUI benchmarks (programs, not tests; run a Release or RelWithDebInfo build, offscreen):
#   bench_gui_live      [runs=200] [seconds=10]  many streaming runs: GUI-thread work per frame
#   bench_output_ingest [deltas=100000]          catch-up into the output view: deltas/s
#   bench_table_scroll  [runs=100000]            a big run list: load time, scroll frame times
if(TARGET runwatch_ui)
    foreach(bench bench_gui_live bench_output_ingest bench_table_scroll)
        add_executable(${bench} ${bench}.cpp framemeter.h)
        target_link_libraries(${bench} PRIVATE runwatch_ui runwatch_sim)
    endforeach()
endif()
