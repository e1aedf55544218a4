/*
 * fuzz_mig — libFuzzer target for the MIG layout parser of `sharesim mig check`
 * ("3g.20gb,1g.5gb@3,…"): bytes → mig_parse_list → mig_check → mig_place, on every
 * shipped GPU profile.
 *
 * Invariants checked on every input (a violation aborts, which libFuzzer reports):
 *  - parse, check and place return 0 or -1 and never crash, hang or leak;
 *  - an error comes with a non-empty reason;
 *  - check and place agree: a list that mig_check accepts can be placed (no pins), and
 *    a placement found respects every instance's legal starts with no shared slice.
 */
#include "calib/calib.h"
#include "mig/mig.h"
#include "base/util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct gpu_profile gpus[4];
static int n_gpus;

static void load_profiles(void)
{
    static const char *const names[] = {"A100-40GB", "A100-80GB", "H100-80GB", "H200-141GB"};
    char err[SS_ERRLEN];
    for (int i = 0; i < 4; i++)
        if (cal_load(names[i], &gpus[n_gpus], err, sizeof err) == 0)
            n_gpus++;
    if (n_gpus == 0)
        abort(); /* run from the repository: kernels/profiles must be found */
}

static void check_placement(const struct gpu_profile *g, const struct mig_layout *l)
{
    int used[8] = {0};
    for (int k = 0; k < l->n; k++) {
        const struct mig_profile *m = &g->mig[l->prof[k]];
        int ok = 0;
        for (int s = 0; s < m->n_starts; s++)
            ok |= m->starts[s] == l->start[k];
        if (!ok)
            abort();
        for (int s = l->start[k]; s < l->start[k] + m->size; s++)
            if (s < 0 || s >= 8 || used[s]++)
                abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (n_gpus == 0)
        load_profiles();
    char *text = ss_xmalloc(size + 1);
    memcpy(text, data, size);
    text[size] = '\0';
    for (int i = 0; i < n_gpus; i++) {
        const struct gpu_profile *g = &gpus[i];
        int *prof = NULL, *start = NULL, n = 0;
        char err[SS_ERRLEN] = "";
        int rc = mig_parse_list(g, text, &prof, &start, &n, err, sizeof err);
        if (rc != 0 && rc != -1)
            abort();
        if (rc == -1) {
            if (!err[0])
                abort();
            continue;
        }
        char why[SS_ERRLEN] = "";
        int legal = mig_check(g, prof, n, why, sizeof why);
        if (legal == -1 && !why[0])
            abort();
        if (n <= MIG_MAX_INST) {
            struct mig_layout l;
            why[0] = '\0';
            int placed = mig_place(g, prof, NULL, n, NULL, &l, why, sizeof why);
            if (placed == 0) {
                if (legal != 0)
                    abort();
                check_placement(g, &l);
            } else if (legal == 0 || !why[0]) {
                abort();
            }
        }
        free(prof);
        free(start);
    }
    free(text);
    return 0;
}
