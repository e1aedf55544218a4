# cluster.gp — one line per placement policy against arrived workload, from a
# `sharesim cluster` CSV (--csv, --csv-frag or --csv-frag-ratio; the FGD simulator's
# analysis_*_discrete.csv layout), averaged over seeds: the FGD paper's Fig. 9(a)
# (allocation), 7(a) (fragment amount) and 7(b) (fragmentation ratio).
#
#   gnuplot -c scripts/cluster.gp FILE.csv "Y label" [OUT.png]
#
# OUT.png defaults to FILE with .png. The series come from cluster-series.awk (next to
# this script).
if (ARGC < 2) {
    print "usage: gnuplot -c cluster.gp FILE.csv \"Y label\" [OUT.png]"
    exit status 2
}
csv = ARG1
ylab = ARG2
out = (ARGC >= 3) ? ARG3 : (csv[strlen(csv)-3:] eq ".csv" ? csv[1:strlen(csv)-4] : csv) . ".png"
here = "."
do for [i = strlen(ARG0):1:-1] {
    if (ARG0[i:i] eq "/") {
        here = (i > 1) ? ARG0[1:i-1] : "/"
        break
    }
}
names = system(sprintf("awk -F, -v mode=names -f '%s/cluster-series.awk' '%s'", here, csv))
n = words(names)
if (n < 1) {
    print "cluster.gp: no rows in ", csv
    exit status 2
}
# the series once, into a temporary file (a pipe per line would be cut short by gnuplot)
data = system("mktemp")
system(sprintf("awk -F, -v mode=data -f '%s/cluster-series.awk' '%s' > '%s'", here, csv, data))
set terminal pngcairo size 900,560 font ",11"
set output out
set xlabel "arrived workload (GPU requests, % of the cluster's GPUs)"
set ylabel ylab
set key left top
set grid
plot for [k = 1:n] data index (k - 1) using 1:2 with lines lw 2 title word(names, k)
set output
system(sprintf("rm -f '%s'", data))
