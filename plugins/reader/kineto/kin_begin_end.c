/*
 * kineto reader: "B" and "E" events paired per thread (pid, tid) into
 * complete events; a "B" waits, with a copy of its args, for its "E".
 * Unmatched ones are kept as they are at the end of the file.
 */
#include <string.h>

#include "kin.h"

struct kin_pend {
    tp_event ev;
    char *args; /* own copy, or NULL */
    int closed; /* matched by its "E" (args freed then) */
};

/* The open "B" events of one thread, innermost last: each "E" finds its
 * "B" here in O(1), however many threads have open ones. */
struct kin_open {
    int used;
    int64_t pid, tid;
    size_t *idx; /* indices into kp->pend */
    size_t n, cap;
};

static size_t thread_hash(int64_t pid, int64_t tid)
{
    uint64_t h = (uint64_t)pid * 0x9E3779B97F4A7C15u ^ (uint64_t)tid * 0xC2B2AE3D27D4EB4Fu;
    return (size_t)(h ^ (h >> 29));
}

/* The stack of (pid, tid), created if absent; NULL on ENOMEM. */
static struct kin_open *open_stack(kin_parser *kp, int64_t pid, int64_t tid, int create);

static int grow_open(kin_parser *kp)
{
    size_t n = kp->n_open_slots ? kp->n_open_slots * 2 : 16;
    struct kin_open *t = tp_calloc(n, sizeof *t), *old = kp->open;
    if (t == NULL)
        return TP_ENOMEM;
    size_t old_n = kp->n_open_slots;
    kp->open = t;
    kp->n_open_slots = n;
    for (size_t i = 0; i < old_n; i++) {
        if (!old[i].used)
            continue;
        size_t j = thread_hash(old[i].pid, old[i].tid) & (n - 1);
        while (t[j].used)
            j = (j + 1) & (n - 1);
        t[j] = old[i];
    }
    tp_free(old);
    return TP_OK;
}

static struct kin_open *open_stack(kin_parser *kp, int64_t pid, int64_t tid, int create)
{
    if (kp->n_open_slots == 0) {
        if (!create || grow_open(kp) != TP_OK)
            return NULL;
    }
    size_t mask = kp->n_open_slots - 1, j = thread_hash(pid, tid) & mask;
    while (kp->open[j].used && (kp->open[j].pid != pid || kp->open[j].tid != tid))
        j = (j + 1) & mask;
    if (kp->open[j].used || !create)
        return kp->open[j].used ? &kp->open[j] : NULL;
    kp->open[j].used = 1;
    kp->open[j].pid = pid;
    kp->open[j].tid = tid;
    kp->n_open_used++;
    if (kp->n_open_used * 2 > kp->n_open_slots) {
        if (grow_open(kp) != TP_OK)
            return NULL;
        return open_stack(kp, pid, tid, 0);
    }
    return &kp->open[j];
}

static int stack_push(struct kin_open *o, size_t idx)
{
    if (o->n == o->cap) {
        size_t cap = o->cap ? o->cap * 2 : 8;
        size_t *a = tp_realloc(o->idx, cap * sizeof *a);
        if (a == NULL)
            return TP_ENOMEM;
        o->idx = a;
        o->cap = cap;
    }
    o->idx[o->n++] = idx;
    return TP_OK;
}

/* Drops closed entries from pend (keeping file order) once they are the
 * majority, and renumbers the stacks: amortised O(1) per event. */
static int compact_pend(kin_parser *kp)
{
    if (kp->n_pend < 64 || kp->n_closed * 2 <= kp->n_pend)
        return TP_OK;
    size_t k = 0;
    for (size_t i = 0; i < kp->n_pend; i++)
        if (!kp->pend[i].closed)
            kp->pend[k++] = kp->pend[i];
    kp->n_pend = k;
    kp->n_closed = 0;
    for (size_t i = 0; i < kp->n_open_slots; i++)
        kp->open[i].n = 0;
    for (size_t i = 0; i < kp->n_pend; i++) { /* file order = nesting order */
        struct kin_open *o = open_stack(kp, kp->pend[i].ev.pid, kp->pend[i].ev.tid, 1);
        if (o == NULL || stack_push(o, i) != TP_OK)
            return TP_ENOMEM;
    }
    return TP_OK;
}

