/*
 * calib — loads GPU calibration profiles. Invariant: every value in a loaded
 * profile came from a value object with a non-empty "source" (see calib.h), so a
 * number the simulator uses can always be traced to a document or a measurement.
 */
#include "calib/calib.h"
#include "calib/vrange.h"
#include "base/util.h"

#include <cJSON.h>
#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define CAL_MAX_FILE (4u << 20)
#define CAL_MAX_PROFILES 256 /* .json files a profile directory may hold for a lookup by name */

const char *cal_profile_dir(void)
{
    static char dir[PATH_MAX];
    const char *env = getenv("SHARESIM_PROFILES");
    if (env && *env)
        return env;
    if (dir[0])
        return dir;
    /* The shipped profiles sit at <repo>/kernels/profiles and the binary at
     * <repo>/build/sharesim (or build/asan/sharesim), or installed under a prefix: look
     * upwards from the binary. */
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        for (int up = 0; up < 4; up++) {
            char *slash = strrchr(exe, '/');
            if (!slash)
                break;
            *slash = '\0';
            if ((size_t)snprintf(dir, sizeof dir, "%.*s/kernels/profiles", PATH_MAX - 32, exe) <
                    sizeof dir &&
                access(dir, R_OK) == 0)
                return dir;
            /* `make install PREFIX=P` puts the binary in P/bin and the profiles in
             * P/share/sharesim/kernels/profiles. */
            if ((size_t)snprintf(dir, sizeof dir, "%.*s/share/sharesim/kernels/profiles",
                                 PATH_MAX - 48, exe) < sizeof dir &&
                access(dir, R_OK) == 0)
                return dir;
        }
    }
    snprintf(dir, sizeof dir, "kernels/profiles");
    return dir;
}

static const char *meta_keys[] = {"schema", "name",     "aliases", "family", "family_default",
                                  "device", "measured", "notes",   "date",   "driver"};

static int is_meta(const char *k)
{
    for (size_t i = 0; i < sizeof meta_keys / sizeof *meta_keys; i++)
        if (strcmp(k, meta_keys[i]) == 0)
            return 1;
    return 0;
}

/* Checks the {value, source, confidence} shape of one entry. */
static int check_value_obj(const char *path, const cJSON *it, char *err, size_t errlen)
{
    if (!cJSON_IsObject(it))
        return ss_errf(err, errlen, "%s: \"%s\": expected an object {value, source, confidence}",
                       path, it->string);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(it, "value");
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(it, "source");
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(it, "confidence");
    if (!v)
        return ss_errf(err, errlen, "%s: \"%s\": missing \"value\"", path, it->string);
    if (!cJSON_IsString(s) || !s->valuestring[0])
        return ss_errf(err, errlen, "%s: \"%s\": missing \"source\" (every value needs one)", path,
                       it->string);
    if (!cJSON_IsString(c) || !c->valuestring[0])
        return ss_errf(err, errlen, "%s: \"%s\": missing \"confidence\"", path, it->string);
    double lo, hi;
    return vr_parse(path, it->string, it, &lo, &hi, err, errlen) < 0 ? -1 : 0;
}

/* The planner's sensitivity rerun (cal_set_override): one key read at another value. */
static struct {
    int on;
    char key[64];
    double value;
} cal_ovr;

void cal_set_override(const char *key, double value)
{
    cal_ovr.on = key != NULL;
    if (key)
        snprintf(cal_ovr.key, sizeof cal_ovr.key, "%s", key);
    cal_ovr.value = value;
}

int cal_get_override(const char *key, double *value)
{
    if (!cal_ovr.on || strcmp(cal_ovr.key, key) != 0)
        return 0;
    *value = cal_ovr.value;
    return 1;
}

/* Lays the override over a parsed profile, before anything reads it, so that every derived
 * figure (a strategy's defaults included) follows from the rerun's value. */
static void apply_override(cJSON *root)
{
    if (!cal_ovr.on)
        return;
    cJSON *v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, cal_ovr.key),
                                                "value");
    if (cJSON_IsNumber(v))
        cJSON_SetNumberValue(v, cal_ovr.value);
}

static int get_num(const char *path, const cJSON *root, const char *key, int required, double lo,
                   double hi, double *out, char *err, size_t errlen)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(root, key);
    if (!it) {
        if (required)
            return ss_errf(err, errlen, "%s: missing value \"%s\"", path, key);
        return 1;
    }
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(it, "value");
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < lo ||
        v->valuedouble > hi)
        return ss_errf(err, errlen, "%s: \"%s.value\": expected a number in [%g, %g]", path, key,
                       lo, hi);
    *out = v->valuedouble;
    return 0;
}

