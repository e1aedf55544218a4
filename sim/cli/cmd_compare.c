/*
 * sharesim compare — strategies side by side per tenant, the best value of each
 * column marked, and one line per strategy saying what dominated its latency.
 *
 * Latency decomposition (means over completed requests): latency = wait before
 * first service (queueing) + the request's work on a whole GPU (service) + the
 * rest of its time in service, which is what sharing added: other contexts'
 * slices and switches under time-slicing or vGPU, the smaller instance under
 * MIG, co-running clients under MPS.
 */
#include "cli/cli.h"
#include "core/policy.h"
#include "report/report.h"
#include "core/run.h"
#include "core/scenario.h"
#include "base/util.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *fp)
{
    fprintf(fp,
            "usage: sharesim compare SCENARIO [--baseline NAME] [--seed N] [--replications R]\n\n"
            "Runs the scenario and prints, per tenant, each strategy's p99, throughput, SLA\n"
            "attainment, p99 slowdown against the baseline strategy (default: the first\n"
            "exclusive one, else the first) and cost per million requests; * marks the best\n"
            "value of each column. Then one line per strategy on what dominated latency.\n"
            "exit: 0 ok, 2 bad input\n");
}

/* What sharing adds to the time in service, as the strategy's policy names it. */
static const char *excess_name(const struct strategy_cfg *st)
{
    const struct policy_hooks *h = st->ops->hooks;
    return h && h->label ? h->label(st->cfg) : "slowed service";
}

static int better(int col, double a, double b)
{
    if (!isfinite(a))
        return 0;
    if (!isfinite(b))
        return 1;
    return col == 1 || col == 2 ? a > b : a < b; /* throughput and SLA: higher is better */
}

static void print_tenant(const struct scenario *sc, const struct run_result *r, int i, int base)
{
    double v[64][5];
    int S = r->n < 64 ? r->n : 64, best[5] = {0};
    for (int k = 0; k < S; k++) {
        const double *t = r->s[k].t + (size_t)i * TM_N;
        double bp99 = r->s[base].t[(size_t)i * TM_N + TM_LAT_P99];
        v[k][0] = t[TM_LAT_P99] * 1e3;
        v[k][1] = t[TM_THROUGHPUT];
        v[k][2] = t[TM_SLA_ATTAINMENT] * 100;
        v[k][3] = t[TM_LAT_P99] / bp99;
        v[k][4] = r->s[k].m[SM_COST_PER_MREQ];
        for (int c = 0; c < 5; c++)
            if (k == 0 || better(c, v[k][c], v[best[c]][c]))
                best[c] = k;
    }
    printf("\ntenant %s%s\n", sc->tenants[i].name, sc->tenants[i].sla_p99_s > 0 ? "" : " (no SLA)");
    printf("  %-14s %11s %11s %9s %10s %11s\n", "strategy", "p99_ms", "thr/s", "SLA%", "slowdown",
           "$/Mreq");
    static const char *const fmt[5] = {"%.3f", "%.1f", "%.1f", "%.2f", "%.3f"};
    for (int k = 0; k < S; k++) {
        char cell[5][32];
        for (int c = 0; c < 5; c++) {
            if (!isfinite(v[k][c])) {
                snprintf(cell[c], sizeof cell[c], "-");
                continue;
            }
            int n = snprintf(cell[c], sizeof cell[c], fmt[c], v[k][c]);
            if (best[c] == k && n < 30)
                strcat(cell[c], "*");
        }
        printf("  %-14s %11s %11s %9s %10s %11s\n", r->s[k].name, cell[0], cell[1], cell[2],
               cell[3], cell[4]);
    }
}