int kin_begin_event(kin_parser *kp, const tp_event *ev, const char *args, size_t args_len)
{
    if (kp->n_pend == kp->cap_pend) {
        size_t cap = kp->cap_pend ? kp->cap_pend * 2 : 16;
        kin_pend *a = tp_realloc(kp->pend, cap * sizeof *a);
        if (!a)
            return TP_ENOMEM;
        kp->pend = a;
        kp->cap_pend = cap;
    }
    kin_pend *b = &kp->pend[kp->n_pend];
    b->ev = *ev;
    b->args = NULL;
    b->closed = 0;
    if (args && kp->keep_args) {
        if (!(b->args = tp_malloc(args_len)))
            return TP_ENOMEM;
        memcpy(b->args, args, args_len);
        b->ev.args_len = args_len;
    } else {
        b->ev.args_len = 0;
    }
    struct kin_open *o = open_stack(kp, ev->pid, ev->tid, 1);
    if (o == NULL || stack_push(o, kp->n_pend) != TP_OK) {
        tp_free(b->args);
        return TP_ENOMEM;
    }
    kp->n_pend++;
    return TP_OK;
}

/* Closes the innermost open "B" of the same pid/tid. */
int kin_end_event(kin_parser *kp, const tp_event *end_ev, const char *args, size_t args_len,
                  uint64_t line, uint64_t col)
{
    struct kin_open *o = open_stack(kp, end_ev->pid, end_ev->tid, 0);
    if (o == NULL || o->n == 0) {
        kp->n_unmatched_e++;
        return TP_OK;
    }
    kin_pend *open_b = &kp->pend[o->idx[--o->n]];
    kin_pend b = *open_b;
    open_b->closed = 1;
    open_b->args = NULL; /* freed below, with the copy */
    kp->n_closed++;
    int rc = TP_OK;
    int early = end_ev->ts < b.ev.ts;
    if (early || (b.ev.ts < 0 && end_ev->ts > INT64_MAX + b.ev.ts)) {
        if (!kp->skip_bad)
            rc = tp_fail(kp->st, TP_EFORMAT, "%s:%llu:%llu: %s", kp->path,
                         (unsigned long long)line, (unsigned long long)col,
                         early ? "\"E\" event ends before its \"B\""
                               : "\"E\" event is more than int64 nanoseconds after its \"B\"");
        else
            kp->n_dropped[early ? KIN_DROP_NEGDUR : KIN_DROP_RANGE]++;
    } else {
        tp_event ev = b.ev;
        ev.phase = 'X';
        ev.dur = end_ev->ts - b.ev.ts;
        if (!ev.name)
            ev.name = end_ev->name;
        if (b.args)
            rc = kin_event_append(kp, &ev, b.args, b.ev.args_len);
        else
            rc = kin_event_append(kp, &ev, args, args_len);
    }
    tp_free(b.args);
    if (rc == TP_OK)
        rc = compact_pend(kp);
    return rc;
}

int kin_events_finish(kin_parser *kp)
{
    /* Unmatched "B" events stay as they are: phase 'B', no duration. */
    for (size_t i = 0; i < kp->n_pend; i++) {
        kin_pend *b = &kp->pend[i];
        if (b->closed)
            continue;
        kp->n_unmatched_b++;
        int rc = kin_event_append(kp, &b->ev, b->args, b->ev.args_len);
        if (rc != TP_OK)
            return rc;
    }
    return TP_OK;
}

void kin_events_free(kin_parser *kp)
{
    for (size_t i = 0; i < kp->n_pend; i++)
        tp_free(kp->pend[i].args); /* NULL once closed */
    tp_free(kp->pend);
    kp->pend = NULL;
    kp->n_pend = kp->cap_pend = kp->n_closed = 0;
    for (size_t i = 0; i < kp->n_open_slots; i++)
        tp_free(kp->open[i].idx);
    tp_free(kp->open);
    kp->open = NULL;
    kp->n_open_slots = kp->n_open_used = 0;
    tp_free(kp->cat_kind);
    kp->cat_kind = NULL;
}
