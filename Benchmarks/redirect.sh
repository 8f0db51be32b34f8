#!/usr/bin/env bash
# The redirect benchmark: a release `ferry serve` (SQLite, 10,000 links, iPhone Safari, links
# that send straight to the App Store, visits recorded) against a bare Hummingbird server that
# answers every request with a fixed 302, both measured with wrk in this run on 127.0.0.1.
# After a graceful stop, the visits in the database must equal Ferry's own count of answered
# link requests and be no fewer than the responses wrk received.
#
# Usage: Benchmarks/redirect.sh [seconds] [connections]      (defaults: 10 s, 32 connections)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
seconds=${1:-10}
connections=${2:-32}
command -v wrk >/dev/null || "$root/scripts/install-test-deps"

swift build -c release --package-path "$root" --product ferry >/dev/null
swift build -c release --package-path "$here" --product BareRedirect >/dev/null
ferry="$root/.build/release/ferry"
bare="$here/.build/release/BareRedirect"

work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
database="$work/ferry.sqlite"
python3 - "$work/links.json" <<'PY'
import json, sys
links = [{"code": f"c{i}", "domain": "go.demo.ferry.test", "path": f"/u/{i}", "previewPage": "never",
          "tags": {"campaign": "bench"}} for i in range(1, 10001)]
json.dump({"links": links}, open(sys.argv[1], "w"))
PY
cat > "$work/clicks.lua" <<'LUA'
local ua = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1"
math.randomseed(42)
request = function()
  return wrk.format("GET", "/c" .. math.random(1, 10000), { ["Host"] = "go.demo.ferry.test", ["User-Agent"] = ua })
end
LUA

wait_ready() {
  for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$1/healthz" >/dev/null 2>&1 && return 0
    curl -s -o /dev/null "http://127.0.0.1:$1/" 2>/dev/null && return 0; sleep 0.1; done
  echo "server on port $1 did not start" >&2; exit 1
}

measure() {  # port label → prints wrk's summary into $work/$label.txt
  wrk -t1 -c"$connections" -d3s -s "$work/clicks.lua" "http://127.0.0.1:$1" > "$work/$2-warm.txt"  # warm-up
  wrk -t1 -c"$connections" -d"${seconds}s" --latency -s "$work/clicks.lua" "http://127.0.0.1:$1" > "$work/$2.txt"
}

# Ferry
"$ferry" link list --database "$database" >/dev/null                      # creates and migrates
port=$((20000 + RANDOM % 20000))
"$ferry" serve --demo --port "$port" --database "$database" --log-level error > "$work/ferry.log" 2>&1 &
ferry_pid=$!
wait_ready "$port"
"$ferry" link create --file "$work/links.json" --database "$database" >/dev/null
measure "$port" ferry
answered=$(curl -s "http://127.0.0.1:$port/metrics" | awk '/^ferry_decisions_total/ { sum += $2 } END { print sum }')
kill -TERM "$ferry_pid"; wait "$ferry_pid"; ferry_exit=$?
visits=$(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('select count(*) from visits').fetchone()[0])" "$database")

# The bare server
bare_port=$((port + 1))
"$bare" "$bare_port" > "$work/bare.log" 2>&1 &
bare_pid=$!
wait_ready "$bare_port"
measure "$bare_port" bare
kill -TERM "$bare_pid"; wait "$bare_pid" || true

rps() { awk '/Requests\/sec/ { print $2 }' "$work/$1.txt"; }
p() { awk -v q="$2" '$1 == q { print $2 }' "$work/$1.txt"; }
total() { awk '/requests in/ { print $1 }' "$work/$1.txt"; }
errors() { awk '/Non-2xx|Socket errors/ { print }' "$work/$1.txt" | grep -v "Non-2xx" || true; }
ferry_total=$(( $(total ferry) ))
wrk_all=$(( $(total ferry-warm) + ferry_total ))
echo "wrk -t1 -c$connections -d${seconds}s, 10,000 links, iPhone Safari → App Store 302"
printf "%-24s %12s %10s %10s %10s\n" "" "requests/s" "p50" "p99" "responses"
printf "%-24s %12s %10s %10s %10s\n" "bare Hummingbird 302" "$(rps bare)" "$(p bare 50%)" "$(p bare 99%)" "$(total bare)"
printf "%-24s %12s %10s %10s %10s\n" "ferry serve (SQLite)" "$(rps ferry)" "$(p ferry 50%)" "$(p ferry 99%)" "$ferry_total"
awk -v f="$(rps ferry)" -v b="$(rps bare)" 'BEGIN { printf "ratio ferry / bare: %.2f (goal >= 0.85)\n", f / b }'
echo "ferry answered $answered link requests (its metrics, warm-up included); $visits visits in the database after SIGTERM (exit $ferry_exit)"
[ "$visits" -eq "$answered" ] && echo "visits == answered: yes" || echo "visits == answered: NO"
[ "$visits" -ge "$wrk_all" ] && echo "visits >= responses wrk received ($wrk_all, warm-up included): yes" \
  || echo "visits >= responses wrk received ($wrk_all, warm-up included): NO"
errors ferry
