#!/usr/bin/env bash
# planted.sh - how sensitive the regression gate is on this machine: planted slowdowns and an identical tree, through ab and through two separate runs + compare
#
#   tests/gate/planted.sh [--out DIR] [--bin FILE] [--base-tree DIR] [--parts LIST]
#                         [--time-limit SECONDS] [--gpu-threshold PCT] [--cpu-threshold PCT]
#                         [--identical-threshold PCT] [--identical-n LIST]
#                         [--sph-threshold PCT]
#
# Plants a slowdown in NEW with the harness's test hook
# (HARNESS_TEST_HOOKS=1 HARNESS_TEST_SLOWDOWN=VARIANT:PCT, which ab gives
# to NEW only; BASE is the same program), then asks the gate whether it
# sees it, two ways:
#   ab        harness ab, rounds AB BA ... added while a row is inconclusive
#             and the part's budget allows
#   separate  one harness run without the slowdown, one with it, then
#             harness compare
# Parts (--parts, comma-separated; all by default):
#   gpu        1, 2, 3, 5 and 30 % on the GPU rows (auto at N = 2^14..2^20),
#              threshold --gpu-threshold (1 %)
#   cpu        5 and 30 % on the CPU rows (cpu-portable and cpu-simd at
#              N = 1024 and 4096), threshold --cpu-threshold (2 %)
#   sph        3 % on SPH rows: sph-gpu-verlet and sph-gpu-zindex-blocks at
#              16,128 and 255,600, at step 20 and 0.2 s of flow and over
#              that stretch, threshold --sph-threshold (2 %)
#   render     3 % on rendering rows: sph-gpu-verlet's Phong frames at
#              255,600 (sph run --render, step 20), threshold
#              --sph-threshold; the hook slows the step's windows and every
#              stage of the frames alike
#   identical  ab over the baseline suite with nothing planted (BASE and NEW
#              the same code): false regressions and inconclusive rows, at
#              --identical-threshold (2 %); three rounds, ab's default (a
#              round's two runs cannot see a shift between runs, which one
#              round reads as a change: CPU rows whose host ran 20 to 31 %
#              slower in the second run came out SLOWER), more while rows
#              are undecided and time is left under --time-limit, where a GPU
#              is (the suite's 364 rows take some 4 minutes a round); three
#              rounds and a 240 s budget where there is none (its 12 CPU rows);
#              --identical-n LIST keeps the suite's rows at those N (run
#              --suite baseline --n LIST), to split the suite into parts that
#              each fit a time limit
# The gpu, sph and render parts, and the GPU rows of the identical part,
# are skipped, saying why, where no GPU variant can run.
#
# Each row ends as one of: caught (SLOWER: a regression), inconclusive, missed
# (decided: same, faster or slower by less than the threshold), or not
# compared. DIR gets every ab folder and run CSV with sidecars, each compare's
# verdicts (*-verdicts.csv), a log per command, and summary.csv with
# summary.meta.json and summary.txt (the table printed at the end).
#
# --base-tree DIR builds BASE from a source tree (make base-tree) instead of
# taking the same program: an identical tree built apart. --time-limit
# (450 s) bounds the identical part's rounds beyond its first three where a
# GPU is; the other
# parts have fixed budgets (gpu: 30 s an ab run, at least 3 rounds; cpu:
# 90 s, 20 s where a GPU is, at least 3 rounds).
# Exit status: 0 when every part ran (whatever it found), 2 on bad usage or
# when a command failed to run (its log says why).
set -u

COMMAND="$0 $*"
BIN=bin/harness
OUT=
BASE_TREE=
PARTS=gpu,cpu,identical,sph,render
TIME_LIMIT=450
GPU_T=1
CPU_T=2
ID_T=2
ID_N=
SPH_T=2
# --max-time 1.5: N = 2^20 takes 0.5 s an evaluation on an H200, and a row
# of one sample has no noise of its own (compare cannot judge it)
GPU_ROWS="--variant auto --n 2^14,2^16,2^18,2^20 --min-time 0.05 --max-time 1.5"
CPU_ROWS="--variant cpu-portable,cpu-simd --n 1024,4096 --min-time 0.1 --max-time 0.5"
ID_TIMING="--min-time 0.02 --max-time 0.1"
GPU_PLANTED="1 2 3 5 30"
CPU_PLANTED="5 30"
SPH_ROWS="sph -v sph-gpu-verlet,sph-gpu-zindex-blocks --column 16128,255600 --warm-steps 20,0.2s --min-time 0.2 --max-time 1"
RENDER_ROWS="sph -v sph-gpu-verlet --column 255600 --warm-steps 20 --render --min-time 0.2 --max-time 1"
SPH_PLANTED="3"

