# sph-flow.gp - the SPH step while the water moves: steps/s and the list build's ms against the time of flow, a line per variant
#
# Data: `harness report --sph --data --from DIR` (DIR/sph-table.csv, and
# DIR/sph-large.csv when there): a line per row of a moment of the flow:
# variant, column, n, step, time_s, steps_per_s, build_ms, density_ms,
# force_ms, integrate_ms. make figures runs it as
#   gnuplot -e "datafile='FILE.dat'; outbase='DIR/sph-flow'; column='255600'; device='H200'" sph-flow.gp
# and it writes outbase.png and outbase.svg: on the left steps/s (log
# scale), on the right the neighbour structure's build, ms a step (log
# scale), each against the seconds of flow, for the rows of that column.

if (!exists("column")) column = "255600"
if (!exists("device")) device = "measured"
variants = "sph-gpu-verlet sph-gpu-verlet-fine sph-gpu-nlist sph-gpu-grid-count sph-gpu-grid-radix sph-gpu-zindex-cells sph-gpu-grid-buckets sph-gpu-zindex-blocks sph-gpu-brute sph-cpu-grid"
short(v) = v eq "sph-cpu-grid" ? "CPU grid" : v[9:]
of(v, c) = (strcol(1) eq v && strcol(2) eq c) ? 1 : 0
set logscale y
set grid
set tics out nomirror
set xlabel "time of flow (s)"
set xrange [-0.02:*]
set key outside right top font ",9" samplen 2

do for [fmt in "png svg"] {
    if (fmt eq "png") {
        set terminal pngcairo size 1300,520 enhanced font "sans,10"
    } else {
        set terminal svg size 1300,520 dynamic enhanced font "sans,10"
    }
    set output outbase . "." . fmt
    set multiplot layout 1,2 title sprintf("The SPH step through the dam break, %s particles, %s: each moment timed over the same window from one state of the flow", column, device)
    set ylabel "steps/s"
    set format y "%.0f"
    plot for [v in variants] datafile using (of(v, column) ? $5 : NaN):(of(v, column) ? $6 : NaN) with linespoints title short(v)
    unset key
    set ylabel "build, ms a step"
    set format y "%g"
    plot for [v in variants] datafile using (of(v, column) ? $5 : NaN):(of(v, column) && $7 > 0 ? $7 : NaN) with linespoints title short(v)
    set key outside right top font ",9" samplen 2
    unset multiplot
    set output
}