static int get_int_field(const char *path, const cJSON *o, const char *key, int lo, int hi,
                         int *out, char *err, size_t errlen)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble) || v->valuedouble < lo ||
        v->valuedouble > hi)
        return ss_errf(err, errlen, "%s: %s: expected an integer in [%d, %d]", path, key, lo, hi);
    *out = (int)v->valuedouble;
    return 0;
}

/* obj's "name" (field: where it is, for the message), checked against the name rule
 * (base/name.h), into a buffer of NAME_MAX_BYTES + 1. */
static int get_name(const char *field, const cJSON *obj, char *dst, char *err, size_t errlen)
{
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(obj, "name");
    if (!cJSON_IsString(name))
        return ss_errf(err, errlen, "%s: expected a string (a name)", field);
    char why[SS_ERRLEN];
    if (name_check(name->valuestring, why, sizeof why))
        return ss_errf(err, errlen, "%s: %s", field, why);
    snprintf(dst, NAME_MAX_BYTES + 1, "%s", name->valuestring);
    return 0;
}

static int parse_mig(const char *path, const cJSON *arr, struct gpu_profile *p, char *err,
                     size_t errlen)
{
    if (!cJSON_IsArray(arr))
        return ss_errf(err, errlen, "%s: mig_profiles.value: expected an array", path);
    int n = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, arr)
    {
        if (n >= CAL_MAX_MIG)
            return ss_errf(err, errlen, "%s: more than %d MIG profiles", path, CAL_MAX_MIG);
        struct mig_profile *m = &p->mig[n];
        char where[600];
        snprintf(where, sizeof where, "%s: mig_profiles.value[%d]", path, n);
        char field[640];
        snprintf(field, sizeof field, "%s.name", where);
        if (get_name(field, e, m->name, err, errlen))
            return -1;
        if (get_int_field(where, e, "compute_slices", 1, 7, &m->compute_slices, err, errlen) ||
            get_int_field(where, e, "memory_slices", 1, 8, &m->memory_slices, err, errlen) ||
            get_int_field(where, e, "sm_count", 1, 1024, &m->sm_count, err, errlen) ||
            get_int_field(where, e, "max_instances", 1, 7, &m->max_instances, err, errlen) ||
            get_int_field(where, e, "size", 1, 8, &m->size, err, errlen))
            return -1;
        const cJSON *mem = cJSON_GetObjectItemCaseSensitive(e, "memory_gb");
        if (!cJSON_IsNumber(mem) || !(mem->valuedouble > 0))
            return ss_errf(err, errlen, "%s.memory_gb: expected a positive number", where);
        m->memory_gb = mem->valuedouble;
        const cJSON *starts = cJSON_GetObjectItemCaseSensitive(e, "starts");
        if (!cJSON_IsArray(starts) || cJSON_GetArraySize(starts) < 1 ||
            cJSON_GetArraySize(starts) > CAL_MAX_STARTS)
            return ss_errf(err, errlen, "%s.starts: expected 1..%d start positions", where,
                           CAL_MAX_STARTS);
        m->n_starts = 0;
        const cJSON *s;
        cJSON_ArrayForEach(s, starts)
        {
            if (!cJSON_IsNumber(s) || s->valuedouble < 0 || s->valuedouble + m->size > 8 ||
                s->valuedouble != floor(s->valuedouble))
                return ss_errf(err, errlen, "%s.starts: start + size must lie in [0, 8]", where);
            m->starts[m->n_starts++] = (int)s->valuedouble;
        }
        n++;
    }
    p->n_mig = n;
    return 0;
}

/* mem_bw_sm_curve: [{"sms", "bw_fraction"}, …], SM counts increasing up to total_sms, fractions
 * in (0, 1] non-decreasing, the last point (total_sms, 1): the curve is relative to the whole
 * GPU, so all SMs pull all of its bandwidth by definition. */
