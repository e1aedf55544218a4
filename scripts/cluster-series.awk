# cluster-series.awk — per-policy means of a `sharesim cluster --csv` file (the FGD
# simulator's analysis_*_discrete.csv layout: workload,sc_policy,tune,seed[,total_gpus],0,1,…)
# for scripts/cluster.gp.
#   awk -F, -v mode=names -f cluster-series.awk FILE.csv   policy labels, space-separated
#   awk -F, -v mode=data  -f cluster-series.awk FILE.csv   one block per policy: "x mean"
# Empty cells (no event near that arrived %) are left out of the mean.
NR == 1 {
    for (i = 1; i <= NF; i++)
        if ($i == "0") { first = i; break }
    last = NF
    next
}
{
    p = $2
    if (!(p in seen)) { seen[p] = 1; order[++np] = p }
    for (i = first; i <= last; i++)
        if ($i != "") { sum[p, i] += $i; cnt[p, i]++ }
}
END {
    if (mode == "names") {
        for (k = 1; k <= np; k++) printf "%s%s", (k > 1 ? " " : ""), order[k]
        printf "\n"
        exit
    }
    for (k = 1; k <= np; k++) {
        p = order[k]
        if (k > 1) printf "\n\n"
        for (i = first; i <= last; i++)
            if (cnt[p, i]) printf "%d %.4f\n", i - first, sum[p, i] / cnt[p, i]
    }
}
