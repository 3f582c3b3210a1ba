# core/ must not depend on Qt Widgets (STYLE-ANCHORS §1 "Core ↔ widgets"): a configure-free check
# over the sources, plus a self-test on a fixture that does include a widget, which must fail.
get_target_property(_runwatch_qt_includes Qt6::Core INTERFACE_INCLUDE_DIRECTORIES)
set(_runwatch_widgets_dir "")
foreach(_dir IN LISTS _runwatch_qt_includes)
    if(_dir MATCHES "/QtCore$" AND IS_DIRECTORY "${_dir}/../QtWidgets")
        get_filename_component(_runwatch_widgets_dir "${_dir}/../QtWidgets" ABSOLUTE)
    endif()
endforeach()
add_test(NAME tst_layering
    COMMAND ${CMAKE_COMMAND} -DCORE_DIR=${PROJECT_SOURCE_DIR}/core -DWIDGETS_DIR=${_runwatch_widgets_dir}
            -P ${CMAKE_CURRENT_SOURCE_DIR}/check_layering.cmake)
add_test(NAME tst_layering_selftest
    COMMAND ${CMAKE_COMMAND} -DCORE_DIR=${CMAKE_CURRENT_SOURCE_DIR}/layering/bad-core
            -DWIDGETS_DIR=${_runwatch_widgets_dir} -P ${CMAKE_CURRENT_SOURCE_DIR}/check_layering.cmake)
# Passes only when the check fails for the right reason (WILL_FAIL would accept any error).
set_tests_properties(tst_layering_selftest PROPERTIES PASS_REGULAR_EXPRESSION "uses_widgets\\.h: .*QMainWindow")
