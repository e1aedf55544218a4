/*
 * sharesim report — tables and plot data from result documents, for results/
 * (scripts/regen-results). Nothing here simulates: every subcommand reads
 * files written by `sharesim run --json` (or results/index.json) and prints the
 * same bytes for the same input.
 *
 *   md RESULT.json          the Markdown section of one result
 *   summary [X=]RESULT…     one row per strategy (CSV, or --markdown), e.g. a sweep
 *   mig RESULT.json         MIG instance occupancy (CSV) for the layout plot
 *   index INDEX.json        the studies as tab-separated lines for the shell
 *   reference INDEX.json    the reference table (JSON, CSV, Markdown)
 *   html RESULT.json…       a study's self-contained HTML page (report/html.h)
 *   check PAGE…             a page's figures keep their promises (tools/svgcheck.h)
 *   gnuplot RESULT… --out D  the page's figures as gnuplot scripts and data (report/gnuplot.h)
 */
#include "calib/calib.h"
#include "cli/cli.h"
#include "cli/outplan.h"
#include "core/rdoc.h"
#include "core/scenario.h"
#include "report/gnuplot.h"
#include "report/html.h"
#include "report/rtable.h"
#include "report/studies.h"
#include "tools/svgcheck.h"
#include "base/util.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *fp)
{
    fprintf(fp,
            "usage: sharesim report md RESULT.json [--title T] [--scenario FILE] [--command C]\n"
            "                          [--note TEXT] [--level N]\n"
            "       sharesim report summary [--markdown] [--x NAME] [X=]RESULT.json…\n"
            "       sharesim report mig RESULT.json\n"
            "       sharesim report index INDEX.json [--rows ID]\n"
            "       sharesim report reference INDEX.json --study ID --dir DIR [--json F]\n"
            "                          [--csv F] [--md F]\n"
            "       sharesim report html RESULT.json… [-o FILE] [--scenario F] [--cdf CSV]\n"
            "                          [--plot METRIC,…] [--svg PREFIX] [--title T]\n"
            "                          [--question Q] [--command C] [--note TEXT]\n"
            "                          [--index INDEX.json --study ID [--dir DIR]]\n"
            "       sharesim report check PAGE…\n"
            "       sharesim report gnuplot RESULT.json… --out DIR [the options of html but\n"
            "                          -o and --svg]\n\n"
            "Tables and plot data from `sharesim run --json` results (see docs/results.md):\n"
            "  md         Markdown: a header (title, the scenario's description, the\n"
            "             command, a note), the strategy × tenant table, the strategy\n"
            "             table and the MIG layouts\n"
            "  summary    one row per strategy and result (CSV, or Markdown with\n"
            "             --markdown): tenants, GPUs used, tenants per GPU, utilisation,\n"
            "             switching, throughput, p99 mean and max over tenants, lowest\n"
            "             SLA attainment, cost per million; with --x NAME every argument\n"
            "             is X=FILE and X is the first column (e.g. the load scale)\n"
            "  mig        one CSV line per MIG instance (memory slices from the GPU profile)\n"
            "  index      one tab-separated line per study: id, kind, scenario, plots,\n"
            "             load scales, run-length note, title; --rows ID: a reference\n"
            "             study's rows (mode, scenario, strategy)\n"
            "  reference  reads DIR/<ID>-<mode>.json per row, writes the reference table\n"
            "  html       one self-contained page (inline SVG, no script; docs/report.md): the\n"
            "             question, the verdict, every tenant's latency distribution with its\n"
            "             SLA (--cdf: the CSV of `sharesim run --cdf`), MIG layouts, the tables;\n"
            "             with several results (--scale-load runs, or `sharesim sweep` points)\n"
            "             each --plot metric against the swept value (default p99_ms, TTFT and\n"
            "             TPOT when present, cost), with the SLA and where it is crossed.\n"
            "             --scenario gives the SLAs and names; --index/--study take title,\n"
            "             question, run length, notes and scenario from results/index.json (a\n"
            "             reference study reads its rows from --dir); --svg also writes every\n"
            "             figure as PREFIX-<figure>.svg. Metrics: p99_ms, p999_ms,\n"
            "             p95_ms, p50_ms, mean_ms, ttft_p99_ms, tpot_p99_ms, throughput,\n"
            "             sla_attainment, cost, cost_per_hour, util, gpus\n"
            "  check      every latency plot of the pages shows its SLA and no curve is fully\n"
            "             hidden by another (exit 1 when one is; 2 when a page is cut, holds a\n"
            "             point that is not a finite number or passes a limit of the checker)\n"
            "  gnuplot    for every figure of the page `html` would write from the same\n"
            "             arguments, DIR/<figure>.dat and DIR/<figure>.gp; `gnuplot\n"
            "             DIR/<figure>.gp` renders DIR/<figure>.png and .pdf (docs/report.md);\n"
            "             prints the scripts written, one a line\n"
            "exit: 0 ok, 1 a page fails check, 2 bad input\n");
}

