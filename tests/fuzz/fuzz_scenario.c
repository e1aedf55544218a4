/*
 * fuzz_scenario — libFuzzer target for the scenario loader: bytes → scn_load_text → scn_free.
 *
 * Invariants checked on every input (a violation aborts, which libFuzzer reports as a crash):
 *  - the loader returns 0 or -1, never crashes, hangs or leaks (ASan/UBSan/LeakSanitizer);
 *  - on -1 the message is non-empty and names the file (every input error must say where);
 *  - on 0 the scenario is complete: at least one tenant and one strategy, gpus >= 1, and a
 *    stop condition — what `run` relies on without checking again; and the clock's bounds
 *    (scn_check_clock) and the limit on requests in the system hold;
 *  - a scenario that loads also runs, one replication of every strategy, bounded to a few
 *    thousand events (eng_event_budget; this build checks progress every 2^8 events): the run
 *    returns 0 or -1 with a message naming the file (a halt, the budget, a trace that is not
 *    there), never aborts on an internal assertion, and on 0 conserves requests: every tenant's
 *    arrivals are completed, rejected, failed or still in flight.
 * The GPU profiles come from kernels/profiles (found upwards from the binary, as for the CLI).
 */
#include "core/engine.h"
#include "core/run.h"
#include "core/scenario.h"
#include "base/util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_EVENT_BUDGET 4096

/* Runs what loaded; aborts on a broken invariant. */
static void run_loaded(const struct scenario *sc)
{
    eng_event_budget = FUZZ_EVENT_BUDGET;
    struct run_opts o = {1, -1, 0, 0};
    struct run_result r;
    char err[SS_ERRLEN] = "";
    int rc = run_scenario(sc, &o, &r, err, sizeof err);
    if (rc != 0 && rc != -1)
        abort();
    if (rc == -1) {
        if (!err[0] || !strstr(err, "fuzz.json"))
            abort();
        return;
    }
    for (int k = 0; k < r.n; k++)
        for (int i = 0; i < sc->n_tenants; i++) {
            const double *t = res_t(&r.s[k], i);
            if (t[TM_ARRIVED] != t[TM_COMPLETED] + t[TM_REJECTED] + t[TM_FAILED] + t[TM_IN_FLIGHT])
                abort();
        }
    run_result_free(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* scn_load_text wants text[len] == '\0' (as ss_read_file gives it). */
    char *text = ss_xmalloc(size + 1);
    memcpy(text, data, size);
    text[size] = '\0';
    struct scenario sc;
    char err[SS_ERRLEN] = "";
    int rc = scn_load_text("fuzz.json", text, size, &sc, err, sizeof err);
    if (rc != 0 && rc != -1)
        abort();
    if (rc == -1 && (!err[0] || !strstr(err, "fuzz.json")))
        abort();
    if (rc == 0 && (sc.n_tenants < 1 || sc.n_strategies < 1 || sc.gpus < 1 ||
                    (sc.stop_requests <= 0 && !(sc.stop_duration_s > 0))))
        abort();
    /* what the engine relies on to end: the clock's bounds hold, the request limit is set */
    if (rc == 0 && (scn_check_clock(&sc, 1.0, NULL, 0) != 0 || sc.max_in_system < 1))
        abort();
    if (rc == 0)
        run_loaded(&sc);
    scn_free(&sc);
    free(text);
    return 0;
}
