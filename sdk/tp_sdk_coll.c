/* SDK: collective calls (tp_sdk_coll.h): the one matcher across ranks,
 * NCCL's bus bandwidth factors, dtype sizes. */
#include <tracepipe/tp_sdk_coll.h>

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk_hier.h>
#include <tracepipe/tp_sdk_sort.h>
#include <tracepipe/tp_sdk_json.h>
#include <tracepipe/tp_sdk_stats.h>
#include <tracepipe/tp_types.h>

typedef struct coll_tuple {
    uint64_t key;
    uint32_t seq, rank, call;
} coll_tuple;

static int by_key_then_call(const void *a, const void *b, void *ctx)
{
    (void)ctx;
    const coll_tuple *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    if (x->seq != y->seq)
        return x->seq < y->seq ? -1 : 1;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return (x->call > y->call) - (x->call < y->call);
}

/* Every call of every rank as (key, call), sorted by key then call, with
 * its sequence number within (rank, key) set; then sorted by (key, seq,
 * rank): a matched collective is a run of equal (key, seq). */
static coll_tuple *coll_tuples(const tp_coll_rank *r, size_t nr, size_t *n)
{
    size_t total = 0;
    for (size_t i = 0; i < nr; i++)
        total += r[i].n;
    coll_tuple *t = malloc((total ? total : 1) * sizeof *t);
    if (t == NULL)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < nr; i++) {
        size_t from = k;
        for (size_t j = 0; j < r[i].n; j++)
            t[k++] = (coll_tuple){r[i].key ? r[i].key[j] : 0, 0, (uint32_t)i, (uint32_t)j};
        if (tp_sort(t + from, k - from, sizeof *t, by_key_then_call, NULL) != TP_OK) {
            free(t);
            return NULL;
        }
        for (size_t j = from + 1; j < k; j++)
            t[j].seq = t[j].key == t[j - 1].key ? t[j - 1].seq + 1 : 0;
    }
    if (tp_sort(t, total, sizeof *t, by_key_then_call, NULL) != TP_OK) {
        free(t);
        return NULL;
    }
    *n = total;
    return t;
}

static int coll_alloc(tp_coll_match *m, size_t nr, size_t total)
{
    m->nranks = nr;
    m->first = malloc((total + 1) * sizeof *m->first);
    m->member = malloc((total ? total : 1) * sizeof *m->member);
    m->key = malloc((total ? total : 1) * sizeof *m->key);
    m->seq = malloc((total ? total : 1) * sizeof *m->seq);
    m->offset_hns = calloc(nr ? nr : 1, sizeof *m->offset_hns);
    m->arrival_hns = malloc((total ? total : 1) * sizeof *m->arrival_hns);
    m->latest_hns = malloc((total ? total : 1) * sizeof *m->latest_hns);
    m->earliest_hns = malloc((total ? total : 1) * sizeof *m->earliest_hns);
    m->latest = malloc((total ? total : 1) * sizeof *m->latest);
    return m->first && m->member && m->key && m->seq && m->offset_hns && m->arrival_hns &&
                   m->latest_hns && m->earliest_hns && m->latest
               ? TP_OK
               : TP_ENOMEM;
}

/* Each rank's offset: the median of its ends minus rank 0's over the sets
 * both are in (rank 0 is a set's first member when it is in it).  One pass
 * over the sets gathers every rank's differences (d, rank by rank from
 * at[r]): linear in the members, not ranks x members. */
static int coll_offsets(const tp_coll_rank *r, tp_coll_match *m)
{
    size_t total = m->first[m->nsets], nr = m->nranks;
    double *d = malloc((total ? total : 1) * sizeof *d), median;
    size_t *at = calloc(nr + 1, sizeof *at), *fill = calloc(nr + 1, sizeof *fill);
    int rc = d && at && fill ? TP_OK : TP_ENOMEM;
    for (int pass = 0; rc == TP_OK && pass < 2; pass++) {
        for (size_t s = 0; s < m->nsets; s++) {
            const tp_coll_member *a = &m->member[m->first[s]];
            for (size_t j = 1; a[0].rank == 0 && j < tp_coll_set_size(m, s); j++) {
                if (pass == 0)
                    at[a[j].rank + 1]++;
                else
                    d[at[a[j].rank] + fill[a[j].rank]++] =
                        (double)(r[a[j].rank].end[a[j].call] - r[0].end[a[0].call]);
            }
        }
        for (size_t i = 1; pass == 0 && i <= nr; i++)
            at[i] += at[i - 1];
    }
    for (size_t i = 1; rc == TP_OK && i < nr; i++) {
        size_t n = at[i + 1] - at[i];
        rc = tp_median_of(d + at[i], n, &median);
        m->offset_hns[i] = rc == TP_OK && n ? (int64_t)llround(2 * median) : 0;
    }
    free(d);
    free(at);
    free(fill);
    return rc;
}

