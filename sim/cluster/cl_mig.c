/*
 * cl_mig — MIG clusters (cl_mig.h).
 */
#include "cluster/cl_mig.h"
#include "base/util.h"
#include "base/jsonv.h"
#include "cluster/cl_scenario.h"

int cl_mig_run(const struct cl_cluster *c, const struct cl_workload *w, const struct cl_typical *tp,
               const struct cl_run_cfg *cfg, struct cl_result *out, char *err, size_t errlen)
{
    (void)c;
    (void)w;
    (void)tp;
    (void)cfg;
    (void)out;
    return ss_errf(err, errlen, "MIG clusters are not implemented yet");
}

int cl_mig_parse(const struct jv *j, const struct cJSON *obj, const char *path,
                 struct cl_scenario *s)
{
    (void)obj;
    (void)s;
    return jv_fail(j, path, "MIG clusters are not implemented yet");
}

int cl_mig_bind_pods(struct cl_migcfg *m, const struct cl_cluster *c, struct cl_workload *w,
                     char *err, size_t errlen)
{
    (void)m;
    (void)c;
    (void)w;
    return ss_errf(err, errlen, "MIG clusters are not implemented yet");
}
