/*
 * cmd_model — `sharesim model show NAME | --config FILE` and `sharesim model list`: what
 * sharesim knows of a model, from the shipped table (llm/model.h) or derived from a Hugging
 * Face config.json (llm/hfconfig.h), as a table or --json.
 */
#include "base/util.h"
#include "cli/cli.h"
#include "cli/outplan.h"
#include "llm/hfconfig.h"
#include "llm/model.h"

#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char show_help[] =
    "usage: sharesim model show NAME | --config FILE [--json FILE|-]\n"
    "  NAME           a model of the table, an alias or a Hugging Face id (sharesim model list)\n"
    "  --config FILE  a Hugging Face config.json: the shapes and the parameter count derived\n"
    "                 from it\n"
    "  --json FILE|-  the same as JSON (- is stdout)\n"
    "exit codes: 0 ok; 2 an unknown model, a bad config.json (file and key named) or option\n";

/* The facts of m as a JSON object (what the table and the config describe alike). */
static cJSON *model_doc(const struct lm_model *m, const char *from)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", m->name);
    cJSON_AddStringToObject(o, "from", from);
    cJSON_AddStringToObject(o, "kind", lm_kind_names[m->kind]);
    cJSON_AddNumberToObject(o, "params", m->params);
    cJSON_AddNumberToObject(o, "active_params", m->active_params);
    cJSON_AddNumberToObject(o, "layers", m->layers);
    cJSON_AddNumberToObject(o, "hidden", m->hidden);
    cJSON_AddNumberToObject(o, "intermediate", m->intermediate);
    cJSON_AddStringToObject(o, "mlp", m->plain_mlp ? "plain" : "gated");
    cJSON_AddNumberToObject(o, "heads", m->heads);
    cJSON_AddNumberToObject(o, "kv_heads", m->kv_heads);
    cJSON_AddNumberToObject(o, "head_dim", m->head_dim);
    cJSON_AddNumberToObject(o, "vocab", m->vocab);
    cJSON_AddNumberToObject(o, "experts", m->experts);
    cJSON_AddNumberToObject(o, "experts_per_token", m->experts_per_token);
    cJSON_AddNumberToObject(o, "moe_intermediate", m->moe_intermediate);
    cJSON_AddNumberToObject(o, "shared_intermediate", m->shared_intermediate);
    cJSON_AddNumberToObject(o, "dense_layers", m->experts ? m->dense_layers : m->layers);
    cJSON_AddNumberToObject(o, "kv_lora_rank", m->kv_lora_rank);
    cJSON_AddNumberToObject(o, "q_lora_rank", m->q_lora_rank);
    cJSON_AddNumberToObject(o, "qk_rope_dim", m->qk_rope_dim);
    cJSON_AddNumberToObject(o, "v_head_dim", m->v_head_dim);
    cJSON_AddNumberToObject(o, "kv_bytes_per_token_bf16", lm_kv_bytes_per_token(m, RD_BF16));
    cJSON_AddNumberToObject(o, "weights_gb_bf16", lm_weight_bytes(m, RD_BF16) * 1e-9);
    return o;
}

static void show_table(const struct lm_model *m, const char *from)
{
    printf("%s (%s, %s)\n", m->name, lm_kind_names[m->kind], from);
    printf("  parameters      %.0f (%.2f B)", m->params, m->params * 1e-9);
    if (m->experts)
        printf(", %.2f B active per token", m->active_params * 1e-9);
    printf("\n  layers          %d\n  hidden          %d\n", m->layers, m->hidden);
    printf("  attention       %d heads, %d KV heads, head size %d", m->heads, m->kv_heads,
           m->head_dim);
    if (m->kv_lora_rank)
        printf("; latent (MLA): KV rank %d, RoPE key %d, query rank %d, value size %d",
               m->kv_lora_rank, m->qk_rope_dim, m->q_lora_rank, m->v_head_dim);
    printf("\n  MLP             %s, width %d", m->plain_mlp ? "plain" : "gated", m->intermediate);
    if (m->experts) {
        printf("\n  experts         %d routed of width %d, %d per token", m->experts,
               m->moe_intermediate, m->experts_per_token);
        if (m->shared_intermediate)
            printf(", shared width %d", m->shared_intermediate);
        printf("; %d of %d blocks dense", m->dense_layers, m->layers);
    }
    printf("\n  vocabulary      %d\n", m->vocab);
    printf("  KV per token    %.0f bytes in bf16\n", lm_kv_bytes_per_token(m, RD_BF16));
    printf("  weights         %.2f GB in bf16\n", lm_weight_bytes(m, RD_BF16) * 1e-9);
}

