#!/bin/bash
# The shared libraries export their interface and nothing else (hidden visibility; NNDNA_API in
# include/nndna/export.hpp): a function a public header declares is in the dynamic symbol table,
# an internal one is not. Usage: library_exports.sh LIBNNDNA LIBNNDNA_XRAY
set -euo pipefail
nndna_lib=$1
xray_lib=$2

exports() {  # the demangled names of a library's defined dynamic symbols
  nm -D --defined-only -C "$1" | cut -d' ' -f3-
}
defines() {  # SYMBOLS NAME: NAME is a function among the symbols (a std::string result adds [abi:cxx11])
  grep -qE "^$2(\[abi:cxx11\])?\(" <<<"$1"
}
expect_exported() {  # LIBRARY NAME SYMBOLS: a function of the public headers
  defines "$3" "$2" || { echo "$(basename "$1") does not export $2"; exit 1; }
}
expect_hidden() {  # LIBRARY NAME SYMBOLS: an internal function
  if defines "$3" "$2"; then echo "$(basename "$1") exports the internal $2"; exit 1; fi
}

symbols=$(exports "$nndna_lib")
expect_exported "$nndna_lib" "nndna::ir::tracedModelFromJson" "$symbols"   # include/nndna/ir_json.hpp
expect_exported "$nndna_lib" "nndna::traceModel" "$symbols"                # include/nndna/trace.hpp
expect_exported "$nndna_lib" "nndna::matmul" "$symbols"                    # include/nndna/nndna.hpp
# Exported for in-tree tests that link the shared library (marked NNDNA_API where declared).
expect_exported "$nndna_lib" "nndna::ir::hasShapeRule" "$symbols"
expect_exported "$nndna_lib" "nndna::ir::inferOutput" "$symbols"           # tests/core/rule_names_test.cpp
expect_exported "$nndna_lib" "nndna::ir::parseDimName" "$symbols"          # src/ir/dim_names.hpp (the diagram)
expect_hidden "$nndna_lib" "nndna::ir::arityProblem" "$symbols"            # src/ir/shape_rules.hpp
expect_hidden "$nndna_lib" "nndna::grad::sqrtAdjoint" "$symbols"           # src/grad/rules.hpp
expect_hidden "$nndna_lib" "nndna::tracing::walkReturnAddresses" "$symbols" # src/trace/callsite.hpp

symbols=$(exports "$xray_lib")
expect_exported "$xray_lib" "nndna::xray::readTraceJson" "$symbols"
expect_exported "$xray_lib" "nndna::xray::toHtml" "$symbols"
expect_hidden "$xray_lib" "nndna::xray::detail::groupCalls" "$symbols"     # src/xray/call_graph.hpp
expect_hidden "$xray_lib" "nndna::xray::detail::formatMs" "$symbols"
# One renderer per process (src/render/CMakeLists.txt): xray loads libnndna_render.so and holds
# no copy of its code (a second copy would have a second Graphviz lock).
readelf -d "$xray_lib" | grep -q 'NEEDED.*\[libnndna_render\.so\.0\]' ||
  { echo "$(basename "$xray_lib") does not load libnndna_render.so.0"; exit 1; }
render_functions=$(nm -C "$xray_lib" | grep -cE ' [TtWw] nndna::render::' || true)
[[ "$render_functions" == 0 ]] ||
  { echo "$(basename "$xray_lib") holds a copy of the renderer's code ($render_functions functions)"; exit 1; }
echo "exports as declared: $(exports "$nndna_lib" | wc -l) symbols in $(basename "$nndna_lib"), $(exports "$xray_lib" | wc -l) in $(basename "$xray_lib")"
