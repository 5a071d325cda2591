#!/usr/bin/env bash
# serve_stops_during_layout.sh NNDNA: `nndna serve --stop-grace 0`, asked for a diagram whose
# layout takes seconds (an input added after each of 450 activations: 901 boxes, laid out in
# bands), gets SIGTERM once the layout has started. A Graphviz layout cannot be interrupted, so
# the server must end without waiting for it: within 1.5 s, status 0, saying it abandoned one.
set -u
dir="$(mktemp -d)"
trap 'rm -rf "$dir"; [[ -n "${pid:-}" ]] && kill -KILL "$pid" 2>/dev/null' EXIT
spec="$dir/model.cpp"
{
  printf '#include <nndna/nndna.hpp>\nusing namespace nndna;\nnamespace {\n'
  printf 'struct Net : Module {\n  Linear proj{"proj", 8, 8};\n};\n'
  printf 'Tensor lossFn(Net& m, const Inputs& in) {\n  Tensor x = m.proj(in["x"]);\n  Tensor bias = in["bias"];\n'
  for _ in $(seq 1 450); do printf '  x = gelu(x);\n  x = add(x, bias);\n'; done
  printf '  return mean(x);\n}\n}  // namespace\n'
  printf 'NNDNA_SPEC(Net) { return {.label = "fan-out", .loss = lossFn, .inputs = {{"x", {4, 8}}, {"bias", {4, 8}}}, .optimizer = Adam{}}; }\n'
} >"$spec"
"$1" serve --port 0 --no-warm-up --quiet --stop-grace 0 --cache-dir "$dir/cache" >"$dir/out" 2>"$dir/err" &
pid=$!
url=""
for _ in $(seq 1 300); do  # up to 30 s for the first line, the URL
  url="$(grep -o 'http://127\.0\.0\.1:[0-9]*/' "$dir/out" | head -1)"
  [[ -n "$url" ]] && break
  kill -0 "$pid" 2>/dev/null || { echo "FAIL: serve exited before listening:"; cat "$dir/out" "$dir/err"; exit 1; }
  sleep 0.1
done
[[ -n "$url" ]] || { echo "FAIL: no URL printed"; exit 1; }
port="${url#http://127.0.0.1:}"
port="${port%/}"
# The spec as a JSON string: backslashes and quotes escaped, lines joined with \n.
body="{\"source\": \"$(sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' "$spec" | awk '{printf "%s\\n", $0}')\"}"
length="$(LC_ALL=C; printf '%s' "$body" | wc -c)"
exec 3<>"/dev/tcp/127.0.0.1/$port" || { echo "FAIL: cannot connect to port $port"; exit 1; }
printf 'POST /api/diagram HTTP/1.0\r\nHost: 127.0.0.1:%s\r\nContent-Type: application/json\r\nAccept: application/x-ndjson\r\nContent-Length: %s\r\n\r\n%s' \
  "$port" "$length" "$body" >&3
started=""
while IFS= read -r -t 120 line <&3; do  # compile and run first: up to 2 minutes on a cold cache
  if [[ "$line" == *'"stage":"layout","state":"start"'* ]]; then started=yes; break; fi
  if [[ "$line" == *'"type":"result"'* || "$line" == *'"ok":false'* ]]; then echo "FAIL: answered before the layout: $line"; exit 1; fi
done
[[ -n "$started" ]] || { echo "FAIL: the layout never started"; cat "$dir/err"; exit 1; }
kill -TERM "$pid"
stopped=""
for _ in $(seq 1 15); do  # 1.5 s
  kill -0 "$pid" 2>/dev/null || { stopped=yes; break; }
  sleep 0.1
done
[[ -n "$stopped" ]] || { echo "FAIL: still running 1.5 s after SIGTERM during a layout"; exit 1; }
wait "$pid"
status=$?
pid=""
exec 3<&-
[[ $status -eq 0 ]] || { echo "FAIL: exit status $status"; cat "$dir/err"; exit 1; }
grep -q 'a layout still running was abandoned' "$dir/err" || { echo "FAIL: nothing said of the layout:"; cat "$dir/err"; exit 1; }
echo "serve stopped on SIGTERM during a layout, without waiting for it"
