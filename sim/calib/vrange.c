/*
 * vrange — parsing and checking a value's "range" (vrange.h). The check is at load, so that a
 * range that does not hold its own value is an input error with the JSON path, not a silent
 * rerun at a value the profile never meant.
 */
#include "calib/vrange.h"
#include "base/util.h"

#include <math.h>

int vr_parse(const char *path, const char *key, const cJSON *vo, double *lo, double *hi, char *err,
             size_t errlen)
{
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(vo, "range");
    if (!r)
        return 1;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(vo, "value");
    if (!cJSON_IsNumber(v))
        return ss_errf(err, errlen, "%s: \"%s.range\": only a number may have a range", path, key);
    const cJSON *a = cJSON_GetArrayItem(r, 0), *b = cJSON_GetArrayItem(r, 1);
    if (!cJSON_IsArray(r) || cJSON_GetArraySize(r) != 2 || !cJSON_IsNumber(a) ||
        !cJSON_IsNumber(b) || !isfinite(a->valuedouble) || !isfinite(b->valuedouble))
        return ss_errf(err, errlen, "%s: \"%s.range\": expected [lo, hi], two finite numbers", path,
                       key);
    if (!(a->valuedouble <= v->valuedouble && v->valuedouble <= b->valuedouble))
        return ss_errf(err, errlen,
                       "%s: \"%s.range\": expected lo <= value <= hi, got [%g, %g] for the value "
                       "%g",
                       path, key, a->valuedouble, b->valuedouble, v->valuedouble);
    *lo = a->valuedouble;
    *hi = b->valuedouble;
    return 0;
}
