# Model specs are compiled the way `nndna diagram` compiles them: without optimisation and with
# frame pointers and line/column debug information, so call sites resolve to the user's lines.
# Specs fill nndna::Spec with designated initializers and leave optional fields out, which g++ 12's
# -Wextra reports as missing initializers.
set(NNDNA_SPEC_COMPILE_OPTIONS -O0 -g -fno-omit-frame-pointer -Wno-missing-field-initializers)

# nndna_add_specs(<target> <spec.cpp>...): an object library of specs. Object libraries keep
# every object when linked, so NNDNA_SPEC's static registration is never dropped.
function(nndna_add_specs target)
  add_library(${target} OBJECT ${ARGN})
  target_link_libraries(${target} PUBLIC ${NNDNA_LIB} PRIVATE nndna_warnings)
  set_source_files_properties(${ARGN} TARGET_DIRECTORY ${target}
    PROPERTIES COMPILE_OPTIONS "${NNDNA_SPEC_COMPILE_OPTIONS}")
endfunction()
