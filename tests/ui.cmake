# Desktop app: model/filter logic (core/models, no widgets), widgets against the simulator,
# notifications against a D-Bus notification mock. Only when the GUI is built.
runwatch_add_test(tst_runlistmodel SOURCES tst_runlistmodel.cpp LIBS runwatch_core)
if(TARGET runwatch_ui)
    runwatch_add_test(tst_demoagent SOURCES tst_demoagent.cpp LIBS runwatch_ui)
    runwatch_add_test(tst_outputview SOURCES tst_outputview.cpp LIBS runwatch_ui)
    runwatch_add_test(tst_mainwindow SOURCES tst_mainwindow.cpp uitesthelpers.h LIBS runwatch_ui runwatch_sim TIMEOUT 300)
    runwatch_add_test(tst_connectionsdialog SOURCES tst_connectionsdialog.cpp LIBS runwatch_ui runwatch_sim)
    runwatch_add_test(tst_appcontroller SOURCES tst_appcontroller.cpp LIBS runwatch_ui runwatch_sim)
    # Export and retention (issue #4, GUI side), and the app across a restart.
    runwatch_add_test(tst_runhousekeeping SOURCES tst_runhousekeeping.cpp uitesthelpers.h LIBS runwatch_ui runwatch_sim)
    runwatch_add_test(tst_guirestart SOURCES tst_guirestart.cpp uitesthelpers.h LIBS runwatch_ui runwatch_sim TIMEOUT 120)
    # The Respond panel against the jobs and A2A simulators (issues #5 and #6, GUI side).
    runwatch_add_test(tst_respondpanels SOURCES tst_respondpanels.cpp uitesthelpers.h LIBS runwatch_ui runwatch_sim TIMEOUT 300)

    # The notification test needs a session bus with a notification daemon: the wrapper starts
    # dbus-run-session + python3-dbusmock's notification_daemon template around the binary.
    # runwatch_add_test() would register the bare binary, so this one is registered by hand.
    add_executable(tst_notifier tst_notifier.cpp)
    target_link_libraries(tst_notifier PRIVATE Qt6::Test runwatch_testcommon runwatch_ui Qt6::DBus)
    add_test(NAME tst_notifier
             COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/run-with-notification-mock.sh $<TARGET_FILE:tst_notifier>)
    set_tests_properties(tst_notifier PROPERTIES
        TIMEOUT 120
        ENVIRONMENT "QT_QPA_PLATFORM=offscreen;QTEST_FUNCTION_TIMEOUT=90000")
endif()

# Desktop integration files must pass the freedesktop validators (when installed).
find_program(RUNWATCH_DESKTOP_FILE_VALIDATE desktop-file-validate)
if(RUNWATCH_DESKTOP_FILE_VALIDATE)
    add_test(NAME validate_desktop_file
             COMMAND ${RUNWATCH_DESKTOP_FILE_VALIDATE} ${PROJECT_SOURCE_DIR}/resources/io.github.runwatch.Runwatch.desktop)
endif()
find_program(RUNWATCH_APPSTREAMCLI appstreamcli)
if(RUNWATCH_APPSTREAMCLI)
    add_test(NAME validate_metainfo
             COMMAND ${RUNWATCH_APPSTREAMCLI} validate --no-net
                     ${PROJECT_SOURCE_DIR}/resources/io.github.runwatch.Runwatch.metainfo.xml)
endif()
if(TARGET runwatch)
    # The app starts and answers without a display (CI smoke run, as qBittorrent does).
    add_test(NAME runwatch_smoke COMMAND $<TARGET_FILE:runwatch> --version)
    set_tests_properties(runwatch_smoke PROPERTIES ENVIRONMENT "QT_QPA_PLATFORM=offscreen" PASS_REGULAR_EXPRESSION "runwatch [0-9]")
endif()
