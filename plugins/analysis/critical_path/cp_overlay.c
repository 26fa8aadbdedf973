/* critical_path: where the overlay's flows end (docs/plugins/critical_path.md,
 * "Overlay: the path in the Chrome trace"). */
#include "cp.h"

/* Where a flow from path node a (leaving at from, its start) ends in the
 * next, b: at b's start; when b started first, inside b after from: a GPU
 * activity at from (it runs then); a host event -- the path enters its end,
 * after its last child or the work it waited for, a -- halfway between a's
 * end and its own, where no child of it runs (a Chrome "f" binds to the
 * innermost slice at its time).  INT64_MIN: none (b ended before; times
 * may be negative after a rank's clock offset, so no time is a sentinel). */
int64_t cp_flow_to(const cp_graph *g, size_t a, size_t b, int64_t from)
{
    int64_t to = cp_t(g, 2 * (int64_t)b), b_end = cp_t(g, 2 * (int64_t)b + 1);
    int64_t a_end = cp_t(g, 2 * (int64_t)a + 1);
    if (to >= from)
        return to;
    if (from > b_end)
        return INT64_MIN;
    if (tp_kind_is_activity(cp_cols_of(g, b)->kind[g->row[b]]))
        return from;
    return a_end <= b_end ? a_end + (b_end - a_end) / 2 : INT64_MIN;
}
