/*
 * migview — the mig library's results as JSON and as text tables: a GPU's profiles, its legal
 * layouts, one placed layout, fragmentation, a demand mix and a packing. They sit beside the
 * structs they print so that a field added to one is added to its renderings in this module;
 * `sharesim mig` only parses, calls and picks the outputs.
 */
#include "mig/migview.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

static void format_range(int start, int size, char *buf, size_t len)
{
    if (size == 1)
        snprintf(buf, len, "%d", start);
    else
        snprintf(buf, len, "%d-%d", start, start + size - 1);
}

cJSON *mig_profiles_json(const struct gpu_profile *g)
{
    cJSON *root = cJSON_CreateObject(), *arr = cJSON_CreateArray();
    cJSON_AddStringToObject(root, "gpu", g->name);
    cJSON_AddNumberToObject(root, "total_sms", g->total_sms);
    cJSON_AddNumberToObject(root, "compute_slices", g->mig_compute_slices);
    cJSON_AddNumberToObject(root, "memory_slices", g->mig_memory_slices);
    for (int p = 0; p < g->n_mig; p++) {
        const struct mig_profile *m = &g->mig[p];
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "name", m->name);
        cJSON_AddNumberToObject(e, "compute_slices", m->compute_slices);
        cJSON_AddNumberToObject(e, "memory_slices", m->memory_slices);
        cJSON_AddNumberToObject(e, "sm_count", m->sm_count);
        cJSON_AddNumberToObject(e, "compute_share", mig_compute_share(g, p));
        cJSON_AddNumberToObject(e, "memory_share", mig_memory_share(g, p));
        cJSON_AddNumberToObject(e, "memory_gb", m->memory_gb);
        cJSON_AddNumberToObject(e, "max_instances", m->max_instances);
        cJSON_AddItemToObject(e, "starts", cJSON_CreateIntArray(m->starts, m->n_starts));
        cJSON_AddNumberToObject(e, "size", m->size);
        cJSON_AddItemToArray(arr, e);
    }
    cJSON_AddItemToObject(root, "profiles", arr);
    return root;
}

void mig_print_profiles(FILE *fp, const struct gpu_profile *g)
{
    fprintf(fp, "%s: %d SMs without MIG, %d compute slices, %d memory slices\n", g->name,
            g->total_sms, g->mig_compute_slices, g->mig_memory_slices);
    fprintf(fp, "%-12s %7s %6s %4s %13s %12s %9s %4s  %s\n", "profile", "compute", "memory", "SMs",
            "compute share", "memory share", "memory GB", "max", "starts (memory slice)");
    for (int p = 0; p < g->n_mig; p++) {
        const struct mig_profile *m = &g->mig[p];
        char starts[64] = "";
        size_t k = 0;
        for (int s = 0; s < m->n_starts; s++)
            k +=
                (size_t)snprintf(starts + k, sizeof starts - k, "%s%d", s ? "," : "", m->starts[s]);
        fprintf(fp, "%-12s %7d %6d %4d %13.4f %12.4f %9.2f %4d  %s\n", m->name, m->compute_slices,
                m->memory_slices, m->sm_count, mig_compute_share(g, p), mig_memory_share(g, p),
                m->memory_gb, m->max_instances, starts);
    }
}

cJSON *mig_layouts_json(const struct gpu_profile *g, const struct mig_set *sets, int n,
                        int only_maximal)
{
    cJSON *arr = cJSON_CreateArray();
    for (int i = 0; i < n; i++) {
        if (only_maximal && !sets[i].maximal)
            continue;
        cJSON *e = cJSON_CreateObject(), *names = cJSON_CreateArray();
        char buf[256];
        mig_set_format(g, &sets[i], buf, sizeof buf);
        for (char *t = strtok(buf, ","); t; t = strtok(NULL, ","))
            cJSON_AddItemToArray(names, cJSON_CreateString(t));
        cJSON_AddItemToObject(e, "profiles", names);
        cJSON_AddBoolToObject(e, "maximal", sets[i].maximal);
        cJSON_AddItemToArray(arr, e);
    }
    return arr;
}

void mig_print_layouts(FILE *fp, const struct gpu_profile *g, const struct mig_set *sets, int n,
                       int only_maximal)
{
    int n_max = 0;
    fprintf(fp, "%-44s %7s %6s  %s\n", "layout", "compute", "memory", "maximal");
    for (int i = 0; i < n; i++) {
        n_max += sets[i].maximal;
        if (only_maximal && !sets[i].maximal)
            continue;
        char buf[256];
        mig_set_format(g, &sets[i], buf, sizeof buf);
        fprintf(fp, "%-44s %5d/%d %4d/%d  %s\n", buf, sets[i].compute_slices, g->mig_compute_slices,
                sets[i].memory_slices, g->mig_memory_slices, sets[i].maximal ? "yes" : "no");
    }
    fprintf(fp, "%s: %d legal layouts, %d maximal\n", g->name, n, n_max);
}

