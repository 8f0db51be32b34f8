#!/usr/bin/env bash
# The redirect benchmark: a release `ferry serve` (SQLite, 10,000 links, iPhone Safari, links
# that send straight to the App Store, visits recorded) against a bare Hummingbird server that
# answers every request with a fixed 302, both measured with wrk in this run on 127.0.0.1.
# After a graceful stop, the visits in the database must equal Ferry's own count of answered
# link requests and be no fewer than the responses wrk received.
#
# The two servers are measured in turns (Ferry, bare, Ferry, bare, …) and the median of the
# rounds is reported, so a slow moment of this shared machine does not decide the ratio. The
# ratio of each Ferry round to the bare round right after it is reported too, with its median:
# when the machine's speed drifts during the run, rounds next to each other compare fairest.
# CPU time per request, by kind of thread (from /proc), shows where each server spends it.
#
# Usage: Benchmarks/redirect.sh [seconds] [connections] [rounds]   (defaults: 10 s, 32 connections, 3 rounds)
#
# On PostgreSQL instead of SQLite: FERRY_BENCH_POSTGRES=1 scripts/with-postgres Benchmarks/redirect.sh
# (a fresh database in the run's throwaway cluster).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
seconds=${1:-10}
connections=${2:-32}
rounds=${3:-3}
command -v wrk >/dev/null || "$root/scripts/install-test-deps"

swift build -c release --package-path "$root" --product ferry >/dev/null
swift build -c release --package-path "$here" --product BareRedirect >/dev/null
ferry="$root/.build/release/ferry"
bare="$here/.build/release/BareRedirect"

work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
database="$work/ferry.sqlite"
store="SQLite"
if [ -n "${FERRY_BENCH_POSTGRES:-}" ]; then
  [ -n "${FERRY_TEST_POSTGRES_URL:-}" ] || { echo "run it through scripts/with-postgres" >&2; exit 2; }
  psql_bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)/psql
  "$psql_bin" -q "$FERRY_TEST_POSTGRES_URL" -c "CREATE DATABASE ferry_bench_$$"
  database="${FERRY_TEST_POSTGRES_URL/\/ferry_test/\/ferry_bench_$$}"
  store="PostgreSQL"
  export FERRY_SECRET=benchmark-secret-benchmark-secret
fi
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

