# Compiler launcher, linker and the flags every nndna target shares.

find_program(CCACHE_PROGRAM ccache)
if(CCACHE_PROGRAM)
  set(CMAKE_CXX_COMPILER_LAUNCHER "${CCACHE_PROGRAM}")
  set(CMAKE_C_COMPILER_LAUNCHER "${CCACHE_PROGRAM}")
endif()

# mold links the test and example programs several times faster than ld.bfd.
find_program(MOLD_PROGRAM mold)
if(MOLD_PROGRAM)
  add_link_options(-fuse-ld=mold)
endif()

# Call-site capture walks frame pointers: libnndna and every spec must keep them.
add_compile_options(-fno-omit-frame-pointer)

# Fuzzing (the build-fuzz/ tree, clang): everything instrumented for libFuzzer's coverage and
# checked by ASan + UBSan; cmake/NndnaFuzz.cmake links the fuzz programs with libFuzzer's main.
if(NNDNA_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "NNDNA_FUZZ needs clang (libFuzzer): configure with CXX=clang++-16 (scripts/build.sh fuzz)")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()

if(NNDNA_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()

# Warnings for the project's own code (not for third-party headers, which come in as SYSTEM).
add_library(nndna_warnings INTERFACE)
# Options structs are filled with designated initializers that leave fields out on purpose.
target_compile_options(nndna_warnings INTERFACE -Wall -Wextra -Werror -Wno-missing-field-initializers)
