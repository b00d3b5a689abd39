#!/usr/bin/env bash
# figures.sh - what `make figures` runs: every figure whose data is there, a line each
#
# Usage: plots/figures.sh BIN [FROM] [FIGURES]   (from the repository root, after make)
#
#   BIN      the program (bin/harness)
#   FROM     a results folder; empty: each figure's default, below
#   FIGURES  where the figures go (plots/out)
#
# First `BIN plot --suite all` (the chapter's figures, the SPH ones and
# the scaling figures: `harness plot --help` says where each comes from
# without FROM), then the figures plot does not draw, from these files
# (the environment may name others, as make passes its variables):
#
#   COLLAPSE      results/sph/collapse-16128.csv (sph snapshot wrote it;
#                 any variant gives the same physics)
#   RENDER_TABLE  FROM/sph-render-table.csv, else results/h200's
#   SPH_TABLE     FROM/sph-table.csv, else results/h200's (the step at the
#                 moments of the dam break: sph-flow)
#   MODEL         FROM/scaling-model.csv, else results/h200x4's (where the
#                 scaling suites' files are too)
#   PHYSICS       FROM/sph-physics.csv, else results/h200's (the dam break,
#                 still water and the leak check, each where its rows are)
#
# Each figure is a line naming its data and where it went, or why it was
# skipped. A FROM that is no folder stops everything after plot's line
# saying so. The exit status is the worst: 0 drawn, 1 a figure failed,
# 2 bad input.
set -u
[ $# -ge 1 ] || { echo "usage: plots/figures.sh BIN [FROM] [FIGURES]" >&2; exit 2; }
bin=$1 from=${2:-} figures=${3:-plots/out}
collapse=${COLLAPSE:-results/sph/collapse-16128.csv}
render_table=${RENDER_TABLE:-${from:-results/h200}/sph-render-table.csv}
sph_table=${SPH_TABLE:-${from:-results/h200}/sph-table.csv}
model=${MODEL:-${from:-results/h200x4}/scaling-model.csv}
physics=${PHYSICS:-${from:-results/h200}/sph-physics.csv}
# without FROM, each line says its data is the default
says=$([ -n "$from" ] || echo " (the default without FROM)")

echo "$bin plot --suite all ${from:+--from $from }--out $figures"
"$bin" plot --suite all ${from:+--from "$from"} --out "$figures"
st=$?
# plot said in one line that FROM is not a folder: nothing else comes from it
[ -z "$from" ] || [ -d "$from" ] || exit "$st"
mkdir -p "$figures"

# drawn NAME DATA GNUPLOT-VARS: runs plots/NAME.gp into FIGURES/NAME and
# says so; a failure makes the status 1.
drawn() {
	if gnuplot -e "$3; outbase='$figures/$1'" "plots/$1.gp"; then
		echo "$1: $2 -> $figures/$1.png, .svg"
	else
		st=1
	fi
}

if [ -f "$collapse" ]; then
	drawn sph-collapse "$collapse" "datafile='$collapse'; steps='0 625 1250 2500'"
else
	echo "sph-collapse: no $collapse (skipped)"
fi

dat=$figures/sph-render-table.dat
if [ ! -f "$render_table" ]; then
	echo "sph-render-table: no $render_table (skipped)"
elif ! "$bin" report --render --data --from "$(dirname "$render_table")" > "$dat"; then
	rm -f "$dat"
	echo "sph-render-table: $render_table not drawn (skipped: the line above says why)"
else
	dev=$(sed -n 's/^# device: //p' "$dat")
	drawn sph-render-table "$render_table$says" "datafile='$dat'; device='$dev'"
fi

dat=$figures/sph-flow.dat
if [ ! -f "$sph_table" ]; then
	echo "sph-flow: no $sph_table (skipped)"
elif ! "$bin" report --sph --data --from "$(dirname "$sph_table")" > "$dat" ||
     ! grep -q ' 255600 ' "$dat"; then
	rm -f "$dat"
	echo "sph-flow: $sph_table has no moments of the flow at 255600 (skipped)"
else
	dev=$(sed -n 's/.*"name": "NVIDIA \([^"]*\)".*/\1/p' "${sph_table%.csv}.meta.json" | head -n1)
	drawn sph-flow "$sph_table$says" "datafile='$dat'; column='255600'; device='${dev:-measured}'"
fi

if [ -f "$model" ]; then
	subtitle=$(sed -n 's/.*"subtitle": "\([^"]*\)".*/\1/p' "${model%.csv}.meta.json")
	drawn scaling-model "$model$says" "datafile='$model'; subtitle='$subtitle'"
else
	echo "scaling-model: no $model (skipped)"
fi

if [ -f "$physics" ] && grep -q ',surge_front,' "$physics"; then
	drawn sph-martin-moyce "$physics$says" "datafile='$physics'"
else
	echo "sph-martin-moyce: no dam-break rows in $physics (skipped)"
fi
if [ -f "$physics" ] && grep -q ',rest_height,' "$physics"; then
	drawn sph-rest "$physics$says" "datafile='$physics'"
else
	echo "sph-rest: no still-water rows in $physics (skipped)"
fi
cols=$([ -f "$physics" ] && awk -F, '$8 == "leak_clamps" { printf "%s ", $4 }' "$physics")
if [ -n "$cols" ]; then
	drawn sph-leak "$physics$says" "datafile='$physics'; columns='$cols'"
else
	echo "sph-leak: no leak-check rows in $physics (skipped)"
fi
exit "$st"