static int parse_bw_curve(const char *path, const cJSON *arr, struct gpu_profile *p, char *err,
                          size_t errlen)
{
    if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) < 1 ||
        cJSON_GetArraySize(arr) > CAL_MAX_CURVE)
        return ss_errf(err, errlen, "%s: mem_bw_sm_curve.value: expected 1 to %d points", path,
                       CAL_MAX_CURVE);
    const cJSON *e;
    int n = 0, last_sms = 0;
    cJSON_ArrayForEach(e, arr)
    {
        char where[600];
        int sms;
        snprintf(where, sizeof where, "%s: mem_bw_sm_curve.value[%d]", path, n);
        /* The range [previous + 1, total_sms] is empty once a point reached total_sms: say
         * that, rather than print a range whose bounds are the wrong way round. */
        if (last_sms >= p->total_sms)
            return ss_errf(err, errlen,
                           "%s: a point after the one at all %d SMs (total_sms): the curve ends "
                           "there",
                           where, p->total_sms);
        if (get_int_field(where, e, "sms", 1, p->total_sms, &sms, err, errlen))
            return -1;
        if (sms <= last_sms)
            return ss_errf(err, errlen,
                           "%s: sms: expected more SMs than the previous point's %d, got %d", where,
                           last_sms, sms);
        const cJSON *bw = cJSON_GetObjectItemCaseSensitive(e, "bw_fraction");
        double lo = n ? p->bw_curve_bw[n - 1] : 0;
        if (!cJSON_IsNumber(bw) || !(bw->valuedouble > 0) || bw->valuedouble > 1 ||
            bw->valuedouble < lo)
            return ss_errf(err, errlen,
                           "%s.bw_fraction: expected a number in (0, 1], not below the previous "
                           "point's",
                           where);
        p->bw_curve_sm[n] = (double)sms / p->total_sms;
        p->bw_curve_bw[n] = bw->valuedouble;
        last_sms = sms;
        n++;
    }
    if (last_sms != p->total_sms || p->bw_curve_bw[n - 1] != 1)
        return ss_errf(err, errlen,
                       "%s: mem_bw_sm_curve.value: the last point must be all %d SMs with "
                       "bw_fraction 1",
                       path, p->total_sms);
    p->n_bw_curve = n;
    return 0;
}

/* vgpu_types: [{"name", "fb_gb", "max_per_gpu"}], names unique, frame buffers within the GPU. */
static int parse_vgpu_types(const char *path, const cJSON *arr, struct gpu_profile *p, char *err,
                            size_t errlen)
{
    if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) > CAL_MAX_VGPU)
        return ss_errf(err, errlen, "%s: vgpu_types.value: expected up to %d types", path,
                       CAL_MAX_VGPU);
    const cJSON *e;
    int n = 0;
    cJSON_ArrayForEach(e, arr)
    {
        char where[600];
        struct vgpu_type *t = &p->vgpu_types[n];
        snprintf(where, sizeof where, "%s: vgpu_types.value[%d]", path, n);
        const cJSON *fb = cJSON_GetObjectItemCaseSensitive(e, "fb_gb");
        char field[640];
        snprintf(field, sizeof field, "%s.name", where);
        if (get_name(field, e, t->name, err, errlen))
            return -1;
        if (!cJSON_IsNumber(fb) || !(fb->valuedouble > 0) || fb->valuedouble > p->memory_gb)
            return ss_errf(err, errlen, "%s.fb_gb: expected a number in (0, %g]", where,
                           p->memory_gb);
        t->fb_gb = fb->valuedouble;
        if (get_int_field(where, e, "max_per_gpu", 1, 64, &t->max_per_gpu, err, errlen))
            return -1;
        for (int k = 0; k < n; k++)
            if (strcasecmp(p->vgpu_types[k].name, t->name) == 0 ||
                p->vgpu_types[k].fb_gb == t->fb_gb)
                return ss_errf(err, errlen, "%s: same name or frame buffer as vgpu_types[%d]",
                               where, k);
        n++;
    }
    p->n_vgpu_types = n;
    return 0;
}

/* The link kinds a profile may name: a table, so a new generation is one line (the error
 * messages list it). NVLink 2 and PCIe 3 are the V100's. */
static const char *const link_kinds[] = {"nvlink2", "nvlink3", "nvlink4", "nvlink5",
                                         "pcie3",   "pcie4",   "pcie5",   "pcie6"};

/* "a, b, ..." of the link kinds (only the PCIe ones when pcie_only), for an error message. */
static void link_kind_list(int pcie_only, char *dst, size_t n)
{
    dst[0] = '\0';
    for (size_t i = 0; i < sizeof link_kinds / sizeof *link_kinds; i++)
        if (!pcie_only || strncmp(link_kinds[i], "pcie", 4) == 0) {
            size_t l = strlen(dst);
            snprintf(dst + l, n - l, "%s%s", l ? ", " : "", link_kinds[i]);
        }
}

