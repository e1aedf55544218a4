/*
 * html — the frame of every report page and the tables (see html.h). The style sheet is
 * inline and small: a page must open from a mail attachment with nothing else around it.
 * Colours of text and table marks pass WCAG AA contrast on white; "meets" and "misses" are
 * said in words (✓ meets / ✗ misses), never by colour alone.
 */
#include "report/html.h"
#include "report/htint.h"
#include "report/rtable.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char css[] =
    "body{font-family:'DejaVu Sans','Liberation Sans',Arial,Helvetica,sans-serif;color:#111;"
    "background:#fff;margin:0;line-height:1.45;font-size:15px}\n"
    "main{max-width:1200px;margin:0 auto;padding:18px 24px 48px}\n"
    "h1{font-size:24px;margin:8px 0 12px}h2{font-size:19px;margin:30px 0 8px;"
    "border-bottom:1px solid #ccc;padding-bottom:3px}h3{font-size:16px;margin:18px 0 6px}\n"
    ".question{font-size:16px;margin:6px 0}\n"
    ".verdict{font-size:17px;background:#eef5fb;border-left:5px solid #0072B2;padding:10px 14px;"
    "margin:10px 0 12px}\n"
    ".meta,.howto,figcaption{color:#444;font-size:13.5px}\n"
    "nav{font-size:14px;margin:6px 0 4px}nav a{margin-right:14px}\n"
    "figure{margin:12px 0 18px;overflow-x:auto}figcaption{max-width:70em;margin-top:4px}\n"
    "table{border-collapse:collapse;font-size:13px;margin:8px 0 16px}\n"
    "th,td{border:1px solid #ccc;padding:3px "
    "7px;text-align:right}td{white-space:nowrap}td.wrap{white-space:normal;min-width:18em}\n"
    "th{background:#f0f0f0}td.l,th.l{text-align:left}tr:nth-child(even) td{background:#fafafa}\n"
    ".ok{color:#006b4f;font-weight:bold}.miss{color:#b03a00;font-weight:bold}\n"
    "code{font-size:90%;background:#f3f3f3;padding:0 3px}\n"
    "svg.swatch{vertical-align:middle;margin-right:4px}\n";

void ht_esc(FILE *fp, const char *s)
{
    svg_esc(fp, s);
}

void ht_md(FILE *fp, const char *s)
{
    int bold = 0, code = 0;
    for (; s && *s; s++) {
        if (s[0] == '*' && s[1] == '*' && !code) {
            fputs(bold ? "</strong>" : "<strong>", fp);
            bold = !bold;
            s++;
        } else if (*s == '`') {
            fputs(code ? "</code>" : "<code>", fp);
            code = !code;
        } else {
            char c[2] = {*s, 0};
            svg_esc(fp, c);
        }
    }
    if (code)
        fputs("</code>", fp);
    if (bold)
        fputs("</strong>", fp);
}

void ht_head(FILE *fp, const char *title)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<meta name=\"generator\" content=\"sharesim " SHARESIM_VERSION "\">\n<title>",
          fp);
    ht_esc(fp, title);
    fprintf(fp, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<main id=\"report\">\n", css);
}

void ht_foot(FILE *fp)
{
    fputs(
        "<p class=\"meta\">Written by <code>sharesim report html</code> (sharesim " SHARESIM_VERSION
        "); the page is self-contained: no script, nothing loaded from the network.</p>\n"
        "</main>\n</body>\n</html>\n",
        fp);
}

void ht_td(FILE *fp, double v, double scale, const char *fmt)
{
    fputs("<td>", fp);
    if (isfinite(v))
        fprintf(fp, fmt, v * scale + 0.0);
    else
        fputs("–", fp);
    fputs("</td>", fp);
}

int ht_figure(FILE *fp, struct svg_figure *f, const char *caption_html, const char *svg_prefix,
              char *err, size_t errlen)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    if (!mem)
        return ss_errf(err, errlen, "out of memory drawing figure %s", f->id);
    svg_fig_write(mem, f, 0);
    fclose(mem);
    fprintf(fp, "<figure id=\"%s\">\n%s", f->id, buf);
    if (caption_html && *caption_html)
        fprintf(fp, "<figcaption>%s</figcaption>\n", caption_html);
    fputs("</figure>\n", fp);
    int rc = 0;
    if (svg_prefix) {
        char path[4096];
        struct ss_out o;
        snprintf(path, sizeof path, "%s-%s.svg", svg_prefix, f->id);
        rc = ss_out_open(&o, path, err, errlen);
        if (rc == 0) {
            fprintf(o.fp, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n%s", buf);
            rc = ss_out_commit(&o, err, errlen);
        }
    }
    free(buf);
    return rc;
}

void ht_meta(FILE *fp, const cJSON *doc, const char *command, const char *requests)
{
    double reps = rt_num(doc, "replications");
    fputs("<p class=\"meta\">Scenario <code>", fp);
    ht_esc(fp, ht_str(doc, "scenario"));
    fprintf(fp, "</code> on %.0f × %s, seed %.0f, %.0f replication%s", rt_num(doc, "gpus"),
            ht_str(doc, "gpu"), rt_num(doc, "seed"), reps, reps > 1 ? "s (figures are means)" : "");
    if (isfinite(rt_num(doc, "load_scale")))
        fprintf(fp, ", arrival rates × %g", rt_num(doc, "load_scale"));
    fputs(".", fp);
    if (command && *command) {
        fputs(" Made by <code>", fp);
        ht_esc(fp, command);
        fputs("</code>.", fp);
    }
    if (requests && *requests) {
        fputs(" Run length: ", fp);
        ht_md(fp, requests);
    }
    fputs("</p>\n", fp);
}