static int bad(const char *err)
{
    fprintf(stderr, "sharesim report: %s\n", err);
    return SS_EXIT_BADINPUT;
}

/* Options shared by the subcommands; each accepts only the ones it documents. Bit i is row i
 * of parse_opts's table. */
enum {
    O_TITLE = 1,
    O_SCENARIO = 2,
    O_COMMAND = 4,
    O_LEVEL = 8,
    O_MARKDOWN = 16,
    O_X = 32,
    O_ROWS = 64,
    O_STUDY = 128,
    O_DIR = 256,
    O_JSON = 512,
    O_CSV = 1024,
    O_MD = 2048,
    O_NOTE = 4096,
    O_OUT = 8192,
    O_CDF = 16384,
    O_PLOT = 32768,
    O_SVG = 65536,
    O_QUESTION = 131072,
    O_INDEX = 262144
};
struct ropts {
    const char *title, *scenario, *command, *note, *x, *rows, *study, *dir, *json, *csv, *md_path;
    const char *out, *cdf, *plot, *svg, *question, *index;
    int md, level;
    unsigned given; /* O_* bits */
};

static int parse_opts(int argc, char **argv, struct ropts *o)
{
    char cmd[64];
    snprintf(cmd, sizeof cmd, "sharesim report %s", argv[0]);
    memset(o, 0, sizeof *o);
    o->level = 2;
    unsigned long given = 0;
    const struct cli_opt opts[] = {
        CLI_OPT_STR("title", 0, &o->title),
        CLI_OPT_STR("scenario", 0, &o->scenario),
        CLI_OPT_STR("command", 0, &o->command),
        CLI_OPT_INT("level", 0, &o->level, 1, 6),
        CLI_OPT_FLAG("markdown", 0, &o->md),
        CLI_OPT_STR("x", 0, &o->x),
        CLI_OPT_STR("rows", 0, &o->rows),
        CLI_OPT_STR("study", 0, &o->study),
        CLI_OPT_STR("dir", 0, &o->dir),
        CLI_OPT_STR("json", 0, &o->json),
        CLI_OPT_STR("csv", 0, &o->csv),
        CLI_OPT_STR("md", 0, &o->md_path),
        CLI_OPT_STR("note", 0, &o->note),
        CLI_OPT_STR("out", 'o', &o->out),
        CLI_OPT_STR("cdf", 0, &o->cdf),
        CLI_OPT_STR("plot", 0, &o->plot),
        CLI_OPT_STR("svg", 0, &o->svg),
        CLI_OPT_STR("question", 0, &o->question),
        CLI_OPT_STR("index", 0, &o->index),
        CLI_OPT_HELP,
        CLI_OPT_END,
    };
    const struct cli_spec spec = {
        .cmd = cmd, .opts = opts, .usage = usage, .min_args = 0, .max_args = -1, .given = &given};
    int rc = cli_parse_opts(&spec, argc, argv);
    o->given = (unsigned)given;
    return rc;
}

static int do_md(int n, char **args, const struct ropts *o)
{
    (void)n;
    char err[SS_ERRLEN];
    cJSON *doc;
    if (rd_load(args[0], &doc, err, sizeof err))
        return bad(err);
    char *desc = o->scenario ? sd_scenario_description(o->scenario) : NULL;
    struct rt_head h = {o->title, desc, o->command, o->note, o->level};
    rt_md_result(stdout, doc, &h);
    free(desc);
    cJSON_Delete(doc);
    return SS_EXIT_OK;
}

