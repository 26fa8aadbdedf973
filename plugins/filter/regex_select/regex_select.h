/* regex_select plugin: declarations shared by its two source files. */
#ifndef TP_REGEX_SELECT_H
#define TP_REGEX_SELECT_H

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <tracepipe/tp_plugin.h>

typedef struct rs_config {
    tp_strlist include, exclude;
    const char *field; /* name | category | arg */
    const char *arg;
    int ignore_case;
    const char *keep;  /* matches | with_descendants | with_ancestors | with_both */
} rs_config;

typedef struct rs_pattern {
    pcre2_code *re;
    pcre2_match_data *md;
} rs_pattern;

typedef struct rs_state {
    rs_pattern *inc, *exc;
    size_t n_inc, n_exc;
    uint8_t *memo; /* per string id: 0 unknown, 1 kept, 2 dropped */
    size_t n_memo;
    char *buf;     /* unescaped args value */
    size_t buf_cap;
    /* the PCRE2 error that stopped the run: code, list and pattern index */
    int err;
    const char *err_list;
    size_t err_index;
} rs_state;

/* Adds to keep[] (1 = matched) the descendants and/or ancestors of matched
 * events through parents (hierarchy.parent for host events when present,
 * else nesting by time per (pid, tid); GPU rows always by time) and launch
 * links (runtime call <-> GPU work).  *source names the links used. */
int rs_extend(tp_stage *st, const tp_trace *t, uint8_t *keep, int desc, int anc,
              const char **source);

#endif