/* s is the result of st. */
static void print_dominant(const struct strategy_cfg *st, const struct strategy_result *s)
{
    double q = 0, w = 0, l = 0, n = 0;
    for (int i = 0; i < s->n_tenants; i++) {
        const double *t = s->t + (size_t)i * TM_N;
        if (!isfinite(t[TM_LAT_MEAN]) || t[TM_COMPLETED] <= 0)
            continue;
        q += t[TM_COMPLETED] * t[TM_WAIT_MEAN];
        w += t[TM_COMPLETED] * t[TM_WORK_MEAN];
        l += t[TM_COMPLETED] * t[TM_LAT_MEAN];
        n += t[TM_COMPLETED];
    }
    if (n == 0 || l <= 0) {
        printf("  %-14s nothing completed\n", s->name);
        return;
    }
    double ex = l - q - w;
    if (ex < 0)
        ex = 0; /* faster than a whole GPU cannot happen; rounding only */
    const char *dom = q >= w && q >= ex ? "queueing" : ex >= w ? excess_name(st) : "service";
    printf("  %-14s mean %.3f ms = queueing %.0f%% + service %.0f%% + %s %.0f%%", s->name,
           l / n * 1e3, 100 * q / l, 100 * w / l, excess_name(st), 100 * ex / l);
    if (s->m[SM_SWITCH] > 0)
        printf(" (switching %.2f%% of GPU time)", 100 * s->m[SM_SWITCH]);
    printf(" — %s dominates\n", dom);
}

int cmd_compare(int argc, char **argv)
{
    static const struct option opts[] = {{"baseline", required_argument, 0, 'b'},
                                         {"seed", required_argument, 0, 's'},
                                         {"replications", required_argument, 0, 'r'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *baseline = NULL;
    struct run_opts ro = {0, -1, 0, 0};
    long v;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "b:s:r:h", opts, NULL)) != -1) {
        switch (c) {
        case 'b':
            baseline = optarg;
            break;
        case 's':
            if (cli_opt_long("sharesim compare", "--seed", optarg, 0, 4294967295L, &v))
                return SS_EXIT_BADINPUT;
            ro.seed = v;
            break;
        case 'r':
            if (cli_opt_long("sharesim compare", "--replications", optarg, 1, 10000, &v))
                return SS_EXIT_BADINPUT;
            ro.replications = (int)v;
            break;
        case 'h':
            usage(stdout);
            return SS_EXIT_OK;
        default:
            usage(stderr);
            return SS_EXIT_BADINPUT;
        }
    }
    if (optind != argc - 1) {
        usage(stderr);
        return SS_EXIT_BADINPUT;
    }
    struct scenario sc;
    if (cli_load_scenario(argv[optind], 0, &sc))
        return SS_EXIT_BADINPUT;
    int base = -1;
    for (int k = 0; k < sc.n_strategies; k++) {
        if (baseline && strcmp(sc.strategies[k].name, baseline) == 0)
            base = k;
        if (!baseline && base < 0 && policy_is_baseline(sc.strategies[k].ops))
            base = k;
    }
    if (baseline && base < 0) {
        fprintf(stderr, "sharesim compare: --baseline: no strategy named \"%s\" in %s\n", baseline,
                argv[optind]);
        scn_free(&sc);
        return SS_EXIT_BADINPUT;
    }
    if (base < 0)
        base = 0;
    cli_install_signal_handlers();
    ro.progress = cli_stderr_is_tty();
    struct run_result r;
    char err[SS_ERRLEN];
    if (run_scenario(&sc, &ro, &r, err, sizeof err)) {
        fprintf(stderr, "sharesim: %s\n", err);
        scn_free(&sc);
        return SS_EXIT_BADINPUT;
    }
    printf("compare %s on %d × %s (baseline %s; * = best in column)\n", sc.name, sc.gpus,
           sc.gpu.name, sc.strategies[base].name);
    for (int i = 0; i < sc.n_tenants; i++)
        print_tenant(&sc, &r, i, base);
    printf("\nwhat dominated latency (all tenants, weighted by completions):\n");
    for (int k = 0; k < r.n; k++)
        print_dominant(&sc.strategies[k], &r.s[k]); /* run_scenario keeps the order */
    run_result_free(&r);
    scn_free(&sc);
    return SS_EXIT_OK;
}
