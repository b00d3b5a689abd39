# sph-scale.gp - SPH steps per second against the particle count, per neighbour-search variant
#
# Curves: the SPH variants of `harness sph run --suite sph-scale` (or
# sph-table): whole steps (build, density, forces, integration) per second.
# Published: the physics-simulation frame rates of the SPH paper's Tables 1
# and 2 (GeForce 8800 GT and GTX 280, one physics step per frame), at the
# same particle counts.
#
# `harness plot` runs it as gnuplot -e "VARIABLES" sph-scale.gp with:
#   datafile   one block per curve: a header line whose first field is the
#              curve's title, then rows: N steps/s (4 more columns unused)
#   ncurves, pubfile, outbase, device, source, xmin, xmax: as the other scripts
#   colours    a colour per curve, as words ("#1f77b4 #d62728 ..."): each
#              line its own colour however many curves there are

if (!exists("colours")) colours = "#1f77b4 #d62728 #2ca02c #ff7f0e #9467bd #8c564b #e377c2 #17becf"
colour(i) = word(colours, i % words(colours) + 1)
is(q, d) = strcol(2) eq q && strcol(6) eq d

set datafile missing "NaN"
set grid
set key outside right top noenhanced
set logscale x
set logscale y
set format x "10^{%L}"
set format y "10^{%L}"
set xrange [xmin / 1.5 : xmax * 1.5]
set xlabel "particles"
set ylabel "SPH steps/s"

do for [fmt in "png svg"] {
    if (fmt eq "png") {
        set terminal pngcairo size 1000,600 enhanced font "sans,10"
    } else {
        set terminal svg size 1000,600 dynamic enhanced font "sans,10"
    }
    set output outbase . "." . fmt
    set title sprintf("SPH dam break: steps per second\n%s: %s", device, source) noenhanced
    plot for [i=0:ncurves-1] datafile index i using 1:2 with linespoints lw 2 lc rgb colour(i) title columnheader(1), \
         pubfile using (is("physical_simulation_fps", "GeForce GTX 280") ? $4 : NaN):3 \
             with points pt 7 ps 1.5 lc rgb "black" title "paper, GTX 280 (Table 2)", \
         pubfile using (is("physical_simulation_fps", "GeForce 8800 GT") ? $4 : NaN):3 \
             with points pt 6 ps 1.5 lc rgb "black" title "paper, 8800 GT (Table 1)"
    set output
}
