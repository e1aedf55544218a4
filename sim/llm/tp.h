/*
 * tp — tensor parallelism (docs/llm.md#tensor-parallelism): a model served by a group of
 * `tensor_parallel` whole GPUs of one node, Megatron-style. Each GPU holds 1/TP of every linear
 * layer (QKV and gate+up split by columns, O and down by rows, the vocabulary head by rows of
 * the vocabulary), 1/TP of the query heads and 1/TP of the KV heads — one KV head, replicated,
 * where the model has fewer KV heads than GPUs, as vLLM does — and every GPU runs the same
 * step on its shard. Each transformer block joins the shards twice, with an all-reduce of the
 * step's tokens × hidden 16-bit activations after attention's O and after the MLP's down.
 *
 * An all-reduce takes the GPU's measured table for that group size where one exists and the
 * group talks over NVLink (calib/kcurve.h: AIConfigurator's vLLM custom all-reduce); else the
 * ring model of NCCL's performance notes:
 *     latency + bytes × 2 (TP − 1) / TP / bus bandwidth,
 * the bus bandwidth being TP_BUS_EFF of the link's one-way bandwidth per GPU (the profile's
 * interconnect: NVLink within its domain_gpus, the host PCIe link past it). Communication
 * overlaps nothing.
 *
 * Pipeline parallelism is not modelled.
 */
#ifndef SS_LLM_TP_H
#define SS_LLM_TP_H

#include "calib/calib.h"
#include "calib/kcurve.h"
#include "llm/model.h"

#include <stddef.h>

/* tensor_parallel is one of 1, 2, 4, 8: the group sizes of an 8-GPU board, and the sizes the
 * measured all-reduce tables hold. */
#define TP_MAX 8
/* GPUs of one node: a TP group's GPUs must all lie in one block of this many (GPUs
 * [8k, 8k + 7] are node k), as NVLink and the PCIe peer path do not leave the machine. */
#define TP_NODE_GPUS 8
/* Bus bandwidth of a ring all-reduce as a fraction of the link's one-way bandwidth per GPU:
 * AIConfigurator's largest all-reduce (2³⁰ bytes, 2 GPUs) reaches 333 GB/s of the H100's 450
 * (0.74) and 199 of the A100's 300 (0.66). */
#define TP_BUS_EFF 0.70
/* A collective's fixed cost (s): the smallest messages of AIConfigurator's tables take 4.2 to
 * 5.7 µs on the A100, H100 and H200 over NVLink. */
#define TP_NVLINK_LATENCY_S 5e-6
/* Over PCIe (no measured table): NCCL's ring through the host bridge; no public figure was
 * found, so twice the NVLink floor (an assumption, docs/llm.md#tensor-parallelism). */
#define TP_PCIE_LATENCY_S 10e-6

/* How a group's all-reduce is timed. */
struct tp_link {
    int tp;                  /* GPUs in the group (1: none) */
    int nvlink;              /* 1: over NVLink; 0: over the host PCIe link */
    double latency_s;        /* the ring model's fixed cost */
    double bus_bps;          /* its bus bandwidth, bytes/s */
    const struct kc_gpu *kc; /* measured tables (NVLink groups only), or NULL */
};

/* 0 when tp is 1, 2, 4 or 8 and the model splits into tp shards (its query heads, its KV heads
 * or a multiple of them, its MLP widths); else -1 with why in err. */
int tp_check_model(const struct lm_model *m, int tp, char *err, size_t errlen);
/* 0 when the GPU g has a link a group of tp can use; else -1 with why. */
int tp_check_gpu(const struct gpu_profile *g, int tp, char *err, size_t errlen);

/* KV heads each GPU of the group holds: kv_heads / tp, at least 1 (replicated). */
int tp_kv_heads_per_gpu(const struct lm_model *m, int tp);
/* The fraction of the model's KV cache bytes per token one GPU of the group holds: its KV
 * heads over the model's (latent attention caches one latent that every GPU keeps whole). */
double tp_kv_share(const struct lm_model *m, int tp);

/* The link a group of tp GPUs of g uses (an NVLink group when tp <= the profile's
 * domain_gpus; the placement makes sure it lies in one domain). kc: the GPU's tables or NULL. */
void tp_link_init(struct tp_link *l, const struct gpu_link *gl, int tp, const struct kc_gpu *kc);
/* One all-reduce of `elements` 16-bit elements over the group, seconds (0 when tp is 1).
 * *table (may be NULL) is set to 1 when the measured table timed it. */
double tp_allreduce_s(const struct tp_link *l, double elements, int *table);
/* The ring model alone: latency + 2 bytes × elements × 2 (tp − 1) / tp / bus_bps. */
double tp_ring_s(const struct tp_link *l, double elements);

#endif
