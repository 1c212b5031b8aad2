/* sha256.h: content hash of imported files (provenance and de-duplication). */
#ifndef BDB_SHA256_H
#define BDB_SHA256_H

#include <stddef.h>

/* Writes 64 lowercase hex digits and a NUL into hex. */
void sha256_hex(const void *data, size_t len, char hex[65]);

#endif
