/* testutil — see testutil.h. */
#include "testutil.h"

#include "llm/model.h"
#include "core/run.h"
#include "core/scenario.h"
#include "core/tenant.h"
#include "calib/calib.h"
#include "mig/mig.h"
#include "base/util.h"

#include <cJSON.h>
#include <dirent.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

void tu_add_suite(const char *name, const struct tu_test *tests)
{
    CU_pSuite s = CU_add_suite(name, NULL, NULL);
    if (!s) {
        fprintf(stderr, "cannot add suite %s\n", name);
        exit(2);
    }
    for (; tests->name; tests++)
        CU_add_test(s, tests->name, tests->fn);
}

static char tmpdir[256];

static void rm_tmpdir(void)
{
    if (tmpdir[0]) {
        char cmd[300];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
        if (system(cmd) != 0)
            fprintf(stderr, "could not remove %s\n", tmpdir);
    }
}

const char *tu_tmpdir(void)
{
    if (!tmpdir[0]) {
        snprintf(tmpdir, sizeof tmpdir, "/tmp/sharesim-test.XXXXXX");
        if (!mkdtemp(tmpdir)) {
            perror("mkdtemp");
            exit(2);
        }
        atexit(rm_tmpdir);
    }
    return tmpdir;
}

char *tu_write(const char *name, const char *text)
{
    static char paths[16][512];
    static int slot;
    char *p = paths[slot++ % 16];
    snprintf(p, 512, "%s/%s", tu_tmpdir(), name);
    FILE *fp = fopen(p, "wb");
    if (!fp) {
        perror(p);
        exit(2);
    }
    fputs(text, fp);
    fclose(fp);
    return p;
}

static void slurp_into(const char *path, char *buf, size_t cap)
{
    if (!buf)
        return;
    buf[0] = '\0';
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return;
    size_t n = fread(buf, 1, cap - 1, fp);
    buf[n] = '\0';
    fclose(fp);
}

int tu_cli(const char *args, char *out, size_t outcap, char *errbuf, size_t errcap)
{
    const char *bin = getenv("SHARESIM");
    if (!bin)
        bin = "build/sharesim";
    char o[600], e[600];
    snprintf(o, sizeof o, "%s/cli.out", tu_tmpdir());
    snprintf(e, sizeof e, "%s/cli.err", tu_tmpdir());
    size_t n = strlen(bin) + strlen(args) + 2 * sizeof o + 32;
    char *cmd = malloc(n);
    snprintf(cmd, n, "%s %s >'%s' 2>'%s'", bin, args, o, e);
    int st = system(cmd);
    free(cmd);
    slurp_into(o, out, outcap);
    slurp_into(e, errbuf, errcap);
    if (st == -1 || !WIFEXITED(st))
        return -1;
    return WEXITSTATUS(st);
}

void tu_expect_outputs_refused(const char *args, const char *name, ...)
{
    char path[600], cmd[8192], out[4096], err[4096];
    snprintf(path, sizeof path, "%s/%s", tu_tmpdir(), name ? name : "");
    if (name)
        tu_write(name, "old\n");
    size_t used = 0;
    for (const char *s = args; *s && used + 1 < sizeof cmd;) {
        if (name && strncmp(s, "@X", 2) == 0) {
            used += (size_t)snprintf(cmd + used, sizeof cmd - used, "'%s'", path);
            s += 2;
        } else {
            cmd[used++] = *s++;
        }
    }
    cmd[used < sizeof cmd ? used : sizeof cmd - 1] = '\0';
    int rc = tu_cli(cmd, out, sizeof out, err, sizeof err);
    if (rc != 2)
        fprintf(stderr, "\n  sharesim %s: exit %d, expected 2\n%s", cmd, rc, err);
    CU_ASSERT_EQUAL(rc, 2);
    if (out[0])
        fprintf(stderr, "\n  sharesim %s: wrote on stdout: %.200s\n", cmd, out);
    CU_ASSERT_STRING_EQUAL(out, "");
    va_list ap;
    va_start(ap, name);
    for (const char *part; (part = va_arg(ap, const char *));)
        TU_CHECK_CONTAINS(err, part);
    va_end(ap);
    if (name) {
        char *now = tu_slurp(path);
        CU_ASSERT_PTR_NOT_NULL(now);
        CU_ASSERT(now && strcmp(now, "old\n") == 0);
        free(now);
    }
}

