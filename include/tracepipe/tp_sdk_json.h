/*
 * JSON values without a DOM (part of the plugin SDK, tp_sdk.h): read an
 * event's args object, as tp_trace_args() gives it (raw text, not
 * NUL-terminated), one key or one array element at a time.
 *
 * Every function reads only the len bytes it is given and fails cleanly on
 * malformed text; none allocates.  A value is returned as a pointer into the
 * text and its length (surrounding whitespace trimmed).
 */
#ifndef TRACEPIPE_TP_SDK_JSON_H
#define TRACEPIPE_TP_SDK_JSON_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The raw value of `key` at the top level of the object text obj, or NULL
 * (not an object, or no such key).  Nested values are skipped by bracket
 * depth, honouring strings and escapes.  A key given twice: the LAST value
 * wins, as in most JSON parsers (Python's json, jansson). */
const char *tp_json_get(const char *obj, size_t len, const char *key, size_t *vlen);

/* Conversions of one raw value; TP_OK, or TP_EFORMAT when the text is not
 * a value of that type.  i64 takes integers only ("64", "-3"; not "6.4e1");
 * f64 any JSON number; bool true/false. */
int tp_json_i64(const char *v, size_t len, int64_t *out);
int tp_json_f64(const char *v, size_t len, double *out);

/* A double as int64 without undefined behaviour: truncated toward zero,
 * saturated at INT64_MIN / INT64_MAX, NaN as 0 (for readers taking numbers
 * a producer may write as reals). */
static inline int64_t tp_f64_to_i64(double v)
{
    if (!(v == v))
        return 0;
    if (v >= 9223372036854775807.0)
        return INT64_MAX;
    if (v <= -9223372036854775808.0)
        return INT64_MIN;
    return (int64_t)v;
}
int tp_json_bool(const char *v, size_t len, int *out);
int tp_json_is_null(const char *v, size_t len);

/* Unescapes a JSON string value ("a\"b\u00e9") into buf as UTF-8 with a
 * final NUL.  Returns its length; -1 if v is not a well-formed string;
 * a length >= size means buf was too small (it holds a truncated prefix). */
long tp_json_str(const char *v, size_t len, char *buf, size_t size);

/* Arrays, element by element, nested ones included:
 *   tp_json_iter it;
 *   if (tp_json_array(v, vlen, &it) == TP_OK)
 *       while (tp_json_next(&it, &e, &elen) == 1) ...   (e may be an array)
 * next returns 1 with an element, 0 at the end, TP_EFORMAT on malformed
 * text (then it stays at the end). */
typedef struct tp_json_iter {
    const char *s;
    size_t len, pos;
    int started;
} tp_json_iter;
int tp_json_array(const char *v, size_t len, tp_json_iter *it);
int tp_json_next(tp_json_iter *it, const char **elem, size_t *elen);

/* Objects, member by member, in text order (a key given twice: both):
 *   if (tp_json_object(v, vlen, &it) == TP_OK)
 *       while (tp_json_next_member(&it, &k, &klen, &e, &elen) == 1) ...
 * k is the key's raw string token, quotes included (tp_json_str reads it);
 * returns as tp_json_next does. */
int tp_json_object(const char *v, size_t len, tp_json_iter *it);
int tp_json_next_member(tp_json_iter *it, const char **key, size_t *klen, const char **val,
                        size_t *vlen);

#ifdef __cplusplus
}
#endif
#endif