/* o's key, one of link_kinds (only the PCIe ones when pcie_only), into dst. */
static int link_kind(const cJSON *o, const char *key, int pcie_only, char *dst, size_t n)
{
    const cJSON *k = cJSON_GetObjectItemCaseSensitive(o, key);
    for (size_t i = 0; cJSON_IsString(k) && i < sizeof link_kinds / sizeof *link_kinds; i++)
        if (strcmp(k->valuestring, link_kinds[i]) == 0 &&
            (!pcie_only || strncmp(k->valuestring, "pcie", 4) == 0)) {
            snprintf(dst, n, "%s", k->valuestring);
            return 0;
        }
    return -1;
}

/* interconnect: {"kind", "gbps_per_gpu", "domain_gpus", "pcie", "pcie_gbps_per_gpu"}. */
static int parse_link(const char *path, const cJSON *o, struct gpu_link *l, char *err,
                      size_t errlen)
{
    if (!cJSON_IsObject(o))
        return ss_errf(err, errlen,
                       "%s: interconnect.value: expected an object {kind, "
                       "gbps_per_gpu, domain_gpus, pcie, pcie_gbps_per_gpu}",
                       path);
    char kinds[128];
    if (link_kind(o, "kind", 0, l->kind, sizeof l->kind)) {
        link_kind_list(0, kinds, sizeof kinds);
        return ss_errf(err, errlen, "%s: interconnect.value.kind: expected one of %s", path, kinds);
    }
    if (link_kind(o, "pcie", 1, l->pcie, sizeof l->pcie)) {
        link_kind_list(1, kinds, sizeof kinds);
        return ss_errf(err, errlen, "%s: interconnect.value.pcie: expected one of %s", path, kinds);
    }
    const char *nums[] = {"gbps_per_gpu", "pcie_gbps_per_gpu"};
    double *dst[] = {&l->gbps, &l->pcie_gbps};
    for (int i = 0; i < 2; i++) {
        const cJSON *g = cJSON_GetObjectItemCaseSensitive(o, nums[i]);
        if (!cJSON_IsNumber(g) || !(g->valuedouble > 0) || g->valuedouble > 1e5)
            return ss_errf(err, errlen, "%s: interconnect.value.%s: expected a number in (0, 1e5]",
                           path, nums[i]);
        *dst[i] = g->valuedouble;
    }
    char where[600];
    snprintf(where, sizeof where, "%s: interconnect.value", path);
    return get_int_field(where, o, "domain_gpus", 1, CAL_MAX_LINK_DOMAIN, &l->domain_gpus, err,
                         errlen);
}

