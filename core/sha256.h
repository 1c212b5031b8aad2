/* sha256.h: content hash of imported files (provenance and de-duplication). */
#ifndef BDB_SHA256_H
#define BDB_SHA256_H

#include <stddef.h>
#include <stdint.h>

/* A hash being computed over pieces: sha256_init, sha256_update per piece, sha256_final. */
struct sha256 {
    uint32_t h[8];
    uint64_t len; /* bytes so far */
    unsigned char pending[64];
};

void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *data, size_t len);
/* Writes 64 lowercase hex digits and a NUL into hex; s is spent. */
void sha256_final(struct sha256 *s, char hex[65]);
/* The three above in one call. */
void sha256_hex(const void *data, size_t len, char hex[65]);

/* For tests: allow = 0 makes the portable code do the work, 1 the CPU's SHA instructions when
 * it has them (the default). Returns whether those are now in use. */
int sha256_cpu_extensions(int allow);

#endif
