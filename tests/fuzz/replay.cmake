# The fuzz targets replayed over their committed corpora in every build (no libFuzzer needed):
# each seed and each saved crash input (tests/fuzz/corpus/<name>/regression-*) is a regression
# test, under gcc and under the sanitizer build alike.
file(GLOB _runwatch_fuzz_sources CONFIGURE_DEPENDS ${RUNWATCH_TESTS_DIR}/fuzz/fuzz_*.cpp)
foreach(_source IN LISTS _runwatch_fuzz_sources)
    get_filename_component(_name ${_source} NAME_WE)   # fuzz_sse
    string(REPLACE "fuzz_" "" _short ${_name})          # sse
    set(_corpus ${RUNWATCH_TESTS_DIR}/fuzz/corpus/${_short})
    if(NOT IS_DIRECTORY ${_corpus})
        continue()
    endif()
    add_executable(replay_${_name} ${_source} fuzz/replay_main.cpp)
    target_link_libraries(replay_${_name} PRIVATE runwatch_core)
    runwatch_lean_moc(replay_${_name})
    add_test(NAME replay_${_name} COMMAND replay_${_name} ${_corpus})
    set_tests_properties(replay_${_name} PROPERTIES TIMEOUT 300 ENVIRONMENT "QT_QPA_PLATFORM=offscreen")
endforeach()
