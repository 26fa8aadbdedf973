/*
 * kernel_sequences: the most frequent contiguous kernel sequences per
 * stream (kernel_sequences.c: options, results; kseq_count.c: the
 * counting).
 */
#ifndef TP_KSEQ_H
#define TP_KSEQ_H

#include <stdint.h>
#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk.h>
#include <tracepipe/tp_sdk_ops.h>

typedef struct kseq_config {
    int64_t length, min_count, top;
    tp_strlist module_prefixes;
} kseq_config;

/* One distinct sequence of one stream. */
typedef struct kseq_entry {
    uint64_t hash;
    uint32_t group;     /* the stream's index */
    uint32_t first;     /* where its first occurrence starts (index into kseq.k) */
    int64_t count;      /* occurrences counted (none overlapping an earlier one) */
    int64_t next_free;  /* the first index a next occurrence may start at */
    int64_t sum_ns;     /* the counted occurrences' kernel time */
} kseq_entry;

typedef struct kseq {
    tp_stage *st;
    const kseq_config *cfg;
    const tp_cols *c;
    uint32_t *k;         /* kernel rows by (device, stream, start, row) */
    uint32_t *group;     /* per kernel: its stream's index */
    size_t nk;
    kseq_entry *e;       /* the hash table */
    size_t cap;
    int32_t *occ;        /* per kernel: the entry counted starting there, else -1 */
} kseq;

/* Sorts the kernels by stream and counts every window of `length`. */
int kseq_count(kseq *q);

#endif
