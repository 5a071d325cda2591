#!/bin/bash
# include/nndna/xray.hpp, which every traced file includes, stays light: the headers it pulls in
# (the compiler's own dependency list) include no fmt, no nlohmann/json and none of the heavy
# standard headers its design avoids. It must also compile on its own. bench/xray measures its
# cost in seconds. Usage: light_header.sh CXX INCLUDE_DIR
set -euo pipefail
cxx=$1
include_dir=$2
deps=$(printf '#include <nndna/xray.hpp>\nint f(int x) { XRAY_SPAN("f", {{"x", x}}); return x; }\n' |
  "$cxx" -std=c++20 -I"$include_dir" -x c++ -M -)
# Header files, one per line, without the make rule's punctuation.
files=$(tr ' \\' '\n\n' <<<"$deps" | grep -E '\.(h|hpp)$|/c\+\+/[0-9]+/[a-z_]+$' || true)
forbidden=(
  'nlohmann/'          # JSON, even json_fwd.hpp: it brings <map>, <string> and <vector>
  '/fmt/'
  '/c\+\+/[0-9]+/sstream$'
  '/c\+\+/[0-9]+/string$'
  '/bits/basic_string\.h$'  # std::string's definition (only its declaration is allowed)
  '/c\+\+/[0-9]+/vector$'
  '/c\+\+/[0-9]+/atomic$'
  '/c\+\+/[0-9]+/optional$'
  '/c\+\+/[0-9]+/memory$'
  '/c\+\+/[0-9]+/ostream$'
  '/c\+\+/[0-9]+/span$'
)
status=0
for pattern in "${forbidden[@]}"; do
  if found=$(grep -E "$pattern" <<<"$files"); then
    echo "xray.hpp pulls in $(head -1 <<<"$found") (matches '$pattern')"
    status=1
  fi
done
echo "xray.hpp depends on $(wc -l <<<"$files") headers"
exit $status
