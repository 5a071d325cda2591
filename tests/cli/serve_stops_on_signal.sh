#!/usr/bin/env bash
# serve_stops_on_signal.sh NNDNA SIGNAL: `nndna serve` (handed over to nndna-net by exec, so the
# pid stays the one started) answers on its port, then stops on SIGNAL with exit status 0.
set -u
out="$(mktemp)"
trap 'rm -f "$out"; [[ -n "${pid:-}" ]] && kill -KILL "$pid" 2>/dev/null' EXIT
"$1" serve --port 0 --no-warm-up --quiet >"$out" 2>&1 &
pid=$!
url=""
for _ in $(seq 1 300); do  # up to 30 s for the first line, the URL
  url="$(grep -o 'http://127\.0\.0\.1:[0-9]*/' "$out" | head -1)"
  [[ -n "$url" ]] && break
  kill -0 "$pid" 2>/dev/null || { echo "FAIL: serve exited before listening:"; cat "$out"; exit 1; }
  sleep 0.1
done
[[ -n "$url" ]] || { echo "FAIL: no URL printed:"; cat "$out"; exit 1; }
port="${url#http://127.0.0.1:}"
port="${port%/}"
# GET /api/health over bash's own TCP (no HTTP client needed): HTTP/1.0, so the server closes.
exec 3<>"/dev/tcp/127.0.0.1/$port" || { echo "FAIL: cannot connect to port $port"; exit 1; }
printf 'GET /api/health HTTP/1.0\r\nHost: 127.0.0.1:%s\r\n\r\n' "$port" >&3
answer="$(timeout 10 cat <&3)"
exec 3<&-
grep -q '^HTTP/1\.[01] 200' <<<"$answer" || { echo "FAIL: GET /api/health answered:"; echo "$answer"; exit 1; }
kill "-$2" "$pid"
for _ in $(seq 1 100); do  # up to 10 s to stop
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.1
done
if kill -0 "$pid" 2>/dev/null; then echo "FAIL: still running 10 s after SIG$2"; exit 1; fi
wait "$pid"
status=$?
pid=""
[[ $status -eq 0 ]] || { echo "FAIL: exit status $status after SIG$2"; cat "$out"; exit 1; }
echo "serve at $url stopped on SIG$2 with status 0"
