/*
 * reader `nsys`: NVTX extended (binary) payloads of an SQLite export, as the
 * event's args: a JSON object keyed by the payload entries' names, the form
 * analyses read (NCCL's payloads: tp_sdk_coll.h).  Two documented sources
 * (Nsight Systems' "SQLite Schema Reference", schema 3.28.1 of 2026.4, and
 * its "SQLite Examples": docs/plugins/nsys.md "NVTX payloads"):
 *
 *  - the dynamic payload tables (nsys export --dynamic-tables=all):
 *    NVTX_EVENTS_PAYLOAD_SCHEMAS (eventId, globalPid, domainId,
 *    payloadSchemaID) names a table
 *    DYNAMIC_NVTXPAYLOAD_DATATYPE_<globalPid>_<domainId>_<schemaId> holding
 *    one row per payload (eventId, one column per scalar entry, named by
 *    NVTX_EXPORT_TRANSLATION's sanitizedName for the entry's originalName);
 *  - NVTX_EVENTS.binaryData decoded with NVTX_PAYLOAD_SCHEMAS (payloadSize)
 *    and NVTX_PAYLOAD_SCHEMA_ENTRIES (type, name, offset, flags,
 *    arrayOrUnionDetail; the types of NVTX's nvToolsExtPayload.h, enums by
 *    NVTX_PAYLOAD_ENUMS / NVTX_PAYLOAD_ENUM_ENTRIES).  The export's docs say
 *    "Binary payload. See docs for format" without the format: the blob's
 *    32-byte header (u64 domain, u64 schema id, u64 payload size, u64) is
 *    the one public decoders read (not NVIDIA's text).
 */
#ifndef TRACEPIPE_NSYS_PAYLOAD_H
#define TRACEPIPE_NSYS_PAYLOAD_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>
#include <tracepipe/tp_plugin.h>

typedef struct nsys_payloads nsys_payloads;

/* Reads the export's payload tables (none: an empty set).  plain(ctx,
 * table) refuses a table that would compute its values (the reader's
 * rule); errors are reported by it or as out of memory. */
int nsys_payloads_load(sqlite3 *db, int (*plain)(void *ctx, const char *table), void *ctx,
                       nsys_payloads **out);

/* The payload of NVTX event event_id (domain: its domainId; blob, blen: its
 * binaryData) as JSON object text, *len bytes, valid until the next call;
 * NULL when it has none these tables describe. */
const char *nsys_payload_json(nsys_payloads *p, int64_t event_id, int64_t domain,
                              const unsigned char *blob, size_t blen, size_t *len);

/* How many events got their args from each source (docs, tests). */
void nsys_payloads_counts(const nsys_payloads *p, size_t *from_tables, size_t *from_binary);

void nsys_payloads_free(nsys_payloads *p);

#endif
