# SPDX-License-Identifier: MIT OR Apache-2.0
# The pool as an installed CMake package and pkg-config module:
# `find_package(wsstress CONFIG REQUIRED)` then `wsstress::pool`, or
# `pkg-config --cflags --libs wsstress`. Everything here is the `pool`
# install component, so `cmake --install … --component pool` installs the
# library alone.
include(CMakePackageConfigHelpers)

set(WSSTRESS_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/wsstress)
install(TARGETS wsstress_pool_headers wsstress_pool EXPORT wsstressTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT pool)
install(DIRECTORY include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT pool)
install(EXPORT wsstressTargets NAMESPACE wsstress:: DESTINATION ${WSSTRESS_CMAKE_DIR} COMPONENT pool)

configure_package_config_file(wsstressConfig.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/wsstressConfig.cmake
                              INSTALL_DESTINATION ${WSSTRESS_CMAKE_DIR})
# 0.x: a minor release may change the API, so only the same minor matches.
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/wsstressConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/wsstressConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/wsstressConfigVersion.cmake
        DESTINATION ${WSSTRESS_CMAKE_DIR} COMPONENT pool)

# The .pc file finds the prefix from where it lies (pkg-config's pcfiledir), so
# `cmake --install --prefix` anywhere gives a working file.
file(RELATIVE_PATH WSSTRESS_PC_TO_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
configure_file(wsstress.pc.in ${CMAKE_CURRENT_BINARY_DIR}/wsstress.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/wsstress.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT pool)
