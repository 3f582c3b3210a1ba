# Build speed on CI's two cores (a fresh clone builds the tree twice: plain and sanitized).
#
# RUNWATCH_LLD: link with lld when it is installed. GNU ld spent 5-7 s per test executable
#   (static libraries with debug info, ~100 executables); lld links the same in 1.5-2 s.
# RUNWATCH_PCH: one precompiled header (cmake/pch.h) built by target runwatch_pch and reused by
#   every C++ target. GCC only: clang (the fuzz build) and clang-tidy cannot read GCC's .gch,
#   so the tidy stage configures with it off.
option(RUNWATCH_LLD "Link with lld when it is installed" ON)
option(RUNWATCH_PCH "Precompile the Qt/QCoro headers every file includes (GCC)" ON)

if(RUNWATCH_LLD AND CMAKE_SYSTEM_NAME STREQUAL "Linux")
    find_program(RUNWATCH_LLD_PROGRAM ld.lld)
    if(RUNWATCH_LLD_PROGRAM)
        add_link_options(-fuse-ld=lld)
    endif()
endif()

if(RUNWATCH_PCH AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    add_library(runwatch_pch OBJECT ${CMAKE_CURRENT_LIST_DIR}/pch.cpp)
    target_link_libraries(runwatch_pch PRIVATE Qt6::Core Qt6::Network QCoro6::Core QCoro6::Network)
    target_precompile_headers(runwatch_pch PRIVATE ${CMAKE_CURRENT_LIST_DIR}/pch.h)
    set_target_properties(runwatch_pch PROPERTIES AUTOMOC OFF)
endif()

# Called last by the top CMakeLists.txt: every C++ target of the tree reuses runwatch_pch.
# -Winvalid-pch (added by CMake) with -Werror makes a target whose flags rule the header out fail
# to build instead of silently parsing it again.
function(runwatch_reuse_pch dir)
    if(NOT TARGET runwatch_pch)
        return()
    endif()
    get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
    foreach(target IN LISTS targets)
        get_target_property(type ${target} TYPE)
        if(target STREQUAL "runwatch_pch" OR NOT type MATCHES "^(EXECUTABLE|STATIC_LIBRARY|SHARED_LIBRARY|OBJECT_LIBRARY)$")
            continue()
        endif()
        target_precompile_headers(${target} REUSE_FROM runwatch_pch)
    endforeach()
    get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
    foreach(subdir IN LISTS subdirs)
        runwatch_reuse_pch(${subdir})
    endforeach()
endfunction()