static int sub_show(int argc, char **argv)
{
    const char *config = NULL, *json = NULL;
    const struct cli_opt opts[] = {CLI_OPT_STR("config", 0, &config), CLI_OPT_STR("json", 0, &json),
                                   CLI_OPT_HELP, CLI_OPT_END};
    const struct cli_spec sp = {.cmd = "sharesim model show",
                                .opts = opts,
                                .help = show_help,
                                .min_args = 0,
                                .max_args = 1};
    int rc = cli_parse_opts(&sp, argc, argv);
    if (rc != CLI_CONTINUE)
        return rc;
    int named = optind < argc;
    if (named == (config != NULL)) {
        fprintf(stderr, "sharesim model show: expected a model NAME or --config FILE (one)\n%s",
                show_help);
        return SS_EXIT_BADINPUT;
    }
    struct lm_model m;
    char err[SS_ERRLEN];
    const char *from = config ? config : lm_table_path();
    if (config ? hf_load(config, &m, err, sizeof err)
               : lm_find(NULL, argv[optind], &m, err, sizeof err)) {
        fprintf(stderr, "sharesim model show: %s\n", err);
        return SS_EXIT_BADINPUT;
    }
    if (op_files("sharesim model show", OP_LIST("--config", config), OP_LIST("--json", json)))
        return SS_EXIT_BADINPUT;
    if (!cli_is_stdout(json))
        show_table(&m, from);
    if (json)
        return cli_write_json("sharesim model show", json, model_doc(&m, from)) ? SS_EXIT_BADINPUT
                                                                                : SS_EXIT_OK;
    return SS_EXIT_OK;
}

static const char list_help[] =
    "usage: sharesim model list [--json FILE|-]\n"
    "  the shipped models, each with its kind, parameters and aliases\n"
    "  --json FILE|-  the same as JSON (- is stdout)\n"
    "exit codes: 0 ok; 2 an unreadable or bad model table, or a bad option\n";

static int sub_list(int argc, char **argv)
{
    const char *json = NULL;
    const struct cli_opt opts[] = {CLI_OPT_STR("json", 0, &json), CLI_OPT_HELP, CLI_OPT_END};
    const struct cli_spec sp = {.cmd = "sharesim model list",
                                .opts = opts,
                                .help = list_help,
                                .min_args = 0,
                                .max_args = 0};
    int rc = cli_parse_opts(&sp, argc, argv);
    if (rc != CLI_CONTINUE)
        return rc;
    const char *path = lm_table_path();
    char *text = NULL, err[SS_ERRLEN];
    size_t len;
    if (ss_read_file(path, 4u << 20, &text, &len, err, sizeof err)) {
        fprintf(stderr, "sharesim model list: %s\n", err);
        return SS_EXIT_BADINPUT;
    }
    if (op_files("sharesim model list", NULL, OP_LIST("--json", json))) {
        free(text);
        return SS_EXIT_BADINPUT;
    }
    cJSON *root = cJSON_Parse(text), *doc = cJSON_CreateArray();
    free(text);
    const cJSON *e;
    struct lm_model m;
    int table = !cli_is_stdout(json);
    /* Each entry through lm_find, so that what is listed is what a scenario gets. */
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(root, "models"))
    {
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(e, "name"), *a;
        if (!cJSON_IsString(n) || lm_find(path, n->valuestring, &m, err, sizeof err)) {
            fprintf(stderr, "sharesim model list: %s\n", cJSON_IsString(n) ? err : path);
            cJSON_Delete(root);
            cJSON_Delete(doc);
            return SS_EXIT_BADINPUT;
        }
        cJSON *row = model_doc(&m, path);
        cJSON_AddItemToObject(row, "aliases",
                              cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(e, "aliases"), 1));
        cJSON_AddItemToArray(doc, row);
        if (!table)
            continue;
        printf("%-26s %-9s %8.2f B", m.name, lm_kind_names[m.kind], m.params * 1e-9);
        if (m.experts)
            printf(" (%.2f B active)", m.active_params * 1e-9);
        const char *sep = "  aliases: ";
        cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(e, "aliases"))
        {
            printf("%s%s", sep, a->valuestring);
            sep = ", ";
        }
        printf("\n");
    }
    cJSON_Delete(root);
    if (json)
        return cli_write_json("sharesim model list", json, doc) ? SS_EXIT_BADINPUT : SS_EXIT_OK;
    cJSON_Delete(doc);
    return SS_EXIT_OK;
}

static const struct cli_command subcommands[] = {
    {"list", "the shipped models with their aliases", sub_list, NULL},
    {"show", "NAME | --config FILE: a model's shapes and parameters", sub_show, NULL},
    {NULL, NULL, NULL, NULL},
};

const struct cli_group cmd_model = {
    NULL,
    subcommands,
    "NAME is a model of the table (kernels/profiles/models/llm.json), an alias or a Hugging "
    "Face id;\n--config reads a Hugging Face config.json (families: see docs/llm.md).\n",
};
