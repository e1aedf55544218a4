/*
 * fittext — a fit's result (tools/fit.h) as the text table `sharesim profile fit` prints.
 */
#ifndef SS_FITTEXT_H
#define SS_FITTEXT_H

#include "tools/fit.h"

#include <stdio.h>

/* fitted: the parameters were fitted (else evaluated at their START values). */
void fit_print_report(FILE *fp, const struct fit_ctx *c, int fitted);

#endif
