# Included by cpack for each generator (CPACK_PROJECT_CONFIG_FILE).
if(CPACK_GENERATOR STREQUAL "DEB")
    # CPackDeb puts CPACK_PACKAGE_DESCRIPTION_SUMMARY above every package's description unless it is
    # CPack's default; each package's CPACK_DEBIAN_<COMPONENT>_DESCRIPTION starts with its own synopsis.
    set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${CPACK_DEFAULT_PACKAGE_DESCRIPTION_SUMMARY}")
endif()
