/*
 * analysis diff, private: what diff.c (rows: ops, GPU activities, calls)
 * and diff_facts.c (the traces' facts, the run time and its basis, the
 * summary) share.
 */
#ifndef TP_DIFF_H
#define TP_DIFF_H

#include <stddef.h>
#include <stdint.h>
#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk_iter.h>

typedef struct df_config {
    const char *step_prefix;
    int match_renamed;
} df_config;

/* The host-side kinds compared name by name in <id>.calls, in this order:
 * annotations (iteration markers left out: the summary compares them),
 * GPU-side annotations, runtime calls, synchronisation waits, NVTX-style
 * ranges. */
#define DF_CALL_KINDS 5
extern const uint8_t df_call_kinds[DF_CALL_KINDS];

/* Per name, in one trace. */
typedef struct df_name {
    tp_str name;
    int64_t count, sum_ns;
    uint64_t signature; /* ops: hash of parent name and launched kernel names */
    int present;
} df_name;

/* One trace's aggregates, indexed by string id (one pool for the run). */
typedef struct df_side {
    const tp_trace *t;
    const tp_cols *c;
    df_name *ops, *acts;                /* [nstr] */
    df_name *calls[DF_CALL_KINDS];      /* [nstr] each, NULL when the trace has none */
    int64_t kernel_ns, kernel_count, window_ns;
    double iteration_us;  /* median iteration after skip_first/skip_last; NaN: none */
    size_t iterations;    /* the iterations that median is of */
    size_t markers;       /* every iteration found */
} df_side;

/* <id>.facts: one row per fact of the traces. */
#define DF_FACT_COLS(X, P)                                                                         \
    X(P, fact, STR, NULL, "trace (label), producer (trace info producer, else format), device "    \
                          "(the names of the devices its GPU activities ran on), world_size, "     \
                          "rank, iterations (counted after skip_first/skip_last, of all found)")   \
    X(P, base, STR, NULL, "the fact in the base trace (null when it does not say)")                \
    X(P, test, STR, NULL, "the fact in the test trace")                                            \
    X(P, status, STR, NULL, "producer, device, world_size: same, differs (warned) or unknown "     \
                            "(a trace does not say); null for the facts not compared")
TP_COLUMNS(df_fact, DF_FACT_COLS);

/* <id>.summary: one row per measure, a long table as their units differ. */
#define DF_SUMMARY_COLS(X, P)                                                                      \
    X(P, measure, STR, NULL, "iteration_us (median iteration after skip_first/skip_last, when "    \
                             "both traces have iterations) or window_us (the capture windows, "    \
                             "warned), kernel_us (GPU activity time)")                             \
    X(P, base, F64, "us", "the measure in the base trace")                                         \
    X(P, test, F64, "us", "the measure in the test trace")                                         \
    X(P, delta, F64, "us", "test - base")                                                          \
    X(P, delta_percent, F64, "percent", "delta as a percentage of base (null when base is 0)")     \
    X(P, change, STR, NULL, "the change in words: the run time's \"2.40 % faster\" or \"1.10 % "   \
                            "slower\", other times' \"more\" or \"less\", counts' \"more\" or "      \
                            "\"fewer\", \"unchanged\"; null when base is 0")                   \
    X(P, slower_percent, F64, "percent", "the run time's delta_percent (positive: the test run " \
                                         "is slower), on its row only (null on the others): "   \
                                         "what --fail-if-slower gates")
TP_COLUMNS(df_sum, DF_SUMMARY_COLS);

/* <id>.counts: the runs' counts, integers (issue 25: integer measures stay
 * integers in every writer). */
#define DF_COUNT_COLS(X, P)                                                                        \
    X(P, measure, STR, NULL, "kernel_count (GPU activities), op_names, kernel_names (distinct "    \
                             "names)")                                                             \
    X(P, base, I64, "count", "the count in the base trace")                                        \
    X(P, test, I64, "count", "the count in the test trace")                                        \
    X(P, delta, I64, "count", "test - base")                                                       \
    X(P, delta_percent, F64, "percent", "delta as a percentage of base (null when base is 0)")     \
    X(P, change, STR, NULL, "\"N % more\", \"N % fewer\" or \"unchanged\"; null when base is 0")
TP_COLUMNS(df_count, DF_COUNT_COLS);

/* The traces' facts (<id>.facts), with a warning when they differ. */
int df_write_facts(tp_stage *st, const df_side side[2]);

/* A side's capture window and median iteration (or none) from its
 * iteration view (the pipeline's iterations or the stage's override). */
int df_side_iterations(df_side *s, const tp_iter_view *iv);

/* <id>.summary and its notes (slower_percent, run_time), with a warning
 * when the run time falls back to the capture windows; <id>.counts. */
int df_write_summary(tp_stage *st, const df_side side[2], const size_t nops[2],
                     const size_t nacts[2], const char *step_prefix);

/* "2.40 % faster", "1.10 % slower", "unchanged" (words: slower/faster, or
 * more/fewer for counts) for a change of pct percent; NULL when pct is NaN. */
const char *df_change_words(char *buf, size_t size, double pct, const char *up,
                            const char *down);

#endif
