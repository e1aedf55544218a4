# Latency CDF per strategy (scripts/regen-results): ARG1 data (blocks of
# "latency_ms p", one per strategy), ARG2 output path without extension,
# ARG3 the block names, ARG4 the title. Left: the CDF; right: its tail,
# P(latency > x) on a log scale, where the strategies differ. PNG and SVG.
data = ARG1; out = ARG2; names = ARG3; ttl = ARG4
n = words(names)
do for [fmt in "png svg"] {
    if (fmt eq "png") { set terminal pngcairo size 1100,480 font ",10" } else { set terminal svg size 1100,480 dynamic font ",10" }
    set output out.".".fmt
    set multiplot layout 1,2 title ttl font ",11"
    set logscale x
    set xlabel "latency (ms)"
    set grid
    set key bottom right
    set ylabel "fraction of requests ≤ latency"
    set yrange [0:1]
    plot for [i=1:n] data index (i-1) using 1:2 with lines lw 2 title word(names, i)
    set logscale y
    set yrange [1e-4:1]
    set ylabel "fraction of requests > latency"
    set key top right
    plot for [i=1:n] data index (i-1) using 1:(1-$2 > 0 ? 1-$2 : NaN) with lines lw 2 title word(names, i)
    unset logscale y
    unset multiplot
    set output
}