int cal_load_file(const char *path, struct gpu_profile *p, char *err, size_t errlen)
{
    char *text = NULL;
    memset(p, 0, sizeof *p);
    if (ss_read_file(path, CAL_MAX_FILE, &text, NULL, err, errlen))
        return -1;
    const char *ep = NULL;
    cJSON *root = cJSON_ParseWithOpts(text, &ep, 1);
    if (!root) {
        int off = ep ? (int)(ep - text) : 0;
        free(text);
        return ss_errf(err, errlen, "%s: JSON syntax error at byte %d", path, off);
    }
    free(text);
    int rc = -1;
    if (!cJSON_IsObject(root)) {
        ss_errf(err, errlen, "%s: expected a JSON object", path);
        goto out;
    }
    apply_override(root);
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(root, "schema");
    if (!cJSON_IsString(schema) || strcmp(schema->valuestring, "sharesim-profile/1") != 0) {
        ss_errf(err, errlen, "%s: \"schema\": expected \"sharesim-profile/1\"", path);
        goto out;
    }
    char field[600];
    snprintf(field, sizeof field, "%s: \"name\"", path);
    if (get_name(field, root, p->name, err, errlen))
        goto out;
    snprintf(p->path, sizeof p->path, "%s", path);
    p->measured = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(root, "measured"));
    const cJSON *it;
    cJSON_ArrayForEach(it, root)
    {
        if (!is_meta(it->string) && check_value_obj(path, it, err, errlen))
            goto out;
    }
    double v, ts_us, sw_us, le8, gt8, vsw;
    if (get_num(path, root, "total_sms", 1, 1, 4096, &v, err, errlen))
        goto out;
    p->total_sms = (int)v;
    if (get_num(path, root, "memory_gb", 1, 0.1, 1e5, &p->memory_gb, err, errlen) ||
        get_num(path, root, "hbm_bw_gbps", 1, 1, 1e6, &p->hbm_bw_gbps, err, errlen) ||
        /* slices of 100 us or more: the simulator's clock (SCN_MIN_STEP_S in scenario.h) */
        get_num(path, root, "timeslice_us", 1, 100, 1e7, &ts_us, err, errlen) ||
        get_num(path, root, "switch_us", 1, 0, 1e6, &sw_us, err, errlen) ||
        get_num(path, root, "vgpu_slice_ms_le8", 1, 0.1, 1e4, &le8, err, errlen) ||
        get_num(path, root, "vgpu_slice_ms_gt8", 1, 0.1, 1e4, &gt8, err, errlen) ||
        get_num(path, root, "vgpu_switch_us", 1, 0, 1e6, &vsw, err, errlen))
        goto out;
    p->timeslice_s = ts_us * 1e-6;
    p->switch_s = sw_us * 1e-6;
    p->vgpu_slice_le8_s = le8 * 1e-3;
    p->vgpu_slice_gt8_s = gt8 * 1e-3;
    p->vgpu_switch_s = vsw * 1e-6;
    if (get_num(path, root, "mps_max_clients", 1, 1, 4096, &v, err, errlen))
        goto out;
    p->mps_max_clients = (int)v;
    p->mps_max_clients_cuda13_1 = p->mps_max_clients;
    int r = get_num(path, root, "mps_max_clients_cuda13_1", 0, 1, 4096, &v, err, errlen);
    if (r < 0)
        goto out;
    if (r == 0)
        p->mps_max_clients_cuda13_1 = (int)v;
    if (get_num(path, root, "mps_recovery_s", 1, 0, 1e5, &p->mps_recovery_s, err, errlen) ||
        get_num(path, root, "mig_create_s", 1, 0, 1e5, &p->mig_create_s, err, errlen) ||
        get_num(path, root, "rate_compute_exponent", 1, 0.01, 10, &p->rate_compute_exponent, err,
                errlen) ||
        get_num(path, root, "rate_memory_exponent", 1, 0.01, 10, &p->rate_memory_exponent, err,
                errlen))
        goto out;
    p->gpu_hour_usd = -1;
    p->power_kw = -1;
    if (get_num(path, root, "gpu_hour_usd", 0, 0, 1e6, &p->gpu_hour_usd, err, errlen) < 0 ||
        get_num(path, root, "power_kw", 0, 0, 1e3, &p->power_kw, err, errlen) < 0 ||
        get_num(path, root, "mps_bw_contention_loss", 0, 0, 0.99, &p->mps_bw_loss, err, errlen) <
            0 ||
        get_num(path, root, "vgpu_overhead_compute", 0, 0, 0.99, &p->vgpu_overhead_compute, err,
                errlen) < 0 ||
        get_num(path, root, "vgpu_overhead_memory", 0, 0, 0.99, &p->vgpu_overhead_memory, err,
                errlen) < 0 ||
        get_num(path, root, "gpu_reset_s", 0, 0, 1e5, &p->gpu_reset_s, err, errlen) < 0 ||
        get_num(path, root, "context_state_mb", 0, 0, 1e5, &p->context_state_mb, err, errlen) < 0)
        goto out;
    /* Interference as measured
     * (docs/mps-vgpu.md#validation-against-published-sharing-measurements): the SM fraction at
     * which a streaming kernel fills the bus, and the refill after a switch. */
    double refill_us = 0;
    if (get_num(path, root, "mem_bw_knee_sm_fraction", 0, 0.01, 1, &p->bw_knee_sm, err, errlen) <
            0 ||
        get_num(path, root, "timeslice_refill_us", 0, 0, 1e6, &refill_us, err, errlen) < 0)
        goto out;
    p->ts_refill_s = refill_us * 1e-6;
    double gbps = 0;
    if (get_num(path, root, "ctx_switch_gbps", 0, 1e-3, 1e6, &gbps, err, errlen) < 0)
        goto out;
    p->ctx_switch_bps = gbps * 1e9;
    const cJSON *vt = cJSON_GetObjectItemCaseSensitive(root, "vgpu_types");
    if (vt && parse_vgpu_types(path, cJSON_GetObjectItemCaseSensitive(vt, "value"), p, err, errlen))
        goto out;
    const cJSON *curve = cJSON_GetObjectItemCaseSensitive(root, "mem_bw_sm_curve");
    if (curve &&
        parse_bw_curve(path, cJSON_GetObjectItemCaseSensitive(curve, "value"), p, err, errlen))
        goto out;
    p->mig_compute_slices = 7;
    p->mig_memory_slices = 8;
    if ((r = get_num(path, root, "mig_sms_7g", 0, 1, 4096, &v, err, errlen)) < 0)
        goto out;
    p->mig_sms_7g = r == 0 ? (int)v : 0;
    const cJSON *mig = cJSON_GetObjectItemCaseSensitive(root, "mig_profiles");
    if (mig && parse_mig(path, cJSON_GetObjectItemCaseSensitive(mig, "value"), p, err, errlen))
        goto out;
    const cJSON *ic = cJSON_GetObjectItemCaseSensitive(root, "interconnect");
    if (ic &&
        parse_link(path, cJSON_GetObjectItemCaseSensitive(ic, "value"), &p->link, err, errlen))
        goto out;
    if (roof_parse(path, root, &p->roof, err, errlen))
        goto out;
    rc = 0;
