#!/bin/sh
# Runs every test suite (unit, unit under sanitizers, integration, browser,
# a short fuzz run) and ends with one line "N passed, N failed" summing them.
cd "$(dirname "$0")/.." || exit 2
pass=0
fail=0
# cpu FILE: the user + system time of this shell's finished children so far,
# in tenths of a second, from `times` (its second line) written to FILE by
# this shell itself (in a subshell it would see none of them)
cpu() {
	awk 'NR == 2 { split($1, u, "m"); split($2, s, "m"); sub(/s$/, "", u[2]); sub(/s$/, "", s[2])
		printf "%.0f\n", 10 * (u[1] * 60 + u[2] + s[1] * 60 + s[2]) }' "$1"
}
phases=""
suite() {
	name=$1
	shift
	echo "=== $name"
	log=$(mktemp)
	w0=$(date +%s)
	times >"$log.cpu"
	c0=$(cpu "$log.cpu")
	"$@" 2>&1 | tee "$log"
	# each phase's wall and CPU time (make test's budget; under load the
	# CPU says more; servers started detached are not counted)
	w=$(($(date +%s) - w0))
	times >"$log.cpu"
	c=$(($(cpu "$log.cpu") - c0))
	c="$((c / 10)).$((c % 10))"
	echo "$name: ${w} s wall, ${c} s cpu"
	phases="$phases $name ${w}/${c}"
	line=$(grep -E '[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
	rm -f "$log" "$log.cpu"
	p=$(echo "$line" | sed -n 's/.*\b\([0-9][0-9]*\) passed, \([0-9][0-9]*\) failed.*/\1/p')
	f=$(echo "$line" | sed -n 's/.*\b\([0-9][0-9]*\) passed, \([0-9][0-9]*\) failed.*/\2/p')
	if [ -z "$p" ]; then
		echo "$name: no result line, counted as one failure"
		p=0
		f=1
	fi
	pass=$((pass + p))
	fail=$((fail + f))
}
# The fuzz run builds each fuzzer with one serial clang and runs it on one
# core: it starts beside the unit phase, whose two workers are CPU-bound
# tests that assert no timings, and fills the core they leave idle at its
# end instead of leaving one idle for its own length after the browser
# phase. Its output is printed in its place at the end. It runs detached
# (not this shell's child, so that its CPU is not counted in the phase that
# happens to reap it) and says it has ended through a FIFO.
fuzz_log=$(mktemp)
fuzz_bg=
fuzz_beside() {
	w0=$(date +%s)
	sh tests/fuzz/run.sh 5
	times >"$fuzz_log.cpu"
	c=$(cpu "$fuzz_log.cpu")
	echo "$(($(date +%s) - w0))/$((c / 10)).$((c % 10))" >"$fuzz_log.fig"
}
if [ -f tests/fuzz/run.sh ] && mkfifo "$fuzz_log.end"; then
	( (
		fuzz_beside >"$fuzz_log" 2>&1
		echo end >"$fuzz_log.end"
	) & )
	fuzz_bg=1
fi
suite layers python3 tools/check_layers.py
suite unit sh tests/run_unit.sh build build-asan
for s in tests/integration/run.py; do
	[ -f "$s" ] && suite integration python3 "$s"
done
[ -f tests/browser/run.mjs ] && suite browser node tests/browser/run.mjs
if [ -n "$fuzz_bg" ]; then
	read -r _ <"$fuzz_log.end"
	suite fuzz cat "$fuzz_log"
	fig=$(cat "$fuzz_log.fig" 2>/dev/null)
	echo "fuzz ran beside the unit phase: ${fig%/*} s wall, ${fig#*/} s cpu"
	phases="$phases (fuzz beside unit ${fig:-?})"
elif [ -f tests/fuzz/run.sh ]; then
	suite fuzz sh tests/fuzz/run.sh 5
fi
rm -f "$fuzz_log" "$fuzz_log.cpu" "$fuzz_log.fig" "$fuzz_log.end"
echo "phases (s wall/cpu):$phases"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