static void coll_arrivals(const tp_coll_rank *r, tp_coll_match *m)
{
    for (size_t s = 0; s < m->nsets; s++) {
        int64_t lo = INT64_MAX, hi = INT64_MIN;
        m->latest[s] = m->first[s];
        for (size_t k = m->first[s]; k < m->first[s + 1]; k++) {
            const tp_coll_member *a = &m->member[k];
            int64_t t = 2 * r[a->rank].start[a->call] - m->offset_hns[a->rank];
            m->arrival_hns[k] = t;
            lo = t < lo ? t : lo;
            if (t > hi) {
                hi = t;
                m->latest[s] = k;
            }
        }
        m->earliest_hns[s] = lo;
        m->latest_hns[s] = hi;
    }
}

int tp_coll_match_ranks(const tp_coll_rank *ranks, size_t nranks, tp_coll_match *m)
{
    memset(m, 0, sizeof *m);
    size_t total = 0;
    coll_tuple *t = coll_tuples(ranks, nranks, &total);
    if (t == NULL || coll_alloc(m, nranks, total) != TP_OK) {
        free(t);
        tp_coll_match_free(m);
        return TP_ENOMEM;
    }
    for (size_t k = 0; k < total; k++) {
        if (k == 0 || t[k].key != t[k - 1].key || t[k].seq != t[k - 1].seq) {
            m->first[m->nsets] = k;
            m->key[m->nsets] = t[k].key;
            m->seq[m->nsets++] = t[k].seq;
        }
        m->member[k] = (tp_coll_member){t[k].rank, t[k].call};
    }
    m->first[m->nsets] = total;
    free(t);
    if (coll_offsets(ranks, m) != TP_OK) {
        tp_coll_match_free(m);
        return TP_ENOMEM;
    }
    coll_arrivals(ranks, m);
    return TP_OK;
}

void tp_coll_match_free(tp_coll_match *m)
{
    free(m->first);
    free(m->member);
    free(m->key);
    free(m->seq);
    free(m->offset_hns);
    free(m->arrival_hns);
    free(m->latest_hns);
    free(m->earliest_hns);
    free(m->latest);
    memset(m, 0, sizeof *m);
}

