# nndna_embed_files(<target> NAMESPACE <ns> FUNCTION <fn> FILES <file>...)
#
# Adds to <target> a generated source defining
#   std::span<const nndna::EmbeddedFile> <ns>::<fn>();
# (src/embedded_file.hpp): each file's base name and its bytes, built into the binary with the
# assembler's .incbin, so a document, a spec or a large generated file (the web app's bundle)
# ships inside the binary at no compile time.
# The generated source names each file's SHA-256: it changes whenever a file does, so the build
# and ccache (which does not see .incbin's input) recompile it.
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
    COMMENT "Embedding ${EMBED_FUNCTION}"
    VERBATIM)
  target_sources(${target} PRIVATE ${output})
  set_source_files_properties(${output} PROPERTIES OBJECT_DEPENDS "${absolute}")
endfunction()
