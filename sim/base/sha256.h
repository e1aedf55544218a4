/*
 * sha256 — the SHA-256 digest (FIPS 180-4) of a buffer, as 64 lower-case hex digits: what a
 * result records to name the exact input file it was computed from.
 */
#ifndef SS_SHA256_H
#define SS_SHA256_H

#include <stddef.h>

#define SHA256_HEX_LEN 65 /* 64 digits and the NUL */
void sha256_hex(const void *data, size_t len, char out[SHA256_HEX_LEN]);

#endif
