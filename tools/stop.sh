#!/bin/sh
# Stops what tools/run.sh started for a data directory: nginx (graceful
# quit) and the FastCGI supervisor, which stops its workers.
#   tools/stop.sh [--data DIR]
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DATA=""
[ "${1:-}" = "--data" ] && DATA=$2
if [ -n "$DATA" ]; then
	export FISHSCALE_DATA_DIR="$DATA"
fi
export FISHSCALE_ROOT="$ROOT"
DATA=$("$ROOT/build/fishscale" config get data_path 2>/dev/null || echo "${DATA:-$ROOT/data}")
RUN="$DATA/run"

stop_pid() {
	file=$1
	sig=$2
	[ -f "$file" ] || return 0
	pid=$(cat "$file")
	if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
		kill "-$sig" "$pid" 2>/dev/null
		i=0
		while kill -0 "$pid" 2>/dev/null && [ $i -lt 200 ]; do
			i=$((i + 1))
			sleep 0.05
		done
		kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null
	fi
	rm -f "$file"
}
stop_pid "$RUN/nginx.pid" QUIT
stop_pid "$RUN/fcgi.pid" TERM
rm -f "$RUN/fcgi.sock"
echo "fishscale stopped ($DATA)"
