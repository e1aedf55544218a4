/*
 * name — the one rule every name follows (prefix name_): scenario, tenant, strategy, GPU
 * profile, MIG profile, vGPU type, cluster and node group names, and the name a merged
 * profile is given. docs/scenario.md#names is the contract.
 *
 * A name is 1 to NAME_MAX_BYTES bytes of valid UTF-8 (no overlong form, no surrogate, nothing
 * above U+10FFFF) and holds none of: a C0 control (U+0000–U+001F), DEL (U+007F), a C1 control
 * (U+0080–U+009F, NEL among them), the line and paragraph separators U+2028 and U+2029, a
 * comma or a double quote. Those are exactly what a reader of the outputs would take for
 * structure: a line break ends a YAML comment or a CSV row (YAML also breaks lines at NEL,
 * U+2028 and U+2029), a comma or a quote ends a CSV field, and a control character makes a
 * YAML file unreadable. Anything else — spaces, markup, YAML metacharacters, any script — is
 * a name, and every writer must carry it as text.
 *
 * The limit is in bytes because the names live in fixed buffers of NAME_MAX_BYTES + 1 bytes
 * (struct scenario, the GPU profile); 63 is also Kubernetes' limit for a label value.
 */
#ifndef SS_NAME_H
#define SS_NAME_H

#include <stddef.h>

#define NAME_MAX_BYTES 63

/* 0 when s is a name. Otherwise -1, and why (may be NULL) says what is wrong and where (the
 * byte it starts at, counting from 1) followed by the rule in one sentence; the caller prefixes
 * where the name came from ("tenants[2].name: "). The name itself is never copied into why: it may
 * hold the very characters that would garble a terminal or a log. */
int name_check(const char *s, char *why, size_t whylen);

/* The rule in one sentence, as name_check appends it. */
const char *name_rule(void);

/*
 * One UTF-8 sequence at s (n bytes available): its code point, and its length in *len; -1
 * (and *len = 1) when the bytes there are not valid UTF-8. Shared with writers that must
 * treat text character by character (yamlw's comments).
 */
long name_utf8_next(const unsigned char *s, size_t n, int *len);

#endif
