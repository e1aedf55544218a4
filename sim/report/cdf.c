/* cdf — see cdf.h. */
#include "report/cdf.h"

#include <math.h>

void cdf_write_csv(FILE *fp, const struct scenario *sc, const struct cdf_result *r)
{
    fprintf(fp, "strategy,tenant,p,latency_ms\n");
    for (int k = 0; k < r->n_strategies; k++)
        for (int i = 0; i < r->n_rows; i++) {
            const char *name = i < sc->n_tenants ? sc->tenants[i].name : "(all)";
            for (int p = 0; p < cdf_n_probs(); p++) {
                double q = cdf_quantile(r, k, i, p);
                fprintf(fp, "%s,%s,%.4f,", sc->strategies[k].name, name, cdf_prob(p));
                if (isfinite(q))
                    fprintf(fp, "%.6g", q * 1e3);
                fputc('\n', fp);
            }
        }
}
