#!/bin/sh
# Runs every benchmark and prints its figures. Benchmarks report, they do not
# assert: each prints lines "name: value unit (target ...)".
cd "$(dirname "$0")/../.." || exit 2
for b in build/bench/bench_*; do
	[ -x "$b" ] || continue
	echo "=== $b"
	"$b"
done
for s in tests/bench/bench_*.sh tests/bench/bench_*.py tests/bench/bench_*.mjs; do
	[ -f "$s" ] || continue
	echo "=== $s"
	case "$s" in
	*.sh) sh "$s" ;;
	*.py) python3 "$s" ;;
	*.mjs) node "$s" ;;
	esac
done