cJSON *tu_cli_json(const char *args)
{
    size_t n = strlen(args) + 32;
    char *cmd = malloc(n), err[4096], path[600];
    snprintf(cmd, n, "%s --json -", args);
    int rc = tu_cli(cmd, NULL, 0, err, sizeof err);
    snprintf(path, sizeof path, "%s/cli.out", tu_tmpdir());
    char *text = rc == 0 ? tu_slurp(path) : NULL;
    cJSON *doc = text ? cJSON_Parse(text) : NULL;
    if (!doc)
        fprintf(stderr, "\n  sharesim %s: exit %d, %s\n%s\n", cmd, rc,
                text ? "not JSON" : "no output", err);
    free(text);
    free(cmd);
    CU_ASSERT_PTR_NOT_NULL(doc);
    return doc;
}

double tu_json_num(const cJSON *doc, const char *path)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", path);
    const cJSON *o = doc;
    for (char *k = strtok(buf, "."); k && o; k = strtok(NULL, "."))
        o = k[0] >= '0' && k[0] <= '9' ? cJSON_GetArrayItem(o, atoi(k))
                                       : cJSON_GetObjectItemCaseSensitive(o, k);
    if (cJSON_IsRaw(o))
        return strtod(o->valuestring, NULL);
    return cJSON_IsNumber(o) ? o->valuedouble : NAN;
}

int tu_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

char *tu_slurp(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    size_t got = fread(b, 1, (size_t)n, fp);
    b[got] = '\0';
    fclose(fp);
    return b;
}

const char *tu_root(void)
{
    return ".";
}

int tu_under_valgrind(void)
{
    const char *s = getenv("SHARESIM_UNDER_VALGRIND");
    return s && *s == '1';
}

int tu_sanitized(void)
{
    const char *s = getenv("SHARESIM_SANITIZED");
    return s && *s == '1';
}

/* ---- scenarios ---- */

/* An assertion reported at the caller's line with msg in its condition (CUnit copies the
 * string into its failure list and prints it); fatal ends the test there, as
 * CU_ASSERT_EQUAL_FATAL did in the helpers this replaces. */
static void assert_at(int ok, const char *file, int line, const char *what, const char *msg,
                      int fatal)
{
    char cond[2 * SS_ERRLEN + 256]; /* what and msg are each at most SS_ERRLEN + 64 */
    snprintf(cond, sizeof cond, "%s: %s", what, msg);
    CU_assertImplementation(ok ? CU_TRUE : CU_FALSE, (unsigned)line, cond, file, "",
                            fatal ? CU_TRUE : CU_FALSE);
}

void tu_load_text_at(const char *file, int line, const char *text, struct scenario *sc)
{
    char err[SS_ERRLEN] = "";
    memset(sc, 0, sizeof *sc);
    int rc = scn_load_text("inline.json", text, strlen(text), sc, err, sizeof err);
    assert_at(rc == 0, file, line, "scenario does not load", err, 1);
}

void tu_load_file_at(const char *file, int line, const char *path, struct scenario *sc)
{
    char err[SS_ERRLEN] = "";
    memset(sc, 0, sizeof *sc);
    int rc = scn_load(path, sc, err, sizeof err);
    assert_at(rc == 0, file, line, "scenario does not load", err, 1);
}

static void run(const char *file, int line, const struct scenario *sc, struct run_result *res)
{
    struct run_opts o = {0, -1, 0, 0};
    char err[SS_ERRLEN] = "";
    int rc = run_scenario(sc, &o, res, err, sizeof err);
    assert_at(rc == 0, file, line, "scenario does not run", err, 1);
}

void tu_run_text_at(const char *file, int line, const char *text, struct scenario *sc,
                    struct run_result *res)
{
    tu_load_text_at(file, line, text, sc);
    run(file, line, sc, res);
}

void tu_run_file_at(const char *file, int line, const char *path, struct scenario *sc,
                    struct run_result *res)
{
    tu_load_file_at(file, line, path, sc);
    run(file, line, sc, res);
}

void tu_expect_load_error_at(const char *file, int line, const char *text, const char *part)
{
    struct scenario sc;
    char err[SS_ERRLEN] = "";
    memset(&sc, 0, sizeof sc);
    int rc = scn_load_text("inline.json", text, strlen(text), &sc, err, sizeof err);
    scn_free(&sc); /* also after a failed load: it frees what was parsed so far */
    assert_at(rc == -1, file, line, "scenario loads, expected an error", part, 0);
    char want[SS_ERRLEN + 64];
    snprintf(want, sizeof want, "\"%s\" not in the message", part);
    assert_at(rc == -1 && strstr(err, part) != NULL, file, line, want, err, 0);
}

