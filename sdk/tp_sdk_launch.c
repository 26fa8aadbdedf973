/* tracepipe SDK: a kernel's launch configuration (tp_sdk_launch.h). */
#include <stdio.h>
#include <string.h>

#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk_ext.h>
#include <tracepipe/tp_sdk_json.h>
#include <tracepipe/tp_sdk_launch.h>

static const char *const tp_launch_ext[9] = {
    "kernel.grid_x",  "kernel.grid_y",    "kernel.grid_z",
    "kernel.block_x", "kernel.block_y",   "kernel.block_z",
    "kernel.registers", "kernel.static_shared_bytes", "kernel.dynamic_shared_bytes"};

int tp_kernel_launch_source(const tp_trace *t, tp_launch_source *s)
{
    int rc = TP_OK;
    for (int i = 0; i < 9; i++) {
        int c = tp_trace_ext_find(t, tp_launch_ext[i]);
        int type = c >= 0 ? (int)tp_trace_ext_type(t, c) : -1;
        s->ext[i] = type == TP_COL_I64 || type == TP_COL_I32 ? c : -1;
        s->i64[i] = type == TP_COL_I64;
        if (tp_ext_column_at(t, s->ext[i], &s->cells[i]) != TP_OK)
            rc = TP_ENOMEM;
    }
    if (rc != TP_OK)
        for (int i = 0; i < 9; i++)
            s->ext[i] = -1, s->cells[i] = NULL;
    return rc;
}

/* Column i's value at row (-1 when absent). */
static int64_t ext_value(const tp_launch_source *s, int i, size_t row)
{
    const void *d = s->cells[i];
    if (d == NULL)
        return -1;
    return s->i64[i] ? ((const int64_t *)d)[row] : ((const int32_t *)d)[row];
}

/* The three integers of a JSON array [x, y, z] (a missing one is 1). */
static int json_dim3(const char *v, size_t len, int64_t out[3])
{
    tp_json_iter it;
    const char *e;
    size_t el;
    out[0] = out[1] = out[2] = 1;
    if (v == NULL || tp_json_array(v, len, &it) != TP_OK)
        return 0;
    int k = 0;
    while (k < 3 && tp_json_next(&it, &e, &el) == 1)
        if (tp_json_i64(e, el, &out[k++]) != TP_OK)
            return 0;
    return k > 0;
}

static int64_t json_int(const char *args, size_t alen, const char *key)
{
    size_t len = 0;
    int64_t v = -1;
    const char *x = tp_json_get(args, alen, key, &len);
    return x && tp_json_i64(x, len, &v) == TP_OK ? v : -1;
}

int tp_kernel_launch_of(const tp_trace *t, const tp_launch_source *s, size_t row,
                        tp_kernel_launch *k)
{
    if (s->ext[0] >= 0 && s->ext[3] >= 0) {
        for (int i = 0; i < 3; i++) {
            k->grid[i] = ext_value(s, i, row);
            k->block[i] = ext_value(s, 3 + i, row);
        }
        k->registers = ext_value(s, 6, row);
        int64_t st = ext_value(s, 7, row), dy = ext_value(s, 8, row);
        k->shared_bytes = st < 0 && dy < 0 ? -1 : (st > 0 ? st : 0) + (dy > 0 ? dy : 0);
        return k->grid[0] > 0 && k->block[0] > 0;
    }
    size_t alen = 0, len = 0;
    const char *args = tp_trace_args(t, row, &alen);
    if (args == NULL)
        return 0;
    const char *g = tp_json_get(args, alen, "grid", &len);
    if (!json_dim3(g, len, k->grid))
        return 0;
    const char *b = tp_json_get(args, alen, "block", &len);
    if (!json_dim3(b, len, k->block))
        return 0;
    k->registers = json_int(args, alen, "registers per thread");
    k->shared_bytes = json_int(args, alen, "shared memory");
    return 1;
}

int tp_kernel_launch_text(const tp_kernel_launch *k, char *buf, size_t size)
{
    int n = snprintf(buf, size, "grid %lldx%lldx%lld block %lldx%lldx%lld",
                     (long long)k->grid[0], (long long)k->grid[1], (long long)k->grid[2],
                     (long long)k->block[0], (long long)k->block[1], (long long)k->block[2]);
    if (k->registers >= 0 && n >= 0 && (size_t)n < size)
        n += snprintf(buf + n, size - (size_t)n, " regs %lld", (long long)k->registers);
    if (k->shared_bytes >= 0 && n >= 0 && (size_t)n < size)
        n += snprintf(buf + n, size - (size_t)n, " smem %lld", (long long)k->shared_bytes);
    return n;
}

/* A field not recorded (negative) as -1. */
static int64_t recorded(int64_t v) { return v < 0 ? -1 : v; }

static int cmp_i64(int64_t x, int64_t y) { return (x > y) - (x < y); }

/* Orders two triples of dimensions. */
static int cmp_dim3(const int64_t *a, const int64_t *b)
{
    for (int i = 0; i < 3; i++)
        if (a[i] != b[i])
            return cmp_i64(a[i], b[i]);
    return 0;
}

int tp_kernel_launch_cmp(const tp_kernel_launch *a, const tp_kernel_launch *b)
{
    int d = cmp_dim3(a->grid, b->grid);
    d = d ? d : cmp_dim3(a->block, b->block);
    d = d ? d : cmp_i64(recorded(a->registers), recorded(b->registers));
    return d ? d : cmp_i64(recorded(a->shared_bytes), recorded(b->shared_bytes));
}
