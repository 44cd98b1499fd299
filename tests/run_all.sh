#!/bin/sh
# Runs every test suite (unit, unit under sanitizers, integration, browser,
# a short fuzz run) and ends with one line "N passed, N failed" summing them.
cd "$(dirname "$0")/.." || exit 2
pass=0
fail=0
suite() {
	name=$1
	shift
	echo "=== $name"
	log=$(mktemp)
	"$@" 2>&1 | tee "$log"
	line=$(grep -E '[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
	rm -f "$log"
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
suite layers python3 tools/check_layers.py
suite unit sh tests/run_unit.sh build build-asan
for s in tests/integration/run.py; do
	[ -f "$s" ] && suite integration python3 "$s"
done
[ -f tests/browser/run.mjs ] && suite browser node tests/browser/run.mjs
[ -f tests/fuzz/run.sh ] && suite fuzz sh tests/fuzz/run.sh 5
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
