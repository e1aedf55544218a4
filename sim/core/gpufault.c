/* gpufault — the card-fault stream (see gpufault.h). */
#include "core/gpufault.h"
#include "core/tenant.h"
#include "base/util.h"

static double gap(struct gpufault *f)
{
    return ten_exp(&f->rng, f->mean_gap_s);
}

void gf_start(struct gpufault *f, struct sim *s, uint32_t kind)
{
    const struct scenario *sc = s->sc;
    f->on = 0;
    f->kind = kind;
    f->reset_s = sc->gpu.gpu_reset_s;
    if (!(sc->gpu_fault_rate_per_h > 0))
        return;
    f->mean_gap_s = 3600.0 / sc->gpu_fault_rate_per_h;
    f->on = 1;
    /* A stream of its own: not a tenant's (their salts are 0x1000 + index). */
    rng_seed(&f->rng, ten_mix(ten_mix(sc->seed) ^ ten_mix(0xca4dfa17u) ^
                              ten_mix(0x7e9u * ((uint64_t)s->rep + 1))));
    for (int g = 0; g < sc->gpus; g++)
        eng_schedule(s, gap(f), kind, (uint32_t)g, 0, 0);
}

int gf_fault(struct gpufault *f, struct sim *s, int g)
{
    if (!f->on || s->arrivals_done)
        return 0;
    eng_schedule(s, s->now + gap(f), f->kind, (uint32_t)g, 0, 0);
    return 1;
}

void gf_free(struct gpufault *f)
{
    f->on = 0;
}
