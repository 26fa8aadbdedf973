/* overheads: samples per key (private to the plugin's files). */
#ifndef TRACEPIPE_OVERHEADS_SAMPLES_H
#define TRACEPIPE_OVERHEADS_SAMPLES_H

#include <stddef.h>
#include <tracepipe/tp_plugin.h>

/* Samples per key: keys are interned strings, values growable arrays. */
typedef struct oh_list {
    tp_str key;
    tp_str name, shapes; /* ml2022's (op name, shapes) keys; shapes 0 otherwise */
    double *v;
    size_t n, cap;
} oh_list;

typedef struct oh_set {
    oh_list *l;
    size_t n, cap;
    uint32_t *index; /* per string id: its list + 1, 0 = none yet */
    size_t index_cap;
} oh_set;

/* The list of key, made on first use (NULL: out of memory). */
oh_list *oh_list_of(oh_set *s, tp_str key);
/* Appends x to key's list. */
int oh_push(oh_set *s, tp_str key, double x);
void oh_set_free(oh_set *s);

#endif
