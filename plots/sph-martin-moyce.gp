# sph-martin-moyce.gp - the dam break against Martin and Moyce (1952): surge front and residual height
#
# Data: `harness sph physics --check dambreak --out FILE.csv` (schema
# sph-harness-physics/1): rows surge_front_curve / residual_height_curve
# are the simulation sampled (T in column 9, value in 11); rows
# surge_front are the experiment's points at the simulated T they are
# judged at: their own T less 0.175, Lethe's fixed correction of the
# experiment's release (the simulation at T against the experiment at
# T + 0.175, SPH_PHYSICS_TIME_CORRECTION); title and key say it one way,
# the experiment's T moved back onto the simulation's; residual_height at
# their own T (measured in 12), judged (15) for T in [1, 3] within +-10 %
# (the band drawn); surge_front_uncorrected are the front's points at
# their own T, drawn open and not judged (the lead the correction takes
# away). The front's speed (row surge_speed) is a number, not drawn.
# make figures runs it as
#   gnuplot -e "datafile='FILE.csv'; outbase='DIR/sph-martin-moyce'" sph-martin-moyce.gp
# and it writes outbase.png and outbase.svg.

set datafile separator ","
set xlabel "T = t sqrt(2g/a)"
set tics out nomirror
set grid
set xrange [0:3.5]

do for [fmt in "png svg"] {
    if (fmt eq "png") {
        set terminal pngcairo size 1100,480 enhanced font "sans,10"
    } else {
        set terminal svg size 1100,480 dynamic enhanced font "sans,10"
    }
    set output outbase . "." . fmt
    set multiplot layout 1,2 title "SPH dam break (n^2 = 2) against Martin and Moyce (1952): band = +-10 % judged for T in [1, 3]; front: the experiment's T - 0.175 (Lethe's correction of its release)"
    set title "surge front"
    # samples first: the key's long lines then end over the empty top left
    set key top left Left reverse
    set ylabel "Z = z / a"
    set yrange [1:5]
    plot datafile using (strcol(8) eq "surge_front" ? $9 : NaN):($12*0.9):($12*1.1) every ::1 with filledcurves lc rgb "#d8e8f8" title "experiment +-10 %", \
         datafile using (strcol(8) eq "surge_front_curve" ? $9 : NaN):11 every ::1 with points pt 7 ps 0.35 lc rgb "#1a5fb4" title "SPH (every 0.02 in T)", \
         datafile using (strcol(8) eq "surge_front" ? $9 : NaN):12 every ::1 with points pt 7 ps 1 lc rgb "#c01c28" title "Martin and Moyce, Table 2, at its T - 0.175 (judged)", \
         datafile using (strcol(8) eq "surge_front_uncorrected" ? $9 : NaN):12 every ::1 with points pt 6 ps 1 lc rgb "#c01c28" title "Martin and Moyce, Table 2, at its T (not judged)"
    set title "residual height"
    set ylabel "H / (n^2 a)"
    set yrange [0:1.05]
    set key top right
    plot datafile using (strcol(8) eq "residual_height" ? $9 : NaN):($12*0.9):($12*1.1) every ::1 with filledcurves lc rgb "#d8e8f8" title "experiment +-10 %", \
         datafile using (strcol(8) eq "residual_height_curve" ? $9 : NaN):11 every ::1 with points pt 7 ps 0.35 lc rgb "#1a5fb4" title "SPH (every 0.02 in T)", \
         datafile using (strcol(8) eq "residual_height" ? $9 : NaN):12 every ::1 with points pt 7 ps 1 lc rgb "#c01c28" title "Martin and Moyce, Table 6"
    unset multiplot
    set output
}