static int do_summary(int n, char **args, const struct ropts *o)
{
    char err[SS_ERRLEN];
    int llm = -1; /* the first result decides: every row has the same columns */
    for (int k = 0; k < n; k++) {
        const char *file = args[k], *label = NULL;
        char lab[256];
        if (o->x) {
            const char *eq = strchr(args[k], '=');
            if (!eq || eq == args[k] || (size_t)(eq - args[k]) >= sizeof lab) {
                snprintf(err, sizeof err, "with --x, expected X=FILE, got \"%s\"", args[k]);
                return bad(err);
            }
            snprintf(lab, sizeof lab, "%.*s", (int)(eq - args[k]), args[k]);
            label = lab;
            file = eq + 1;
        }
        cJSON *doc;
        if (rd_load(file, &doc, err, sizeof err))
            return bad(err);
        if (llm < 0) {
            llm = rd_has_llm(doc);
            rt_summary_header(stdout, o->x, o->md, llm);
        }
        rt_summary_rows(stdout, doc, o->x, label, o->md, llm);
        cJSON_Delete(doc);
    }
    return SS_EXIT_OK;
}

static int do_mig(int n, char **args, const struct ropts *o)
{
    (void)n, (void)o;
    char err[SS_ERRLEN];
    cJSON *doc;
    if (rd_load(args[0], &doc, err, sizeof err))
        return bad(err);
    struct rd_head h;
    rd_head_of(doc, &h);
    struct gpu_profile gp;
    if (!h.gpu[0] || cal_load(h.gpu, &gp, err, sizeof err)) {
        cJSON_Delete(doc);
        return bad(h.gpu[0] ? err : "the result names no \"gpu\"");
    }
    rt_mig_csv(stdout, doc, &gp);
    cJSON_Delete(doc);
    return SS_EXIT_OK;
}

static void print_study(const struct sd_study *st)
{
    char plots[256];
    sd_plot_names(st->plots, plots, sizeof plots);
    char scn[4096] = "";
    for (int k = 0; k < st->n_scenarios; k++) /* a cluster study: its scenarios, comma-separated */
        snprintf(scn + strlen(scn), sizeof scn - strlen(scn), "%s%s", k ? "," : "",
                 st->scenarios[k]);
    printf("%s\t%s\t%s\t%s\t", st->id, sd_kind_names[st->kind],
           st->n_scenarios ? scn
           : st->scenario  ? st->scenario
                           : "-",
           plots);
    for (int k = 0; k < st->n_scales; k++)
        printf("%s%g", k ? "," : "", st->scales[k]);
    printf("%s\t%s\t%s\n", st->n_scales ? "" : "-", st->requests ? st->requests : "-", st->title);
}

static int do_index(int n, char **args, const struct ropts *o)
{
    (void)n;
    char err[SS_ERRLEN];
    struct sd_index ix;
    if (sd_load(args[0], &ix, err, sizeof err)) {
        sd_free(&ix);
        return bad(err);
    }
    int rc = SS_EXIT_OK;
    if (o->rows) {
        const struct sd_study *st = sd_find(&ix, o->rows);
        if (!st || st->kind != SD_REFERENCE) {
            fprintf(stderr, "sharesim report: %s: no reference study \"%s\"\n", args[0], o->rows);
            rc = SS_EXIT_BADINPUT;
        }
        for (int k = 0; st && k < st->n_rows; k++)
            printf("%s\t%s\t%s\n", st->rows[k].mode, st->rows[k].scenario, st->rows[k].strategy);
    } else {
        for (int k = 0; k < ix.n; k++)
            print_study(&ix.s[k]);
    }
    sd_free(&ix);
    return rc;
}

/* Writes one reference output atomically: 0 JSON, 1 CSV, 2 Markdown. */
struct ref_out {
    int what; /* 0 JSON, 1 CSV, 2 Markdown */
    const struct sd_study *st;
    const struct sd_ref_row *rows;
    cJSON *const *docs;
};

