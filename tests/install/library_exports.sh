#!/bin/bash
# The shared libraries export their interface and nothing else (hidden visibility; NNDNA_API in
# include/nndna/export.hpp): a function a public header declares is in the dynamic symbol table,
# an internal one is not. And the renderer is in one library only (below).
# Usage: library_exports.sh LIBNNDNA LIBNNDNA_XRAY LIBNNDNA_RENDER
set -euo pipefail
nndna_lib=$1
xray_lib=$2
render_lib=$3

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
# The renderer's own functions (what libnndna_render.so defines as its code and exports, 'T'), not
# the inline members of its headers' types, which any user of the headers may hold a copy of.
renderer_functions=$(nm -D --defined-only -C "$render_lib" | awk '$2 == "T"' | cut -d' ' -f3- |
  grep '^nndna::render::' | sort -u || true)
[[ -n "$renderer_functions" ]] || { echo "$(basename "$render_lib") exports no nndna::render function"; exit 1; }
copies=$(comm -12 <(echo "$renderer_functions") <(nm -C "$xray_lib" | awk '$2 ~ /^[Tt]$/' | cut -d' ' -f3- | sort -u))
[[ -z "$copies" ]] || { echo "$(basename "$xray_lib") holds a copy of the renderer's code:"; echo "$copies"; exit 1; }
echo "exports as declared: $(exports "$nndna_lib" | wc -l) symbols in $(basename "$nndna_lib"), $(exports "$xray_lib" | wc -l) in $(basename "$xray_lib")"