usage() {
	sed -n '3,6p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

die() {
	echo "planted.sh: $*" >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case "$1" in
	--out) OUT=${2:-}; shift 2 ;;
	--bin) BIN=${2:-}; shift 2 ;;
	--base-tree) BASE_TREE=${2:-}; shift 2 ;;
	--parts) PARTS=${2:-}; shift 2 ;;
	--time-limit) TIME_LIMIT=${2:-}; shift 2 ;;
	--gpu-threshold) GPU_T=${2:-}; shift 2 ;;
	--cpu-threshold) CPU_T=${2:-}; shift 2 ;;
	--identical-threshold) ID_T=${2:-}; shift 2 ;;
	--identical-n) ID_N=${2:-}; shift 2 ;;
	--sph-threshold) SPH_T=${2:-}; shift 2 ;;
	-h|--help) sed -n '2,40p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "planted.sh: unknown argument '$1'" >&2; usage ;;
	esac
done

[ -x "$BIN" ] || die "no program '$BIN' (build it first: make, or give --bin FILE)"
for p in ${PARTS//,/ }; do
	case "$p" in gpu|cpu|identical|sph|render) ;; *) die "--parts: unknown part '$p' (gpu, cpu, identical, sph, render)" ;; esac
done
for n in "$TIME_LIMIT" "$GPU_T" "$CPU_T" "$ID_T" "$SPH_T"; do
	[[ "$n" =~ ^[0-9]+([.][0-9]+)?$ ]] || die "'$n' is not a number of seconds or percent"
done
[ -z "$BASE_TREE" ] || [ -f "$BASE_TREE/Makefile" ] || die "--base-tree '$BASE_TREE' has no Makefile"
[ -n "$OUT" ] || OUT=results/local/planted-$(date -u +%Y%m%dT%H%M%SZ)
if [ -e "$OUT" ] && [ -n "$(ls -A "$OUT" 2>/dev/null)" ]; then
	die "--out '$OUT' is not empty: give a new folder"
fi
mkdir -p "$OUT" || die "cannot create $OUT"
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
if [ -n "$BASE_TREE" ]; then BASE=(--base-tree "$BASE_TREE"); else BASE=(--base-bin "$BIN"); fi

has_part() { [[ ",$PARTS," == *",$1,"* ]]; }

# Whether variant $1 can run here; why not.
can_run() {
	"$BIN" list --variant "$1" | grep -q "^$1 .* yes "
}
why_not() {
	"$BIN" list --variant "$1" | sed -n 's/.*(unavailable: \(.*\))$/\1/p' | head -n1
}

START=$(date +%s)
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)
elapsed() { echo $(( $(date +%s) - START )); }

SUMMARY="$OUT/summary.csv"
echo "part,mode,planted_pct,threshold_pct,rows,caught,inconclusive,missed,not_compared,variants_skipped,resolution_median_pct,resolution_max_pct,exit_status,seconds,files" >"$SUMMARY.tmp"
FAILED=0