cJSON *mig_layout_json(const struct gpu_profile *g, const char *text, const struct mig_layout *l,
                       const struct mig_demand *d, const struct mig_frag *f)
{
    struct mig_set set;
    mig_set_from_list(g, l->prof, l->n, &set);
    cJSON *root = cJSON_CreateObject(), *arr = cJSON_CreateArray();
    cJSON_AddStringToObject(root, "gpu", g->name);
    cJSON_AddStringToObject(root, "layout", text);
    cJSON_AddBoolToObject(root, "legal", 1);
    for (int i = 0; i < l->n; i++) {
        const struct mig_profile *m = &g->mig[l->prof[i]];
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "profile", m->name);
        cJSON_AddNumberToObject(e, "start", l->start[i]);
        cJSON_AddNumberToObject(e, "memory_slices", m->size);
        cJSON_AddNumberToObject(e, "compute_slices", m->compute_slices);
        cJSON_AddNumberToObject(e, "sm_count", m->sm_count);
        cJSON_AddNumberToObject(e, "compute_share", mig_compute_share(g, l->prof[i]));
        cJSON_AddNumberToObject(e, "memory_share", mig_memory_share(g, l->prof[i]));
        cJSON_AddNumberToObject(e, "memory_gb", m->memory_gb);
        cJSON_AddItemToArray(arr, e);
    }
    cJSON_AddItemToObject(root, "instances", arr);
    cJSON_AddNumberToObject(root, "compute_slices_used", set.compute_slices);
    cJSON_AddNumberToObject(root, "memory_slices_used", set.memory_slices);
    if (d) {
        cJSON_AddItemToObject(root, "demand", mig_demand_json(g, d));
        cJSON_AddItemToObject(root, "fragmentation", mig_frag_json(f));
    }
    return root;
}

void mig_print_layout(FILE *fp, const struct gpu_profile *g, const char *text,
                      const struct mig_layout *l, const struct mig_demand *d,
                      const struct mig_frag *f)
{
    struct mig_set set;
    mig_set_from_list(g, l->prof, l->n, &set);
    fprintf(fp, "%s is a legal layout on %s (compute %d/%d, memory %d/%d slices)\n", text, g->name,
            set.compute_slices, g->mig_compute_slices, set.memory_slices, g->mig_memory_slices);
    fprintf(fp, "%-3s %-12s %5s %7s %7s %4s %13s %12s %9s\n", "#", "profile", "start", "slices",
            "compute", "SMs", "compute share", "memory share", "memory GB");
    for (int i = 0; i < l->n; i++) {
        const struct mig_profile *m = &g->mig[l->prof[i]];
        char range[16];
        format_range(l->start[i], m->size, range, sizeof range);
        fprintf(fp, "%-3d %-12s %5d %7s %7d %4d %13.4f %12.4f %9.2f\n", i, m->name, l->start[i],
                range, m->compute_slices, m->sm_count, mig_compute_share(g, l->prof[i]),
                mig_memory_share(g, l->prof[i]), m->memory_gb);
    }
    mig_print_slice_map(fp, g, l);
    if (d) {
        mig_print_demand(fp, g, d);
        mig_print_frag(fp, g, f, 1);
    }
}

cJSON *mig_frag_json(const struct mig_frag *f)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "free_compute_slices", f->free_compute);
    cJSON_AddNumberToObject(o, "free_memory_slices", f->free_memory);
    cJSON_AddNumberToObject(o, "stranded_compute_slices", f->stranded_compute);
    cJSON_AddNumberToObject(o, "stranded_memory_slices", f->stranded_memory);
    cJSON_AddNumberToObject(o, "stranded_compute", f->stranded_compute_frac);
    cJSON_AddNumberToObject(o, "stranded_memory", f->stranded_memory_frac);
    cJSON_AddNumberToObject(o, "fgd_compute_slices", f->fgd_compute);
    cJSON_AddNumberToObject(o, "fgd_memory_slices", f->fgd_memory);
    cJSON_AddNumberToObject(o, "fgd_compute", f->fgd_compute_frac);
    cJSON_AddNumberToObject(o, "fgd_memory", f->fgd_memory_frac);
    cJSON_AddNumberToObject(o, "fgd", f->fgd);
    return o;
}

