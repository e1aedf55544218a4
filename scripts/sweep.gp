# sweep.gp — p99 latency against the first swept parameter of a `sharesim sweep`,
# one line per strategy × tenant (× each combination of the other swept parameters).
#
#   gnuplot -c scripts/sweep.gp DIR/sweep.csv [OUT.png]
#
# OUT.png defaults to the CSV's name with .png. `sharesim sweep` calls this itself
# when gnuplot is on PATH. The CSV is split into series by sweep-series.awk (next to
# this script); a non-numeric first parameter is plotted as categories in point order.
if (ARGC < 1) {
    print "usage: gnuplot -c sweep.gp SWEEP.csv [OUT.png]"
    exit status 2
}
csv = ARG1
out = (ARGC >= 2) ? ARG2 : (csv[strlen(csv)-3:] eq ".csv" ? csv[1:strlen(csv)-4] : csv) . ".png"
here = "."
do for [i = strlen(ARG0):1:-1] {
    if (ARG0[i:i] eq "/") {
        here = (i > 1) ? ARG0[1:i-1] : "/"
        break
    }
}
series(mode, n) = sprintf("awk -F, -v mode=%s -v series=%d -f '%s/sweep-series.awk' '%s'", \
                          mode, n, here, csv)
n = int(system(series("count", 0)))
if (n < 1) {
    print "sweep.gp: no rows in ", csv
    exit status 2
}
xlabel = system(series("xlabel", 0))
xnum = int(system(series("xnum", 0)))

if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
    set terminal pngcairo size 1000,640 noenhanced font ",10"
} else {
    set terminal png size 1000,640 noenhanced
}
set output out
set datafile separator "\t"
set datafile missing "NaN"
set title "p99 latency vs " . xlabel
set xlabel xlabel
set ylabel "p99 latency (ms)"
set grid
set key outside right top
if (n > 12) { set key font ",7" }
if (xnum) {
    plot for [k = 1:n] "< " . series("data", k) using 2:3 with linespoints \
         title system(series("title", k))
} else {
    set offsets 0.25, 0.25, 0, 0
    plot for [k = 1:n] "< " . series("data", k) using 1:3:xtic(2) with linespoints \
         title system(series("title", k))
}
set output
