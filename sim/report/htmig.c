/*
 * htmig — MIG layouts as the GPU's slice grid: per (strategy, GPU) a row of compute slices
 * over a row of memory slices; each instance covers its slices of both rows (its profile,
 * tenants and busy fraction written on it); a free slice no instance profile can use is
 * hatched and labelled "stranded", a free usable one is dashed.
 *
 * Where the slices are: memory slices are placed by the instance's start (the result says
 * it); compute slices (GPCs) have no position in the result, so they are drawn in memory
 * order, each instance as far left as its start allows. The stranded counts are the
 * result's (stranded_compute_frac, stranded_memory_frac, computed by mig_frag); which free
 * memory slices are drawn stranded is those no profile of the GPU could cover at a legal
 * start, so the picture and the numbers agree.
 */
#include "report/html.h"
#include "report/htint.h"
#include "report/gnuplot.h"
#include "core/rdoc.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CW 40.0 /* memory cell width */
#define LW 58.0 /* row labels */
#define CH 26.0 /* compute row height */
#define MH 66.0 /* memory row height */
#define BW (LW + 8 * CW + 14)
#define BH (22 + CH + 6 + MH + 24)
#define MAXS 16

static const char *const tints[6] = {"#CFE2F3", "#F9DCCB", "#CDEEE3",
                                     "#F3DCEA", "#FBE9C6", "#D7EEFA"};

struct inst {
    struct rd_instance j;
    int start, msl, cs, csl;
};

static int by_start(const void *a, const void *b)
{
    return ((const struct inst *)a)->start - ((const struct inst *)b)->start;
}

/* Where a grid is drawn: the page's SVG, and under `report gnuplot` a gnuplot canvas too
 * (gnuplot.h), with the same rectangles and labels at the same pixels. */
struct cv {
    struct hw *svg;
    struct gp_canvas *gp; /* NULL: SVG only */
};

static void cell_text(struct cv *c, double x, double y, const char *size, const char *fill,
                      const char *s)
{
    HW_WRAPF(c->svg, s, "</text>\n",
             "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"%s\" fill=\"%s\">", x,
             y, size, fill);
    if (c->gp)
        gp_canvas_text(c->gp, x, y - 3, atof(size), fill, 0, 1, s);
}

static void free_cell(struct cv *c, double x, double y, double w, double h, int stranded)
{
    struct hw *wr = c->svg;
    if (stranded) {
        HW_MARKF(wr,
                 "<rect class=\"stranded\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                 "fill=\"url(#hatch)\" stroke=\"#B03A00\" stroke-width=\"1.5\"/>\n",
                 x + 1, y + 1, w - 2, h - 2);
        HW_MARKF(wr,
                 "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"8\" "
                 "font-weight=\"bold\" fill=\"#8A2D00\" stroke=\"#ffffff\" stroke-width=\"3\" "
                 "paint-order=\"stroke\">stranded</text>\n",
                 x + w / 2, y + h / 2 + 3);
        if (c->gp) {
            gp_canvas_rect(c->gp, x + 1, y + 1, w - 2, h - 2, GP_FILL_HATCHED, "#B03A00",
                           "#B03A00");
            gp_canvas_text(c->gp, x + w / 2, y + h / 2, 8, "#8A2D00", 1, 1, "stranded");
        }
    } else {
        HW_MARKF(wr,
                 "<rect class=\"free\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                 "fill=\"#ffffff\" stroke=\"#999999\" stroke-dasharray=\"3 2\"/>\n",
                 x + 1, y + 1, w - 2, h - 2);
        if (c->gp)
            gp_canvas_rect(c->gp, x + 1, y + 1, w - 2, h - 2, GP_FILL_DASHED, "#ffffff", "#999999");
        cell_text(c, x + w / 2, y + h / 2 + 3, "9", "#666666", "free");
    }
}

