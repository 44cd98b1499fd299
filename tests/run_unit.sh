#!/bin/sh
# Runs every cmocka test binary in each build directory given (the plain build
# and the sanitizer build) from the repository root, and ends with one line
# "N passed, N failed". A binary that dies before its summary counts as one
# failure, so a crash can never look like a pass. The build directories run
# side by side (one process each: the machine has two cores and each test
# binary uses one); their outputs are printed in the order given. Tests name
# their files by process id, so two binaries never share one.

# run_dir DIR: one line per binary, then "counts P F"
run_dir() {
	pass=0
	fail=0
	for t in "$1"/tests/*/test_*; do
		[ -x "$t" ] || continue
		t0=$(date +%s%N)
		out=$(ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
			CMOCKA_MESSAGE_OUTPUT=STDOUT "$t" 2>&1)
		rc=$?
		# each binary's wall time, so the slow ones show (make test's budget)
		secs=$(( ($(date +%s%N) - t0) / 100000000 ))
		secs="$((secs / 10)).$((secs % 10)) s"
		# a binary may run several groups: sum their summaries
		p=$(printf '%s\n' "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | awk '{s+=$1} END {print s+0}')
		f=$(printf '%s\n' "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test(s), listed below:.*/\1/p' | awk '{s+=$1} END {print s+0}')
		if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
			f=1
		fi
		if [ "$f" -ne 0 ]; then
			printf '%s\n' "$out" | tail -n 40
			echo "FAIL $t ($p passed, $f failed, exit $rc, $secs)"
		else
			echo "ok   $t ($p passed, $secs)"
		fi
		# the paper-figure table is a result worth reading on every run
		case "$t" in
		build/tests/analysis/test_paper_images) printf '%s\n' "$out" | grep -v '^\[' ;;
		# the formation fit's tables (issue 13): simulator and figures; the
		# simulator's accuracy tables of both rules and of the base rule at
		# the true centres (README and docs/paper-figures.md cite them)
		build/tests/analysis/test_dome_fit | build/tests/analysis/test_dome_fit_paper | \
			build/tests/analysis/test_paper_profile_fill | \
			build/tests/analysis/test_sem_accuracy | build/tests/analysis/test_dome_base)
			printf '%s\n' "$out" | grep -v '^\[' ;;
		# what the images allow at best (the oracle), and the simulator's physics
		build/tests/analysis/test_sem_oracle | build/tests/analysis/test_sem_physics)
			printf '%s\n' "$out" | grep -v '^\[' ;;
		esac
		pass=$((pass + p))
		fail=$((fail + f))
	done
	echo "counts $pass $fail"
}

tmp=$(mktemp -d) || exit 2
i=0
for dir in "$@"; do
	i=$((i + 1))
	run_dir "$dir" >"$tmp/$i" 2>&1 &
done
wait
pass=0
fail=0
j=0
while [ "$j" -lt "$i" ]; do
	j=$((j + 1))
	grep -v '^counts ' "$tmp/$j"
	c=$(grep '^counts ' "$tmp/$j" | tail -n 1)
	if [ -z "$c" ]; then
		echo "FAIL the run of build directory $j ended without its counts"
		fail=$((fail + 1))
		continue
	fi
	pass=$((pass + $(echo "$c" | cut -d' ' -f2)))
	fail=$((fail + $(echo "$c" | cut -d' ' -f3)))
done
rm -rf "$tmp"
echo "unit: $pass passed, $fail failed"
