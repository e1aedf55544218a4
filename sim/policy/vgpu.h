/*
 * vgpu — what the vGPU policy (policy_vgpu.c: parsing and dispatch) shares with its
 * two backings, one file each: vgpu_time.c (vgt_: one time-slicer per GPU over the
 * VMs) and vgpu_mig.c (vgm_: every vGPU a MIG instance, served by the plain unit).
 * A backing builds the units of a GPU (policy/units/unit.h); the policy holds them as
 * {ops, self} and never asks which backing made them. The model is stated in
 * policy_vgpu.c and docs/mps-vgpu.md.
 */
#ifndef SS_VGPU_H
#define SS_VGPU_H

#include "base/jsonv.h"
#include "core/scenario.h"
#include "policy/units/unit.h"

/* Time-sliced schedulers ("scheduler"), in the order of vgt_schedulers: NVIDIA's three
 * (VGPU_UG) and the article's weighted round robin, which NVIDIA does not offer. */
enum { SCH_BEST_EFFORT, SCH_EQUAL_SHARE, SCH_FIXED_SHARE, SCH_HYPOTHETICAL_WEIGHTED };
extern const char *const vgt_schedulers[];

/* One vGPU (a VM) of the "vgpus" layout, the same on every GPU of the pool. */
struct vg_def {
    double fb_gb;
    double weight; /* hypothetical_weighted only */
    int n_ten;
    int *ten;
    const struct mig_profile *mig; /* MIG-backed only */
    const struct vgpu_type *type;  /* time-sliced only: its vGPU type */
    long kv_blocks; /* its LLM tenant's cache in the frame buffer (llm: the VM's one tenant) */
    int llm;        /* the VM is one LLM tenant's (docs/llm.md) */
};

struct vgpu_backing;

struct vgpu_cfg {
    const struct vgpu_backing *backing;
    int n_vm; /* vGPUs per GPU */
    struct vg_def *vm;
    int sched;
    double slice_s, switch_s;
    int *vm_of; /* per tenant */
};

struct vgpu_backing {
    const char *name; /* its value of "backing" */
    /* Strategy keys that mean nothing with this backing, and why (NULL: none). */
    const char *const *refused;
    const char *refused_why;
    /* The backing's own keys of vgpus[v], the object o at path p (fb_gb and weight, or
     * the MIG profile); the policy checked the key names and reads the tenants. */
    int (*parse_vm)(const struct jv *j, const cJSON *o, const char *p, const struct scenario *sc,
                    const struct vgpu_cfg *c, struct vg_def *d);
    /* Layout checks beyond coverage and the frame-buffer sum (NULL: none). */
    int (*check_layout)(const struct jv *j, const char *p, const struct scenario *sc,
                        const struct vgpu_cfg *c);
    /* Units on each GPU, and unit k of a GPU (its events carry ev). */
    int (*units_per_gpu)(const struct vgpu_cfg *c);
    struct unit (*build)(const struct scenario *sc, const struct vgpu_cfg *c, int k,
                         struct unit_addr ev);
    /* Stability (core/stable.h): the fraction of a GPU's time VM v's vGPU serves when it
     * always has work and VM w needs demand[w] of the GPU's time. */
    double (*time_share)(const struct vgpu_cfg *c, int v, const double *demand);
    /* Tenant t's work per second on VM d's vGPU while the vGPU serves it: the hypervisor's
     * speed for its class, or its rate on the MIG instance (the stability estimate's). */
    double (*speed)(const struct scenario *sc, const struct vg_def *d, const struct tenant_cfg *t);
    /* The unit k (on every GPU) serving a tenant, and the tenant's client index there. */
    void (*slot)(const struct vgpu_cfg *c, int tenant, int *k, int *client);
    /* Adds the backing's own figures to the strategy's details (NULL: none); units are
     * every GPU's, GPU-major. */
    void (*details)(const struct vgpu_cfg *c, const struct unit *units, int n, cJSON *d);
};

extern const struct vgpu_backing vgt_backing, vgm_backing;

#endif
