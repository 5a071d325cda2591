# Fuzzing with libFuzzer (clang; the build-fuzz/ tree of scripts/build.sh fuzz, configured with
# NNDNA_FUZZ=ON). docs/fuzzing.md says how to add a target; in short, one line in
# tests/fuzz/CMakeLists.txt:
#
#   nndna_add_fuzz_target(NAME [LIBS lib...] [SEED_GENERATOR program [arg...]] [DICT file])
#
# builds tests/fuzz/NAME_fuzz.cpp (it defines LLVMFuzzerTestOneInput) into the program
# NAME_fuzz, linked with libnndna and LIBS, and registers the CTest test fuzz.NAME (label
# "fuzz"), which runs it for NNDNA_FUZZ_SECONDS on its corpus: the committed seeds of
# tests/fuzz/corpus/NAME/ (when the folder exists), the seeds SEED_GENERATOR writes (it is run
# as `program [arg...] DIR` at build time), and what earlier runs found
# (build-fuzz/fuzz/NAME/corpus).
# DICT is a libFuzzer dictionary (a file in tests/fuzz/, or one SEED_GENERATOR writes as
# DIR/../NAME.dict when DICT is "generated").
set(NNDNA_FUZZ_SECONDS 20 CACHE STRING "How long `ctest -L fuzz` runs each fuzz target")

if(NNDNA_FUZZ)
  add_custom_target(nndna_fuzz_targets)
endif()

function(nndna_add_fuzz_target name)
  cmake_parse_arguments(FUZZ "" "DICT" "LIBS;SEED_GENERATOR" ${ARGN})
  set(program ${name}_fuzz)
  add_executable(${program} ${CMAKE_CURRENT_SOURCE_DIR}/${name}_fuzz.cpp)
  target_link_libraries(${program} PRIVATE nndna ${FUZZ_LIBS} nndna_warnings)
  target_include_directories(${program} PRIVATE ${PROJECT_SOURCE_DIR}/src)
  target_link_options(${program} PRIVATE -fsanitize=fuzzer)

  set(work ${CMAKE_BINARY_DIR}/fuzz/${name})
  set(seeds ${work}/seeds)
  set(dependencies ${program})
  if(FUZZ_SEED_GENERATOR)
    list(POP_FRONT FUZZ_SEED_GENERATOR generator)
    add_custom_command(OUTPUT ${work}/seeds.stamp
      COMMAND ${CMAKE_COMMAND} -E rm -rf ${seeds}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${seeds}
      COMMAND $<TARGET_FILE:${generator}> ${FUZZ_SEED_GENERATOR} ${seeds}
      COMMAND ${CMAKE_COMMAND} -E touch ${work}/seeds.stamp
      DEPENDS ${generator}
      COMMENT "Seed corpus of the ${name} fuzz target")
    add_custom_target(${program}_seeds DEPENDS ${work}/seeds.stamp)
    list(APPEND dependencies ${program}_seeds)
  endif()
  add_dependencies(nndna_fuzz_targets ${dependencies})

  set(corpora ${work}/corpus ${seeds})
  if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/corpus/${name})
    list(APPEND corpora ${CMAKE_CURRENT_SOURCE_DIR}/corpus/${name})
  endif()
  set(dict "")
  if(FUZZ_DICT STREQUAL "generated")
    set(dict ${work}/${name}.dict)
  elseif(FUZZ_DICT)
    set(dict ${CMAKE_CURRENT_SOURCE_DIR}/${FUZZ_DICT})
  endif()
  add_test(NAME fuzz.${name}
    COMMAND ${PROJECT_SOURCE_DIR}/tests/fuzz/run_fuzz_target.sh $<TARGET_FILE:${program}>
            ${NNDNA_FUZZ_SECONDS} "${dict}" ${corpora})
  set_tests_properties(fuzz.${name} PROPERTIES LABELS fuzz TIMEOUT 1200)
endfunction()
