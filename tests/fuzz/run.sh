#!/bin/sh
# Builds the fuzzers with clang + libFuzzer (ASan, UBSan) into build-fuzz/ and
# runs each for SECONDS seconds (default 20):
#   fuzz_loader  the image loaders (TIFF, PNG, JPEG), on a scratch copy of
#                tests/fuzz/corpus/, so nothing new is written into the repository;
#   fuzz_tiled   the tile-by-tile analysis (issue 15), on a scratch copy of
#                tests/fuzz/corpus_tiled/ (small scenes, see fuzz_tiled.c).
# A crashing input is kept in build-fuzz/crashes/. Ends with exactly one line
# "N passed, N failed": one passed per fuzzer whose run found nothing.
#
#   sh tests/fuzz/run.sh [SECONDS]
secs=${1:-20}
cd "$(dirname "$0")/../.." || { echo "0 passed, 1 failed"; exit 1; }

out=build-fuzz
mkdir -p "$out" "$out/crashes"

cc=${FUZZ_CC:-clang}
if ! command -v "$cc" >/dev/null 2>&1; then
	echo "fuzz: $cc not found"
	echo "0 passed, 1 failed"
	exit 1
fi

image_src="lib/base/heap_policy.c lib/image/image.c lib/image/image_io.c lib/image/loader.c lib/image/load_tiff.c lib/image/load_png.c lib/image/png_errors.c lib/image/load_jpeg.c lib/image/sem_metadata.c"
# what fs_detect_all links (the detection and its tiled paths; not the data
# bar's OCR, the JSON or the charts), so a clean build stays short
analysis_src="lib/base/clock.c lib/base/heap_policy.c lib/base/tile_pool.c lib/image/image.c lib/image/tubercle.c
lib/analysis/blob_measure.c lib/analysis/blur_estimate.c lib/analysis/centre_refine.c lib/analysis/clahe_region.c
lib/analysis/detect.c lib/analysis/detect_auto.c lib/analysis/detect_cand_tiled.c lib/analysis/detect_candidates.c
lib/analysis/detect_dog.c lib/analysis/detect_ellipse.c lib/analysis/detect_lattice.c lib/analysis/detect_limits.c
lib/analysis/detect_log.c lib/analysis/detect_measure.c lib/analysis/detect_offset.c lib/analysis/detect_pre_region.c
lib/analysis/detect_scale.c lib/analysis/detect_tiled.c lib/analysis/dome_fit.c lib/analysis/dome_measure.c
lib/analysis/dome_template.c lib/analysis/fft.c lib/analysis/halftone.c lib/analysis/lattice_estimate.c
lib/analysis/near_pairs.c lib/analysis/params.c lib/analysis/polygon_moments.c lib/analysis/preprocess.c
lib/analysis/preprocess_tiled.c lib/analysis/region_moments.c lib/analysis/se_render.c"

# build NAME "SOURCES" "PKG-CONFIG PACKAGES" [EXTRA LIBS]: build-fuzz/NAME,
# rebuilt only when a source or header is newer than the binary; 0 or 1
build() {
	bin=$out/$1
	src="tests/fuzz/$1.c $2"
	if [ -x "$bin" ] && [ -z "$(find $src lib/*/*.h tests/fuzz/run.sh -newer "$bin" 2>/dev/null | head -n 1)" ]; then
		return 0
	fi
	# shellcheck disable=SC2086
	if ! "$cc" -std=c11 -D_GNU_SOURCE -g -O1 -fno-omit-frame-pointer \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
		-Ilib $(pkg-config --cflags $3) $src \
		$(pkg-config --libs $3) $4 -lm -lpthread -o "$bin" 2>"$out/$1.build.log"; then
		cat "$out/$1.build.log"
		echo "fuzz: $1: build failed"
		return 1
	fi
	return 0
}

# fuzz NAME [CORPUS DIRECTORY] [TIMEOUT]: runs build-fuzz/NAME for $secs
# seconds, an input failing after TIMEOUT seconds (default 10); 0 or 1
fuzz() {
	work=$(mktemp -d "${TMPDIR:-/tmp}/fs_fuzz.XXXXXX") || return 1
	mkdir -p "$work/corpus"
	[ -n "$2" ] && cp "$2"/* "$work/corpus/" 2>/dev/null
	log=$out/$1.log
	ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		"$out/$1" -max_total_time="$secs" -max_len=65536 -timeout="${3:-10}" -rss_limit_mb=2048 \
		-artifact_prefix="$work/" -print_final_stats=1 "$work/corpus" >"$log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	echo "$1: ${runs:-?} inputs in ${secs}s, exit $rc (log: $log)"
	if [ "$rc" -ne 0 ]; then
		grep -E 'ERROR|SUMMARY|runtime error|==[0-9]+==' "$log" | head -n 20
		for f in "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-*; do
			[ -f "$f" ] && cp "$f" "$out/crashes/$1-$(basename "$f")" && echo "kept $out/crashes/$1-$(basename "$f")"
		done
	fi
	rm -rf "$work"
	return "$rc"
}

passed=0
failed=0
if build fuzz_loader "$image_src" "libtiff-4 libpng libjpeg" && fuzz fuzz_loader tests/fuzz/corpus; then
	passed=$((passed + 1))
else
	failed=$((failed + 1))
fi
if build fuzz_tiled "$analysis_src" "zlib" && fuzz fuzz_tiled tests/fuzz/corpus_tiled 60; then
	passed=$((passed + 1))
else
	failed=$((failed + 1))
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