/* An instance's slices in one row. */
static void inst_box(struct cv *c, double x, double y, double w, double h, const char *fill)
{
    HW_MARKF(c->svg,
             "<rect class=\"instance\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
             "fill=\"%s\" stroke=\"#333333\"/>\n",
             x, y, w, h, fill);
    if (c->gp)
        gp_canvas_rect(c->gp, x, y, w, h, GP_FILL_SOLID, fill, "#333333");
}

/* A line of text that starts at x (titles and captions). */
static void line_text(struct cv *c, double x, double y, const char *size, int bold,
                      const char *fill, const char *s)
{
    if (bold)
        HW_MARKF(c->svg, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%s\" font-weight=\"bold\">", x, y,
                 size);
    else
        HW_MARKF(c->svg, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%s\" fill=\"%s\">", x, y, size,
                 fill);
    HW_WRAP(c->svg, "", s, "</text>\n");
    if (c->gp)
        gp_canvas_text(c->gp, x, y - 4, atof(size), bold ? "#000000" : fill, bold, 0, s);
}

/* Can some profile of the GPU cover memory slice k using only free slices and free compute? */
static int coverable(const struct gpu_profile *gp, const int *mused, int k, int free_c)
{
    for (int p = 0; p < gp->n_mig; p++) {
        const struct mig_profile *m = &gp->mig[p];
        int size = m->size > 0 ? m->size : m->memory_slices;
        if (m->compute_slices > free_c)
            continue;
        for (int s = 0; s < m->n_starts; s++) {
            int a = m->starts[s], ok = a <= k && k < a + size && a + size <= gp->mig_memory_slices;
            for (int q = a; ok && q < a + size; q++)
                ok = !mused[q];
            if (ok)
                return 1;
        }
    }
    return 0;
}

