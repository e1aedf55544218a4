/*
 * deploy — the artefact folder's bookkeeping (see deploy.h): headers, the files written,
 * the tenants' limits and the README section a hook contributes.
 */
#include "core/deploy.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void dp_init(struct dp_ctx *d, const char *dir, const char *ns, const struct scenario *sc,
             const struct plan_cand *c, int closest, char *err, size_t errlen)
{
    memset(d, 0, sizeof *d);
    d->dir = dir;
    d->ns = ns;
    d->sc = sc;
    d->c = c;
    d->closest = closest;
    d->err = err;
    d->errlen = errlen;
    d->limit = ss_xcalloc((size_t)sc->n_tenants, sizeof *d->limit);
    d->n_limit = ss_xcalloc((size_t)sc->n_tenants, sizeof *d->n_limit);
    d->replicas = ss_xcalloc((size_t)sc->n_tenants, sizeof *d->replicas);
    d->route = ss_xcalloc((size_t)sc->n_tenants, sizeof *d->route);
    d->engine_gb = ss_xcalloc((size_t)sc->n_tenants, sizeof *d->engine_gb);
    d->visible_gb = ss_xcalloc((size_t)sc->n_tenants, sizeof *d->visible_gb);
    for (int i = 0; i < sc->n_tenants; i++) {
        d->replicas[i] = 1;
        d->engine_gb[i] = d->visible_gb[i] = -1;
    }
    /* A group per tenant (vGPU's VMs) or per node (MIG's), and the plan's own. */
    d->max_groups = sc->n_tenants + KI_MAX_NODES + 1;
    d->group = ss_xcalloc((size_t)d->max_groups, sizeof *d->group);
    dp_plan_name(d, d->plan_name, sizeof d->plan_name);
    char what[160];
    snprintf(what, sizeof what, "the nodes that hold the plan's %d GPU%s", c->gpus,
             c->gpus > 1 ? "s" : "");
    dp_group_add(d, what, -1, -1);
}

void dp_replicas(struct dp_ctx *d, int tenant, int n, const char *route)
{
    SS_ASSERT(tenant >= 0 && tenant < d->sc->n_tenants && n >= 1);
    d->replicas[tenant] = n;
    snprintf(d->route[tenant], sizeof d->route[0], "%s", route ? route : "");
}

void dp_engine_memory(struct dp_ctx *d, int tenant, double engine_gb, double visible_gb)
{
    SS_ASSERT(tenant >= 0 && tenant < d->sc->n_tenants);
    d->engine_gb[tenant] = engine_gb;
    d->visible_gb[tenant] = visible_gb;
}

int dp_group_add(struct dp_ctx *d, const char *what, int count, int tenant)
{
    SS_ASSERT(d->n_groups < d->max_groups);
    struct dp_group *g = &d->group[d->n_groups];
    memset(g, 0, sizeof *g);
    snprintf(g->what, sizeof g->what, "%s", what);
    g->count = count;
    g->tenant = tenant;
    dp_group_label(d, d->n_groups, DP_PLAN_LABEL, d->plan_name);
    if (tenant >= 0) {
        char name[48];
        dp_tenant_name(d->sc, tenant, name, sizeof name);
        dp_group_label(d, d->n_groups, DP_TENANT_LABEL, name);
    }
    return d->n_groups++;
}

void dp_group_label(struct dp_ctx *d, int g, const char *key, const char *value)
{
    SS_ASSERT(g >= 0 && g < d->n_groups + 1 && d->group[g].n_labels < DP_MAX_LABELS);
    struct dp_group *gr = &d->group[g];
    snprintf(gr->key[gr->n_labels], sizeof gr->key[0], "%s", key);
    snprintf(gr->value[gr->n_labels++], sizeof gr->value[0], "%s", value);
}

void dp_free(struct dp_ctx *d)
{
    free(d->limit);
    free(d->n_limit);
    free(d->readme);
    free(d->replicas);
    free(d->route);
    free(d->engine_gb);
    free(d->visible_gb);
    free(d->group);
    d->limit = NULL;
    d->n_limit = NULL;
    d->readme = NULL;
    d->replicas = NULL;
    d->route = NULL;
    d->engine_gb = d->visible_gb = NULL;
    d->group = NULL;
}

