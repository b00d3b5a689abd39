# compare.gp - one suite from several devices: raw, and as a share of each device's ceiling
#
# `harness plot --compare DIR1 DIR2 ...` runs it once per suite with the
# curves of every directory, titled "DEVICE: CURVE". The upper panel shows
# the raw figure on a logarithmic axis (GPU generations differ by orders
# of magnitude); the lower one, each row's pct_of_ceiling: the share of
# its own device's ceiling (harness/nbody/ceiling.c), the scale on which
# generations compare. Curves without a ceiling (CPU rows) are left out
# of the lower panel. A curve keeps its colour in both panels.
#
# Variables (gnuplot -e):
#   datafile   one block per curve: a header line whose first field is the
#              title, then rows: x y %_of_ceiling speedup rel_first noise_%
#              (NaN: no value)
#   ncurves    number of blocks
#   pctcurves  the blocks that have a %_of_ceiling, as words: "0 1 3"
#   outbase    writes outbase.png (pngcairo) and outbase.svg
#   suite, xlabel, ylabel, logx   the suite and its axes (logx: 1 or 0)
#   device, source   the devices and CSVs, for the title
#   xmin, xmax       the range of x
#   colours    a colour per curve, as words ("#1f77b4 #d62728 ...")
#   pubfile, gtx_ceiling   given to every script; the published numbers
#              are drawn by the suite's own script, not here
#
# A suite none of whose rows has a ceiling (SPH, CPU rows) is drawn in the
# upper panel alone.

noise(y, pct) = (pct == pct) ? y * pct / 100 : 0
if (!exists("colours")) colours = "#1f77b4 #d62728 #2ca02c #ff7f0e #9467bd #8c564b #e377c2 #17becf"
colour(i) = word(colours, i % words(colours) + 1)
panels = strlen(pctcurves) > 0 ? 2 : 1

set datafile missing "NaN"
set grid
set lmargin at screen 0.08
set rmargin at screen 0.54
set key at screen 0.57, graph 1 left top Left reverse noenhanced
if (logx) {
    set logscale x 2
    set xrange [xmin / 1.3 : xmax * 1.3]
    if (xmax > 4096) { set format x "2^{%L}" }
}
set xlabel xlabel noenhanced

do for [fmt in "png svg"] {
    if (fmt eq "png") {
        set terminal pngcairo size 1150,650 enhanced font "sans,10"
    } else {
        set terminal svg size 1150,650 dynamic enhanced font "sans,10"
    }
    set output outbase . "." . fmt
    set multiplot layout panels,1 title sprintf("%s across devices\n%s", suite, source) noenhanced
    set ylabel ylabel noenhanced
    set logscale y
    set format y "10^{%L}"
    set yrange [*:*]
    plot for [i=0:ncurves-1] datafile index i using 1:2:(noise($2, column(6))) \
             with yerrorlines lw 2 lc rgb colour(i) pt i+1 title columnheader(1)
    if (panels == 2) {
        unset logscale y
        set format y "%g"
        set ylabel "% of the device's ceiling"
        set yrange [0:*]
        plot for [b in pctcurves] datafile index (b + 0) using 1:3 \
                 with linespoints lw 2 lc rgb colour(b + 0) pt (b + 1) title columnheader(1)
    }
    unset multiplot
    set output
}
