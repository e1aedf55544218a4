/*
 * llmmem — the memory a shared GPU gives its LLM tenants (docs/llm.md#serving-under-the-
 * strategies), for the strategies whose tenants share one GPU's memory without partitions:
 * MPS and time-slicing. Neither isolates memory, and an engine allocates its weights and KV
 * cache once, at its start (vLLM preallocates), so an LLM tenant's memory is resident for the
 * whole run, as a plain tenant's memory_gb is:
 *   - with a limit (MPS: the client's pinned-memory limit, CUDA_MPS_PINNED_DEVICE_MEM_LIMIT),
 *     the limit;
 *   - otherwise what is free on its GPU — its memory less the plain tenants' memory_gb and the
 *     other LLM tenants' limits — split equally among the GPU's LLM tenants without one.
 * The engine's KV cache is then that memory × gpu_memory_utilization − weights − the activation
 * reserve (llm/serving.h); weights that do not fit, or limits that add up to more than the
 * GPU, are load errors naming the numbers.
 */
#ifndef SS_LLMMEM_H
#define SS_LLMMEM_H

#include "base/jsonv.h"
#include "core/scenario.h"
#include "policy/assign.h"

/*
 * Every LLM tenant i of sc on GPU gpu_of[i]: into mem_gb[i] the memory it gets and into
 * kv_blocks[i] its cache (both untouched for plain tenants); limit_gb[i] >= 0 is tenant i's
 * limit (NULL or < 0: none). who names the tenants in messages ("MPS clients"). 0, or -1 with
 * the message at path in j (j NULL: aborts, as parse() should have refused it).
 */
int llmm_shared(const struct jv *j, const char *path, const struct scenario *sc, const int *gpu_of,
                const double *limit_gb, const char *who, double *mem_gb, long *kv_blocks);

/* As llmm_shared over placements (assign.h: an LLM tenant spread over several GPUs has one on
 * each): mem_gb and kv_blocks are per placement; limit_gb stays per tenant (a limit applies to
 * each of its clients). */
int llmm_placed(const struct jv *j, const char *path, const struct scenario *sc,
                const struct asg_place *pl, const double *limit_gb, const char *who, double *mem_gb,
                long *kv_blocks);

#endif
