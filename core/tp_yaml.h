/* Core-internal: YAML documents with locations (tp_yaml.c). */
#ifndef TRACEPIPE_TP_YAML_H
#define TRACEPIPE_TP_YAML_H

#include "tp_core.h"

#include <stdbool.h>

typedef enum { TP_YNODE_SCALAR = 1, TP_YNODE_SEQ, TP_YNODE_MAP } tp_ynode_type;
typedef struct tp_ynode tp_ynode;
struct tp_ynode {
    tp_ynode_type type;
    int line, col;          /* 1-based */
    char *text;             /* scalars: the value (after ${var} substitution) */
    bool quoted;            /* scalars written in quotes are never numbers/bools */
    size_t n;               /* children (seq items or map pairs) */
    tp_ynode **keys;        /* maps: key scalars */
    tp_ynode **items;       /* seq items or map values */
};
/* Parses one YAML document; aliases and anchors are refused (a pipeline
 * never needs them, and refusing them rules out alias bombs), duplicate keys
 * are reported.  Returns NULL with diagnostics on error. */
tp_ynode *tp_yaml_parse(const char *text, size_t len, const char *file, tp_diags *d);
void tp_ynode_free(tp_ynode *n);
/* A deep copy, or NULL when memory runs out. */
tp_ynode *tp_ynode_clone(const tp_ynode *n);
const tp_ynode *tp_ymap_get(const tp_ynode *map, const char *key);
/* Replaces ${name} in every scalar of the tree; unknown names are errors. */
int tp_yaml_substitute(tp_ynode *root, const tp_var *vars, size_t n_vars, const char *file,
                       tp_diags *d);

#endif
