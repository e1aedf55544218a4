# MIG layout occupancy (scripts/regen-results): ARG1 a `sharesim report mig`
# CSV (row,label,strategy,gpu,start,memory_slices,…,profile,tenants,utilization),
# ARG2 output path without extension, ARG4 the title. One bar per (strategy,
# GPU) over its 8 memory slices; each instance is a box coloured by how busy
# it was, labelled with its profile and tenants. PNG and SVG.
data = ARG1; out = ARG2; ttl = ARG4
set datafile separator ","
stats data using 1 skip 1 nooutput
rows = STATS_max + 1
do for [fmt in "png svg"] {
    if (fmt eq "png") { set terminal pngcairo size 1000,(160 + 70*rows) font ",9" } else { set terminal svg size 1000,(160 + 70*rows) dynamic font ",9" }
    set output out.".".fmt
    set title ttl font ",11"
    set xlabel "memory slice"
    set xrange [0:8]
    set xtics 1
    set yrange [rows-0.5:-0.5]
    set ytics scale 0
    set cbrange [0:1]
    set cblabel "instance utilisation"
    set palette defined (0 "#f0f4ff", 0.5 "#6a9fd8", 1 "#08306b")
    set style fill solid 1 border lc rgb "black"
    set grid xtics
    plot data using ($5+$6/2.0):1:($6/2.0):(0.38):11:ytic(2) skip 1 with boxxyerror fc palette notitle, \
         data using ($5+$6/2.0):1:(sprintf("%s\n%s", strcol(9), strcol(10))) skip 1 with labels font ",8" tc rgb "#b30000" notitle
    set output
}
