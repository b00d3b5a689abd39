#!/usr/bin/env bash
# calibration-runs.sh - a suite run several times, each run a separate process: what two runs of the same code differ by
#
#   tests/gate/calibration-runs.sh --suite NAME --runs K --out DIR [--bin FILE]
#                                  [--time-limit SECONDS] [-- RUN OPTIONS...]
#
# Runs `harness run --suite NAME --out-dir DIR/run-k` for k = 1 .. K, one
# process after the other (nothing is shared between them but the machine
# and the binary: each starts its device context, allocates and, for SPH
# suites, makes the flow's states anew), with the options after --
# (--min-time 0.2 --max-time 1 by default). DIR/runs.csv gets a line a run:
# its file, exit status, seconds, and the load average at its start and
# end. `harness calibrate DIR/run-*/NAME.csv` then measures how far the
# runs' rows differ against the resolution each row reports. A run that
# would start after --time-limit seconds (0: none) is not started.
# Exit status: 0 when every run started ran and exited 0, 1 when one
# exited otherwise (its log says why), 2 on bad usage.
set -u
BIN=bin/harness
SUITE=
RUNS=3
OUT=
LIMIT=0
while [ $# -gt 0 ]; do
	case "$1" in
	--suite) SUITE=${2:-}; shift 2 ;;
	--runs) RUNS=${2:-}; shift 2 ;;
	--out) OUT=${2:-}; shift 2 ;;
	--bin) BIN=${2:-}; shift 2 ;;
	--time-limit) LIMIT=${2:-}; shift 2 ;;
	--) shift; break ;;
	-h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "calibration-runs.sh: unknown argument '$1'" >&2; exit 2 ;;
	esac
done
ARGS=("$@")
[ ${#ARGS[@]} -gt 0 ] || ARGS=(--min-time 0.2 --max-time 1)
[ -n "$SUITE" ] && [ -n "$OUT" ] || { echo "calibration-runs.sh: --suite NAME and --out DIR are needed" >&2; exit 2; }
[[ "$RUNS" =~ ^[1-9][0-9]*$ ]] || { echo "calibration-runs.sh: --runs '$RUNS' is not a count >= 1" >&2; exit 2; }
[[ "$LIMIT" =~ ^[0-9]+$ ]] || { echo "calibration-runs.sh: --time-limit '$LIMIT' is not whole seconds" >&2; exit 2; }
[ -x "$BIN" ] || { echo "calibration-runs.sh: no program '$BIN' (build it first)" >&2; exit 2; }
mkdir -p "$OUT" || exit 2
[ -f "$OUT/runs.csv" ] || echo "suite,run,file,exit_status,seconds,load_start,load_end" >"$OUT/runs.csv"
START=$(date +%s)
STATUS=0
for k in $(seq 1 "$RUNS"); do
	if [ "$LIMIT" -gt 0 ] && [ $(( $(date +%s) - START )) -ge "$LIMIT" ]; then
		echo "calibration-runs.sh: $SUITE: run $k not started: past --time-limit $LIMIT s" >&2
		break
	fi
	dir="$OUT/run-$k"
	mkdir -p "$dir"
	l0=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null)
	t0=$(date +%s)
	"$BIN" run --suite "$SUITE" --out-dir "$dir" --quiet "${ARGS[@]}" >"$dir/$SUITE.log" 2>&1
	rc=$?
	t1=$(date +%s)
	l1=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null)
	echo "$SUITE,$k,run-$k/$SUITE.csv,$rc,$((t1 - t0)),$l0,$l1" >>"$OUT/runs.csv"
	echo "calibration-runs.sh: $SUITE run $k: exit $rc, $((t1 - t0)) s" >&2
	[ "$rc" -eq 0 ] || STATUS=1
done
exit $STATUS
