#!/bin/sh
# Runs every cmocka test binary of each build directory given (the plain
# build and the sanitizer build) from the repository root, and ends with one
# line "N passed, N failed". A binary that dies before its summary counts as
# one failure, so a crash can never look like a pass.
#
# How (make test's budget): two workers, one per core (each test binary uses
# one), take the binaries of all the directories from one queue, so neither
# core idles while the other still has a build's tail to run. The queue is
# longest first by the CPU seconds each binary took last time (DIR/unit-times,
# written at the end; a binary without a record goes first, and without any
# record the directories' lists are interleaved). Each binary's output is
# kept and printed in the usual order (directory, then name) once all are
# done. Tests name their files by process id, so two binaries never share
# one.
#
# The simulator's scenes: each directory gets a scene cache for this run
# (SEM_SCENE_CACHE, tests/unit/support/sem_cache.h), so the binaries that
# judge the same simulated scenes render each once; it is removed at the end.

# A run under a forced measurement rule (FS_TEST_MEASUREMENT_RULE, make
# unit-dome / test-dome) keeps its costs apart: the dome rule's binaries
# cost other seconds, which must not reorder make test's queue.
times_file=unit-times${FS_TEST_MEASUREMENT_RULE:+.$FS_TEST_MEASUREMENT_RULE}

tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

# The queue: lines "n dir-index binary" (n: the order of the report).
n=0
i=0
for dir in "$@"; do
	i=$((i + 1))
	mkdir "$tmp/scenes.$i" || exit 2
	for t in "$dir"/tests/*/test_*; do
		[ -x "$t" ] || continue
		# The error decomposition over the 64 corner scenes (issue 13)
		# renders each scene three ways at eight scales: 4-5 CPU minutes
		# in the plain build, which make test's budget cannot hold. Its
		# sanitizer build (scenes 0 and 63: each level of each factor)
		# runs here; the whole table with its guards is `make accuracy`
		# (FS_UNIT_FULL=1). The oracle (what the images of the 64 scenes
		# allow at best) tests the simulator's information, not the
		# product's code: 87 CPU seconds in the plain build (stop 29);
		# its sanitizer build (every 8th scene) runs here, the whole
		# table with its guards in `make accuracy`.
		# The smooth-footed scenes' table (h34h: 48 scenes measured by
		# both rules, 47 s of CPU) is an instrument, not a check of
		# make test: `make accuracy` runs it (FS_UNIT_FULL here: the
		# plain build only).
		case "$t" in
		*/tests/analysis/test_sem_decompose | */tests/analysis/test_sem_oracle)
			[ "$dir" = build ] && [ -z "$FS_UNIT_FULL" ] && continue ;;
		*/tests/analysis/test_sem_smooth)
			{ [ "$dir" = build ] && [ -n "$FS_UNIT_FULL" ]; } || continue ;;
		esac
		n=$((n + 1))
		# the cost last time, -1 unknown; the rank in the directory's
		# list interleaves the directories when nothing is known
		c=$(awk -v t="$t" '$2 == t { c = $1 } END { print (c == "" ? -1 : c) }' "$dir/$times_file" 2>/dev/null)
		[ -n "$c" ] || c=-1
		echo "$n $i $t $c" >>"$tmp/all"
	done
done
[ -f "$tmp/all" ] || {
	echo "unit: 0 passed, 1 failed (no test binaries in $*)"
	exit 1
}
# unknown (-1) first, then the most expensive; ties by rank within the dir
awk '{ r[$2]++; printf "%s %d %d %s %s\n", ($4 < 0 ? "0" : "1"), -$4, r[$2], $1, $2 " " $3 }' "$tmp/all" |
	sort -k1,1n -k2,2n -k3,3n -k4,4n | cut -d' ' -f4- >"$tmp/queue"

