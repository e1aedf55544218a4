# p99 against load per strategy (scripts/regen-results): ARG1 data (blocks of
# "load_scale p99_ms_max gpu_utilization", one per strategy), ARG2 output path
# without extension, ARG3 the block names, ARG4 the title. PNG and SVG.
data = ARG1; out = ARG2; names = ARG3; ttl = ARG4
n = words(names)
do for [fmt in "png svg"] {
    if (fmt eq "png") { set terminal pngcairo size 800,520 font ",10" } else { set terminal svg size 800,520 dynamic font ",10" }
    set output out.".".fmt
    set title ttl font ",11"
    set xlabel "load (× the scenario's arrival rates)"
    set ylabel "p99 latency of the worst tenant (ms)"
    set logscale y
    set grid
    set key top left
    plot for [i=1:n] data index (i-1) using 1:2 with linespoints lw 2 pt 7 title word(names, i)
    set output
}
