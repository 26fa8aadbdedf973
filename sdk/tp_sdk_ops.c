/* Names that are never an op (include/tracepipe/tp_sdk_ops.h). */
#include "tracepipe/tp_sdk_ops.h"
#include "tracepipe/tp_sdk_iter.h"
#include "tracepipe/tp_sdk_trace.h"

int tp_op_names_memo(tp_stage *st, const tp_vocab *v, const char *const *prefixes, size_t n,
                     uint8_t **memo, size_t *nmemo)
{
    int own = n == 0;
    int rc = tp_names_with_prefixes(st, own ? v->modules : prefixes, own ? v->n_modules : n, memo,
                                    nmemo);
    if (rc != TP_OK || !own)
        return rc;
    tp_iter_view iv;
    rc = tp_iter_view_get(st, NULL, NULL, &iv);
    for (size_t name = 0; rc == TP_OK && name < *nmemo; name++)
        if (tp_iter_is_marker(&iv, (tp_str)name))
            (*memo)[name] = 1;
    tp_iter_view_release(&iv);
    if (rc != TP_OK) {
        tp_free(*memo);
        *memo = NULL;
    }
    return rc;
}