static int put_ref(FILE *fp, const void *ctx, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    const struct ref_out *w = ctx;
    if (w->what == 0) {
        cJSON *j = sd_reference_json(w->st, w->rows);
        cli_put_doc(fp, j);
        cJSON_Delete(j);
    } else if (w->what == 1) {
        sd_reference_csv(fp, w->st, w->rows);
    } else {
        sd_reference_md(fp, w->st, w->rows, w->docs);
    }
    return 0;
}

static int write_ref(const char *path, int what, const struct sd_study *st,
                     const struct sd_ref_row *rows, cJSON *const *docs)
{
    const struct ref_out w = {what, st, rows, docs};
    return cli_write_out("sharesim report", path, put_ref, &w) ? SS_EXIT_BADINPUT : SS_EXIT_OK;
}

static int do_reference(int n, char **args, const struct ropts *o)
{
    char err[SS_ERRLEN];
    struct sd_index ix;
    if (n != 1 || !o->study || !o->dir) {
        usage(stderr);
        return SS_EXIT_BADINPUT;
    }
    if (sd_load(args[0], &ix, err, sizeof err)) {
        sd_free(&ix);
        return bad(err);
    }
    const struct sd_study *st = sd_find(&ix, o->study);
    int rc = SS_EXIT_OK;
    if (!st || st->kind != SD_REFERENCE) {
        fprintf(stderr, "sharesim report: %s: no reference study \"%s\"\n", args[0], o->study);
        sd_free(&ix);
        return SS_EXIT_BADINPUT;
    }
    struct sd_ref_row rows[SD_MAX_ROWS];
    cJSON *docs[SD_MAX_ROWS];
    /* The results under --dir are read (and noted as inputs) before the outputs are planned. */
    struct op_plan op;
    op_init(&op, "sharesim report reference");
    op_input(&op, "INDEX", args[0]);
    op_output(&op, "--json", o->json);
    op_output(&op, "--csv", o->csv);
    op_output(&op, "--md", o->md_path);
    if (sd_reference(st, o->dir, rows, docs, err, sizeof err)) {
        rc = bad(err);
        op_free(&op);
    } else if (op_done(&op)) {
        rc = SS_EXIT_BADINPUT;
    }
    if (!rc && o->json)
        rc = write_ref(o->json, 0, st, rows, docs);
    if (!rc && o->csv)
        rc = write_ref(o->csv, 1, st, rows, docs);
    if (!rc && o->md_path)
        rc = write_ref(o->md_path, 2, st, rows, docs);
    for (int k = 0; k < st->n_rows; k++)
        cJSON_Delete(docs[k]);
    sd_free(&ix);
    return rc;
}

/* The page of a reference study: its rows' results from --dir. */
static int html_reference(const struct sd_study *st, const struct ropts *o, FILE *fp, char *err,
                          size_t errlen)
{
    struct sd_ref_row rows[SD_MAX_ROWS];
    cJSON *docs[SD_MAX_ROWS];
    if (!o->dir)
        return ss_errf(err, errlen, "html: study \"%s\" is a reference study: give --dir DIR",
                       st->id);
    if (sd_reference(st, o->dir, rows, docs, err, errlen))
        return -1;
    int rc = ht_reference_page(fp, st, rows, docs, o->dir, o->svg, err, errlen);
    for (int k = 0; k < st->n_rows; k++)
        cJSON_Delete(docs[k]);
    return rc;
}

/* `report gnuplot`: each figure of the page, written as it is drawn (ht_set_figure_sink). */
struct gp_sink {
    const char *dir, *source;
    int n;
    char names[GP_MAX_FIGURES][72];
};

/* A file name for figure `id`: the id with anything but [A-Za-z0-9._-] as '-', unique among
 * the page's. -1 when the page has too many. */
