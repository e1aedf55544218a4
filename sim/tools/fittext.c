/*
 * fittext — `sharesim profile fit`'s table for people, beside fitreport's document: the
 * parameters, how the fit ended, and per split (fit rows, then holdout rows) every row's
 * measured and predicted TTFT, TPOT and tokens/s with its error, and the medians and bias.
 */
#include "tools/fittext.h"

#include <math.h>

static void print_cell(FILE *fp, const struct fit_row *r, int m)
{
    double e = fit_error_pct(r, m);
    char a[24] = "-", b[24] = "-", c[24] = "";
    if (!isnan(r->meas[m]))
        snprintf(a, sizeof a, "%.4g", r->meas[m]);
    if (isfinite(r->pred[m]))
        snprintf(b, sizeof b, "%.4g", r->pred[m]);
    if (!isnan(e))
        snprintf(c, sizeof c, "%+.1f%%", e);
    fprintf(fp, "  %9s %9s %8s", a, b, c);
}

static void print_summary(FILE *fp, const struct fit_ctx *c, int holdout)
{
    static const char *const label[] = {"TTFT", "TPOT", "tok/s"};
    for (int m = 0; m < FM_N; m++) {
        struct fit_stat st;
        fit_summary(c, holdout, m, &st);
        if (st.points == 0)
            fprintf(fp, "  %-5s no points\n", label[m]);
        else
            fprintf(fp,
                    "  %-5s median |error| %.1f%% over %d point%s, %.0f%% of them predicted high\n",
                    label[m], st.median_abs_pct, st.points, st.points == 1 ? "" : "s",
                    st.positive_share * 100);
    }
}

static void print_split(FILE *fp, const struct fit_ctx *c, int holdout)
{
    fprintf(fp, "\n%s rows:\n", holdout ? "holdout" : "fit");
    fprintf(fp, "%-28s  %9s %9s %8s  %9s %9s %8s  %9s %9s %8s\n", "id", "TTFT ms", "pred", "err",
            "TPOT ms", "pred", "err", "tok/s", "pred", "err");
    for (int i = 0; i < c->n_rows; i++) {
        const struct fit_row *r = &c->rows[i];
        if (*r->skip || r->holdout != holdout)
            continue;
        fprintf(fp, "%-28s", r->id);
        for (int m = 0; m < FM_N; m++)
            print_cell(fp, r, m);
        fputc('\n', fp);
        if (*r->note)
            fprintf(fp, "  (%s)\n", r->note);
    }
    print_summary(fp, c, holdout);
}

void fit_print_report(FILE *fp, const struct fit_ctx *c, int fitted)
{
    fprintf(fp, "%s\n", fitted ? "fitted parameters:" : "parameters (not fitted):");
    for (int i = 0; i < c->n_params; i++) {
        const struct fit_param *p = &c->params[i];
        fprintf(fp, "  %s = %g  (bounds %g to %g, start %g)\n", p->key, p->value, p->lo, p->hi,
                p->start);
    }
    if (fitted)
        fprintf(fp, "%d iterations, %s, objective %.6g\n", c->iterations,
                c->converged ? "converged" : "iteration cap reached", c->objective);
    else
        fprintf(fp, "objective %.6g\n", c->objective);
    print_split(fp, c, 0);
    print_split(fp, c, 1);
}
