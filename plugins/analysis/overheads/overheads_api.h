/* overheads: the launch calls of a trace per API (<id>.by_api), private to
 * the plugin's files. */
#ifndef TRACEPIPE_OVERHEADS_API_H
#define TRACEPIPE_OVERHEADS_API_H

#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk.h>

/* One API: its calls (outermost launch calls: a launch call inside another
 * one, cudaLaunchKernel around cuLaunchKernel, is part of it), those that
 * launched GPU work, those the definition counts in T4. */
typedef struct oh_api {
    tp_str name;
    tp_launch_what what;
    int64_t count, linked, counted, counted_linked;
    int64_t sum_ns;
} oh_api;

typedef struct oh_apis {
    tp_stage *st;
    const tp_cols *c;
    tp_vocab vocab;
    uint8_t *linked;     /* per row: it launched some GPU activity */
    uint8_t *what;       /* per name id: the vocabulary's what + 1, 0 = not looked up */
    size_t nnames;
    uint32_t *calls;     /* the outermost launch calls, in row order */
    size_t ncalls;
    oh_api *api;         /* per API, in order of first call */
    size_t napi;
    uint32_t *api_of;    /* per name id: its index in api + 1, 0 = none */
} oh_apis;

/* Finds every launch call of the trace: a runtime call of a vocabulary
 * launch API, or one that launched GPU work (launcher from the hierarchy),
 * not inside another.  TP_OK or TP_ENOMEM. */
int oh_apis_find(oh_apis *a, tp_stage *st, const tp_cols *c, const int32_t *launcher,
                 const int32_t *parent);
void oh_apis_free(oh_apis *a);

/* Is row a launch call (vocabulary API or linked)? */
int oh_apis_is_launch(oh_apis *a, int32_t row);

/* Records that the definition counted the call `row` in T4. */
void oh_apis_counted(oh_apis *a, int32_t row);

/* <id>.by_api, and for a compat definition a warning with how many linked
 * launches it leaves out of T4. */
int oh_apis_write(oh_apis *a, const char *compat, int is_compat);


/* <id>.by_api's columns (TP_COLUMNS in overheads.c, the enum alone here). */
#define OH_API_COLS(X, P)                                                                          \
    X(P, api, STR, NULL, "the launch API: the call's name (cudaLaunchKernel, cuLaunchKernel, "     \
                         "hipExtModuleLaunchKernel ...)")                                           \
    X(P, launches, STR, NULL, "what the vocabulary says it launches (kernel, memcpy, memset, "     \
                              "graph, sync, host_func); null for a call outside it that launched " \
                              "GPU work")                                                          \
    X(P, count, I64, "count", "its launch calls in the trace (one inside another is not counted)") \
    X(P, linked, I64, "count", "those that launched GPU work (linked to a kernel, memcpy or "      \
                               "memset)")                                                          \
    X(P, counted, I64, "count", "those the definition counts in T4 (compat modes: only its "       \
                                "APIs, inside ops)")                                               \
    X(P, left_out, I64, "count", "linked calls the definition leaves out of T4")                   \
    X(P, sum_us, F64, "us", "the calls' total duration")                                           \
    X(P, mean_us, F64, "us", "their mean duration")

#endif
