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
# beside NAME COMMAND...: starts COMMAND detached beside the sanitizer
# build and the unit phase (not this shell's child, so that its CPU is not
# counted in the phase that happens to reap it), its output in a log
# printed later in its place by `collect NAME`; it says it has ended
# through a FIFO and leaves its own wall and CPU seconds. Returns 1 when
# it could not be started.
beside_dir=$(mktemp -d) || exit 2
beside() {
	b=$beside_dir/$1
	shift
	mkfifo "$b.end" || return 1
	( (
		w0=$(date +%s)
		"$@" >"$b.log" 2>&1
		times >"$b.cpu"
		c=$(cpu "$b.cpu")
		echo "$(($(date +%s) - w0))/$((c / 10)).$((c % 10))" >"$b.fig"
		echo end >"$b.end"
	) & )
}
# collect NAME: waits for NAME's end, counts it as a phase (its result
# line) and says what it took beside the sanitizer build and unit phase
collect() {
	b=$beside_dir/$1
	read -r _ <"$b.end"
	suite "$1" cat "$b.log"
	fig=$(cat "$b.fig" 2>/dev/null)
	echo "$1 ran beside the sanitizer build and the unit phase: ${fig%/*} s wall, ${fig#*/} s cpu"
	phases="$phases ($1 beside unit ${fig:-?})"
}
# What runs beside the sanitizer build and the unit phase (make test's
# budget): those two are CPU-bound (two compilers, then two test binaries
# that assert no timings) and run at a lower priority (nice 10); three
# phases use little CPU for their length or wait for their servers, and
# start first, at the normal priority, so that they get a core as soon as
# they have work and the niced work takes what they leave:
# - The integration modules mostly wait for their servers (98 s of CPU in
#   all over 124 s, stop 27).
# - The browser files wait for their pages; Chromium's renderers and the
#   sites take CPU in bursts (h36a: alone, the phase left about a sixth of
#   two cores idle over its 291 s at stop 35: 180 s of runner CPU and, by
#   tools/cpu_sections.py's proportions, about 300 s of renderers and
#   sites).
# - The fuzz run builds each fuzzer with one serial clang and runs it on
#   one core for a fixed time (niced: its fixed time runs fewer inputs
#   under load rather than taking a core from the servers).
# They need only the plain build (make test builds it first). Their output
# is printed in its place after the unit phase. FS_INTEGRATION_ALONE=1 /
# FS_BROWSER_ALONE=1 run that phase alone after the unit phase, as before.
fuzz_bg=
if [ -f tests/fuzz/run.sh ] && beside fuzz nice -n 10 sh tests/fuzz/run.sh 5; then
	fuzz_bg=1
fi
integration_bg=
if [ -f tests/integration/run.py ] && [ -z "$FS_INTEGRATION_ALONE" ] && beside integration python3 tests/integration/run.py; then
	integration_bg=1
fi
browser_bg=
if [ -f tests/browser/run.mjs ] && [ -z "$FS_BROWSER_ALONE" ] && beside browser node tests/browser/run.mjs; then
	browser_bg=1
fi
suite layers python3 tools/check_layers.py
# The sanitizer build of the unit binaries (build-asan), made here rather
# than before this script so that the phases above run beside it too; at
# nice 10 like the unit phase. A failed build counts as one failure (its
# binaries would be missing from the unit phase, which runs what exists).
echo "=== build-asan"
w0=$(date +%s)
times >"$beside_dir/asan.cpu"
c0=$(cpu "$beside_dir/asan.cpu")
if ! nice -n 10 make --no-print-directory -j2 BUILD=build-asan SAN=1 unit-bin; then
	echo "build-asan: the sanitizer build failed, counted as one failure"
	fail=$((fail + 1))
fi
times >"$beside_dir/asan.cpu"
c=$(($(cpu "$beside_dir/asan.cpu") - c0))
c="$((c / 10)).$((c % 10))"
w=$(($(date +%s) - w0))
echo "build-asan: ${w} s wall, ${c} s cpu"
phases="$phases build-asan ${w}/${c}"
suite unit nice -n 10 sh tests/run_unit.sh build build-asan
if [ -n "$integration_bg" ]; then
	collect integration
elif [ -f tests/integration/run.py ]; then
	suite integration python3 tests/integration/run.py
fi
if [ -n "$browser_bg" ]; then
	collect browser
elif [ -f tests/browser/run.mjs ]; then
	suite browser node tests/browser/run.mjs
fi
if [ -n "$fuzz_bg" ]; then
	collect fuzz
elif [ -f tests/fuzz/run.sh ]; then
	suite fuzz sh tests/fuzz/run.sh 5
fi
rm -rf "$beside_dir"
echo "phases (s wall/cpu):$phases"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