cJSON *mig_demand_json(const struct gpu_profile *g, const struct mig_demand *d)
{
    cJSON *arr = cJSON_CreateArray();
    for (int i = 0; i < d->n; i++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "profile", g->mig[d->prof[i]].name);
        cJSON_AddNumberToObject(e, "p", d->p[i]);
        cJSON_AddItemToArray(arr, e);
    }
    return arr;
}

void mig_print_demand(FILE *fp, const struct gpu_profile *g, const struct mig_demand *d)
{
    fprintf(fp, "demand:");
    for (int i = 0; i < d->n; i++)
        fprintf(fp, "%s %s %.3f", i ? "," : "", g->mig[d->prof[i]].name, d->p[i]);
    fprintf(fp, "\n");
}

void mig_print_frag(FILE *fp, const struct gpu_profile *g, const struct mig_frag *f, int gpus)
{
    int c = gpus * g->mig_compute_slices, m = gpus * g->mig_memory_slices;
    fprintf(fp, "free:     compute %d/%d, memory %d/%d slices\n", f->free_compute, c,
            f->free_memory, m);
    fprintf(fp, "stranded: compute %d (%.1f%%), memory %d (%.1f%%) slices\n", f->stranded_compute,
            100 * f->stranded_compute_frac, f->stranded_memory, 100 * f->stranded_memory_frac);
    fprintf(fp,
            "FGD:      compute %.3f (%.1f%%), memory %.3f (%.1f%%) slices expected unusable; "
            "score %.4f\n",
            f->fgd_compute, 100 * f->fgd_compute_frac, f->fgd_memory, 100 * f->fgd_memory_frac,
            f->fgd);
}

void mig_print_slice_map(FILE *fp, const struct gpu_profile *g, const struct mig_layout *l)
{
    fprintf(fp, "memory slices:");
    for (int s = 0; s < g->mig_memory_slices; s++) {
        int who = -1;
        for (int i = 0; i < l->n; i++)
            if (s >= l->start[i] && s < l->start[i] + g->mig[l->prof[i]].size)
                who = i;
        if (who < 0)
            fprintf(fp, "  .");
        else
            fprintf(fp, " %2d", who);
    }
    fprintf(fp, "   (instance on slice 0..%d)\n", g->mig_memory_slices - 1);
}

void mig_print_pack(FILE *fp, const struct gpu_profile *g, const int *req, const struct mig_pack *r,
                    const struct mig_pack_opts *po)
{
    enum mig_pack_policy pol = po->policy;
    const struct mig_demand *d = po->demand;
    struct mig_set all;
    mig_set_from_list(g, req, r->n_req, &all);
    fprintf(fp, "%s, policy %s, %s: %d requests (", g->name, mig_pack_policy_name(pol),
            po->arrival_order ? "in arrival order" : "largest first", r->n_req);
    for (int p = 0, first = 1; p < g->n_mig; p++)
        if (all.count[p]) {
            fprintf(fp, "%s%d x %s", first ? "" : ", ", all.count[p], g->mig[p].name);
            first = 0;
        }
    fprintf(fp, ")\n");
    mig_print_demand(fp, g, d);
    /* the layout column is as wide as the widest layout */
    char(*text)[256] = ss_xcalloc((size_t)(r->n_gpus ? r->n_gpus : 1), sizeof *text);
    int width = (int)strlen("layout (profile@start)");
    for (int x = 0; x < r->n_gpus; x++) {
        const struct mig_layout *l = &r->gpu[x];
        size_t k = 0;
        for (int i = 0; i < l->n; i++)
            k += (size_t)snprintf(text[x] + k, sizeof text[x] - k, "%s%s@%d", i ? " " : "",
                                  g->mig[l->prof[i]].name, l->start[i]);
        width = (int)k > width ? (int)k : width;
    }
    fprintf(fp, "%-4s %-*s %7s %6s %8s %7s\n", "GPU", width, "layout (profile@start)", "compute",
            "memory", "stranded", "FGD");
    for (int x = 0; x < r->n_gpus; x++) {
        const struct mig_layout *l = &r->gpu[x];
        int c = 0, m = 0;
        for (int i = 0; i < l->n; i++) {
            c += g->mig[l->prof[i]].compute_slices;
            m += g->mig[l->prof[i]].size;
        }
        char str[32];
        snprintf(str, sizeof str, "%dc/%dm", r->frag[x].stranded_compute,
                 r->frag[x].stranded_memory);
        fprintf(fp, "%-4d %-*s %5d/%d %4d/%d %8s %7.4f\n", x, width, text[x], c,
                g->mig_compute_slices, m, g->mig_memory_slices, str, r->frag[x].fgd);
    }
    free(text);
    fprintf(fp, "GPUs used: %d (lower bound %d", r->n_gpus, r->lower_bound);
    if (pol == MIG_PACK_FGD || r->cluster_gpus != r->n_gpus)
        fprintf(fp, ", cluster of %d", r->cluster_gpus);
    fprintf(fp, ")\n");
    if (r->n_unplaced) {
        int per[CAL_MAX_MIG] = {0};
        for (int i = 0; i < r->n_req; i++)
            if (r->gpu_of[i] < 0)
                per[req[i]]++;
        fprintf(fp, "unplaced: %d (", r->n_unplaced);
        for (int p = 0, first = 1; p < g->n_mig; p++)
            if (per[p]) {
                fprintf(fp, "%s%d x %s", first ? "" : ", ", per[p], g->mig[p].name);
                first = 0;
            }
        fprintf(fp, ")\n");
    } else {
        fprintf(fp, "unplaced: none\n");
    }
    if (r->n_gpus) {
        fprintf(fp, "over the %d used GPU%s:\n", r->n_gpus, r->n_gpus > 1 ? "s" : "");
        mig_print_frag(fp, g, &r->total, r->n_gpus);
    }
}

