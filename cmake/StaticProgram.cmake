# The `nndna` command links nndna's own libraries, fmt and libstdc++ statically (except in
# sanitizer builds); every other program, the tests and the spec programs link the shared
# libraries (src/cli/CMakeLists.txt says why, docs/specrun.md "The command as a process" what it
# changed).
#
# The static libraries in between (nndna_diagram, nndna_specrun, nndna_cli_common, the built-in
# specs) serve both: they name their dependencies on libnndna, the renderer and fmt through the
# variables below, which a program whose property NNDNA_STATIC is ON resolves to the static
# copies, and every other target to the shared libraries. (A usage requirement's
# $<TARGET_PROPERTY:prop> is the consuming program's.)
set(nndna_links_static "$<BOOL:$<TARGET_PROPERTY:NNDNA_STATIC>>")
set(NNDNA_LIB "$<IF:${nndna_links_static},nndna_static,nndna>")
set(NNDNA_RENDER_LIB "$<IF:${nndna_links_static},nndna_render_static,nndna_render>")
set(NNDNA_FMT_LIB "$<IF:${nndna_links_static},nndna_fmt_static,fmt::fmt>")
