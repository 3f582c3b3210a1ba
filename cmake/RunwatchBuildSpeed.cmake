# Build speed on CI's two cores (a fresh clone builds the tree twice: plain and sanitized).
#
# RUNWATCH_LLD: link with lld when it is installed. GNU ld spent 5-7 s per test executable
#   (static libraries with debug info, ~100 executables); lld links the same in 1.5-2 s.
# RUNWATCH_PCH: one precompiled header (cmake/pch.h) built by target runwatch_pch and reused by
#   every C++ target. GCC only: clang (the fuzz build) and clang-tidy cannot read GCC's .gch,
#   so the tidy stage configures with it off. The tests reuse a larger one: pch.h with Qt Test
#   (runwatch_test_pch), and Qt Widgets too for the tests of the desktop app (runwatch_test_gui_pch).
option(RUNWATCH_LLD "Link with lld when it is installed" ON)
option(RUNWATCH_PCH "Precompile the Qt/QCoro headers every file includes (GCC)" ON)

if(RUNWATCH_LLD AND CMAKE_SYSTEM_NAME STREQUAL "Linux")
    find_program(RUNWATCH_LLD_PROGRAM ld.lld)
    if(RUNWATCH_LLD_PROGRAM)
        add_link_options(-fuse-ld=lld)
    endif()
endif()

# A target that only builds `header` (in this folder) for others to reuse, with the usage
# requirements (macros, include paths) of the libraries after it.
function(runwatch_pch_target name header)
    add_library(${name} OBJECT ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/pch.cpp)
    target_link_libraries(${name} PRIVATE ${ARGN} QCoro6::Core QCoro6::Network)
    target_precompile_headers(${name} PRIVATE ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/${header})
    set_target_properties(${name} PROPERTIES AUTOMOC OFF)
endfunction()

if(RUNWATCH_PCH AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    runwatch_pch_target(runwatch_pch pch.h Qt6::Core Qt6::Network)
endif()

# The tests' headers, precompiled like pch.h. GCC refuses a precompiled header where a macro it
# reads is defined otherwise: Qt Test's headers read QT_TESTCASE_BUILDDIR and _SOURCEDIR, which
# Qt6::Test defines per target directory (for QFINDTESTDATA, which no test uses: they find their
# data through RUNWATCH_TEST_DATA), so the tests get QT_TESTLIB_LIB alone and share one header.
function(runwatch_add_test_pch)
    if(NOT TARGET runwatch_pch OR NOT TARGET Qt6::Test)
        return()
    endif()
    set_property(TARGET Qt6::Test PROPERTY INTERFACE_COMPILE_DEFINITIONS QT_TESTLIB_LIB)
    runwatch_pch_target(runwatch_test_pch pch_test.h Qt6::Core Qt6::Network Qt6::Test)
    if(RUNWATCH_BUILD_GUI)
        find_package(Qt6 REQUIRED COMPONENTS Widgets)
        runwatch_pch_target(runwatch_test_gui_pch pch_test_gui.h Qt6::Core Qt6::Network Qt6::Test Qt6::Widgets)
    endif()
endfunction()

# The precompiled header a target reuses: a test's (linked to Qt Test directly), with widgets when
# it links the GUI; every other target's pch.h.
function(runwatch_pch_for target out)
    set(pch runwatch_pch)
    get_target_property(libs ${target} LINK_LIBRARIES)
    if(libs AND "Qt6::Test" IN_LIST libs AND TARGET runwatch_test_pch)
        set(pch runwatch_test_pch)
        foreach(gui IN ITEMS Qt6::Widgets runwatch_ui runwatch_app)
            if(gui IN_LIST libs AND TARGET runwatch_test_gui_pch)
                set(pch runwatch_test_gui_pch)
            endif()
        endforeach()
    endif()
    set(${out} ${pch} PARENT_SCOPE)
endfunction()

# Called last by the top CMakeLists.txt: every C++ target of the tree reuses one of them.
# -Winvalid-pch (added by CMake) with -Werror makes a target whose flags rule the header out fail
# to build instead of silently parsing it again.
function(runwatch_reuse_pch dir)
    if(NOT TARGET runwatch_pch)
        return()
    endif()
    get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
    foreach(target IN LISTS targets)
        get_target_property(type ${target} TYPE)
        if(target MATCHES "^runwatch(_test|_test_gui)?_pch$"
           OR NOT type MATCHES "^(EXECUTABLE|STATIC_LIBRARY|SHARED_LIBRARY|OBJECT_LIBRARY)$")
            continue()
        endif()
        runwatch_pch_for(${target} pch)
        target_precompile_headers(${target} REUSE_FROM ${pch})
    endforeach()
    get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
    foreach(subdir IN LISTS subdirs)
        runwatch_reuse_pch(${subdir})
    endforeach()
endfunction()
