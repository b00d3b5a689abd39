#!/usr/bin/env bash
# run-gpu-tests.sh - make test's GPU part: bin/tests-gpu one test at a time,
# its report in build/tests-gpu.tap.
#
# Usage: tests/run-gpu-tests.sh HARNESS_BIN GPU_TEST_BIN [criterion options...]
#
# Each test is a process of its own that starts CUDA, and starting CUDA
# costs more with every GPU the process can see. Only the gpu_dist tests
# use more than one GPU, so they run with every visible GPU and the rest
# with the first one alone. Given a --filter, the options choose the tests
# and everything runs in one pass, every visible GPU with it.
set -u
bin=$1 gpubin=$2
shift 2
tap=build/tests-gpu.tap
mkdir -p build
rm -f "$tap" "$tap.dist" "$tap.one"

# The test program's own closing line would count the tests a pass's
# filter left out as skipped; this script says it once, from the report.
export HARNESS_GPU_SKIP_LINE=0
skip_line() {
	awk '/^ok - .*# SKIP / && !/# SKIP test was skipped$/ {
		n++; why = $0; sub(/.*# SKIP /, "", why)
		while (match(why, /: /)) why = substr(why, RSTART + RLENGTH)
		count[why]++
	}
	END {
		if (!n) exit
		for (w in count) if (!(best in count) || count[w] > count[best]) best = w
		others = (n > count[best]) ? " (and others, counted at the end)" : ""
		printf "GPU tests: %d skipped: %s%s\n", n, best, others
	}' "$tap" >&2
}

for a in "$@"; do
	case $a in --filter | --filter=*)
		echo "HARNESS_BIN=$bin $gpubin --jobs 1 $*"
		HARNESS_BIN=$bin "$gpubin" --jobs 1 --tap="$tap" "$@"
		st=$?
		skip_line
		exit $st
	esac
done

echo "HARNESS_BIN=$bin $gpubin --jobs 1 --filter 'gpu_dist/*' $*"
HARNESS_BIN=$bin "$gpubin" --jobs 1 --filter 'gpu_dist/*' --tap="$tap.dist" "$@"
dist=$?
echo "HARNESS_BIN=$bin tests/on-first-gpu.sh $gpubin --jobs 1 --filter '!(gpu_dist)/*' $*"
HARNESS_BIN=$bin "$(dirname "$0")/on-first-gpu.sh" "$gpubin" --jobs 1 --filter '!(gpu_dist)/*' \
	--tap="$tap.one" "$@"
one=$?

# One report: each pass's lines without those its own filter left out (a
# test either pass did not select is the other's), so every test is
# counted once.
{
	awk '!/^ok - / || /^ok - gpu_dist::/' "$tap.dist"
	awk '!/^ok - gpu_dist::.*# SKIP test was skipped$/' "$tap.one"
} > "$tap" && rm -f "$tap.dist" "$tap.one"
skip_line
[ "$dist" -eq 0 ] && [ "$one" -eq 0 ]
