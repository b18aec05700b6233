# SPDX-License-Identifier: MIT OR Apache-2.0
# `cpack -G DEB` in a build tree: one wsstress .deb with everything
# `cmake --install` puts under /usr (the tool, its companions, fuzz targets,
# data, man page and completions, and the pool's development files). Its
# Depends are the Debian runtime packages of the binaries (dpkg-shlibdeps).
set(CPACK_PACKAGE_NAME wsstress)
set(CPACK_PACKAGE_VENDOR "wsstress")
set(CPACK_PACKAGE_CONTACT "wsstress developers <wsstress@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "stress-test rayon-core's work-stealing pool (a C++20 port) and the schedulers built like it")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_STRIP_FILES OFF)  # a finding's stack names the pool's functions
set(CPACK_PACKAGE_DIRECTORY ${PROJECT_BINARY_DIR}/package)
include(CPack)
