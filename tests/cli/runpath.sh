#!/usr/bin/env bash
# runpath.sh NNDNA FILE...: no program or library nndna builds searches the current directory
# for the libraries it loads (cmake/BuildLayout.cmake says how that came about). Each FILE's run
# path has only absolute or $ORIGIN-relative entries, none empty (an empty entry, like '.', is the
# current directory to the dynamic loader); and NNDNA starts from a directory holding a bogus
# file under the name of every library it loads.
set -u
status=0
for file in "$@"; do
  dynamic=$(readelf -d "$file") || { echo "FAIL: readelf -d $file"; exit 1; }
  paths=$(sed -n 's/.*(R\(UN\)\?PATH).*\[\(.*\)\]$/\2/p' <<<"$dynamic")
  [[ -z "$paths" ]] && continue
  while IFS= read -r path; do
    if [[ ":$path:" == *::* ]]; then
      echo "FAIL: $file's run path '$path' has an empty entry, which is the current directory"
      status=1
    fi
    IFS=: read -r -a entries <<<"$path"
    for entry in "${entries[@]}"; do
      if [[ -n "$entry" && "$entry" != /* && "$entry" != '$ORIGIN'* ]]; then
        echo "FAIL: $file's run path '$path' has '$entry', relative to the current directory"
        status=1
      fi
    done
  done <<<"$paths"
done

decoys=$(mktemp -d) && trap 'rm -rf "$decoys"' EXIT
libraries=$(ldd "$1" | awk '/=>/ {print $1}')
[[ -n "$libraries" ]] || { echo "FAIL: ldd $1 lists no library"; exit 1; }
for library in $libraries; do echo "not a library" >"$decoys/$library"; done
if ! output=$(cd "$decoys" && "$1" --version 2>&1); then
  echo "FAIL: $1 --version, started in a directory holding bogus $(wc -w <<<"$libraries") libraries, failed:"
  echo "$output"
  status=1
fi
[[ $status == 0 ]] && echo "$# files' run paths checked; $1 starts beside $(wc -w <<<"$libraries") bogus libraries"
exit $status
