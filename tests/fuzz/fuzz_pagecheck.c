/*
 * fuzz_pagecheck — libFuzzer target for the page checker of `sharesim report check`: bytes →
 * svc_check_mem (NUL bytes included, no terminator assumed past the input).
 *
 * Invariants checked on every input (a violation aborts, which libFuzzer reports):
 *  - the checker returns -1 with a reason ("line N…") or hidden + sla_missing with a first
 *    problem exactly when that sum is not 0, and never crashes, hangs or leaks;
 *  - the counts are consistent: hidden ≤ curves, sla_missing ≤ latency panels ≤ panels;
 *  - the work stays within its bound: pairs ≤ SVC_MAX_PAIRS and work ≤ 2 × pairs (what makes
 *    the check's time depend on points, not on the length of segments);
 *  - no control byte reaches a message (the page's text is shown to a terminal);
 *  - the same bytes give the same report (no state kept between pages).
 */
#include "tools/svgcheck.h"
#include "base/util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void no_controls(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* a copy of exactly `size` bytes, so ASan catches a read past the input */
    char *text = ss_xmalloc(size ? size : 1);
    memcpy(text, data, size);
    struct svc_report r, again;
    int rc = svc_check_mem(text, size, &r);
    if (rc == -1) {
        if (strncmp(r.error, "line ", 5) != 0)
            abort();
    } else {
        if (rc < 0 || r.error[0] ||
            rc != r.hidden + r.sla_missing + r.empty + r.offscale + r.overlap + r.palette +
                      r.sla_words + r.llm_request + r.same_panels + r.verdict_late)
            abort();
        if ((rc > 0) != (r.first[0] != '\0'))
            abort();
    }
    if (r.hidden > r.series || r.sla_missing > r.latency_panels || r.latency_panels > r.panels)
        abort();
    if (r.empty > r.panels || r.offscale > r.panels || r.llm_request > r.latency_panels ||
        r.same_panels > r.figures || r.verdict_late > r.figures + 1)
        abort();
    if (r.pairs < 0 || r.work < 0 || r.work > 2 * r.pairs)
        abort();
    if (rc != -1 && r.pairs > SVC_MAX_PAIRS)
        abort();
    no_controls(r.error);
    no_controls(r.first);
    if (svc_check_mem(text, size, &again) != rc || memcmp(&r, &again, sizeof r) != 0)
        abort();
    free(text);
    return 0;
}