static int gp_name(struct gp_sink *g, const char *id, char *name, size_t n, char *err,
                   size_t errlen)
{
    if (g->n >= GP_MAX_FIGURES)
        return ss_errf(err, errlen, "gnuplot: more than %d figures on one page", GP_MAX_FIGURES);
    char base[56];
    snprintf(base, sizeof base, "%.55s", id[0] ? id : "figure");
    for (char *c = base; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
              *c == '-' || *c == '_' || (*c == '.' && c != base)))
            *c = '-';
    snprintf(name, n, "%s", base);
    for (int k = 0, again = 1; again && k < GP_MAX_FIGURES; k++) {
        again = 0;
        for (int q = 0; q < g->n; q++)
            again |= strcmp(g->names[q], name) == 0;
        if (again)
            snprintf(name, n, "%s-%d", base, k + 2);
    }
    snprintf(g->names[g->n++], sizeof g->names[0], "%s", name);
    return 0;
}

static int gp_sink_figure(void *ctx, const struct svg_figure *f, char *err, size_t errlen)
{
    struct gp_sink *g = ctx;
    char name[72];
    if (gp_name(g, f->id, name, sizeof name, err, errlen))
        return -1;
    if (gp_write_figure(g->dir, name, f, g->source, err, errlen))
        return -1;
    return 0;
}

/* A drawing that is not a plot (the MIG slice grids): a canvas of its own. */
static struct gp_canvas *gp_sink_canvas(void *ctx, const char *id, int width, int height,
                                        const char *title, char *err, size_t errlen)
{
    struct gp_sink *g = ctx;
    char name[72];
    if (gp_name(g, id, name, sizeof name, err, errlen))
        return NULL;
    return gp_canvas_open(g->dir, name, width, height, title, g->source, err, errlen);
}

/* html (gp_dir NULL): the page to -o; gnuplot: the page to nowhere, its figures to gp_dir. */
static int page_run(int n, char **args, const struct ropts *o, const char *gp_dir)
{
    char err[SS_ERRLEN];
    struct sd_index ix;
    const struct sd_study *st = NULL;
    const char *cmdn = gp_dir ? "sharesim report gnuplot" : "sharesim report html";
    memset(&ix, 0, sizeof ix);
    if ((o->index != NULL) != (o->study != NULL)) {
        fprintf(stderr, "%s: --index and --study go together\n", cmdn);
        return SS_EXIT_BADINPUT;
    }
    if (o->plot && ht_check_metrics(o->plot, err, sizeof err))
        return bad(err);
    if (o->index) {
        if (sd_load(o->index, &ix, err, sizeof err)) {
            sd_free(&ix);
            return bad(err);
        }
        st = sd_find(&ix, o->study);
        if (!st || st->kind == SD_VALIDATION) {
            fprintf(stderr, "%s: %s: no scenario or reference study \"%s\"\n", cmdn, o->index,
                    o->study);
            sd_free(&ix);
            return SS_EXIT_BADINPUT;
        }
    }
    if ((st && st->kind == SD_REFERENCE) ? n != 0 : n < 1) {
        sd_free(&ix);
        usage(stderr);
        return SS_EXIT_BADINPUT;
    }
    struct scenario sc;
    int have_sc = 0, rc = 0;
    const char *scn = o->scenario ? o->scenario : st ? st->scenario : NULL;
    cJSON **docs = calloc((size_t)(n > 0 ? n : 1), sizeof *docs);
    if (scn) {
        if (scn_load(scn, &sc, err, sizeof err))
            rc = -1;
        else
            have_sc = 1;
    }
    for (int k = 0; k < n && rc == 0; k++)
        rc = ht_load(args[k], &docs[k], err, sizeof err);
    /* The results and the scenario are read (noted as inputs); nothing is written yet. */
    static const char *const gp_files[] = {"*.dat", "*.gp", "*.png", "*.pdf", NULL};
    struct op_plan op;
    op_init(&op, cmdn);
    if (gp_dir) {
        op_output_dir(&op, "--out", gp_dir, gp_files);
    } else {
        op_output(&op, "-o", o->out ? o->out : "-");
        op_output_prefix(&op, "--svg", o->svg, "-*.svg");
    }
    if (rc == 0 && op_check(&op, err, sizeof err))
        rc = -1;
    op_free(&op);
    struct ss_out out;
    struct gp_sink *sink = NULL;
    if (rc == 0 && gp_dir) {
        sink = ss_xcalloc(1, sizeof *sink);
        sink->dir = gp_dir;
        sink->source = st ? st->id : n > 0 ? args[0] : "";
        rc = ss_mkdirs(gp_dir, err, sizeof err);
        if (rc == 0)
            rc = ss_out_open(&out, "/dev/null", err, sizeof err);
        ht_set_figure_sink(gp_sink_figure, sink);
        ht_set_canvas_sink(gp_sink_canvas, sink);
    } else if (rc == 0) {
        rc = ss_out_open(&out, o->out ? o->out : "-", err, sizeof err);
    }
    /* What the page says above its figures: the options, else the study's. */
    const char *title = o->title ? o->title : st ? st->title : NULL;
    const char *question = o->question ? o->question : st ? st->question : NULL;
    const char *note = o->note ? o->note : st ? st->requests : NULL;
    const cJSON *notes = st ? st->notes : NULL;
    if (rc == 0) {
        if (st && st->kind == SD_REFERENCE) {
            rc = html_reference(st, o, out.fp, err, sizeof err);
        } else if (n > 0 && ht_is_cluster_run(docs[0])) {
            struct ht_cluster hc = {title, question, note, notes, docs, n, gp_dir ? NULL : o->svg};
            rc = ht_cluster_page(out.fp, &hc, err, sizeof err);
        } else {
            struct ht_study hs = {
                st ? st->id : "study", title, question, o->command, note,    notes,
                have_sc ? &sc : NULL,  docs,  n,        o->cdf,     o->plot, o->svg};
            rc = ht_study_page(out.fp, &hs, err, sizeof err);
        }
        if (rc == 0)
            rc = ss_out_commit(&out, err, sizeof err);
        else
            ss_out_abort(&out);
    }
    ht_set_figure_sink(NULL, NULL);
    ht_set_canvas_sink(NULL, NULL);
    if (rc == 0 && sink && sink->n == 0)
        rc = ss_errf(err, sizeof err,
                     "gnuplot: the page of these results has no figure (a single result draws "
                     "its latency distributions with --cdf, a sweep its metrics)");
    for (int k = 0; rc == 0 && sink && k < sink->n; k++)
        printf("%s/%s.gp\n", gp_dir, sink->names[k]);
    free(sink);
    for (int k = 0; k < n; k++)
        cJSON_Delete(docs[k]);
    free(docs);
    if (have_sc)
        scn_free(&sc);
    sd_free(&ix);
    return rc ? bad(err) : SS_EXIT_OK;
}