void dp_limit(struct dp_ctx *d, int tenant, const char *resource, long quantity)
{
    SS_ASSERT(tenant >= 0 && tenant < d->sc->n_tenants && d->n_limit[tenant] < DP_MAX_LIMITS);
    struct dp_limit *l = &d->limit[tenant][d->n_limit[tenant]++];
    snprintf(l->resource, sizeof l->resource, "%s", resource);
    l->quantity = quantity;
}

void dp_readme(struct dp_ctx *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int need = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (d->readme_n + (size_t)need + 1 > d->readme_cap) {
        d->readme_cap = 2 * (d->readme_n + (size_t)need + 1);
        d->readme = ss_xrealloc(d->readme, d->readme_cap);
    }
    va_start(ap, fmt);
    vsnprintf(d->readme + d->readme_n, (size_t)need + 1, fmt, ap);
    va_end(ap);
    d->readme_n += (size_t)need;
}

/* The header every file starts with: what it is, for which plan, and whether that plan
 * meets the SLAs. A comment, so the tools that read the files ignore it; written through
 * yw_comment, which turns whatever in the names could end a comment line into '?', so no
 * name can add a key here. The same facts are in each object's annotations (dp_annotations),
 * where a reader should look for them. */
static void header(const struct dp_ctx *d, struct yw *w, const char *what)
{
    const struct plan_cand *c = d->c;
    char line[512];
    snprintf(line, sizeof line, "%s, written by sharesim plan for scenario %s (%s)", what,
             d->sc->name, d->sc->gpu.name);
    yw_comment(w, line);
    snprintf(line, sizeof line, "candidate: %s on %d GPU%s", c->label, c->gpus,
             c->gpus > 1 ? "s" : "");
    yw_comment(w, line);
    if (d->closest) {
        yw_comment(w, "CLOSEST CANDIDATE, NOT A RECOMMENDATION: no configuration met every p99 "
                      "SLA;");
        snprintf(line, sizeof line, "here %s misses its SLA by %.1f%%.",
                 c->worst_tenant[0] ? c->worst_tenant : "a tenant",
                 isfinite(c->worst_margin) ? -100 * c->worst_margin : INFINITY);
        yw_comment(w, line);
    }
}

void dp_annotations(const struct dp_ctx *d, struct yw *w, int tenant)
{
    yw_str(w, "annotations");
    yw_map_begin(w);
    yw_kv_str(w, "sharesim.io/scenario", d->sc->name);
    yw_kv_str(w, "sharesim.io/gpu", d->sc->gpu.name);
    if (tenant >= 0)
        yw_kv_str(w, "sharesim.io/tenant", d->sc->tenants[tenant].name);
    yw_kv_str(w, "sharesim.io/candidate", d->c->label);
    yw_kv_str(w, "sharesim.io/meets-slas", d->closest ? "false" : "true");
    yw_map_end(w);
}

int dp_namespace_check(const char *ns, char *why, size_t n)
{
    size_t len = strlen(ns);
    if (len == 0)
        return ss_errf(why, n, "an empty namespace; %s", DP_NAMESPACE_RULE);
    if (len > DP_NAMESPACE_MAX)
        return ss_errf(why, n, "%zu characters, longer than the limit of %d; %s", len,
                       DP_NAMESPACE_MAX, DP_NAMESPACE_RULE);
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)ns[i];
        int alnum = (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9');
        if (!alnum && ch != '-')
            return ss_errf(why, n, "character %zu is not a lower-case letter, digit or '-'; %s",
                           i + 1, DP_NAMESPACE_RULE);
        if (!alnum && (i == 0 || i == len - 1))
            return ss_errf(why, n, "starts or ends with '-'; %s", DP_NAMESPACE_RULE);
    }
    return 0;
}

static int record(struct dp_ctx *d, const char *name, const char *what)
{
    if (d->n_files == DP_MAX_FILES)
        return ss_errf(d->err, d->errlen, "more than %d artefact files", DP_MAX_FILES);
    snprintf(d->what[d->n_files], sizeof d->what[0], "%s", what);
    snprintf(d->files[d->n_files++], DP_NAME_MAX, "%s", name);
    return 0;
}

