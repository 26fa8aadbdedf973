/* tracepipe SDK: extension columns as arrays (tp_sdk_ext.h). */
#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk_ext.h>

int tp_ext_column_at(const tp_trace *t, int col, const void **cells)
{
    *cells = col >= 0 ? tp_trace_ext_data(t, col) : NULL;
    return col >= 0 && *cells == NULL ? TP_ENOMEM : TP_OK;
}

int tp_ext_column_cells(const tp_trace *t, const char *name, tp_coltype type,
                        const void **cells)
{
    int col = tp_trace_ext_find(t, name);
    if (col >= 0 && tp_trace_ext_type(t, col) != type)
        col = -1;
    return tp_ext_column_at(t, col, cells);
}