static int do_html(int n, char **args, const struct ropts *o)
{
    return page_run(n, args, o, NULL);
}

static int do_gnuplot(int n, char **args, const struct ropts *o)
{
    if (!o->out) {
        fprintf(stderr, "sharesim report gnuplot: --out DIR is required (the folder of the "
                        ".dat and .gp files)\n");
        return SS_EXIT_BADINPUT;
    }
    return page_run(n, args, o, o->out);
}

/* Each page in turn, all of them even after one fails: 2 when some page cannot be read or
 * checked (cut, a malformed point, a limit of svgcheck.h), else 1 when some page breaks a
 * promise, else 0. */
static int do_check(int n, char **args, const struct ropts *o)
{
    (void)o;
    char err[SS_ERRLEN];
    int failed = 0, damaged = 0;
    for (int k = 0; k < n; k++) {
        char *text;
        size_t len;
        if (ss_read_file(args[k], 256u << 20, &text, &len, err, sizeof err)) {
            fprintf(stderr, "sharesim report check: %s\n", err);
            damaged = 1;
            continue;
        }
        struct svc_report r;
        int bad_n = svc_check_mem(text, len, &r);
        free(text);
        if (bad_n < 0) {
            fprintf(stderr, "sharesim report check: %s: %s\n", args[k], r.error);
            damaged = 1;
            continue;
        }
        if (r.figures == 0) {
            fprintf(stderr,
                    "sharesim report check: %s: no figure (not a page of `sharesim "
                    "report html`)\n",
                    args[k]);
            damaged = 1;
            continue;
        }
        printf("%s: %d figure%s, %d panels (%d of latency), %d curves: ", args[k], r.figures,
               r.figures == 1 ? "" : "s", r.panels, r.latency_panels, r.series);
        if (bad_n == 0)
            printf("every latency panel shows its SLA, no curve hidden, every figure readable\n");
        else
            printf("%d hidden, %d without SLA, %d unreadable; first: %s\n", r.hidden, r.sla_missing,
                   bad_n - r.hidden - r.sla_missing, r.first);
        failed |= bad_n != 0;
    }
    return damaged ? SS_EXIT_BADINPUT : failed ? SS_EXIT_INFEASIBLE : SS_EXIT_OK;
}