cJSON *mig_pack_json(const struct gpu_profile *g, const int *req, const struct mig_pack *r,
                     const struct mig_pack_opts *po)
{
    enum mig_pack_policy pol = po->policy;
    const struct mig_demand *d = po->demand;
    cJSON *root = cJSON_CreateObject(), *gpus = cJSON_CreateArray(), *un = cJSON_CreateArray();
    cJSON_AddStringToObject(root, "gpu", g->name);
    cJSON_AddStringToObject(root, "policy", mig_pack_policy_name(pol));
    cJSON_AddStringToObject(root, "order", po->arrival_order ? "arrival" : "largest");
    cJSON_AddNumberToObject(root, "requests", r->n_req);
    cJSON_AddItemToObject(root, "demand", mig_demand_json(g, d));
    cJSON_AddNumberToObject(root, "gpus_used", r->n_gpus);
    cJSON_AddNumberToObject(root, "cluster_gpus", r->cluster_gpus);
    cJSON_AddNumberToObject(root, "lower_bound", r->lower_bound);
    for (int x = 0; x < r->n_gpus; x++) {
        const struct mig_layout *l = &r->gpu[x];
        cJSON *e = cJSON_CreateObject(), *inst = cJSON_CreateArray();
        cJSON_AddNumberToObject(e, "index", x);
        for (int s = 0; s < l->n; s++) {
            cJSON *ie = cJSON_CreateObject();
            cJSON_AddStringToObject(ie, "profile", g->mig[l->prof[s]].name);
            cJSON_AddNumberToObject(ie, "start", l->start[s]);
            for (int i = 0; i < r->n_req; i++)
                if (r->gpu_of[i] == x && r->slot_of[i] == s)
                    cJSON_AddNumberToObject(ie, "request", i);
            cJSON_AddItemToArray(inst, ie);
        }
        cJSON_AddItemToObject(e, "instances", inst);
        cJSON_AddItemToObject(e, "fragmentation", mig_frag_json(&r->frag[x]));
        cJSON_AddItemToArray(gpus, e);
    }
    cJSON_AddItemToObject(root, "gpus", gpus);
    for (int i = 0; i < r->n_req; i++)
        if (r->gpu_of[i] < 0) {
            cJSON *e = cJSON_CreateObject();
            cJSON_AddNumberToObject(e, "request", i);
            cJSON_AddStringToObject(e, "profile", g->mig[req[i]].name);
            cJSON_AddItemToArray(un, e);
        }
    cJSON_AddItemToObject(root, "unplaced", un);
    cJSON_AddItemToObject(root, "fragmentation", mig_frag_json(&r->total));
    return root;
}

cJSON *mig_pack_rows(const struct gpu_profile *g, const int *req, const struct mig_pack *r)
{
    cJSON *rows = cJSON_CreateArray();
    for (int i = 0; i < r->n_req; i++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddNumberToObject(e, "request", i);
        cJSON_AddStringToObject(e, "profile", g->mig[req[i]].name);
        if (r->gpu_of[i] >= 0) {
            cJSON_AddNumberToObject(e, "gpu", r->gpu_of[i]);
            cJSON_AddNumberToObject(e, "start", r->gpu[r->gpu_of[i]].start[r->slot_of[i]]);
        } else {
            cJSON_AddNullToObject(e, "gpu");
            cJSON_AddNullToObject(e, "start");
        }
        cJSON_AddItemToArray(rows, e);
    }
    return rows;
}