/* One GPU's block at (ox, oy). */
static void gpu_block(struct cv *cv, const char *strategy, int gi, const cJSON *gj,
                      const struct gpu_profile *gp, double ox, double oy)
{
    int C = gp->mig_compute_slices > 0 ? gp->mig_compute_slices : 7;
    int M = gp->mig_memory_slices > 0 && gp->mig_memory_slices <= 8 ? gp->mig_memory_slices : 8;
    double ccw = CW * M / C, x0 = ox + LW, yc = oy + 22, ym = yc + CH + 6;
    struct inst in[MAXS];
    int n = 0, cused[16] = {0}, mused[16] = {0};
    const cJSON *i;
    struct rd_gpu g;
    rd_gpu_of(gj, &g);
    cJSON_ArrayForEach(i, g.instances)
    {
        if (n == MAXS)
            break;
        rd_instance_of(i, &in[n].j);
        const struct mig_profile *mp = cal_mig_find(gp, in[n].j.profile);
        in[n].start = (int)in[n].j.start;
        in[n].msl = mp ? (mp->size > 0 ? mp->size : mp->memory_slices) : 1;
        in[n].csl = mp ? mp->compute_slices : 1;
        n++;
    }
    qsort(in, (size_t)n, sizeof *in, by_start);
    int next = 0;
    for (int k = 0; k < n; k++) {
        int cs = in[k].start < C - in[k].csl ? in[k].start : C - in[k].csl;
        cs = cs < next ? next : cs;
        cs = cs > C - in[k].csl ? C - in[k].csl : cs;
        in[k].cs = cs < 0 ? 0 : cs;
        next = in[k].cs + in[k].csl;
        for (int q = in[k].cs; q < in[k].cs + in[k].csl && q < 16; q++)
            cused[q] = 1;
        for (int q = in[k].start; q < in[k].start + in[k].msl && q >= 0 && q < 16; q++)
            mused[q] = 1;
    }
    int free_c = 0;
    for (int q = 0; q < C; q++)
        free_c += !cused[q];
    int sc_n = (int)lround(g.stranded_compute * C);
    int sm_n = (int)lround(g.stranded_memory * M);
    sc_n = sc_n < 0 ? 0 : sc_n;
    sm_n = sm_n < 0 ? 0 : sm_n;

    char title[160];
    snprintf(title, sizeof title, "%s · GPU %d%s", strategy, gi, n ? "" : " (unused)");
    line_text(cv, ox, oy + 14, "12", 1, NULL, title);
    cell_text(cv, ox + LW / 2 - 4, yc + CH / 2 + 4, "10", "#333333", "compute");
    cell_text(cv, ox + LW / 2 - 4, ym + MH / 2 + 4, "10", "#333333", "memory");
    /* Free cells first: compute (the result's count of stranded, leftmost free first),
     * memory (uncoverable free slices first, then others up to the result's count). */
    int left = sc_n;
    for (int q = 0; q < C; q++)
        if (!cused[q])
            free_cell(cv, x0 + q * ccw, yc, ccw, CH, left-- > 0);
    int strand[16] = {0}, marked = 0;
    for (int pass = 0; pass < 2; pass++) /* the uncoverable first, then any free one */
        for (int q = 0; q < M && marked < sm_n; q++)
            if (!mused[q] && !strand[q] && (pass || !coverable(gp, mused, q, free_c))) {
                strand[q] = 1;
                marked++;
            }
    for (int q = 0; q < M; q++)
        if (!mused[q])
            free_cell(cv, x0 + q * CW, ym, CW, MH, strand[q]);
    for (int k = 0; k < n; k++) {
        const char *tint = tints[k % 6];
        double cx = x0 + in[k].cs * ccw, cw = in[k].csl * ccw;
        double mx = x0 + in[k].start * CW, mw = in[k].msl * CW;
        inst_box(cv, cx + 1, yc + 1, cw - 2, CH - 2, tint);
        inst_box(cv, mx + 1, ym + 1, mw - 2, MH - 2, tint);
        /* The compute row says how many SMs, the memory row who runs there and how busy. */
        const struct mig_profile *mp = cal_mig_find(gp, in[k].j.profile);
        char buf[96];
        snprintf(buf, sizeof buf, "%d SM", mp ? mp->sm_count : 0);
        cell_text(cv, cx + cw / 2, yc + CH / 2 + 4, "9.5", "#111111", buf);
        const char *fs = in[k].msl == 1 ? "8.5" : "10";
        cell_text(cv, mx + mw / 2, ym + 15, fs, "#111111", in[k].j.profile);
        rd_instance_tenants(&in[k].j, buf, sizeof buf);
        cell_text(cv, mx + mw / 2, ym + 30, fs, "#111111", buf);
        double u = in[k].j.utilization;
        if (isfinite(u)) {
            snprintf(buf, sizeof buf, "%.0f %%%s", u * 100, in[k].msl == 1 ? "" : " busy");
            cell_text(cv, mx + mw / 2, ym + 45, fs, "#111111", buf);
            double bw = (mw - 8) * (u < 0 ? 0 : u > 1 ? 1 : u);
            HW_MARKF(cv->svg,
                     "<rect class=\"busy\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"7\" "
                     "fill=\"#0072B2\"/>\n",
                     mx + 4, ym + MH - 12, bw);
            if (cv->gp)
                gp_canvas_rect(cv->gp, mx + 4, ym + MH - 12, bw, 7, GP_FILL_SOLID, "#0072B2",
                               "#0072B2");
        }
    }
    char cap[200], fgd[32] = "–";
    if (isfinite(g.fgd))
        snprintf(fgd, sizeof fgd, "%.3f", g.fgd + 0.0);
    snprintf(cap, sizeof cap, "stranded: %d compute, %d memory slice%s · FGD %s", sc_n, sm_n,
             sm_n == 1 ? "" : "s", fgd);
    line_text(cv, x0, ym + MH + 15, "10.5", 0, sc_n + sm_n ? "#8A2D00" : "#333333", cap);
}

