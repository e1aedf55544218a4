# sweep-series.awk — splits a `sharesim sweep` CSV into the series that sweep.gp plots.
#
# sweep.csv columns: point, the swept parameters (first --set first), then the
# `sharesim run --csv` columns (scenario, strategy, kind, tenant, …, latency_ms_p99, …).
# A series is one strategy × tenant × combination of the swept parameters after the
# first (the x axis); series are numbered 1, 2, … in order of first appearance, which
# is point order, so the numbering is the same on every run.
#
#   awk -F, -v mode=count  -f sweep-series.awk sweep.csv   number of series
#   awk -F, -v mode=xlabel -f sweep-series.awk sweep.csv   name of the x column
#   awk -F, -v mode=xnum   -f sweep-series.awk sweep.csv   1 if every x is a number
#   awk -F, -v mode=title -v series=N -f …                 title of series N
#   awk -F, -v mode=data  -v series=N -f …                 "x_ordinal<TAB>x<TAB>p99_ms"
#                                                           (NaN where p99 is empty)
NR == 1 {
    for (i = 1; i <= NF; i++) {
        name[i] = $i
        if ($i == "scenario" && !sc) sc = i
        if ($i == "strategy" && !st) st = i
        if ($i == "tenant" && !tn) tn = i
        if ($i == "latency_ms_p99" && !p99) p99 = i
    }
    if (!sc || !st || !tn || !p99 || sc < 3) {
        print "sweep-series.awk: not a sharesim sweep CSV" > "/dev/stderr"
        bad = 1
        exit 2
    }
    next
}
{
    key = $st " / " $tn
    for (i = 3; i < sc; i++) key = key "  " name[i] "=" $i
    if (!(key in id)) { id[key] = ++n; title[n] = key }
    if (!($2 in xi)) xi[$2] = ++nx
    if ($2 !~ /^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$/) nonnum = 1
    if (mode == "data" && id[key] == series)
        printf "%d\t%s\t%s\n", xi[$2], $2, ($p99 == "" ? "NaN" : $p99)
}
END {
    if (bad) exit 2
    if (mode == "count") print n + 0
    if (mode == "xlabel") print name[2]
    if (mode == "xnum") print (nonnum ? 0 : 1)
    if (mode == "title") print title[series]
}
