#!/bin/sh
# HTTP benchmark through nginx: GET /api/health and an authenticated JSON
# endpoint (GET /api/me) with wrk, 64 connections, 10 s each; then the
# resident memory of each FastCGI worker. Prints figures; asserts nothing.
# Targets (2-core machine): >= 5,000 requests/s, p99 < 20 ms, < 16 MB RSS.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DATA=$(mktemp -d /tmp/fishscale-bench-XXXXXX)
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
export FISHSCALE_ROOT="$ROOT" FISHSCALE_DATA_DIR="$DATA" FISHSCALE_PORT="$PORT"
trap 'sh "$ROOT/tools/stop.sh" --data "$DATA" >/dev/null; rm -rf "$DATA"' EXIT
sh "$ROOT/tools/run.sh" --detach >/dev/null
B="http://127.0.0.1:$PORT"
PW=$(sed -n 's/^password: //p' "$DATA/admin-password.txt")
JAR="$DATA/cookies"
TOK=$(curl -s -c "$JAR" "$B/login" | sed -n 's/.*name="csrf_token" value="\([0-9a-f]*\)".*/\1/p' | head -n 1)
curl -s -b "$JAR" -c "$JAR" -o /dev/null -d "csrf_token=$TOK&login=admin&password=$PW" "$B/login"
SESSION=$(awk '$6 == "fs_session" {print $7}' "$JAR")

run_wrk() {
	name=$1
	shift
	out=$(wrk -t2 -c64 -d10s --latency "$@")
	rps=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
	p50=$(echo "$out" | awk '$1 == "50%" {print $2}')
	p99=$(echo "$out" | awk '$1 == "99%" {print $2}')
	errs=$(echo "$out" | awk '/Non-2xx|Socket errors/ {print}' | tr '\n' ' ')
	echo "$name: $rps requests/s, p50 $p50, p99 $p99 (target >= 5000/s, p99 < 20ms) $errs"
}
run_wrk "GET /api/health" "$B/api/health"
run_wrk "GET /api/me (authenticated)" -H "Cookie: fs_session=$SESSION" "$B/api/me"
MASTER=$(cat "$DATA/run/fcgi.pid")
for pid in $(pgrep -P "$MASTER"); do
	rss=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status")
	echo "FastCGI worker $pid resident memory: $((rss / 1024)).$(( (rss % 1024) * 10 / 1024 )) MB (target < 16 MB)"
done