out:
    cJSON_Delete(root);
    return rc;
}

/* What a lookup by name needs of one profile file: its name, aliases and family. */
struct cal_entry {
    char file[256];
    cJSON *doc; /* NULL when the file is no profile (engines.json, a broken file) */
};

static int str_is(const cJSON *o, const char *key, const char *want)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) && strcasecmp(v->valuestring, want) == 0;
}

/* True when the profile names this GPU (its "name" or one of its "aliases"). */
static int entry_names(const cJSON *doc, const char *want)
{
    if (str_is(doc, "name", want))
        return 1;
    const cJSON *a;
    cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(doc, "aliases"))
    {
        if (cJSON_IsString(a) && strcasecmp(a->valuestring, want) == 0)
            return 1;
    }
    return 0;
}

static cJSON *read_profile_doc(const char *path)
{
    char *text = NULL;
    if (ss_read_file_own(path, CAL_MAX_FILE, &text, NULL, NULL, 0))
        return NULL;
    cJSON *root = cJSON_Parse(text);
    free(text);
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(root, "schema");
    if (!cJSON_IsString(schema) || strcmp(schema->valuestring, "sharesim-profile/1") != 0 ||
        !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(root, "name"))) {
        cJSON_Delete(root);
        return NULL;
    }
    return root;
}

/* Appends text to buf (size n) and returns how much is left: a long list is cut, not overrun. */
static void add_text(char *buf, size_t n, const char *text)
{
    size_t l = strlen(buf);
    if (l < n)
        snprintf(buf + l, n - l, "%s", text);
}

/* "A100-40GB (A100-SXM4-40GB, A100-PCIE-40GB), …" and the families: for the unknown-GPU error. */
static void known_names(const struct cal_entry *e, int n, char *buf, size_t len)
{
    buf[0] = '\0';
    char fams[256] = "";
    for (int i = 0; i < n; i++) {
        if (!e[i].doc)
            continue;
        if (buf[0])
            add_text(buf, len, ", ");
        add_text(buf, len, cJSON_GetObjectItemCaseSensitive(e[i].doc, "name")->valuestring);
        const cJSON *a;
        int k = 0;
        cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(e[i].doc, "aliases"))
        {
            if (!cJSON_IsString(a))
                continue;
            add_text(buf, len, k++ ? ", " : " (");
            add_text(buf, len, a->valuestring);
        }
        if (k)
            add_text(buf, len, ")");
        const cJSON *f = cJSON_GetObjectItemCaseSensitive(e[i].doc, "family");
        if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e[i].doc, "family_default")) &&
            cJSON_IsString(f)) {
            add_text(fams, sizeof fams, fams[0] ? ", " : "");
            add_text(fams, sizeof fams, f->valuestring);
        }
    }
    if (fams[0]) {
        add_text(buf, len, "; or a family name, which picks its SXM part: ");
        add_text(buf, len, fams);
    }
}

/*
 * The profile a family name means: the one member marked family_default. Writes the note
 * saying which variant was chosen and which others exist; -1 (with a message) when the name is
 * no family, or when the family has no default or several.
 */
