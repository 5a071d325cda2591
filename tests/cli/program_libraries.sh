#!/usr/bin/env bash
# program_libraries.sh NNDNA NNDNA_NET: what each program loads at start. `nndna` loads none of the
# network libraries (libcurl, cpp-httplib, OpenSSL: nndna-net's), none of nndna's own libraries,
# fmt or libstdc++, which it has linked in (src/cli/CMakeLists.txt), and neither Graphviz nor
# elfutils, which it loads when it first lays out or resolves a call site (cmake/Dependencies.cmake);
# nndna-net loads the network and nndna's libraries (so the checks can see them when they are
# there). Both are linked with -z now. And `nndna` exports the one function of nndna's that
# interposes a library's: Graphviz's SVG plugin finds gvprintdouble in it (docs/diagram.md).
set -u
nndna_libs="$(ldd "$1")" || { echo "ldd $1 failed"; exit 1; }
net_libs="$(ldd "$2")" || { echo "ldd $2 failed"; exit 1; }
status=0
for kind in network linked-in loaded-when-needed; do
  case "$kind" in
    network) libs='lib(curl|cpp-httplib|ssl|crypto)\.so'; expected=(libcurl libcpp-httplib libssl) ;;
    linked-in) libs='lib(stdc\+\+|nndna|nndna_render|nndna_xray|fmt)\.so'; expected=('libstdc\+\+' libnndna libfmt) ;;
    loaded-when-needed) libs='lib(gvc|cgraph|cdt|pathplan|ltdl|dw|elf)[.-]'; expected=() ;;
  esac
  if grep -E "$libs" <<<"$nndna_libs"; then
    echo "FAIL: $1 loads the $kind libraries above"; status=1
  fi
  for lib in "${expected[@]}"; do
    grep -Eq "$lib\.so" <<<"$net_libs" || { echo "FAIL: $2 does not load $lib:"; echo "$net_libs"; status=1; }
  done
done
# Both bind every symbol at start (-z now, src/cli/CMakeLists.txt): full RELRO.
for program in "$1" "$2"; do
  readelf -d "$program" | grep -Eq 'FLAGS_1.*Flags:.* NOW' || { echo "FAIL: $program is not linked with -z now"; status=1; }
done
readelf --dyn-syms -W "$1" | grep -Eq ' FUNC +GLOBAL +DEFAULT +[0-9]+ gvprintdouble$' ||
  { echo "FAIL: $1 does not export gvprintdouble (Graphviz would write SVG numbers with its own)"; status=1; }
[[ $status == 0 ]] && echo "nndna loads $(wc -l <<<"$nndna_libs") libraries, nndna-net $(wc -l <<<"$net_libs")"
exit $status
