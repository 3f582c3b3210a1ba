runwatch_add_test(tst_openai_e2e SOURCES tst_openai_e2e.cpp LIBS runwatch_core runwatch_sim TIMEOUT 300)

# The keychain against a real gnome-keyring and against no keyring at all.
add_executable(tst_secretstore tst_secretstore.cpp)
target_link_libraries(tst_secretstore PRIVATE Qt6::Test runwatch_testcommon runwatch_core)
foreach(mode real none)
    add_test(NAME tst_secretstore_${mode}
             COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/run-keyring.sh ${mode} $<TARGET_FILE:tst_secretstore>)
    set_tests_properties(tst_secretstore_${mode} PROPERTIES TIMEOUT 120
        ENVIRONMENT "QT_QPA_PLATFORM=offscreen;QTEST_FUNCTION_TIMEOUT=90000")
endforeach()
# The orderly exit: shutdown of clients and engine unwinds every coroutine (LeakSanitizer gate).
runwatch_add_test(tst_shutdown SOURCES tst_shutdown.cpp LIBS runwatch_core)