/* The folder's entries are never followed: a link planted at an artefact's name is
 * replaced by the artefact, and the file it pointed to is left alone (ss_out_open_entry). */
static int open_in_dir(struct dp_ctx *d, struct ss_out *o, const char *name)
{
    return ss_out_open_entry(o, d->dir, name, d->err, d->errlen);
}

int dp_yaml_open(struct dp_ctx *d, struct dp_file *f, const char *name, const char *what)
{
    memset(f, 0, sizeof *f);
    snprintf(f->name, sizeof f->name, "%s", name);
    snprintf(f->what, sizeof f->what, "%s", what);
    if (open_in_dir(d, &f->out, name))
        return -1;
    yw_open_file(&f->w, f->out.fp);
    header(d, &f->w, what);
    return 0;
}

int dp_yaml_commit(struct dp_ctx *d, struct dp_file *f)
{
    if (yw_close(&f->w, NULL, d->err, d->errlen)) {
        ss_out_abort(&f->out);
        return -1;
    }
    if (ss_out_commit(&f->out, d->err, d->errlen))
        return -1;
    return record(d, f->name, f->what);
}

int dp_text(struct dp_ctx *d, const char *name, const char *what, const char *text)
{
    struct ss_out o;
    if (open_in_dir(d, &o, name))
        return -1;
    fputs(text, o.fp);
    if (ss_out_commit(&o, d->err, d->errlen))
        return -1;
    return record(d, name, what);
}

void dp_configmap_begin(struct dp_ctx *d, struct yw *w, const char *name)
{
    yw_doc_begin(w);
    yw_map_begin(w);
    yw_kv_str(w, "apiVersion", "v1");
    yw_kv_str(w, "kind", "ConfigMap");
    yw_str(w, "metadata");
    yw_map_begin(w);
    yw_kv_str(w, "name", name);
    yw_kv_str(w, "namespace", d->ns);
    dp_annotations(d, w, -1);
    yw_map_end(w);
    yw_str(w, "data");
    yw_map_begin(w);
}

void dp_configmap_end(struct yw *w)
{
    yw_map_end(w); /* data */
    yw_map_end(w);
    yw_doc_end(w);
}

void dp_k8s_name(const char *src, char *out, size_t n)
{
    size_t k = 0, max = n - 1 < 40 ? n - 1 : 40;
    for (const char *p = src; *p && k < max; p++) {
        char ch = (char)tolower((unsigned char)*p);
        if (isalnum((unsigned char)ch))
            out[k++] = ch;
        else if (k > 0 && out[k - 1] != '-')
            out[k++] = '-';
    }
    while (k > 0 && out[k - 1] == '-')
        k--;
    out[k] = '\0';
}

void dp_plan_name(const struct dp_ctx *d, char *out, size_t n)
{
    char name[41];
    dp_k8s_name(d->sc->name, name, sizeof name);
    snprintf(out, n, "sharesim%s%s", name[0] ? "-" : "", name);
}

void dp_tenant_name(const struct scenario *sc, int i, char *out, size_t n)
{
    char mine[48], other[48];
    dp_k8s_name(sc->tenants[i].name, mine, sizeof mine);
    int clash = !mine[0];
    for (int k = 0; k < i && !clash; k++) {
        dp_k8s_name(sc->tenants[k].name, other, sizeof other);
        clash = strcmp(mine, other) == 0;
    }
    if (clash)
        snprintf(out, n, "%s-%d", mine[0] ? mine : "tenant", i);
    else
        snprintf(out, n, "%s", mine);
}

void dp_workload(const struct scenario *sc, int i, struct ki_workload *w)
{
    *w = sc->tenants[i].k8s;
    char name[48];
    dp_tenant_name(sc, i, name, sizeof name);
    if (!w->name[0])
        snprintf(w->name, sizeof w->name, "%s", name);
    if (!w->container[0])
        snprintf(w->container, sizeof w->container, "%s", name);
}