# Counts the verdicts of a verdicts CSV ($1) into one summary line:
# part, mode, planted, threshold ($2..$5), exit status ($6), seconds ($7),
# files ($8).
count_verdicts() {
	local f=$1 skipped=0 side
	side="${f%.csv}.meta.json"
	[ -f "$side" ] && skipped=$(sed -n 's/.*"skipped_by_new": \([0-9]*\).*/\1/p' "$side" | head -n1)
	if [ ! -f "$f" ]; then
		echo "$2,$3,$4,$5,0,,,,,${skipped:-0},,,$6,$7,$8" >>"$SUMMARY.tmp"
		return
	fi
	awk -F, -v part="$2" -v mode="$3" -v planted="$4" -v thr="$5" -v rc="$6" -v secs="$7" \
	    -v files="$8" -v skipped="${skipped:-0}" '
		NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		{
			rows++
			v = $col["verdict"]
			if (v == "SLOWER") caught++
			else if (v == "inconclusive") inconc++
			else if (v == "same" || v == "faster" || v == "slower") missed++
			else other++
			r = $col["resolution_pct"]
			if (r != "") res[++nres] = r + 0
		}
		END {
			# median and largest resolution of the rows judged
			for (i = 1; i <= nres; i++)
				for (j = i + 1; j <= nres; j++)
					if (res[j] < res[i]) { t = res[i]; res[i] = res[j]; res[j] = t }
			med = nres ? (nres % 2 ? res[(nres + 1) / 2] : (res[nres / 2] + res[nres / 2 + 1]) / 2) : ""
			mx = nres ? res[nres] : ""
			printf "%s,%s,%s,%s,%d,%d,%d,%d,%d,%s,%s,%s,%s,%s,%s\n", part, mode, planted, thr,
			       rows, caught, inconc, missed, other, skipped, med, mx, rc, secs, files
		}' "$f" >>"$SUMMARY.tmp"
}

# ab with a planted slowdown (or none: planted 0): part, pattern, planted %,
# threshold, budget, then ab's row options.
ab_case() {
	local part=$1 pattern=$2 planted=$3 thr=$4 budget=$5 rounds=$6
	shift 6
	local name dir t0 rc env=()
	if [ "$planted" = 0 ]; then name=ab-identical; else name=ab-slow$planted; fi
	dir="$OUT/$part/$name"
	mkdir -p "$OUT/$part"
	[ "$planted" = 0 ] || env=(HARNESS_TEST_HOOKS=1 "HARNESS_TEST_SLOWDOWN=$pattern:$planted")
	echo "planted.sh: $part: ab, planted $planted %, threshold $thr %, budget $budget s ($(elapsed) s so far)" >&2
	t0=$(date +%s)
	env ${env[@]+"${env[@]}"} "$BIN" ab "${BASE[@]}" --rounds "$rounds" --budget "$budget" --threshold "$thr" \
		--out-dir "$dir" "$@" >"$dir.log" 2>&1
	rc=$?
	[ "$rc" -le 3 ] && [ "$rc" -ne 2 ] || { FAILED=1; echo "planted.sh: $part $name: exit $rc (see $dir.log)" >&2; }
	count_verdicts "$dir/verdicts.csv" "$part" ab "$planted" "$thr" "$rc" $(( $(date +%s) - t0 )) "$part/$name/"
}

# Two separate runs and compare: one run without the slowdown, then one
# with each planted size, each compared with the first.
separate_cases() {
	local part=$1 pattern=$2 thr=$3 sizes=$4
	shift 4
	local base="$OUT/$part/sep-base.csv" t0 rc cmd=(run)
	# SPH rows: ab takes them as "sph OPTIONS", a run as "sph run OPTIONS"
	if [ "${1:-}" = sph ]; then cmd=(sph run); shift; fi
	mkdir -p "$OUT/$part"
	echo "planted.sh: $part: separate runs, planted $sizes % ($(elapsed) s so far)" >&2
	if ! "$BIN" "${cmd[@]}" "$@" --quiet --out "$base" >"$OUT/$part/sep-base.log" 2>&1; then
		FAILED=1
		echo "planted.sh: $part: the run without a slowdown failed (see $OUT/$part/sep-base.log)" >&2
		return
	fi
	for p in $sizes; do
		t0=$(date +%s)
		local new="$OUT/$part/sep-slow$p.csv" v="$OUT/$part/sep-slow$p-verdicts.csv"
		if HARNESS_TEST_HOOKS=1 HARNESS_TEST_SLOWDOWN="$pattern:$p" "$BIN" "${cmd[@]}" "$@" --quiet \
			--out "$new" >"$OUT/$part/sep-slow$p.log" 2>&1; then
			"$BIN" compare "$base" "$new" --threshold "$thr" --out "$v" >>"$OUT/$part/sep-slow$p.log" 2>&1
			rc=$?
		else
			rc=2
		fi
		[ "$rc" -ne 2 ] || { FAILED=1; echo "planted.sh: $part: planted $p %: failed (see $OUT/$part/sep-slow$p.log)" >&2; }
		count_verdicts "$v" "$part" separate "$p" "$thr" "$rc" $(( $(date +%s) - t0 )) \
			"$part/sep-base.csv $part/sep-slow$p.csv"
	done
}