static int strategy_index(const cJSON *doc, const cJSON *s)
{
    int k = 0;
    const cJSON *x;
    cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(doc, "strategies"))
    {
        if (x == s)
            return k;
        k++;
    }
    return 0;
}

static void strategy_cell(FILE *fp, const cJSON *doc, const cJSON *s)
{
    fputs("<td class=\"l\">", fp);
    svg_swatch(fp, strategy_index(doc, s));
    ht_esc(fp, ht_str(s, "name"));
    fputs("</td>", fp);
}

static void tenant_table(FILE *fp, const cJSON *doc, const struct scenario *sc)
{
    fputs("<table class=\"tenants\">\n<tr><th class=\"l\">strategy</th><th class=\"l\">tenant</th>"
          "<th>done</th><th>thr/s</th><th>mean ms</th><th>p50 ms</th><th>p95 ms</th>"
          "<th>p99 ms</th><th>p99.9 ms</th><th>SLA p99 ms</th><th class=\"l\">SLA</th>"
          "<th>within SLA %</th><th>p99 slowdown</th><th>failed</th><th>rejected</th></tr>\n",
          fp);
    static const char *const lat[] = {"mean", "p50", "p95", "p99", "p999"};
    const cJSON *s, *t;
    cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(doc, "strategies"))
    {
        cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(s, "tenants"))
        {
            fputs("<tr>", fp);
            strategy_cell(fp, doc, s);
            fputs("<td class=\"l\">", fp);
            ht_esc(fp, ht_str(t, "name"));
            fputs("</td>", fp);
            ht_td(fp, rt_num(t, "completed"), 1, "%.0f");
            ht_td(fp, rt_num(t, "throughput_per_s"), 1, "%.1f");
            const cJSON *l = cJSON_GetObjectItemCaseSensitive(t, "latency_ms");
            for (size_t k = 0; k < sizeof lat / sizeof lat[0]; k++)
                ht_td(fp, rt_num(l, lat[k]), 1, "%.2f");
            double sla = ht_sla_ms(sc, doc, ht_str(t, "name"), "p99_ms");
            double p99 = rt_num(l, "p99");
            ht_td(fp, sla, 1, "%.0f");
            const cJSON *stable = cJSON_GetObjectItemCaseSensitive(t, "stable");
            int over = cJSON_IsFalse(stable);
            if (!isfinite(sla))
                fputs(over ? "<td class=\"l miss\">overloaded</td>" : "<td class=\"l\">none</td>",
                      fp);
            else if (!over && isfinite(p99) && p99 <= sla && !(rt_num(t, "failed") > 0) &&
                     !(rt_num(t, "rejected") > 0))
                fputs("<td class=\"l ok\">✓ meets</td>", fp);
            else
                fputs("<td class=\"l miss\">✗ misses</td>", fp);
            ht_td(fp, rt_num(t, "sla_attainment"), 100, "%.1f");
            ht_td(fp, rt_num(t, "slowdown_p99"), 1, "%.2f");
            ht_td(fp, rt_num(t, "failed"), 1, "%.0f");
            ht_td(fp, rt_num(t, "rejected"), 1, "%.0f");
            fputs("</tr>\n", fp);
        }
    }
    fputs("</table>\n", fp);
}

static void strategy_table(FILE *fp, const cJSON *doc)
{
    fputs("<table class=\"strategies\">\n<tr><th class=\"l\">strategy</th><th class=\"l\">kind</th>"
          "<th>GPUs used</th><th>GPU util %</th><th>switching %</th><th>fragmentation %</th>"
          "<th>thr/s</th><th>fairness</th><th>$/h</th><th>$ per M requests</th></tr>\n",
          fp);
    const cJSON *s;
    cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(doc, "strategies"))
    {
        fputs("<tr>", fp);
        strategy_cell(fp, doc, s);
        fputs("<td class=\"l\">", fp);
        ht_esc(fp, ht_str(s, "kind"));
        fputs("</td>", fp);
        ht_td(fp, rt_num(s, "gpus_used"), 1, "%.0f");
        ht_td(fp, rt_num(s, "gpu_utilization"), 100, "%.1f");
        ht_td(fp, rt_num(s, "switch_overhead"), 100, "%.2f");
        ht_td(fp, rt_num(s, "fragmentation"), 100, "%.1f");
        ht_td(fp, rt_num(s, "throughput_per_s"), 1, "%.1f");
        ht_td(fp, rt_num(s, "fairness"), 1, "%.3f");
        ht_td(fp, rt_num(s, "cost_per_hour_usd"), 1, "%.2f");
        ht_td(fp, rt_num(s, "cost_per_million_requests_usd"), 1, "%.3f");
        fputs("</tr>\n", fp);
    }
    fputs("</table>\n", fp);
}

void ht_result_tables(FILE *fp, const cJSON *doc, const struct scenario *sc)
{
    fputs("<h3>Every tenant under every strategy</h3>\n", fp);
    tenant_table(fp, doc, sc);
    ht_llm_table(fp, doc, sc);
    fputs("<h3>Every strategy</h3>\n", fp);
    strategy_table(fp, doc);
}

void ht_notes(FILE *fp, const cJSON *notes)
{
    const cJSON *n;
    if (cJSON_GetArraySize(notes) == 0)
        return;
    fputs("<h2 id=\"notes\">Notes</h2>\n", fp);
    cJSON_ArrayForEach(n, notes)
    {
        fputs("<p>", fp);
        ht_md(fp, cJSON_IsString(n) ? n->valuestring : "");
        fputs("</p>\n", fp);
    }
}
