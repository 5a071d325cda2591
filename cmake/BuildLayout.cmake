# Where nndna's programs and shared libraries are built: as they are installed, under the build
# tree instead of the prefix (build/bin/nndna, build/lib/libnndna.so, build/libexec/nndna/...),
# each carrying the run path ($ORIGIN/...) it keeps once installed.
#
# Why not CMake's default (each in its folder's build directory, with absolute run paths that
# `cmake --install` rewrites): to rewrite a run path in place, CMake links the build-tree copy
# with room to spare, a trailing ':' at least. The dynamic loader reads that empty entry as the
# current directory, so `nndna` started from a folder holding a file named libc.so.6 loaded it
# (tests/cli/runpath.sh). Built where they are installed, the programs need no rewriting.
include(GNUInstallDirs)
foreach(dir BINDIR LIBDIR LIBEXECDIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${dir}}")
    message(FATAL_ERROR "CMAKE_INSTALL_${dir} must be relative to the prefix (the build tree mirrors "
                        "the installation): it is ${CMAKE_INSTALL_${dir}}")
  endif()
endforeach()

# nndna_build_as_installed(<target> <destination>): <target> built into <build>/<destination>,
# where it is installed under the prefix; a program or library that loads nndna's libraries
# (LOADS_NNDNA_LIBRARIES) finds them by a run path relative to itself, the same in both trees.
function(nndna_build_as_installed target destination)
  cmake_parse_arguments(PARSE_ARGV 2 arg "LOADS_NNDNA_LIBRARIES" "" "")
  get_target_property(type ${target} TYPE)
  if(type STREQUAL "SHARED_LIBRARY")
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/${destination})
  else()
    set_target_properties(${target} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/${destination})
  endif()
  # The installed run path in the build tree too: none but $ORIGIN's, or none at all (CMake's build
  # run path would name the build's lib/ with an empty entry after it).
  set_target_properties(${target} PROPERTIES BUILD_WITH_INSTALL_RPATH ON)
  if(arg_LOADS_NNDNA_LIBRARIES)
    file(RELATIVE_PATH to_lib "/${destination}" "/${CMAKE_INSTALL_LIBDIR}")
    if(to_lib STREQUAL "")
      set(run_path "$ORIGIN")
    else()
      set(run_path "$ORIGIN/${to_lib}")
    endif()
    set_target_properties(${target} PROPERTIES INSTALL_RPATH "${run_path}")
  endif()
endfunction()