GPU=1
GPU_WHY=
if ! can_run auto; then
	GPU=0
	GPU_WHY=$(why_not auto)
fi

if has_part gpu; then
	if [ "$GPU" = 1 ]; then
		for p in $GPU_PLANTED; do
			ab_case gpu auto "$p" "$GPU_T" 30 3 $GPU_ROWS
		done
		separate_cases gpu auto "$GPU_T" "$GPU_PLANTED" $GPU_ROWS
	else
		echo "planted.sh: gpu part skipped: the GPU variants cannot run here ($GPU_WHY)" >&2
		echo "gpu,skipped,,,,,,,,,,,,,the GPU variants cannot run here: ${GPU_WHY//,/;}" >>"$SUMMARY.tmp"
	fi
fi

if has_part cpu; then
	cpu_budget=90
	[ "$GPU" = 1 ] && cpu_budget=20
	for p in $CPU_PLANTED; do
		ab_case cpu 'cpu-*' "$p" "$CPU_T" "$cpu_budget" 3 $CPU_ROWS
	done
	separate_cases cpu 'cpu-*' "$CPU_T" "$CPU_PLANTED" $CPU_ROWS
fi

if has_part identical; then
	if [ "$GPU" = 1 ]; then
		left=$(( ${TIME_LIMIT%.*} - $(elapsed) ))
		[ "$left" -gt 0 ] || left=0
		ab_case identical '' 0 "$ID_T" "$left" 3 --suite baseline ${ID_N:+--n "$ID_N"} $ID_TIMING
	else
		echo "planted.sh: identical part: the baseline suite's GPU rows cannot run here ($GPU_WHY): its CPU rows only" >&2
		ab_case identical '' 0 "$ID_T" 240 3 --suite baseline ${ID_N:+--n "$ID_N"} $ID_TIMING
	fi
fi

for part in sph render; do
	has_part "$part" || continue
	if [ "$GPU" = 1 ]; then
		rows=$SPH_ROWS pattern='sph-gpu-verlet'
		[ "$part" = sph ] && pattern='sph-gpu-[vz]*'
		[ "$part" = render ] && rows=$RENDER_ROWS
		for p in $SPH_PLANTED; do
			ab_case "$part" "$pattern" "$p" "$SPH_T" 120 3 $rows
		done
		separate_cases "$part" "$pattern" "$SPH_T" "$SPH_PLANTED" $rows
	else
		echo "planted.sh: $part part skipped: the GPU variants cannot run here ($GPU_WHY)" >&2
		echo "$part,skipped,,,,,,,,,,,,,the GPU variants cannot run here: ${GPU_WHY//,/;}" >>"$SUMMARY.tmp"
	fi
done

mv "$SUMMARY.tmp" "$SUMMARY"

