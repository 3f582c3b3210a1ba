# CPack: one configuration for every platform's installer, included by packaging/CMakeLists.txt.
#   Linux    DEB, two packages: runwatch (GUI + CLI) and runwatch-sim       scripts/package.sh
#   Windows  NSIS (Start-menu entry, uninstaller, licence page, icon)       built by a release workflow
#   macOS    DragNDrop (the app bundle, an Applications link)               built by a release workflow
# Only the DEB is built and installed here; the NSIS script is generated and compiled by makensis in
# scripts/package-test.sh, and the bundle's Info.plist is checked by tests/packaging.

set(CPACK_PACKAGE_NAME runwatch)
set(CPACK_PACKAGE_VENDOR "The Runwatch developers")
set(CPACK_PACKAGE_CONTACT "${RUNWATCH_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${RUNWATCH_SUMMARY}")
set(CPACK_PACKAGE_HOMEPAGE_URL "${RUNWATCH_HOMEPAGE}")
set(CPACK_PACKAGE_INSTALL_DIRECTORY Runwatch)
set(CPACK_RESOURCE_FILE_LICENSE "${PROJECT_SOURCE_DIR}/LICENSE")
set(CPACK_PACKAGE_EXECUTABLES runwatch Runwatch)
# Ship what CI tested, without the debug information the test build carries.
set(CPACK_STRIP_FILES TRUE)
set(CPACK_INSTALL_DEFAULT_DIRECTORY_PERMISSIONS
    OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)

set(CPACK_COMPONENTS_ALL runwatch sim)
set(CPACK_COMPONENT_RUNWATCH_DISPLAY_NAME "Runwatch")
set(CPACK_COMPONENT_RUNWATCH_DESCRIPTION "The desktop app and runwatch-cli.")
set(CPACK_COMPONENT_RUNWATCH_REQUIRED TRUE)
set(CPACK_COMPONENT_SIM_DISPLAY_NAME "Protocol simulator")
set(CPACK_COMPONENT_SIM_DESCRIPTION "runwatch-sim: OpenAI, A2A and job API simulators for testing.")
set(CPACK_COMPONENT_SIM_DISABLED TRUE)

# --- Debian ---------------------------------------------------------------------------------------
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT) # <name>_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${RUNWATCH_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "${RUNWATCH_HOMEPAGE}")
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_COMPRESSION_TYPE xz)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION TRUE)
# Library dependencies come from dpkg-shlibdeps; it cannot see plugins Qt loads at run time.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)

set(CPACK_DEBIAN_RUNWATCH_PACKAGE_NAME runwatch)
set(CPACK_DEBIAN_RUNWATCH_PACKAGE_SECTION utils)
# The run store is SQLite through Qt's plugin.
set(CPACK_DEBIAN_RUNWATCH_PACKAGE_DEPENDS "libqt6sql6-sqlite")
# A secret service keeps API keys (without one the app asks before using a plain file);
# qt6-wayland lets the app run natively on a Wayland session instead of through XWayland;
# libqt6sql6-psql (Qt's PostgreSQL plugin) lets a team share one run store (--store postgresql://…).
set(CPACK_DEBIAN_RUNWATCH_PACKAGE_RECOMMENDS "gnome-keyring | keepassxc | kwalletmanager, qt6-wayland, libqt6sql6-psql")
set(CPACK_DEBIAN_RUNWATCH_PACKAGE_SUGGESTS "runwatch-sim")
set(CPACK_DEBIAN_RUNWATCH_DESCRIPTION
    "cockpit for long-running AI background runs
Runwatch lists every run of OpenAI Responses background mode, A2A agents
and generic HTTP job APIs in one table, streams their output live and
offers cancel, delete, resume and respond. Runs and continuation tokens are
kept in a local SQLite store, so no output is lost across network drops or
restarts; API keys are kept in the desktop's secret service.

This package contains the desktop app (runwatch) and the command-line client
(runwatch-cli), which share the run store and the saved connections.")

set(CPACK_DEBIAN_SIM_PACKAGE_NAME runwatch-sim)
set(CPACK_DEBIAN_SIM_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_SIM_DESCRIPTION
    "simulators of the protocols Runwatch speaks, for testing
runwatch-sim serves the OpenAI Responses API in background mode, an A2A
agent or a generic HTTP job API on the loopback interface, with scenarios
(long runs, reasoning, tool calls, input requests, approvals) and faults
(dropped connections, rate limits, malformed events) chosen per request.

It is a tool for testing clients such as Runwatch against these protocols
without an account.")

# --- Windows (NSIS) -------------------------------------------------------------------------------
set(CPACK_NSIS_DISPLAY_NAME "Runwatch")
set(CPACK_NSIS_PACKAGE_NAME "Runwatch ${PROJECT_VERSION}")
set(CPACK_NSIS_MUI_ICON "${CMAKE_CURRENT_SOURCE_DIR}/windows/runwatch.ico")
set(CPACK_NSIS_MUI_UNIICON "${CMAKE_CURRENT_SOURCE_DIR}/windows/runwatch.ico")
set(CPACK_NSIS_INSTALLED_ICON_NAME "bin\\\\runwatch.exe")
set(CPACK_NSIS_URL_INFO_ABOUT "${RUNWATCH_HOMEPAGE}")
set(CPACK_NSIS_CONTACT "${RUNWATCH_MAINTAINER}")
set(CPACK_NSIS_UNINSTALL_NAME "Uninstall Runwatch")
set(CPACK_NSIS_ENABLE_UNINSTALL_BEFORE_INSTALL ON)
set(CPACK_NSIS_EXECUTABLES_DIRECTORY bin)
set(CPACK_NSIS_MUI_FINISHPAGE_RUN runwatch.exe)

# --- macOS (DragNDrop) ----------------------------------------------------------------------------
set(CPACK_DMG_VOLUME_NAME "Runwatch ${PROJECT_VERSION}")
set(CPACK_DMG_FORMAT UDZO)
set(CPACK_DMG_DISABLE_APPLICATIONS_SYMLINK OFF)

# Per-generator adjustments, applied when cpack runs (see the file).
set(CPACK_PROJECT_CONFIG_FILE "${CMAKE_CURRENT_SOURCE_DIR}/cpack-project-config.cmake")

if(WIN32)
    set(CPACK_GENERATOR NSIS)
elseif(APPLE)
    set(CPACK_GENERATOR DragNDrop)
else()
    set(CPACK_GENERATOR DEB)
endif()
include(CPack)