static int family_pick(const struct cal_entry *e, int n, const char *want, char *note,
                       size_t notelen, char *err, size_t errlen)
{
    int pick = -1, n_default = 0, members = 0;
    char others[CAL_NOTE_LEN / 2] = "";
    for (int i = 0; i < n; i++) {
        if (!e[i].doc || !str_is(e[i].doc, "family", want))
            continue;
        members++;
        if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e[i].doc, "family_default"))) {
            n_default++;
            if (pick < 0)
                pick = i;
        } else {
            add_text(others, sizeof others, others[0] ? ", " : "");
            add_text(others, sizeof others,
                     cJSON_GetObjectItemCaseSensitive(e[i].doc, "name")->valuestring);
        }
    }
    if (members == 0)
        return -1;
    if (n_default != 1) {
        ss_errf(err, errlen,
                "GPU family \"%s\": %d of its %d profiles are marked \"family_default\" (expected "
                "exactly one): name the variant",
                want, n_default, members);
        return -2;
    }
    const cJSON *d = e[pick].doc;
    const cJSON *dev = cJSON_GetObjectItemCaseSensitive(d, "device");
    snprintf(note, notelen,
             "GPU \"%s\" names a family of %d profiles: using %s (%s)%s%s; name the variant to "
             "choose another",
             want, members, cJSON_GetObjectItemCaseSensitive(d, "name")->valuestring,
             cJSON_IsString(dev) ? dev->valuestring : "its default part", others[0] ? ", not " : "",
             others);
    return pick;
}

/* The family note on stderr once per process and family name: a sweep loads its scenario once
 * per point, and the choice needs saying once. */
static void family_say(const char *want, const char *note)
{
    static char said[16][NAME_MAX_BYTES + 1];
    static int n_said;
    for (int i = 0; i < n_said; i++)
        if (strcasecmp(said[i], want) == 0)
            return;
    if (n_said < 16)
        snprintf(said[n_said++], sizeof said[0], "%s", want);
    fprintf(stderr, "sharesim: note: %s\n", note);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Profiles loaded before, by what cal_load was given (a path, or the directory and a name):
 * a sweep loads its scenario once per point, and reading and parsing every profile of the
 * directory each time was half of a 100,000-point sweep's set-up. An entry is used only while
 * its file (and, for a name, the directory, whose entries decide what the name means) is as
 * it was: same device, inode, size and modification time.
 */
#define CAL_CACHE 8
struct cal_cached {
    char key[PATH_MAX + 64];
    struct stat file, dir; /* dir: zeroed for a path */
    struct gpu_profile p;
};
static struct cal_cached cal_cache[CAL_CACHE];
static int cal_cache_n, cal_cache_next;

static int same_file(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
           a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

static int cache_get(const char *key, const char *dir, struct gpu_profile *out)
{
    for (int i = 0; i < cal_cache_n; i++) {
        struct cal_cached *c = &cal_cache[i];
        struct stat f, d;
        if (strcmp(c->key, key) != 0 || stat(c->p.path, &f) != 0 || !same_file(&f, &c->file))
            continue;
        if (dir && (stat(dir, &d) != 0 || !same_file(&d, &c->dir)))
            continue;
        *out = c->p;
        ss_in_note(out->path); /* an input still, as ss_read_file would have noted it */
        return 1;
    }
    return 0;
}

static void cache_put(const char *key, const char *dir, const struct gpu_profile *p)
{
    struct cal_cached c;
    memset(&c, 0, sizeof c);
    if (strlen(key) >= sizeof c.key || stat(p->path, &c.file) != 0 ||
        (dir && stat(dir, &c.dir) != 0))
        return;
    strcpy(c.key, key);
    c.p = *p;
    int slot = -1;
    for (int i = 0; i < cal_cache_n && slot < 0; i++)
        if (strcmp(cal_cache[i].key, key) == 0)
            slot = i; /* the stale entry of the same key */
    if (slot < 0)
        slot = cal_cache_n < CAL_CACHE ? cal_cache_n++ : cal_cache_next++ % CAL_CACHE;
    cal_cache[slot] = c;
}

static int cal_load_uncached(const char *name_or_path, struct gpu_profile *out, char *err,
                             size_t errlen);

int cal_load(const char *name_or_path, struct gpu_profile *out, char *err, size_t errlen)
{
    int by_path = strchr(name_or_path, '/') || ss_ends_with(name_or_path, ".json");
    const char *dir = by_path ? NULL : cal_profile_dir();
    char key[PATH_MAX + 64];
    snprintf(key, sizeof key, "%s\n%s", dir ? dir : "", name_or_path);
    int rc = 0;
    /* An overridden load is not the file's profile: neither served from nor kept in the cache. */
    if (cal_ovr.on) {
        rc = cal_load_uncached(name_or_path, out, err, errlen);
    } else if (!cache_get(key, dir, out)) {
        rc = cal_load_uncached(name_or_path, out, err, errlen);
        if (rc == 0)
            cache_put(key, dir, out);
    }
    if (rc == 0 && out->family_note[0])
        family_say(name_or_path, out->family_note);
    return rc;
}

static int cal_load_uncached(const char *name_or_path, struct gpu_profile *out, char *err,
                             size_t errlen)
{
    if (strchr(name_or_path, '/') || ss_ends_with(name_or_path, ".json"))
        return cal_load_file(name_or_path, out, err, errlen);
    const char *dir = cal_profile_dir();
    DIR *d = opendir(dir);
    if (!d)
        return ss_errf(err, errlen, "cannot open the profile directory %s", dir);
    /* Sorted so the lookup does not depend on directory order. */
    static struct cal_entry e[CAL_MAX_PROFILES];
    char *names[CAL_MAX_PROFILES];
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)) && n < CAL_MAX_PROFILES)
        if (ss_ends_with(de->d_name, ".json") && strlen(de->d_name) < sizeof e[0].file)
            names[n++] = ss_xstrdup(de->d_name);
    closedir(d);
    qsort(names, (size_t)n, sizeof *names, by_name);
    int found = -1;
    for (int i = 0; i < n; i++) {
        char path[PATH_MAX];
        snprintf(e[i].file, sizeof e[i].file, "%.*s", (int)sizeof e[i].file - 1, names[i]);
        free(names[i]);
        snprintf(path, sizeof path, "%.*s/%.255s", PATH_MAX - 300, dir, e[i].file);
        e[i].doc = read_profile_doc(path);
        if (found < 0 && e[i].doc && entry_names(e[i].doc, name_or_path))
            found = i;
    }
    char note[CAL_NOTE_LEN] = "";
    int rc = 0;
    if (found < 0)
        found = family_pick(e, n, name_or_path, note, sizeof note, err, errlen);
    if (found >= 0) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%.*s/%.255s", PATH_MAX - 300, dir, e[found].file);
        rc = cal_load_file(path, out, err, errlen);
        if (rc == 0)
            snprintf(out->family_note, sizeof out->family_note, "%s", note);
    } else if (found == -1) {
        char known[SS_ERRLEN - 128];
        known_names(e, n, known, sizeof known);
        rc = ss_errf(err, errlen, "unknown GPU \"%s\": expected one of %s; or a path to a profile",
                     name_or_path, known);
    } else {
        rc = -1; /* family_pick's message */
    }
    for (int i = 0; i < n; i++)
        cJSON_Delete(e[i].doc);
    return rc;
}