# The sidecar: what ran, where, at which commit (as the harness's own
# sidecars record it).
commit=$(sed -n 's/.*"git_commit": "\([^"]*\)".*/\1/p' "$OUT"/*/*/verdicts.meta.json "$OUT"/*/sep-base.meta.json 2>/dev/null | head -n1)
dirty=$(sed -n 's/.*"git_dirty": \(true\|false\).*/\1/p' "$OUT"/*/*/verdicts.meta.json "$OUT"/*/sep-base.meta.json 2>/dev/null | head -n1)
cpu=$(sed -n 's/.*"cpu_model": "\([^"]*\)".*/\1/p' "$OUT"/*/*/verdicts.meta.json "$OUT"/*/sep-base.meta.json 2>/dev/null | head -n1)
gpuname=$(sed -n '/"gpus": \[/,/\]/s/.*"name": "\([^"]*\)".*/\1/p' "$OUT"/*/*/verdicts.meta.json 2>/dev/null | head -n1)
json_str() { printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g'; }
{
	echo "{"
	echo "  \"schema\": \"harness-gate-sensitivity/1\","
	echo "  \"csv\": \"$(json_str "$SUMMARY")\","
	echo "  \"created_utc\": \"$(date -u +%Y-%m-%dT%H:%M:%SZ)\","
	echo "  \"command\": \"$(json_str "$COMMAND")\","
	echo "  \"harness\": \"$(json_str "$BIN")\","
	echo "  \"git_commit\": \"$(json_str "${commit:-unknown}")\","
	echo "  \"git_dirty\": ${dirty:-null},"
	echo "  \"host\": \"$(json_str "$(hostname)")\","
	echo "  \"cpu_model\": \"$(json_str "$cpu")\", \"logical_cpus\": $(nproc 2>/dev/null || echo null),"
	echo "  \"load_average_1_5_15_min\": { \"start\": \"$LOAD_START\", \"end\": \"$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)\" },"
	echo "  \"gpu\": \"$(json_str "${gpuname:-none}")\","
	echo "  \"gpu_part\": \"$(json_str "$( [ "$GPU" = 1 ] && echo ran || echo "skipped: $GPU_WHY")")\","
	echo "  \"base\": \"$(json_str "${BASE[*]}")\","
	echo "  \"parts\": \"$(json_str "$PARTS")\","
	echo "  \"gpu_rows\": \"$(json_str "$GPU_ROWS")\", \"gpu_planted_pct\": \"$GPU_PLANTED\", \"gpu_threshold_pct\": $GPU_T,"
	echo "  \"cpu_rows\": \"$(json_str "$CPU_ROWS")\", \"cpu_planted_pct\": \"$CPU_PLANTED\", \"cpu_threshold_pct\": $CPU_T,"
	echo "  \"identical\": \"ab --suite baseline ${ID_N:+--n $ID_N }$(json_str "$ID_TIMING")\", \"identical_threshold_pct\": $ID_T,"
	echo "  \"sph_rows\": \"$(json_str "$SPH_ROWS")\", \"render_rows\": \"$(json_str "$RENDER_ROWS")\", \"sph_planted_pct\": \"$SPH_PLANTED\", \"sph_threshold_pct\": $SPH_T,"
	echo "  \"columns\": \"caught: SLOWER (a regression); inconclusive; missed: decided same, faster or slower by less than the threshold; not_compared: only on one side or failed; variants_skipped: variants NEW's runs could not run here; resolution: the smallest change a row could tell from none\","
	echo "  \"seconds\": $(elapsed)"
	echo "}"
} >"$OUT/summary.meta.json.tmp" && mv "$OUT/summary.meta.json.tmp" "$OUT/summary.meta.json"

# The table.
{
	printf '%-9s %-8s %7s %6s %4s %6s %12s %6s %8s %8s %14s %4s %5s\n' part mode planted thresh rows \
		caught inconclusive missed "not cmp" "skipped" "resol med/max" exit secs
	awk -F, 'NR > 1 && $2 != "skipped" {
		printf "%-9s %-8s %7s %5s%% %4s %6s %12s %6s %8s %8s %6s / %-5s %4s %5s\n", $1, $2,
		       ($3 == "0" ? "none" : $3 "%"), $4, $5, $6, $7, $8, $9, $10,
		       ($11 == "" ? "-" : sprintf("%.2g%%", $11)), ($12 == "" ? "-" : sprintf("%.2g%%", $12)), $13, $14 }
	     NR > 1 && $2 == "skipped" { printf "%-9s skipped: %s\n", $1, $15 }' "$SUMMARY"
	echo "caught: SLOWER; missed: decided same/faster/slower under the threshold; not cmp: rows on one side"
	echo "only or failed; skipped: variants NEW could not run here; resol: the change a row could tell from none"
	echo "$OUT: ab folders, runs and compare verdicts with sidecars and logs; summary.csv, summary.meta.json"
} | tee "$OUT/summary.txt"
echo "planted.sh: done in $(elapsed) s" >&2
exit $(( FAILED ? 2 : 0 ))