int ht_mig_section(struct hw *wr, const cJSON *doc, const struct gpu_profile *gp,
                   const char *svg_prefix, int verdict, char *err, size_t errlen)
{
    int blocks = 0, lines = 0, cols = 3;
    const cJSON *s, *g;
    RD_EACH_STRATEGY(s, doc)
    {
        if (!rd_lists_instances(s))
            continue;
        int ng = cJSON_GetArraySize(rd_mig_gpus(s));
        blocks += ng;
        lines += (ng + cols - 1) / cols;
    }
    if (!blocks)
        return 0;
    double width = cols * BW, height = 30 + lines * BH;
    struct hw mem_, *mem = &mem_;
    if (hw_mem_open(mem))
        return ss_errf(err, errlen, "out of memory drawing the MIG layouts");
    HW_MARKF(mem,
             "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"figure mig%s\" id=\"fig-mig\" "
             "width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-family=\"DejaVu Sans, "
             "Liberation Sans, Arial, Helvetica, sans-serif\" role=\"img\" aria-label=\"MIG "
             "layouts\">\n<title>MIG layouts: compute and memory slices per GPU</title>\n"
             "<defs><pattern id=\"hatch\" patternUnits=\"userSpaceOnUse\" width=\"6\" "
             "height=\"6\"><rect width=\"6\" height=\"6\" fill=\"#FFF1EC\"/><path d=\"M0,6L6,0\" "
             "stroke=\"#B03A00\" stroke-width=\"1.4\"/></pattern></defs>\n"
             "<rect width=\"%.0f\" height=\"%.0f\" fill=\"#ffffff\"/>\n"
             "<text x=\"10\" y=\"18\" font-size=\"14\" font-weight=\"bold\">MIG layouts: each "
             "instance's compute and memory slices</text>\n",
             verdict ? " verdict" : "", width, height, width, height, width, height);
    struct cv cv = {mem, NULL};
    void *sink_ctx;
    ht_canvas_sink sink = ht_canvas_sink_of(&sink_ctx);
    if (sink) {
        static const char title[] = "MIG layouts: each instance's compute and memory slices";
        cv.gp = sink(sink_ctx, "mig-occupancy", (int)width, (int)height, title, err, errlen);
        if (!cv.gp) {
            hw_mem_free(mem);
            return -1;
        }
        gp_canvas_text(cv.gp, 10, 14, 14, "#000000", 1, 0, title);
    }
    int line = 0;
    RD_EACH_STRATEGY(s, doc)
    {
        if (!rd_lists_instances(s))
            continue;
        int gi = 0;
        RD_EACH_GPU(g, s)
        {
            gpu_block(&cv, rd_name(s), gi, g, gp, 10 + (gi % cols) * BW,
                      30 + (line + gi / cols) * BH);
            gi++;
        }
        line += (gi + cols - 1) / cols;
    }
    HW_MARK(mem, "</svg>\n");
    hw_mem_close(mem);
    HW_MARK(wr, "<figure id=\"mig-occupancy\">\n");
    hw_splice(wr, mem);
    HW_MARKF(wr,
             "<figcaption>Each block is one GPU "
             "(%s: %d compute slices, %d memory slices). An instance covers its compute slices "
             "(top row, with its SMs) and its memory slices (bottom row, placed at its start); "
             "on it: its profile, its tenants and how busy it was (the dark bar). "
             "<strong>Hatched: stranded</strong> — free, but no instance profile can use it "
             "beside the instances placed; dashed: free and usable. The compute row is drawn "
             "in memory order (the result gives no compute positions).</figcaption>\n"
             "</figure>\n",
             gp->name, gp->mig_compute_slices, gp->mig_memory_slices);
    int rc = svg_prefix ? ht_svg_file(svg_prefix, "mig-occupancy", mem, err, errlen) : 0;
    hw_mem_free(mem);
    if (cv.gp && rc)
        gp_canvas_abort(cv.gp);
    else if (cv.gp && gp_canvas_close(cv.gp, err, errlen))
        rc = -1;
    return rc ? -1 : blocks;
}