const struct mig_profile *cal_mig_find(const struct gpu_profile *p, const char *name)
{
    for (int i = 0; i < p->n_mig; i++)
        if (strcmp(p->mig[i].name, name) == 0)
            return &p->mig[i];
    return NULL;
}

const struct vgpu_type *cal_vgpu_type(const struct gpu_profile *p, const char *name)
{
    for (int i = 0; i < p->n_vgpu_types; i++)
        if (strcasecmp(p->vgpu_types[i].name, name) == 0)
            return &p->vgpu_types[i];
    return NULL;
}

const struct vgpu_type *cal_vgpu_type_fb(const struct gpu_profile *p, double fb_gb)
{
    for (int i = 0; i < p->n_vgpu_types; i++)
        if (fabs(p->vgpu_types[i].fb_gb - fb_gb) < 1e-9)
            return &p->vgpu_types[i];
    return NULL;
}

double cal_refill_s(const struct gpu_profile *p, double refill_s, double state_in_mb)
{
    if (!(refill_s > 0))
        return 0;
    /* The caches and TLB refill what the context touches: its state against the profile's
     * default, which the measurement behind timeslice_refill_us ran with. */
    return p->context_state_mb > 0 ? refill_s * state_in_mb / p->context_state_mb : refill_s;
}

double cal_switch_s(const struct gpu_profile *p, double base_s, double state_out_mb,
                    double state_in_mb)
{
    if (!(p->ctx_switch_bps > 0))
        return base_s;
    return base_s + (state_out_mb + state_in_mb) * 1e6 / p->ctx_switch_bps;
}