/* A subcommand: the options it accepts (O_* bits) and how many arguments (min_args; max_args
 * < 0: no bound; min_args < 0: fn counts them itself, for a message of its own). */
struct rsub {
    const char *name;
    unsigned allowed;
    int min_args, max_args;
    int (*fn)(int n, char **args, const struct ropts *o);
};
#define O_PAGE                                                                                     \
    (O_OUT | O_SCENARIO | O_CDF | O_PLOT | O_TITLE | O_QUESTION | O_COMMAND | O_NOTE | O_INDEX |   \
     O_STUDY | O_DIR)
static const struct rsub rsubs[] = {
    {"md", O_TITLE | O_SCENARIO | O_COMMAND | O_NOTE | O_LEVEL, 1, 1, do_md},
    {"summary", O_MARKDOWN | O_X, 1, -1, do_summary},
    {"mig", 0, 1, 1, do_mig},
    {"index", O_ROWS, 1, 1, do_index},
    {"reference", O_STUDY | O_DIR | O_JSON | O_CSV | O_MD, -1, -1, do_reference},
    {"html", O_PAGE | O_SVG, -1, -1, do_html},
    {"gnuplot", O_PAGE, -1, -1, do_gnuplot},
    {"check", 0, 1, -1, do_check},
    {NULL, 0, 0, 0, NULL},
};

/* Every subcommand: argv[0] is its name (a row of rsubs, as cli_dispatch found it). */
static int run_sub(int argc, char **argv)
{
    const struct rsub *sub = rsubs;
    while (strcmp(sub->name, argv[0]))
        sub++;
    struct ropts o;
    int rc = parse_opts(argc, argv, &o);
    if (rc != CLI_CONTINUE)
        return rc;
    int n = argc - optind;
    if (o.given & ~sub->allowed) {
        fprintf(stderr, "sharesim report %s: an option given is not one of this subcommand's\n",
                argv[0]);
        usage(stderr);
        return SS_EXIT_BADINPUT;
    }
    if (n < sub->min_args || (sub->max_args >= 0 && n > sub->max_args)) {
        usage(stderr);
        return SS_EXIT_BADINPUT;
    }
    return sub->fn(n, argv + optind, &o);
}

static const struct cli_command subcommands[] = {
    {"md", "RESULT.json: the Markdown section of one result", run_sub, NULL},
    {"summary", "[X=]RESULT.json…: one row per strategy and result (CSV or Markdown)", run_sub,
     NULL},
    {"mig", "RESULT.json: MIG instance occupancy (CSV) for the layout plot", run_sub, NULL},
    {"index", "INDEX.json: the studies as tab-separated lines for the shell", run_sub, NULL},
    {"reference", "INDEX.json: the reference table (JSON, CSV, Markdown)", run_sub, NULL},
    {"html", "RESULT.json…: a study's self-contained HTML page with its figures", run_sub, NULL},
    {"check", "PAGE…: every latency plot shows its SLA, no curve is hidden", run_sub, NULL},
    {"gnuplot", "RESULT.json… --out DIR: the page's figures as gnuplot scripts (PNG, PDF)", run_sub,
     NULL},
    {NULL, NULL, NULL, NULL},
};

const struct cli_group cmd_report = {
    NULL,
    subcommands,
    "Nothing here simulates: every subcommand reads `sharesim run --json` results or\n"
    "results/index.json (docs/results.md); `sharesim report md --help` lists every option.\n",
};