# run_one N DIRINDEX BINARY: runs it, leaves its report lines in out.N and
# "passed failed cpu-seconds" in res.N
run_one() {
	t=$3
	t0=$(date +%s%N)
	# the binary's own CPU time: `times` in this subshell reports its child
	# test_dome_fit's formation fit over the 64 corner scenes (an accuracy
	# instrument, the fit not wired into the statistics) runs every 8th
	# scene in the plain build too, with that subset's level asserted;
	# `make accuracy` (or FS_UNIT_FULL) runs all 64
	fit_step=
	case "$t" in
	build/tests/analysis/test_dome_fit) [ -z "$FS_UNIT_FULL" ] && fit_step=8 ;;
	esac
	cpu=$( ([ -n "$fit_step" ] && export FIT_SCENE_STEP=$fit_step
		SEM_SCENE_CACHE="$tmp/scenes.$2" ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 CMOCKA_MESSAGE_OUTPUT=STDOUT \
		"$t" >"$tmp/raw.$1" 2>&1
		echo "rc $?"
		times) | awk '/^rc / { rc = $2 } /s .*s$/ { line = $0 }
		END { split(line, f, " "); u = f[1]; s = f[2]
		      sub(/s$/, "", u); sub(/s$/, "", s); split(u, a, "m"); split(s, b, "m")
		      printf "%d %.1f\n", rc, a[1] * 60 + a[2] + b[1] * 60 + b[2] }')
	rc=${cpu%% *}
	cpu=${cpu#* }
	# each binary's wall time (under load it says little: see cpu)
	secs=$((($(date +%s%N) - t0) / 100000000))
	secs="$((secs / 10)).$((secs % 10)) s"
	# a binary may run several groups: sum their summaries
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$tmp/raw.$1" | awk '{s+=$1} END {print s+0}')
	f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test(s), listed below:.*/\1/p' "$tmp/raw.$1" | awk '{s+=$1} END {print s+0}')
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1
	fi
	{
		if [ "$f" -ne 0 ]; then
			tail -n 40 "$tmp/raw.$1"
			echo "FAIL $t ($p passed, $f failed, exit $rc, $secs, cpu $cpu s)"
		else
			echo "ok   $t ($p passed, $secs, cpu $cpu s)"
		fi
		# the paper-figure table is a result worth reading on every run
		case "$t" in
		build/tests/analysis/test_paper_images) grep -v '^\[' "$tmp/raw.$1" ;;
		# the formation fit's tables (issue 13): simulator and figures; the
		# simulator's accuracy tables of both rules (README and
		# docs/paper-figures.md cite them)
		build/tests/analysis/test_dome_fit | build/tests/analysis/test_dome_fit_paper | \
			build/tests/analysis/test_paper_profile_fill | \
			build/tests/analysis/test_sem_accuracy)
			grep -v '^\[' "$tmp/raw.$1" ;;
		# what the images allow at best (the oracle), and the simulator's physics
		build/tests/analysis/test_sem_oracle | build/tests/analysis/test_sem_physics)
			grep -v '^\[' "$tmp/raw.$1" ;;
		esac
	} >"$tmp/out.$1.part"
	rm -f "$tmp/raw.$1"
	mv "$tmp/out.$1.part" "$tmp/out.$1"
	echo "$p $f $cpu" >"$tmp/res.$1"
}

# worker: takes the next unclaimed binary of the queue (mkdir is atomic:
# one worker wins each claim) until none is left
worker() {
	while read -r qn qi qt; do
		mkdir "$tmp/claim.$qn" 2>/dev/null || continue
		run_one "$qn" "$qi" "$qt"
	done <"$tmp/queue"
}

worker &
worker &
wait

pass=0
fail=0
j=0
while [ "$j" -lt "$n" ]; do
	j=$((j + 1))
	if [ ! -f "$tmp/res.$j" ]; then
		echo "FAIL $(awk -v j="$j" '$1 == j { print $3 }' "$tmp/all") ended without its counts"
		fail=$((fail + 1))
		continue
	fi
	cat "$tmp/out.$j"
	read -r p f c <"$tmp/res.$j"
	pass=$((pass + p))
	fail=$((fail + f))
done
# the cost of each binary, for the next run's queue
i=0
for dir in "$@"; do
	i=$((i + 1))
	awk -v i="$i" '$2 == i { print $1, $3 }' "$tmp/all" | while read -r j t; do
		[ -f "$tmp/res.$j" ] && echo "$(cut -d' ' -f3 "$tmp/res.$j") $t"
	done >"$dir/$times_file.tmp" && mv "$dir/$times_file.tmp" "$dir/$times_file"
done
echo "unit: $pass passed, $fail failed"
