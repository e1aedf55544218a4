/*
 * cliopt — a command's options as one table (cli.h's struct cli_opt): getopt_long's long and
 * short arrays are built from it, and each value is checked and stored as the row says, so a
 * command lists an option once instead of in an array, a switch and a bound check.
 */
#include "cli/cli.h"
#include "tools/shard.h"
#include "base/util.h"

#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* More options than any command has; a longer table is a programming error. */
#define CLI_MAX_OPTS 40

static void show_usage(const struct cli_spec *sp, FILE *fp)
{
    if (sp->usage)
        sp->usage(fp);
    else
        fputs(sp->help, fp);
}

static int takes_value(enum cli_kind k)
{
    return k != CLI_FLAG && k != CLI_UNSET && k != CLI_HELP;
}

static long long_bound(double b)
{
    return isinf(b) ? (b > 0 ? LONG_MAX : LONG_MIN) : (long)b;
}

/* Stores one option's value; -1 after printing the message (SS_EXIT_BADINPUT follows). */
static int store(const struct cli_spec *sp, const struct cli_opt *o, const char *arg)
{
    char opt[64];
    snprintf(opt, sizeof opt, "--%s", o->name);
    long v;
    switch (o->kind) {
    case CLI_FLAG:
        *(int *)o->target = 1;
        return 0;
    case CLI_UNSET:
        *(int *)o->target = 0;
        return 0;
    case CLI_STR:
        *(const char **)o->target = arg;
        return 0;
    case CLI_LONG:
        return cli_opt_long(sp->cmd, opt, arg, long_bound(o->lo), long_bound(o->hi),
                            (long *)o->target);
    case CLI_INT:
        if (cli_opt_long(sp->cmd, opt, arg, long_bound(o->lo), long_bound(o->hi), &v))
            return -1;
        *(int *)o->target = (int)v;
        return 0;
    case CLI_DOUBLE:
        return cli_opt_double(sp->cmd, opt, arg, o->lo_kind, o->lo, o->hi, (double *)o->target);
    case CLI_CALL:
        return o->call(sp->cmd, o->target, arg) ? -1 : 0;
    case CLI_HELP:
        break;
    }
    return 0;
}

int cli_parse_opts(const struct cli_spec *sp, int argc, char **argv)
{
    struct option lo[CLI_MAX_OPTS + 1];
    char shorts[1 + 2 * CLI_MAX_OPTS + 1];
    size_t k = 0;
    int n = 0;
    if (sp->own_errors)
        shorts[k++] = ':';
    for (const struct cli_opt *o = sp->opts; o->name; o++, n++) {
        if (n == CLI_MAX_OPTS)
            SS_FATAL("%s: more than %d options", sp->cmd, CLI_MAX_OPTS);
        int has = takes_value(o->kind) ? required_argument : no_argument;
        lo[n] = (struct option){o->name, has, NULL, 256 + n};
        if (o->short_name) {
            shorts[k++] = (char)o->short_name;
            if (has)
                shorts[k++] = ':';
        }
    }
    lo[n] = (struct option){0};
    shorts[k] = '\0';
    if (sp->given)
        *sp->given = 0;
    optind = 1;
    opterr = !sp->own_errors;
    int c;
    while ((c = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
        const struct cli_opt *o = NULL;
        for (int i = 0; i < n && !o; i++)
            if (c == 256 + i || (c == sp->opts[i].short_name && c != '?' && c != ':'))
                o = &sp->opts[i];
        if (!o) {
            /* getopt_long has said what is wrong, unless the command words it itself */
            if (sp->own_errors && c == ':')
                fprintf(stderr, "%s: option %s needs a value\n\n", sp->cmd, argv[optind - 1]);
            else if (sp->own_errors)
                fprintf(stderr, "%s: unknown option %s\n\n", sp->cmd, argv[optind - 1]);
            show_usage(sp, stderr);
            return SS_EXIT_BADINPUT;
        }
        if (sp->given)
            *sp->given |= 1UL << (o - sp->opts);
        if (o->kind == CLI_HELP) {
            show_usage(sp, stdout);
            return SS_EXIT_OK;
        }
        if (store(sp, o, optarg))
            return SS_EXIT_BADINPUT;
    }
    int npos = argc - optind;
    if (npos < sp->min_args || (sp->max_args >= 0 && npos > sp->max_args)) {
        show_usage(sp, stderr);
        return SS_EXIT_BADINPUT;
    }
    return CLI_CONTINUE;
}

int cli_opt_shard(const char *cmd, void *target, const char *arg)
{
    char err[SS_ERRLEN];
    if (shard_parse(arg, target, err, sizeof err) == 0)
        return 0;
    fprintf(stderr, "%s: --shard: %s\n", cmd, err);
    return -1;
}