uint64_t tp_coll_key(const char *group, tp_coll_type type)
{
    uint64_t h = 1469598103934665603ull;
    for (const char *p = group; p && *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ull;
    return (h ^ (uint64_t)type) * 1099511628211ull;
}

/* The "Process Group Name" of row r into buf; 1 when it says one. */
static int group_arg(const tp_trace *t, int32_t r, char *buf, size_t size)
{
    size_t len = 0, vlen;
    const char *a = tp_trace_args(t, (size_t)r, &len);
    const char *v = a ? tp_json_get(a, len, "Process Group Name", &vlen) : NULL;
    if (v == NULL || tp_json_is_null(v, vlen))
        return 0;
    if (tp_json_str(v, vlen, buf, size) < 0)
        snprintf(buf, size, "%.*s", (int)(vlen < size ? vlen : size - 1), v);
    return 1;
}

/* The communicator id of row r's NCCL payload into buf; 1 when it has one. */
static int payload_comm(const tp_trace *t, int32_t r, char *buf, size_t size)
{
    size_t len = 0;
    const char *a = tp_trace_args(t, (size_t)r, &len);
    tp_coll_payload p;
    if (a == NULL || !tp_coll_payload_read(a, len, &p) || p.comm[0] == '\0')
        return 0;
    snprintf(buf, size, "%s", p.comm);
    return 1;
}

/* Row x's parent from whichever view is given (w wide, else cv compact). */
static int32_t up(const tp_hier_view *w, const tp_hier_cview *cv, int32_t x)
{
    return w != NULL ? w->parent[x] : tp_hier_parent(cv, x);
}

/* tp_coll_group_of on either view: w wide, else cv compact. */
static int group_of(const tp_trace *t, const tp_hier_view *w, const tp_hier_cview *cv,
                    int32_t a, char *buf, size_t size)
{
    if (size == 0)
        return 0;
    buf[0] = '\0';
    if (group_arg(t, a, buf, size))
        return 1;
    int32_t l = w != NULL ? w->launcher[a] : tp_hier_launcher(cv, a);
    for (int32_t x = l; x >= 0; x = up(w, cv, x))
        if (group_arg(t, x, buf, size))
            return 1;
    for (int32_t x = l; x >= 0; x = up(w, cv, x))
        if (payload_comm(t, x, buf, size))
            return 1;
    buf[0] = '\0';
    return 0;
}

int tp_coll_group_of(const tp_trace *t, const struct tp_hier_view *h, int32_t a, char *buf,
                     size_t size)
{
    return group_of(t, h, NULL, a, buf, size);
}

int tp_coll_group_of_ranked(const tp_trace *t, const struct tp_hier_cview *h, int32_t a,
                            char *buf, size_t size)
{
    return group_of(t, NULL, h, a, buf, size);
}

double tp_coll_busbw_factor(tp_coll_type t, int64_t n)
{
    if (n < 1)
        return NAN;
    switch (t) {
    case TP_COLL_ALL_REDUCE:
        return 2.0 * (double)(n - 1) / (double)n;
    case TP_COLL_ALL_GATHER:
    case TP_COLL_REDUCE_SCATTER:
    case TP_COLL_ALL_TO_ALL:
        return (double)(n - 1) / (double)n;
    case TP_COLL_BROADCAST:
    case TP_COLL_REDUCE:
    case TP_COLL_SEND_RECV:
        return 1.0;
    default:
        return NAN;
    }
}

/* The one table of element sizes: PyTorch's dtype names as traces write
 * them ("Input type": "float", "c10::BFloat16", "long int", "unsigned
 * char"; record_param_comms' "dtype": "Float", "Long", "Char", "Byte"),
 * lower case, without "c10::".  A packed FP4 pair (Float4_e2m1fn_x2) is
 * one byte per element of the tensor's shape. */
double tp_dtype_bpe(const char *dtype)
{
    static const struct {
        const char *name;
        double bytes;
    } sizes[] = {
        {"float", 4},    {"float32", 4}, {"int", 4},      {"int32", 4},     {"uint32", 4},
        {"unsigned int", 4}, {"half", 2}, {"float16", 2}, {"bfloat16", 2}, {"short", 2},
        {"short int", 2}, {"int16", 2},  {"uint16", 2},   {"unsigned short", 2},
        {"double", 8},   {"float64", 8}, {"long", 8},     {"int64", 8},     {"long int", 8},
        {"uint64", 8},   {"char", 1},    {"int8", 1},     {"byte", 1},      {"uint8", 1},
        {"signed char", 1}, {"unsigned char", 1}, {"bool", 1}, {"complexfloat", 8},
        {"complexdouble", 16}, {"complexhalf", 4}, {"complex<float>", 8},
        {"complex<double>", 16}, {"complex<c10::half>", 4},
    };
    char t[64];
    size_t n = 0;
    if (dtype == NULL)
        return 0;
    if (strncmp(dtype, "c10::", 5) == 0)
        dtype += 5;
    for (; dtype[n] && n + 1 < sizeof t; n++)
        t[n] = (char)tolower((unsigned char)dtype[n]);
    t[n] = '\0';
    if (strncmp(t, "float8", 6) == 0 || strncmp(t, "float4_e2m1fn_x2", 16) == 0)
        return 1;
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
        if (strcmp(t, sizes[i].name) == 0)
            return sizes[i].bytes;
    return 0;
}

/* ------------------------------------------------------ NCCL's NVTX payloads */

int64_t tp_coll_arg_count(const char *args, size_t len, const char *key)
{
    size_t vlen;
    const char *v = tp_json_get(args, len, key, &vlen);
    double d;
    if (v == NULL || tp_json_f64(v, vlen, &d) != TP_OK || !(d >= 0))
        return -1;
    return tp_f64_to_i64(d);
}

/* A string or number value of key into buf ("" when absent). */
static void payload_text(const char *args, size_t len, const char *key, char *buf, size_t size)
{
    size_t vlen;
    const char *v = tp_json_get(args, len, key, &vlen);
    buf[0] = '\0';
    if (v == NULL || tp_json_is_null(v, vlen) || tp_json_str(v, vlen, buf, size) >= 0)
        return;
    if (vlen < size && (v[0] == '-' || (v[0] >= '0' && v[0] <= '9'))) {
        memcpy(buf, v, vlen);
        buf[vlen] = '\0';
    }
}

int tp_coll_payload_read(const char *args, size_t len, tp_coll_payload *p)
{
    p->msg_bytes = args ? tp_coll_arg_count(args, len, "Message size [bytes]") : -1;
    p->nranks = args ? tp_coll_arg_count(args, len, "No. of ranks") : -1;
    p->comm[0] = p->dtype[0] = '\0';
    if (p->msg_bytes < 0 && p->nranks < 0)
        return 0;
    payload_text(args, len, "NCCL communicator ID", p->comm, sizeof p->comm);
    payload_text(args, len, "Datatype", p->dtype, sizeof p->dtype);
    return 1;
}

int tp_dtype_bytes(const char *dtype)
{
    return (int)tp_dtype_bpe(dtype);
}
