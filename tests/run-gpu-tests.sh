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

for a in "$@"; do
	case $a in --filter | --filter=*)
		echo "HARNESS_BIN=$bin $gpubin --jobs 1 $*"
		HARNESS_BIN=$bin "$gpubin" --jobs 1 --tap="$tap" "$@"
		exit
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
[ "$dist" -eq 0 ] && [ "$one" -eq 0 ]
