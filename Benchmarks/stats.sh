#!/usr/bin/env bash
# The statistics benchmark: one link with 10 million visits over 90 days (SQLite, written
# through the store with their counters), its report asked for 30 times; beside it, the time of
# one GROUP BY over the same link's raw visits (what statistics would cost without counters).
#
# Usage: Benchmarks/stats.sh [visits]   (default 10,000,000; seeding takes a few minutes)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
visits=${1:-10000000}
swift build -c release --package-path "$here" --product StatsQuery >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$here/.build/release/StatsQuery" "$visits" "$work/ferry.sqlite"
python3 - "$work/ferry.sqlite" <<'PY'
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1])
began = time.perf_counter()
rows = db.execute("SELECT platform, count(*) FROM visits WHERE domain = 'go.bench.example' AND code = 'big' GROUP BY platform").fetchall()
print(f"baseline, one GROUP BY over the raw visits of the link: {(time.perf_counter() - began) * 1000:.0f} ms ({sum(n for _, n in rows)} visits)")
PY
