/* testutil — see testutil.h. */
#include "testutil.h"

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
