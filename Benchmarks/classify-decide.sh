#!/usr/bin/env bash
# Classify + decide per request (FerryKit), release build, and the `ferry ua` throughput
# on 100,000 lines. Usage: Benchmarks/classify-decide.sh [seconds]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
testdata=$(cd "$root/../shared/testdata" && pwd)
seconds=${1:-5}

echo "== classify + decide (release)"
swift build -c release --package-path "$here" --product ClassifyDecide >/dev/null
"$here/.build/release/ClassifyDecide" "$testdata" "$seconds"

echo
echo "== ferry ua on 100,000 lines (release)"
swift build -c release --package-path "$root" --product ferry >/dev/null
lines=$(mktemp)
trap 'rm -f "$lines"' EXIT
agents=$(grep -h "user_agent_string:" "$testdata"/uap-core/*.yaml | sed "s/.*user_agent_string: //; s/^'//; s/'\$//")
while [ "$(wc -l < "$lines")" -lt 100000 ]; do printf '%s\n' "$agents" >> "$lines"; done
head -n 100000 "$lines" > "$lines.100k" && mv "$lines.100k" "$lines"
start=$(date +%s.%N)
"$root/.build/release/ferry" ua --json < "$lines" > /dev/null
end=$(date +%s.%N)
awk -v s="$start" -v e="$end" 'BEGIN { printf "ferry ua --json: 100000 lines in %.2f s (%.0f lines/s)\n", e - s, 100000 / (e - s) }'
