/*
 * The CUDA programs (kernels/: tslice, partition, concurrency, fidelity) on a machine
 * without a GPU: each starts and exits 3 saying so.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

/*
 * The microbenchmarks' contract on a machine without a GPU: each one starts (cudart is
 * linked statically, libcuda looked up at run time) and exits 3 saying no CUDA GPU was
 * found. Runs only where they were built (nvcc present) and no NVIDIA driver is loaded;
 * on a GPU machine they would measure, which is scripts/calibrate's job, not a unit test's.
 */
static void test_kernels_exit_3_without_gpu(void)
{
    const char *progs[] = {"tslice", "partition", "concurrency", "fidelity"};
    if (tu_exists("/proc/driver/nvidia/version"))
        return;
    for (size_t i = 0; i < sizeof progs / sizeof *progs; i++) {
        char bin[256], cmd[1024];
        snprintf(bin, sizeof bin, "build/kernels/%s", progs[i]);
        if (!tu_exists(bin))
            continue;
        snprintf(cmd, sizeof cmd, "%s --out %s/k.json >/dev/null 2>%s/k.err", bin, tu_tmpdir(),
                 tu_tmpdir());
        int st = system(cmd);
        CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 3);
        snprintf(cmd, sizeof cmd, "%s/k.err", tu_tmpdir());
        char *msg = tu_slurp(cmd), want[64];
        snprintf(want, sizeof want, "%s: no CUDA GPU found (", progs[i]);
        CU_ASSERT_PTR_NOT_NULL(msg && strstr(msg, want));
        free(msg);
        snprintf(cmd, sizeof cmd, "%s/k.json", tu_tmpdir());
        CU_ASSERT_FALSE(tu_exists(cmd));
        snprintf(cmd, sizeof cmd, "%s/k.csv", tu_tmpdir()); /* fidelity's latencies */
        CU_ASSERT_FALSE(tu_exists(cmd));
    }
}

void test_kernels_register(void)
{
    static const struct tu_test t[] = {
        {"no GPU: every program exits 3 with a message", test_kernels_exit_3_without_gpu},
        {NULL, NULL},
    };
    tu_add_suite("kernels", t);
}
