/* SDK: ops and kernel names (tp_sdk_trace.h, "ops" and "kernels"). */
#include <string.h>
#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk_trace.h>
#include <tracepipe/tp_sdk_vocab.h>

int tp_names_with_prefixes(tp_stage *st, const char *const *prefixes, size_t n, uint8_t **memo,
                           size_t *nmemo)
{
    size_t count = tp_str_count(st);
    uint8_t *m = tp_malloc(count ? count : 1);
    if (m == NULL)
        return TP_ENOMEM;
    for (size_t id = 0; id < count; id++) {
        const char *s = tp_str_text(st, (tp_str)id);
        m[id] = 2;
        for (size_t k = 0; s && k < n; k++)
            if (prefixes[k][0] && strncmp(s, prefixes[k], strlen(prefixes[k])) == 0)
                m[id] = 1;
    }
    *memo = m;
    *nmemo = count;
    return TP_OK;
}

/* An op candidate: a cpu op whose name is not marked (module, step). */
static int is_op(const tp_cols *c, size_t r, const uint8_t *memo, size_t nmemo)
{
    return c->kind[r] == TP_KIND_CPU_OP && !tp_name_marked(memo, nmemo, c->name[r]);
}

int32_t tp_outermost_op(const tp_cols *c, const int32_t *parent, const uint8_t *memo,
                        size_t nmemo, int32_t *top, int32_t *chain, int32_t row)
{
    /* climb to the root or to a row already answered */
    size_t n = 0;
    int32_t r = row;
    while (r >= 0 && top[r] == TP_OP_UNKNOWN) {
        chain[n++] = r;
        r = parent[r];
    }
    int32_t above = r >= 0 ? top[r] : -1; /* the answer of the first known ancestor */
    while (n > 0) { /* back down: the outermost op wins */
        int32_t x = chain[--n];
        top[x] = above >= 0 ? above : is_op(c, (size_t)x, memo, nmemo) ? x : -1;
        above = top[x];
    }
    return top[row];
}

int32_t tp_outermost_op_of(const tp_cols *c, const int32_t *parent, const uint8_t *memo,
                           size_t nmemo, int32_t row)
{
    int32_t top = -1;
    for (int32_t r = row; r >= 0; r = parent[r])
        if (is_op(c, (size_t)r, memo, nmemo))
            top = r;
    return top;
}

void tp_outermost_ops(const tp_cols *c, const int32_t *parent, const uint8_t *memo, size_t nmemo,
                      int32_t *top, int32_t *chain)
{
    for (size_t i = 0; i < c->n; i++)
        top[i] = TP_OP_UNKNOWN;
    for (size_t i = 0; i < c->n; i++)
        tp_outermost_op(c, parent, memo, nmemo, top, chain, (int32_t)i);
}

tp_kernel_class tp_kernel_class_of(const char *s)
{
    return tp_vocab_kernel_class(tp_vocab_builtin(), TP_KIND_OTHER, s);
}

const char *tp_kernel_class_name(tp_kernel_class k)
{
    static const char *const names[] = {"computation", "communication", "memory", "other"};
    return (unsigned)k < 4 ? names[k] : "other";
}

const char *tp_kernel_legend_seed(const char *name, char *buf)
{
    static const char *const legend[][2] = {
        {"gemm", "gemm"}, {"gemv", "gemv"}, {"Memset", "Memset"}, {"Memcpy", "Memcpy"},
        {"vectorized_elementwise", "elwt"}, {"unrolled_elementwise", "permute"},
        {"embedding_forward", "ELF"}, {"embedding_backward", "ELB"}, {"splitK", "splitK"},
        {"reduce_kernel", "reduce"}, {"CatArray", "CatCopy"}, {"indexing", "IdxBwd"}};
    for (size_t i = 0; i < sizeof legend / sizeof legend[0]; i++)
        if (strstr(name, legend[i][0]))
            return legend[i][1];
    size_t n = strlen(name);
    n = n < 8 ? n : 8;
    memcpy(buf, name, n);
    buf[n] = '\0';
    return buf;
}

size_t tp_kernel_short_name(const char *s, size_t *from)
{
    size_t len = strlen(s);
    const char *lt = memchr(s, '<', len);
    if (lt)
        len = (size_t)(lt - s);
    while (len > 0 && s[len - 1] == ' ')
        len--;
    *from = 0;
    for (size_t i = 0; i + 1 < len; i++)
        if (s[i] == ':' && s[i + 1] == ':')
            *from = i + 2;
    return len - *from;
}

tp_str tp_kernel_short_id(tp_stage *st, tp_str name, tp_str *memo, size_t nmemo)
{
    if (name >= nmemo)
        return name;
    if (memo[name] == 0) {
        const char *s = tp_str_text(st, name);
        size_t from = 0, len = s ? tp_kernel_short_name(s, &from) : 0;
        tp_str id = len > 0 ? tp_intern(st, s + from, len) : name;
        memo[name] = (id != TP_STR_ERROR ? id : name) + 1;
    }
    return memo[name] - 1;
}
