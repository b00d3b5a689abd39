# sph-leak.gp - the leak check: the water's centre along the tank, the time step's CFL number and the clamps, over 3 s of flow
#
# Data: `harness sph physics --check leak --out FILE.csv` (schema
# sph-harness-physics/1): per leak column (column 4), the rows
# leak_centre_curve, leak_cfl_curve, leak_clamps_curve and
# leak_outside_curve are one value (11) per look at time t (10). The check
# passes when no coordinate is clamped, no particle is outside the box and
# the CFL number stays within Monaghan's 0.4 (the line drawn).
# make figures runs it as
#   gnuplot -e "datafile='FILE.csv'; outbase='DIR/sph-leak'; columns='16128 75200 255600'" sph-leak.gp
# and it writes outbase.png and outbase.svg.

set datafile separator ","
set xlabel "t (s of flow)"
set tics out nomirror
set grid
set key noenhanced
set xrange [0:*]
set autoscale xfixmax   # the time axis ends with the looks, not at the next tic
# a colour and a dash type per column, so that the lines part in grey print too
colours = "#1a5fb4 #26a269 #c64600 #613583 #a51d2d"
dashes = "1 2 4 5 3"
curve(q, i) = (strcol(8) eq q && strcol(4) eq word(columns, i)) ? $10 : NaN

do for [fmt in "png svg"] {
    if (fmt eq "png") {
        set terminal pngcairo size 1400,440 enhanced font "sans,10"
    } else {
        set terminal svg size 1400,440 dynamic enhanced font "sans,10"
    }
    set output outbase . "." . fmt
    set multiplot layout 1,3 title "SPH leak check: the dam break through the impact on the far wall and the slosh back (a line per column, particles)"
    set title "the water's centre along the tank"
    set ylabel "mean x / tank length"
    set yrange [0:1]
    set key bottom right
    plot for [i=1:words(columns)] datafile using (curve("leak_centre_curve", i)):11 every ::1 with lines lw 1.5 dt int(word(dashes, i)) lc rgb word(colours, i) title word(columns, i)
    set title "the time step against the fastest particle"
    set ylabel "CFL number dt (c + v) / (h/2)"
    set yrange [0:0.5]
    set key bottom right
    plot for [i=1:words(columns)] datafile using (curve("leak_cfl_curve", i)):11 every ::1 with lines lw 1.5 dt int(word(dashes, i)) lc rgb word(colours, i) title word(columns, i), \
         0.4 with lines dt 2 lc rgb "#c01c28" title "Monaghan's limit"
    set title "water through the walls (judged: 0)"
    set ylabel "count"
    set yrange [-0.5:1<*]
    set key top left
    plot for [i=1:words(columns)] datafile using (curve("leak_clamps_curve", i)):11 every ::1 with lines lw 1.5 dt int(word(dashes, i)) lc rgb word(colours, i) title word(columns, i) . ": coordinates clamped so far", \
         for [i=1:words(columns)] datafile using (curve("leak_outside_curve", i)):11 every ::1 with points pt 6 ps 0.4 lc rgb word(colours, i) title word(columns, i) . ": particles outside the box"
    unset multiplot
    set output
}
