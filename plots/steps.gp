# steps.gp - integration steps per second against N, as the chapter's "38 steps per second"
#
# Curves: the variants timed with --steps (whole kick-drift-kick steps).
# Published: "38 integration time steps per second" at N = 16384 on the
# GeForce 8800 GTX. Steps/s is the same measure on any GPU, so it shares
# the upper (logarithmic) axis; below, each row's interactions/s as a share
# of its device's ceiling, the 8800 GTX's as 38 x 16384^2 / gtx_ceiling.
#
# `harness plot` runs it as gnuplot -e "VARIABLES" steps.gp with:
#   datafile   one block per curve: a header line whose first field is the
#              curve's title, then rows (NaN: no value):
#                N steps/s %_of_ceiling speedup rel_first noise_%
#   ncurves    number of blocks
#   pubfile    published numbers, a line each: source quantity value n unit device
#   outbase    writes outbase.png (pngcairo) and outbase.svg
#   device, source   measured device(s) and CSV, for the title
#   xmin, xmax       the range of x in datafile
#   gtx_ceiling      the 8800 GTX's ceiling, interactions/s (default below)
#
# The 8800 GTX ceiling, in the harness's model (harness/nbody/ceiling.c: the
# slower of 12 arithmetic instructions per interaction on the FP32 lanes
# and one rsqrt on the SFUs), from the chapter's specifications, 128
# processors at 1.35 GHz:
#   gtx_ceiling = 128 x 1.35e9 / 12 = 1.44e10 interactions/s (288 GFLOP/s at 20 flops)
# (The chapter's own best case, 4 interactions in 72 cycles, gives 9.6e9.)
#   colours    a colour per curve, as words ("#1f77b4 #d62728 ..."): each
#              line its own colour however many curves there are

if (!exists("colours")) colours = "#1f77b4 #d62728 #2ca02c #ff7f0e #9467bd #8c564b #e377c2 #17becf"
colour(i) = word(colours, i % words(colours) + 1)
if (!exists("gtx_ceiling")) gtx_ceiling = 128 * 1.35e9 / 12
flops_per_interaction = 20
gtx_pct(gflops) = 100 * gflops * 1e9 / flops_per_interaction / gtx_ceiling
is(q) = strcol(2) eq q
noise(y, pct) = (pct == pct) ? y * pct / 100 : 0

set datafile missing "NaN"
set grid
set lmargin at screen 0.08
set rmargin at screen 0.60
set key at screen 0.67, graph 1 left top Left reverse noenhanced title "black: published (GPU Gems 3)"
set logscale x 2
set format x "2^{%L}"
set xrange [xmin / 1.5 : xmax * 1.5]
set xlabel "N (bodies)"

figure_title = sprintf("Integration Steps per Second\n%s: %s", device, source)

do for [fmt in "png svg"] {
    if (fmt eq "png") {
        set terminal pngcairo size 1000,650 enhanced font "sans,10"
    } else {
        set terminal svg size 1000,650 dynamic enhanced font "sans,10"
    }
    set output outbase . "." . fmt
    set multiplot layout 2,1 title figure_title noenhanced
    set ylabel "steps/s"
    set logscale y
    set format y "10^{%L}"
    set yrange [*:*]
    plot for [i=0:ncurves-1] datafile index i using 1:2:(noise($2, column(6))) \
             with yerrorlines lw 2 lc rgb colour(i) title columnheader(1), \
         pubfile using (is("steps_per_s") ? $4 : NaN):3 \
             with points pt 7 ps 1.5 lc rgb "black" title "8800 GTX, N = 16,384: 38 steps/s"
    unset logscale y
    set format y "%g"
    set ylabel "% of the device's ceiling"
    set yrange [0:*]
    plot for [i=0:ncurves-1] datafile index i using 1:3 with linespoints lw 2 lc rgb colour(i) title columnheader(1), \
         pubfile using (is("steps_per_s") ? $4 : NaN):(100 * $3 * $4 * $4 / gtx_ceiling) \
             with points pt 7 ps 1.5 lc rgb "black" title "8800 GTX, N = 16,384"
    unset multiplot
    set output
}
