# sph-collapse.gp - the dam-break column collapsing: particles at four times, coloured by speed
#
# Data: `harness sph snapshot ... --at S1,S2,S3,S4 --out FILE.csv`, a CSV
# with columns step, time_s, x_m, y_m, z_m, speed_m_per_s, rho_kg_per_m3.
# Each panel is a side view (x against z) of every particle at one step,
# coloured by speed. make figures runs it as
#   gnuplot -e "datafile='FILE.csv'; outbase='DIR/sph-collapse'; steps='S1 S2 S3 S4'" sph-collapse.gp
# and it writes outbase.png and outbase.svg. The panels' times are the
# data's own: the run's time step is read from its rows (time_s / step).

set datafile separator ","
set datafile missing "NaN"
stats datafile using ($1 > 0 ? $2 / $1 : NaN) every ::1 nooutput
dt = STATS_max
set key off
set size ratio -1
set xrange [0:0.96]
set yrange [0:0.36]
set xlabel "x (m)"
set ylabel "z (m)"
set cblabel "speed (m/s)"
set cbrange [0:2.5]
set palette defined (0 "#1a3a8a", 0.4 "#2a9df4", 0.8 "#7fe0c0", 1.4 "#f0e040", 2.5 "#e03020")
set tics out nomirror

do for [fmt in "png svg"] {
    if (fmt eq "png") {
        set terminal pngcairo size 1100,700 enhanced font "sans,10"
    } else {
        set terminal svg size 1100,700 dynamic enhanced font "sans,10"
    }
    set output outbase . "." . fmt
    set multiplot layout 2,2 title "SPH dam break, 16,128 particles (the paper's smallest column): side view coloured by speed"
    do for [s in steps] {
        set title sprintf("t = %.3f s (step %s)", s * dt, s)
        plot datafile using ($1 == s ? $3 : NaN):5:6 every ::1 with points pt 7 ps 0.25 palette
    }
    unset multiplot
    set output
}
