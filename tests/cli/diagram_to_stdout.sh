# `nndna diagram -o - --format F`: standard output holds the diagram alone, byte for byte what
# `-o FILE.F` writes, and the report ("wrote standard output (...)", the figures) goes to standard
# error; `nndna design -o -` and `nndna trace --json -` the same. Usage: diagram_to_stdout.sh NNDNA WORK_DIR
set -euo pipefail
nndna="$1" work="$2"
mkdir -p "$work"
failed=0
fail() { echo "FAIL: $*"; failed=1; }

for format in dot json svg html; do
  piped="$work/piped.$format" report="$work/report.$format" file="$work/file.$format"
  rm -f "$piped" "$report" "$file"
  "$nndna" diagram --example diffusion_denoiser -o - --format "$format" >"$piped" 2>"$report"
  "$nndna" diagram --example diffusion_denoiser -o "$file" >/dev/null
  cmp -s "$piped" "$file" || fail "$format: standard output differs from the file -o writes"
  grep -q '^wrote standard output ([0-9]* boxes, ' "$report" || fail "$format: no report on standard error"
  grep -q '^training: .* parameters' "$report" || fail "$format: no figures on standard error"
done
[[ "$(head -c 8 "$work/piped.dot")" == "digraph " ]] || fail "the DOT on standard output does not start with 'digraph '"
[[ "$(head -c 1 "$work/piped.json")" == "{" ]] || fail "the JSON on standard output does not start with '{'"
grep -q '</svg>' "$work/piped.svg" || fail "the SVG on standard output has no </svg>"

# --format names the format whatever the file's name says.
"$nndna" diagram --example diffusion_denoiser -o "$work/named.txt" --format dot >/dev/null
cmp -s "$work/named.txt" "$work/file.dot" || fail "--format dot with -o named.txt did not write the DOT"
# `nndna design -o -` too: the drawing alone on standard output, the spec and the session's trace
# saved, all three reported on standard error (offline, so no endpoint is asked; compiled specs cached in WORK_DIR).
"$nndna" design --offline "a tiny GPT" -o - --format dot --save "$work/tiny.cpp" --cache-dir "$work/cache" \
  --trace "$work/design.trace.json" >"$work/design.dot" 2>"$work/design.report"
[[ "$(head -c 8 "$work/design.dot")" == "digraph " ]] || fail "design: the DOT on standard output does not start with 'digraph '"
[[ "$(tail -c 2 "$work/design.dot")" == "}" ]] || fail "design: standard output does not end with the DOT's '}'"
[[ "$(grep -c '^digraph ' "$work/design.dot")" == 1 ]] || fail "design: standard output holds more than one DOT"
! grep -qE '^wrote |NNDNA_SPEC|^training: ' "$work/design.dot" || fail "design: standard output holds more than the DOT"
grep -qx "wrote $work/tiny.cpp (the spec)" "$work/design.report" || fail "design: the saved spec is not reported on standard error"
grep -q '^wrote standard output (' "$work/design.report" || fail "design: the drawing is not reported on standard error"
grep -q 'NNDNA_SPEC' "$work/tiny.cpp" || fail "design: the spec was not saved"
grep -qx "wrote $work/design.trace.json (the design session's trace)" "$work/design.report" ||
  fail "design: the trace is not reported on standard error"
# `nndna trace NAME --json -`: the IR alone on standard output, the summary on standard error,
# the same IR as --json FILE writes.
"$nndna" trace mlp_sin --json - >"$work/trace.json" 2>"$work/trace.report"
"$nndna" trace mlp_sin --json "$work/trace.file.json" >/dev/null
cmp -s "$work/trace.json" "$work/trace.file.json" || fail "trace --json -: standard output differs from --json FILE"
grep -q '^parameters: ' "$work/trace.report" || fail "trace --json -: the summary is not on standard error"
grep -qx 'wrote standard output' "$work/trace.report" || fail "trace --json -: not reported on standard error"
[[ ! -e ./- ]] || fail "a file named '-' was written"
echo "checked dot, json, svg and html on standard output, design's and trace's"
exit $failed