# CPU time (clock ticks) of a process's threads by kind: event loops, Swift tasks, the SQLite
# visit writer, other.
threads() {
  for task in /proc/"$1"/task/*; do
    stat=$(cat "$task/stat" 2>/dev/null) || continue
    fields=(${stat##*) })
    case $(cat "$task/comm" 2>/dev/null) in
      NIO-SGLTN-*) kind="event-loops" ;; TP-#*) kind="visit-writer" ;; *qos*) kind="swift-tasks" ;; *) kind="other" ;;
    esac
    echo "$kind $((fields[11] + fields[12]))"
  done | awk '{ ticks[$1] += $2 } END { for (kind in ticks) print kind, ticks[kind] }'
}

measure() {  # port pid label → wrk's summary in $work/$label.txt, CPU by thread kind in $work/$label.cpu
  threads "$2" > "$work/$3.cpu0"
  wrk -t1 -c"$connections" -d"${seconds}s" --latency -s "$work/clicks.lua" "http://127.0.0.1:$1" > "$work/$3.txt"
  threads "$2" | sort | join <(sort "$work/$3.cpu0") - | awk '{ print $1, $3 - $2 }' > "$work/$3.cpu"
}

# Both servers up; the idle one costs nothing.
"$ferry" link list --database "$database" >/dev/null                      # creates and migrates
port=$((20000 + RANDOM % 20000))
"$ferry" serve --demo --port "$port" --database "$database" --log-level warning > "$work/ferry.log" 2>&1 &
ferry_pid=$!
wait_ready "$port"
"$ferry" link create --file "$work/links.json" --database "$database" >/dev/null
bare_port=$((port + 1))
"$bare" "$bare_port" > "$work/bare.log" 2>&1 &
bare_pid=$!
wait_ready "$bare_port"

# Warm-up: every link into Ferry's cache, both servers' connections and code paths exercised.
wrk -t1 -c"$connections" -d3s -s "$work/clicks.lua" "http://127.0.0.1:$port" > "$work/ferry-warm.txt"
wrk -t1 -c"$connections" -d3s -s "$work/clicks.lua" "http://127.0.0.1:$bare_port" > /dev/null
for round in $(seq 1 "$rounds"); do
  measure "$port" "$ferry_pid" "ferry-$round"
  measure "$bare_port" "$bare_pid" "bare-$round"
done
answered=$(curl -s "http://127.0.0.1:$port/metrics" | awk '/^ferry_decisions_total/ { sum += $2 } END { print sum }')
kill -TERM "$ferry_pid"; wait "$ferry_pid"; ferry_exit=$?
kill -TERM "$bare_pid"; wait "$bare_pid" || true
if [ "$store" = PostgreSQL ]; then
  visits=$("$psql_bin" -tA "$database" -c "select count(*) from visits")
else
  visits=$(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('select count(*) from visits').fetchone()[0])" "$database")
fi

rps() { awk '/Requests\/sec/ { print $2 }' "$work/$1.txt"; }
p() { awk -v q="$2" '$1 == q { v = $2; if (v ~ /ms$/) { sub(/ms$/, "", v); v *= 1000 } else if (v ~ /us$/) { sub(/us$/, "", v) } else if (v ~ /s$/) { sub(/s$/, "", v); v *= 1000000 }; print v }' "$work/$1.txt"; }
total() { awk '/requests in/ { print $1 }' "$work/$1.txt"; }
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
each() { for round in $(seq 1 "$rounds"); do "$2" "$1-$round" ${3:-}; done; }

echo "wrk -t1 -c$connections -d${seconds}s, $rounds rounds in turns, 10,000 links, iPhone Safari → App Store 302"
printf "%-24s %12s %10s %10s   %s\n" "" "requests/s" "p50 (µs)" "p99 (µs)" "per round: requests/s, p99 (µs)"
for label in bare ferry; do
  name=$([ "$label" = bare ] && echo "bare Hummingbird 302" || echo "ferry serve ($store)")
  printf "%-24s %12s %10s %10s   %s\n" "$name" "$(each $label rps | median)" "$(each $label p 50% | median)" \
    "$(each $label p 99% | median)" "$(paste -d, <(each $label rps) <(each $label p 99%) | tr '\n' ' ')"
done
ferry_median=$(each ferry rps | median); bare_median=$(each bare rps | median)
awk -v f="$ferry_median" -v b="$bare_median" 'BEGIN { printf "ratio ferry / bare (medians): %.2f (goal >= 0.85)\n", f / b }'
pairs=$(paste <(each ferry rps) <(each bare rps) | awk '{ printf "%.2f\n", $1 / $2 }')
echo "ratio per round (each Ferry round / the bare round after it): $(echo "$pairs" | tr '\n' ' ')-> median $(echo "$pairs" | median)"
awk -v p="$(each ferry p 99% | median)" 'BEGIN { printf "ferry p99: %.2f ms (goal < 3 ms)\n", p / 1000 }'
ticks=$(getconf CLK_TCK)
for label in bare ferry; do
  requests=0; for round in $(seq 1 "$rounds"); do requests=$((requests + $(total "$label-$round"))); done
  cat "$work/$label"-[0-9]*.cpu | awk -v n="$requests" -v hz="$ticks" -v who="$label" '
    { ticks[$1] += $2; all += $2 }
    END { printf "CPU per request, %s (µs): %.1f —", who, all / hz / n * 1e6
          split("event-loops swift-tasks visit-writer other", kinds, " ")
          for (i = 1; i <= 4; i++) if (ticks[kinds[i]] > 0) printf " %s %.1f", kinds[i], ticks[kinds[i]] / hz / n * 1e6; print "" }'
done
wrk_all=$(total ferry-warm)
for round in $(seq 1 "$rounds"); do wrk_all=$((wrk_all + $(total "ferry-$round"))); done
echo "ferry answered $answered link requests (its metrics, warm-up included); $visits visits in the database after SIGTERM (exit $ferry_exit)"
[ "$visits" -eq "$answered" ] && echo "visits == answered: yes" || echo "visits == answered: NO"
[ "$visits" -ge "$wrk_all" ] && echo "visits >= responses wrk received ($wrk_all, warm-up included): yes" \
  || echo "visits >= responses wrk received ($wrk_all, warm-up included): NO"
for round in $(seq 1 "$rounds"); do grep -E "Socket errors|Non-2xx" "$work/ferry-$round.txt" | sed "s/^/round $round: /" || true; done
grep -E "warning|error" "$work/ferry.log" | sort | uniq -c | sort -rn | head -5 || true
