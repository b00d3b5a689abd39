# sph-memory.gp - auxiliary memory per particle of each SPH neighbour search
#
# Curves: the SPH variants of `harness sph run --suite sph-memory`: every
# byte a variant allocates beyond the particle arrays (positions,
# velocities, densities, accelerations), per particle, against N. The SPH
# paper's claim is that Z-index blocks need no memory beyond the particle
# arrays where grids spend it on cells and buckets.
#
# Variables: datafile (blocks: N bytes/particle ...), ncurves, outbase,
# device, source, xmin, xmax (pubfile is not used).
#   colours    a colour per curve, as words ("#1f77b4 #d62728 ..."): each
#              line its own colour however many curves there are

if (!exists("colours")) colours = "#1f77b4 #d62728 #2ca02c #ff7f0e #9467bd #8c564b #e377c2 #17becf"
colour(i) = word(colours, i % words(colours) + 1)
set datafile missing "NaN"
set grid
set key outside right top noenhanced
set logscale x
set format x "10^{%L}"
set xrange [xmin / 1.5 : xmax * 1.5]
set yrange [0:*]
set xlabel "particles"
set ylabel "auxiliary bytes per particle"

do for [fmt in "png svg"] {
    if (fmt eq "png") {
        set terminal pngcairo size 1000,600 enhanced font "sans,10"
    } else {
        set terminal svg size 1000,600 dynamic enhanced font "sans,10"
    }
    set output outbase . "." . fmt
    set title sprintf("SPH: memory beyond the particle arrays\n%s: %s", device, source) noenhanced
    plot for [i=0:ncurves-1] datafile index i using 1:2 with linespoints lw 2 lc rgb colour(i) title columnheader(1)
    set output
}
