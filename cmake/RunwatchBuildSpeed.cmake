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
    # Compiled with the tests' flags: GCC takes a precompiled header only under the flags it was
    # built with (-O0 leaves __OPTIMIZE__ undefined).
    runwatch_pch_target(runwatch_test_pch pch_test.h Qt6::Core Qt6::Network Qt6::Test)
    target_compile_options(runwatch_test_pch PRIVATE ${RUNWATCH_TEST_COMPILE_OPTIONS})
    if(RUNWATCH_TEST_COMPILE_OPTIONS)
        # pch.h under the tests' flags, for their targets without Qt Test (the corpus replays)
        runwatch_pch_target(runwatch_test_core_pch pch.h Qt6::Core Qt6::Network)
        target_compile_options(runwatch_test_core_pch PRIVATE ${RUNWATCH_TEST_COMPILE_OPTIONS})
    endif()
    if(RUNWATCH_BUILD_GUI)
        find_package(Qt6 REQUIRED COMPONENTS Widgets)
        runwatch_pch_target(runwatch_test_gui_pch pch_test_gui.h Qt6::Core Qt6::Network Qt6::Test Qt6::Widgets)
        target_compile_options(runwatch_test_gui_pch PRIVATE ${RUNWATCH_TEST_COMPILE_OPTIONS})
    endif()
endfunction()

# The precompiled header a target reuses: a test's (linked to Qt Test directly), with widgets when
# it links the GUI; pch.h under the tests' flags for another target of tests/ (its COMPILE_OPTIONS
# carry them, from tests/CMakeLists.txt); every other target's pch.h.
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
    elseif(TARGET runwatch_test_core_pch)
        get_target_property(options ${target} COMPILE_OPTIONS)
        set(pch runwatch_test_core_pch)
        foreach(option IN LISTS RUNWATCH_TEST_COMPILE_OPTIONS)
            if(NOT options OR NOT option IN_LIST options)
                set(pch runwatch_pch)
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
        if(target MATCHES "^runwatch(_test|_test_gui|_test_core)?_pch$"
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

# The tests' own moc runs, without AUTOMOC. A test declares its Qt Test class in its .cpp and
# includes "<file name>.moc"; AUTOMOC ran moc on it with every include path of the target, and
# moc then preprocesses each header it can reach (about 700 for a test: 2.0-2.3 s a test, ~110
# tests) although the class needs none of them: moc writes the slot and signal types as spelled.
# Without include paths moc takes 0.01 s and writes the same file (compared for every test when
# this was added). AUTOMOC also compiled an empty mocs_compilation.cpp per test, loading the
# precompiled header for nothing (1.3-2.5 s each). Every .cpp of the target gets its .moc (an
# empty one for a file without a class: 0.01 s, never compiled unless included). A target with a
# header that declares a Q_OBJECT, Q_GADGET or Q_NAMESPACE keeps AUTOMOC. Called in the target's
# own directory: a custom command's output is a source only for the targets of the directory
# that adds it.
function(runwatch_lean_moc target)
    get_target_property(sources ${target} SOURCES)
    set(cpps)
    foreach(source IN LISTS sources)
        cmake_path(ABSOLUTE_PATH source BASE_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR} OUTPUT_VARIABLE path)
        if(NOT EXISTS ${path})
            return() # generated: AUTOMOC's business
        endif()
        if(path MATCHES "\\.h$")
            file(READ ${path} text)
            if(text MATCHES "Q_OBJECT|Q_GADGET|Q_NAMESPACE")
                return()
            endif()
        elseif(path MATCHES "\\.cpp$")
            list(APPEND cpps ${path})
        endif()
    endforeach()
    set(out_dir ${CMAKE_CURRENT_BINARY_DIR}/${target}_moc)
    foreach(cpp IN LISTS cpps)
        cmake_path(GET cpp STEM name)
        set(out ${out_dir}/${name}.moc)
        add_custom_command(OUTPUT ${out}
            COMMAND Qt6::moc --no-notes -o ${out} ${cpp}
            DEPENDS ${cpp} Qt6::moc
            COMMENT "moc ${name}.cpp (without include paths)" VERBATIM)
        target_sources(${target} PRIVATE ${out})
        set_source_files_properties(${out} PROPERTIES HEADER_FILE_ONLY ON)
    endforeach()
    # AUTOUIC too (no test has a .ui form): with neither, CMake adds no autogen step to the target.
    set_target_properties(${target} PROPERTIES AUTOMOC OFF AUTOUIC OFF)
    target_include_directories(${target} PRIVATE ${out_dir})
endfunction()
