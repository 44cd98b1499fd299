#!/bin/sh
# Runs the benchmarks and prints their figures. Benchmarks report, they do
# not assert: each prints lines "name: value unit (target ...)".
# `run.sh` runs the speed and memory benches; `run.sh --evidence` runs the
# instruments named in tests/bench/evidence.list instead (minutes of CPU,
# no targets: their figures are read against docs/paper-figures.md).
cd "$(dirname "$0")/../.." || exit 2
evidence=0
[ "$1" = "--evidence" ] && evidence=1
listed() {
	grep -qx "$1" tests/bench/evidence.list
}
for b in build/bench/bench_*; do
	[ -x "$b" ] || continue
	if listed "$(basename "$b")"; then
		[ $evidence = 1 ] || continue
	else
		[ $evidence = 0 ] || continue
	fi
	echo "=== $b"
	"$b"
done
for s in tests/bench/bench_*.sh tests/bench/bench_*.py tests/bench/bench_*.mjs; do
	[ -f "$s" ] || continue
	if listed "$(basename "$s")"; then
		[ $evidence = 1 ] || continue
	else
		[ $evidence = 0 ] || continue
	fi
	echo "=== $s"
	case "$s" in
	*.sh) sh "$s" ;;
	*.py) python3 "$s" ;;
	*.mjs) node "$s" ;;
	esac
done