/* ---- fixtures ---- */

static char *fixture_vpatch(const char *file, int line, const char *rel, const char *patch,
                            va_list ap);

void tu_run_fixture_at(const char *file, int line, struct scenario *sc, struct run_result *res,
                       const char *rel, const char *patch, ...)
{
    va_list ap;
    va_start(ap, patch);
    char *text = fixture_vpatch(file, line, rel, patch, ap);
    va_end(ap);
    tu_load_text_at(file, line, text, sc);
    run(file, line, sc, res);
    free(text);
}

void tu_expect_fixture_error_at(const char *file, int line, const char *part, const char *rel,
                                const char *patch, ...)
{
    va_list ap;
    va_start(ap, patch);
    char *text = fixture_vpatch(file, line, rel, patch, ap);
    va_end(ap);
    tu_expect_load_error_at(file, line, text, part);
    free(text);
}

void tu_expect_run_error_at(const char *file, int line, const char *path, const char *part)
{
    char args[1100], err[SS_ERRLEN];
    snprintf(args, sizeof args, "run '%s'", path);
    int rc = tu_cli(args, NULL, 0, err, sizeof err);
    char what[64];
    snprintf(what, sizeof what, "`sharesim run` exits %d, expected 2", rc);
    assert_at(rc == 2, file, line, what, path, 0);
    assert_at(strstr(err, path) != NULL, file, line, "the message does not name the file", err, 0);
    if (part) {
        char want[SS_ERRLEN + 64];
        snprintf(want, sizeof want, "\"%s\" not in the message", part);
        assert_at(strstr(err, part) != NULL, file, line, want, err, 0);
    }
}

const char *tu_fixture(const char *rel)
{
    static char paths[16][512];
    static int slot;
    char *p = paths[slot++ % 16];
    snprintf(p, 512, "%s/tests/fixtures/%s", tu_root(), rel);
    return p;
}

/* Sets doc at the dotted path to v (taking it); 0, or -1 when the path does not exist. */
static int set_path(cJSON *doc, const char *path, cJSON *v)
{
    char *buf = ss_xstrdup(path), *step = buf, *dot;
    cJSON *at = doc;
    int rc = -1;
    for (;; step = dot + 1) {
        dot = strchr(step, '.');
        if (dot)
            *dot = '\0';
        char *end;
        long i = strtol(step, &end, 10);
        int index = *step && !*end;
        if (!dot) {
            if (cJSON_IsArray(at) && index && i >= 0 && i < cJSON_GetArraySize(at))
                rc = cJSON_ReplaceItemInArray(at, (int)i, v) ? 0 : -1;
            else if (cJSON_IsObject(at) && cJSON_GetObjectItemCaseSensitive(at, step))
                rc = cJSON_ReplaceItemInObjectCaseSensitive(at, step, v) ? 0 : -1;
            else if (cJSON_IsObject(at))
                rc = cJSON_AddItemToObject(at, step, v) ? 0 : -1;
            break;
        }
        at = cJSON_IsArray(at) && index ? cJSON_GetArrayItem(at, (int)i)
                                        : cJSON_GetObjectItemCaseSensitive(at, step);
        if (!at)
            break;
    }
    free(buf);
    if (rc)
        cJSON_Delete(v);
    return rc;
}

/* A failure at the caller's line (fatal); nothing is counted when ok: fixtures are the
 * test's input, not one of its checks. */
static void need_at(int ok, const char *file, int line, const char *what, const char *msg)
{
    if (!ok)
        assert_at(0, file, line, what, msg, 1);
}

