# sph-rest.gp - water at rest: its height and density over the judged second, against the +-1 % band
#
# Data: `harness sph physics --check rest --out FILE.csv` (schema
# sph-harness-physics/1): rows rest_height (the residual height over its
# value at the start), rest_density_bulk (the mean density more than h
# below the surface, over rho0), judged within +-1 % at every sample, and
# rest_density_max (the densest particle, over rho0: the floor's
# hydrostatic compression, not judged); time in column 10, the relative
# error in 13.
# make figures runs it as
#   gnuplot -e "datafile='FILE.csv'; outbase='DIR/sph-rest'" sph-rest.gp
# and it writes outbase.png and outbase.svg.

set datafile separator ","
set xlabel "t (s, after 3 s of relaxing)"
set ylabel "relative to the start or to rho0 (%)"
set tics out nomirror
set grid
set key noenhanced top right
set yrange [-2:2]
set autoscale xfixmax   # the time axis ends with the samples, not at the next tic
rows(q) = "< grep -F ," . q . ", '" . datafile . "'"   # the rows of quantity q, in time order

do for [fmt in "png svg"] {
    if (fmt eq "png") {
        set terminal pngcairo size 800,440 enhanced font "sans,10"
    } else {
        set terminal svg size 800,440 dynamic enhanced font "sans,10"
    }
    set output outbase . "." . fmt
    set title "SPH water at rest: judged within +-1 % at every sample"
    plot 1 with lines dt 2 lc rgb "#c01c28" title "+-1 %", \
         -1 with lines dt 2 lc rgb "#c01c28" notitle, \
         rows("rest_height") using 10:($13*100) with lines lw 1.5 lc rgb "#1a5fb4" title "height (judged)", \
         rows("rest_density_bulk") using 10:($13*100) with lines lw 1.5 dt 4 lc rgb "#26a269" title "bulk density (judged)", \
         rows("rest_density_max") using 10:($13*100) with lines lw 1 dt 3 lc rgb "#613583" title "densest particle (shown)"
    set output
}
