/*
 * policy — the registry of sharing strategies. Adding a strategy is adding its
 * policy_<kind>.c file and one line here.
 */
#include "core/policy.h"

#include <stdio.h>
#include <string.h>

static const struct policy_ops *const registry[] = {
    &policy_exclusive, &policy_timeslice,  &policy_mig, &policy_mps,
    &policy_vgpu,      &policy_fractional, NULL,
};

int policy_count(void)
{
    return (int)(sizeof registry / sizeof registry[0]) - 1;
}

const struct policy_ops *policy_at(int i)
{
    return i >= 0 && i < policy_count() ? registry[i] : NULL;
}

int policy_is_baseline(const struct policy_ops *ops)
{
    return ops && ops->hooks && ops->hooks->is_baseline;
}

const struct policy_ops *policy_baseline(void)
{
    for (int i = 0; registry[i]; i++)
        if (policy_is_baseline(registry[i]))
            return registry[i];
    return NULL;
}

const struct policy_ops *policy_find(const char *kind)
{
    for (int i = 0; registry[i]; i++)
        if (strcmp(registry[i]->kind, kind) == 0)
            return registry[i];
    return NULL;
}

const char *policy_kinds(void)
{
    static char buf[256];
    if (!buf[0])
        for (int i = 0; registry[i]; i++) {
            size_t l = strlen(buf);
            snprintf(buf + l, sizeof buf - l, "%s\"%s\"", i ? ", " : "", registry[i]->kind);
        }
    return buf;
}

const char *policy_llm_kinds(void)
{
    static char buf[256];
    if (!buf[0])
        for (int i = 0, n = 0; registry[i]; i++) {
            if (!registry[i]->serves_llm)
                continue;
            size_t l = strlen(buf);
            snprintf(buf + l, sizeof buf - l, "%s\"%s\"", n++ ? ", " : "", registry[i]->kind);
        }
    return buf;
}