static char *fixture_vpatch(const char *file, int line, const char *rel, const char *patch,
                            va_list ap)
{
    const char *path = tu_fixture(rel);
    char *text = tu_slurp(path);
    need_at(text != NULL, file, line, "cannot read the fixture", path);
    if (!patch)
        return text;
    va_list aq;
    va_copy(aq, ap);
    int n = vsnprintf(NULL, 0, patch, aq);
    va_end(aq);
    char *p = ss_xmalloc((size_t)n + 1);
    vsnprintf(p, (size_t)n + 1, patch, ap);
    cJSON *doc = cJSON_Parse(text), *set = cJSON_Parse(p);
    free(text);
    need_at(doc != NULL, file, line, "the fixture is not JSON", path);
    need_at(cJSON_IsObject(set), file, line, "the patch is not a JSON object", p);
    for (cJSON *kv = set->child; kv; kv = kv->next) {
        cJSON *v = cJSON_Duplicate(kv, 1);
        cJSON_free(v->string); /* the path; an object member gets its key from set_path */
        v->string = NULL;
        need_at(set_path(doc, kv->string, v) == 0, file, line, "no such path in the fixture",
                kv->string);
    }
    free(p);
    cJSON_Delete(set);
    text = cJSON_PrintUnformatted(doc);
    cJSON_Delete(doc);
    return text;
}

char *tu_fixture_patch_at(const char *file, int line, const char *rel, const char *patch, ...)
{
    va_list ap;
    va_start(ap, patch);
    char *text = fixture_vpatch(file, line, rel, patch, ap);
    va_end(ap);
    return text;
}

char *tu_fixture_write_at(const char *file, int line, const char *name, const char *rel,
                          const char *patch, ...)
{
    va_list ap;
    va_start(ap, patch);
    char *text = fixture_vpatch(file, line, rel, patch, ap);
    va_end(ap);
    char *path = tu_write(name, text);
    free(text);
    return path;
}

/* ---- files ---- */

int tu_starts(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

int tu_dir_has(const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int hit = 0;
    struct dirent *de;
    while ((de = readdir(d)))
        if (tu_starts(de->d_name, prefix))
            hit = 1;
    closedir(d);
    return hit;
}

char *tu_slurp_in_at(const char *file, int line, const char *dir, const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *text = tu_slurp(path);
    assert_at(text != NULL, file, line, "cannot read", path, 1);
    return text;
}

/* ---- shared scenario texts ---- */

char *tu_one_tenant(const char *file, const char *arrival, const char *work, const char *extra)
{
    char text[4096];
    snprintf(text, sizeof text,
             "{\"name\": \"replay\", \"gpu\": \"A100-80GB\", %s"
             " \"tenants\": [{\"name\": \"a\", \"arrival\": %s, \"work\": %s}],"
             " \"strategies\": [{\"name\": \"x\", \"kind\": \"exclusive\"}]}",
             extra, arrival, work);
    return tu_write(file, text);
}

void tu_tenant_cfg(struct tenant_cfg *c, int arrival_kind, double rate_per_s)
{
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "synthetic");
    c->arrival.kind = (enum arr_kind)arrival_kind;
    c->arrival.rate_per_s = rate_per_s;
    c->work.kind = WORK_DETERMINISTIC;
    c->work.mean_s = 1e-3;
}

/* ---- GPU profiles and MIG layouts ---- */

void tu_gpu_at(const char *file, int line, const char *name, struct gpu_profile *g)
{
    char err[SS_ERRLEN] = "";
    int rc = cal_load(name, g, err, sizeof err);
    assert_at(rc == 0, file, line, "GPU profile does not load", err, 1);
}

int tu_mig_list_at(const char *file, int line, const struct gpu_profile *g, const char *text,
                   int *prof)
{
    int *p = NULL, n = 0;
    char err[SS_ERRLEN] = "";
    int rc = mig_parse_list(g, text, &p, NULL, &n, err, sizeof err);
    assert_at(rc == 0, file, line, "layout does not parse", err, 1);
    assert_at(n <= 64, file, line, "layout has more than 64 instances", text, 1);
    memcpy(prof, p, sizeof *p * (size_t)n);
    free(p);
    return n;
}

int tu_mig_placed_at(const char *file, int line, const struct gpu_profile *g, const char *text,
                     struct mig_layout *l, char *why)
{
    int *prof = NULL, *pin = NULL, n = 0;
    char err[SS_ERRLEN] = "";
    int rc = mig_parse_list(g, text, &prof, &pin, &n, err, sizeof err);
    assert_at(rc == 0, file, line, "layout does not parse", err, 1);
    rc = mig_place(g, prof, pin, n, NULL, l, why, SS_ERRLEN);
    free(prof);
    free(pin);
    return rc;
}

/* ---- YAML read back (libyaml's parser) --------------------------------------------- */

#include <yaml.h>

