/*
 * overheads: ml2022's shape keys.  get_overheads of 2022 keys T2, T3 and T5
 * by op name and str((input_shape, output_shape)): Python's text of the
 * tuples the op's JSON shape arrays become.
 */
#include <stddef.h>
#include <tracepipe/tp_sdk_json.h>

#include "overheads_shapes.h"

/* Python's repr of the tuple a JSON array of integers (nested) becomes:
 * [[64, 128], []] -> ((64, 128), ()), [3] -> (3,).  Returns the characters
 * used from v, 0 if it is not such an array. */
static size_t py_tuple(const char *v, size_t len, char *out, size_t cap, size_t *at)
{
    size_t i = 0, items = 0;
#define PUT(ch) do { if (*at + 1 >= cap) return 0; out[(*at)++] = (ch); } while (0)
    while (i < len && v[i] == ' ')
        i++;
    if (i >= len || v[i] != '[')
        return 0;
    PUT('(');
    i++;
    for (;;) {
        while (i < len && (v[i] == ' ' || v[i] == '\n'))
            i++;
        if (i < len && v[i] == ']' && items == 0)
            break;
        if (items > 0) {
            PUT(',');
            PUT(' ');
        }
        if (i < len && v[i] == '[') {
            size_t used = py_tuple(v + i, len - i, out, cap, at);
            if (used == 0)
                return 0;
            i += used;
        } else {
            size_t start = i;
            if (i < len && v[i] == '-')
                i++;
            while (i < len && v[i] >= '0' && v[i] <= '9')
                i++;
            if (i == start || (i == start + 1 && v[start] == '-'))
                return 0;
            for (size_t k = start; k < i; k++)
                PUT(v[k]);
        }
        items++;
        while (i < len && (v[i] == ' ' || v[i] == '\n'))
            i++;
        if (i < len && v[i] == ',') {
            i++;
            continue;
        }
        if (i < len && v[i] == ']')
            break;
        return 0;
    }
    if (items == 1)
        PUT(',');
    PUT(')');
#undef PUT
    return i + 1;
}

/* One side of ml2022's key: the op's arg `key` as a tuple, or ((-1,),). */
void oh_shape_text(const char *args, size_t alen, const char *key, char *out, size_t cap,
                       size_t *at)
{
    size_t vlen = 0, start = *at;
    const char *v = args ? tp_json_get(args, alen, key, &vlen) : NULL;
    if (v && py_tuple(v, vlen, out, cap, at) > 0)
        return;
    *at = start;
    const char *absent = "((-1,),)";
    for (size_t k = 0; absent[k] && *at + 1 < cap; k++)
        out[(*at)++] = absent[k];
}

