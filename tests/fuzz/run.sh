#!/bin/sh
# Builds the image loader fuzzer with clang + libFuzzer (ASan, UBSan) into
# build-fuzz/ and runs it for SECONDS seconds (default 20) on a scratch copy
# of tests/fuzz/corpus/, so nothing new is written into the repository.
# A crashing input is kept in build-fuzz/crashes/. Ends with exactly one line
# "N passed, N failed": 1 passed when the run found nothing.
#
#   sh tests/fuzz/run.sh [SECONDS]
secs=${1:-20}
cd "$(dirname "$0")/../.." || { echo "0 passed, 1 failed"; exit 1; }

out=build-fuzz
bin=$out/fuzz_loader
mkdir -p "$out" "$out/crashes"

cc=${FUZZ_CC:-clang}
if ! command -v "$cc" >/dev/null 2>&1; then
	echo "fuzz: $cc not found"
	echo "0 passed, 1 failed"
	exit 1
fi
src="tests/fuzz/fuzz_loader.c lib/base/heap_policy.c lib/image/image.c lib/image/image_io.c lib/image/loader.c lib/image/load_tiff.c lib/image/load_png.c lib/image/png_errors.c lib/image/load_jpeg.c lib/image/sem_metadata.c"
# Rebuild only when a source or header is newer than the binary.
stale=1
if [ -x "$bin" ] && [ -z "$(find $src lib/*/*.h tests/fuzz/run.sh -newer "$bin" 2>/dev/null | head -n 1)" ]; then
	stale=0
fi
# shellcheck disable=SC2086
if [ "$stale" -eq 1 ] && ! "$cc" -std=c11 -D_GNU_SOURCE -g -O1 -fno-omit-frame-pointer \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	-Ilib $(pkg-config --cflags libtiff-4 libpng libjpeg) $src \
	$(pkg-config --libs libtiff-4 libpng libjpeg) -lm -lpthread -o "$bin" 2>"$out/build.log"; then
	cat "$out/build.log"
	echo "fuzz: build failed"
	echo "0 passed, 1 failed"
	exit 1
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/fs_fuzz.XXXXXX") || { echo "0 passed, 1 failed"; exit 1; }
trap 'rm -rf "$work"' EXIT INT TERM
mkdir -p "$work/corpus"
cp tests/fuzz/corpus/* "$work/corpus/" 2>/dev/null

ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	"$bin" -max_total_time="$secs" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
	-artifact_prefix="$work/" -print_final_stats=1 "$work/corpus" >"$out/fuzz.log" 2>&1
rc=$?
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/fuzz.log" | tail -n 1)
echo "fuzz_loader: ${runs:-?} inputs in ${secs}s, exit $rc (log: $out/fuzz.log)"
if [ "$rc" -eq 0 ]; then
	echo "1 passed, 0 failed"
	exit 0
fi
grep -E 'ERROR|SUMMARY|runtime error|==[0-9]+==' "$out/fuzz.log" | head -n 20
for f in "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-*; do
	[ -f "$f" ] && cp "$f" "$out/crashes/" && echo "kept $out/crashes/$(basename "$f")"
done
echo "0 passed, 1 failed"
exit 1