/* YAML 1.1's core resolution of a plain scalar, for the cases the artefacts hold. */
static cJSON *yaml_plain(const char *s)
{
    static const char *const t[] = {"true", "True", "TRUE", "yes", "Yes", "on", "On", NULL};
    static const char *const f[] = {"false", "False", "FALSE", "no", "No", "off", "Off", NULL};
    for (int i = 0; t[i]; i++)
        if (strcmp(s, t[i]) == 0)
            return cJSON_CreateTrue();
    for (int i = 0; f[i]; i++)
        if (strcmp(s, f[i]) == 0)
            return cJSON_CreateFalse();
    if (!s[0] || strcmp(s, "~") == 0 || strcmp(s, "null") == 0)
        return cJSON_CreateNull();
    char *end;
    double v = strtod(s, &end);
    if (end != s && !*end)
        return cJSON_CreateNumber(v);
    return cJSON_CreateString(s);
}

/* The node that starts with event ev (already parsed); NULL on a parse error. */
static cJSON *yaml_node(yaml_parser_t *p, yaml_event_t *ev)
{
    if (ev->type == YAML_SCALAR_EVENT) {
        const char *v = (const char *)ev->data.scalar.value;
        return ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE ? yaml_plain(v)
                                                                : cJSON_CreateString(v);
    }
    int map = ev->type == YAML_MAPPING_START_EVENT;
    if (!map && ev->type != YAML_SEQUENCE_START_EVENT)
        return NULL;
    cJSON *o = map ? cJSON_CreateObject() : cJSON_CreateArray();
    for (;;) {
        yaml_event_t k;
        if (!yaml_parser_parse(p, &k))
            break;
        if (k.type == YAML_MAPPING_END_EVENT || k.type == YAML_SEQUENCE_END_EVENT) {
            yaml_event_delete(&k);
            return o;
        }
        if (!map) {
            cJSON *item = yaml_node(p, &k);
            yaml_event_delete(&k);
            if (!item)
                break;
            cJSON_AddItemToArray(o, item);
            continue;
        }
        char *key = k.type == YAML_SCALAR_EVENT ? strdup((const char *)k.data.scalar.value) : NULL;
        yaml_event_delete(&k);
        yaml_event_t v;
        if (!key || !yaml_parser_parse(p, &v)) {
            free(key);
            break;
        }
        cJSON *val = yaml_node(p, &v);
        yaml_event_delete(&v);
        if (!val) {
            free(key);
            break;
        }
        cJSON_AddItemToObject(o, key, val);
        free(key);
    }
    cJSON_Delete(o);
    return NULL;
}

cJSON *tu_yaml_at(const char *file, int line, const char *path, const char *text)
{
    char *own = path ? tu_slurp(path) : NULL;
    const char *src = path ? own : text;
    if (!src) {
        fprintf(stderr, "\n  %s:%d: %s: cannot be read\n", file, line, path);
        CU_ASSERT_FATAL(0);
    }
    yaml_parser_t p;
    yaml_parser_initialize(&p);
    yaml_parser_set_input_string(&p, (const unsigned char *)src, strlen(src));
    cJSON *docs = cJSON_CreateArray();
    int ok = 1;
    for (int done = 0; ok && !done;) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&p, &ev)) {
            ok = 0;
            break;
        }
        done = ev.type == YAML_STREAM_END_EVENT;
        if (ev.type == YAML_DOCUMENT_START_EVENT) {
            yaml_event_t root;
            ok = yaml_parser_parse(&p, &root);
            cJSON *node = ok ? yaml_node(&p, &root) : NULL;
            if (ok)
                yaml_event_delete(&root);
            ok = node != NULL;
            if (node)
                cJSON_AddItemToArray(docs, node);
        }
        yaml_event_delete(&ev);
    }
    if (!ok)
        fprintf(stderr, "\n  %s:%d: %s: YAML does not parse: %s at line %zu column %zu\n", file,
                line, path ? path : "(text)", p.problem ? p.problem : "?", p.problem_mark.line + 1,
                p.problem_mark.column + 1);
    yaml_parser_delete(&p);
    free(own);
    CU_ASSERT_FATAL(ok);
    return docs;
}

void tu_model(const char *name, struct lm_model *m)
{
    char err[1024];
    int rc = lm_find(NULL, name, m, err, sizeof err);
    if (rc)
        fprintf(stderr, "\n%s\n", err);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
}
