# nndna_embed_files(<target> NAMESPACE <ns> FUNCTION <fn> FILES <file>...)
#
# Adds to <target> a generated source that defines
#   std::span<const nndna::EmbeddedFile> <ns>::<fn>();
# (include/.. src/embedded_file.hpp) holding each file's base name and its bytes, so that a
# document or a spec file kept in the source tree ships inside the binary. The source is
# regenerated whenever one of the files changes.
set(NNDNA_EMBED_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/embed_files_script.cmake)

function(nndna_embed_files target)
  cmake_parse_arguments(EMBED "" "NAMESPACE;FUNCTION" "FILES" ${ARGN})
  if(NOT EMBED_NAMESPACE OR NOT EMBED_FUNCTION OR NOT EMBED_FILES)
    message(FATAL_ERROR "nndna_embed_files: NAMESPACE, FUNCTION and FILES are required")
  endif()
  set(output ${CMAKE_CURRENT_BINARY_DIR}/embedded_${EMBED_FUNCTION}.cpp)
  set(absolute)
  foreach(file ${EMBED_FILES})
    get_filename_component(path ${file} ABSOLUTE)
    list(APPEND absolute ${path})
  endforeach()
  string(REPLACE ";" "|" joined "${absolute}")
  add_custom_command(
    OUTPUT ${output}
    COMMAND ${CMAKE_COMMAND} -DOUTPUT=${output} -DNAMESPACE=${EMBED_NAMESPACE}
            -DFUNCTION=${EMBED_FUNCTION} "-DFILES=${joined}" -P ${NNDNA_EMBED_SCRIPT}
    DEPENDS ${absolute} ${NNDNA_EMBED_SCRIPT}
    COMMENT "Embedding ${EMBED_FUNCTION}: ${EMBED_FILES}"
    VERBATIM)
  target_sources(${target} PRIVATE ${output})
endfunction()
