# What `cmake --install` puts in place for other projects: the libraries with their headers, a
# CMake package (find_package(nndna): nndna::nndna, nndna::xray, nndna::diagram) and pkg-config
# files (nndna, nndna-xray). Libraries join the export set `nndnaTargets` where they are defined;
# this file, included after them, installs the set and the files describing it.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(NNDNA_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/nndna)
install(EXPORT nndnaTargets NAMESPACE nndna:: DESTINATION ${NNDNA_CMAKE_DIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/package/nndnaConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/nndnaConfig.cmake INSTALL_DESTINATION ${NNDNA_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/nndnaConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/nndnaConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/nndnaConfigVersion.cmake
  DESTINATION ${NNDNA_CMAKE_DIR})

foreach(pc nndna nndna-xray)
  configure_file(${CMAKE_CURRENT_LIST_DIR}/package/${pc}.pc.in ${CMAKE_CURRENT_BINARY_DIR}/${pc}.pc @ONLY)
  install(FILES ${CMAKE_CURRENT_BINARY_DIR}/${pc}.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()
