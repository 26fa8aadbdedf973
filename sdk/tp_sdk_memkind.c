/* Memory kinds of copies: one vocabulary (tp_sdk_memkind.h). */
#include <ctype.h>
#include <string.h>

#include <tracepipe/tp_sdk_ext.h>
#include <tracepipe/tp_sdk_memkind.h>

static const char *const kind_words[] = {"unknown", "pageable",      "pinned",        "device",
                                         "array",   "managed",       "device_static", "managed_static"};

const char *tp_memkind_name(tp_memkind k)
{
    return (unsigned)k < sizeof kind_words / sizeof *kind_words ? kind_words[k] : kind_words[0];
}

tp_memkind tp_memkind_of_word(const char *s, size_t len)
{
    char w[32];
    size_t n = 0;
    while (len > 0 && isspace((unsigned char)s[len - 1]))
        len--;
    while (len > 0 && isspace((unsigned char)*s)) {
        s++;
        len--;
    }
    for (size_t i = 0; i < len && n + 1 < sizeof w; i++)
        w[n++] = s[i] == ' ' ? '_' : (char)tolower((unsigned char)s[i]);
    if (n == len) {
        w[n] = '\0';
        for (size_t k = 1; k < sizeof kind_words / sizeof *kind_words; k++)
            if (strcmp(w, kind_words[k]) == 0)
                return (tp_memkind)k;
    }
    return TP_MEMKIND_UNKNOWN;
}

tp_memkind tp_memkind_of_nsys(int64_t id)
{
    return id >= 0 && id <= 6 ? (tp_memkind)(id + 1) : TP_MEMKIND_UNKNOWN;
}

/* "... (Pageable -> Device)": the words around the arrow inside the last
 * parentheses; 0 when the name has none. */
static int kinds_of_name(const char *name, tp_memkind *src, tp_memkind *dst)
{
    const char *open = name ? strrchr(name, '(') : NULL;
    const char *arrow = open ? strstr(open, "->") : NULL;
    const char *close = arrow ? strchr(arrow, ')') : NULL;
    if (close == NULL)
        return 0;
    *src = tp_memkind_of_word(open + 1, (size_t)(arrow - open - 1));
    *dst = tp_memkind_of_word(arrow + 2, (size_t)(close - arrow - 2));
    return 1;
}

int tp_memkind_columns(const tp_trace *t, tp_memkind_cols *m)
{
    const void *src = NULL, *dst = NULL;
    int rc = tp_ext_column_cells(t, TP_EXT_MEMCPY_SRC_KIND, TP_COL_I64, &src);
    rc = rc ? rc : tp_ext_column_cells(t, TP_EXT_MEMCPY_DST_KIND, TP_COL_I64, &dst);
    *m = (tp_memkind_cols){src, dst, tp_trace_cols(t)->n};
    return rc;
}

/* The kind in cells at row (NULL cells: the column is absent). */
static tp_memkind ext_kind(const int64_t *cells, size_t n, size_t row)
{
    if (cells == NULL || row >= n || cells[row] == TP_EXT_NULL_I64 || cells[row] < 0 ||
        cells[row] > TP_MEMKIND_MANAGED_STATIC)
        return TP_MEMKIND_UNKNOWN;
    return (tp_memkind)cells[row];
}

int tp_memcpy_kinds_at(const tp_memkind_cols *m, size_t row, const char *name, tp_memkind *src,
                    tp_memkind *dst)
{
    *src = ext_kind(m->src, m->n, row);
    *dst = ext_kind(m->dst, m->n, row);
    if (*src != TP_MEMKIND_UNKNOWN || *dst != TP_MEMKIND_UNKNOWN)
        return 1;
    return kinds_of_name(name, src, dst);
}
