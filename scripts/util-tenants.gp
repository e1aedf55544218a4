# GPU utilisation and p99 against tenants per GPU (scripts/regen-results):
# ARG1 a `sharesim report summary` CSV, ARG2 output path without extension,
# ARG4 the title. Bars: useful utilisation with the switching overhead stacked
# on top (left axis, %);
# points: mean p99 over tenants (right axis, ms). PNG and SVG.
data = ARG1; out = ARG2; ttl = ARG4
set datafile separator ","
do for [fmt in "png svg"] {
    if (fmt eq "png") { set terminal pngcairo size 800,520 font ",10" } else { set terminal svg size 800,520 dynamic font ",10" }
    set output out.".".fmt
    set title ttl font ",11"
    set xlabel "tenants per GPU"
    set ylabel "% of GPU time"
    set y2label "p99 latency, mean over tenants (ms)"
    set yrange [0:100]
    set y2range [0:*]
    set ytics nomirror
    set y2tics
    set grid
    set key top left
    set style fill solid 0.6 border -1
    set boxwidth 0.35 relative
    plot data using 5:(($6+$7)*100):xtic(sprintf("%s (%g)", strcol(1), $5)) skip 1 with boxes lc rgb "#e6550d" title "switching overhead (on top)", \
         data using 5:($6*100) skip 1 with boxes lc rgb "#3182bd" title "GPU utilisation (useful work)", \
         data using 5:9 skip 1 axes x1y2 with linespoints lw 2 pt 7 title "p99 (right axis)"
    set output
}
