/*
 * Streaming stages of a batch run side by side, each trace read once for
 * all of them (issue 31).  `ranks` then a merged `chrome_trace`, each
 * streaming its traces (TP_STAGE_F_STREAM), would read every trace twice
 * when run one after the other.  Here consecutive streaming stages that do
 * not use each other's results (nor those of a stage they would overtake)
 * form a group: each member runs in a thread of its own, but only one runs
 * at a time (the group's lock is the baton), and a member that asks for a
 * trace other than the one read waits; when every member waits, the core
 * frees that trace and reads the one the earliest asks for (lowest slot),
 * so members asking in the same order (0, 1, 2, ...) share every read.
 * Members still see one trace at a time, in the order they ask, as when
 * alone: outputs are the same bytes.  A member completes its outputs only
 * once the members before it are done (tp_run_group_end), and only when
 * the loop reaches its place: until then they keep their temporary names
 * (tp_run_group_hold).  Stages a member overtook (a writer of the first
 * member's results) run after the group, at their place; a failure is
 * reported at the failing stage's place, members after it stop at their
 * next request (their outputs not completed), and the held outputs of
 * those past a failed overtaken stage are removed (tp_run_groups_discard):
 * the run leaves the files a run of one stage after the other would.
 */
#include "tp_loader.h"
#include "tp_pipeline.h"
#include "tp_run.h"
#include "tp_schema.h"
#include "tp_trace.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

/* What a stage run ahead of its place left for its turn in the loop: its
 * status and message, and its outputs still under their temporary names
 * (completed there, or removed when the loop stops before). */
struct tp_run_ran {
    bool ran;
    int rc;
    char error[1024];
    tp_output *held;
    size_t n_held;
};

enum { M_READY, M_RUNNING, M_WAITING, M_ENDING, M_DONE };

typedef struct member {
    struct tp_run_group *g;
    size_t index;      /* its pipeline stage */
    bool no_inputs;    /* an overlay writer whose implicit inputs are tables */
    tp_stage st;
    pthread_t thread;
    int state;
    size_t want;       /* the slot it waits for */
    size_t had;        /* slot + 1 it was given last; 0: none */
    int rc;
    tp_output *held;   /* its outputs, not completed yet (tp_run_group_hold) */
    size_t n_held;
} member;

struct tp_run_group {
    tp_run *run;
    tp_pipeline *p;
    pthread_mutex_t lock; /* held by whichever member runs (or the core) */
    pthread_cond_t turn_changed;
    member *m;
    size_t n;
    size_t turn;       /* the member that runs; n: the core */
    size_t loaded;     /* slot + 1 read for the group; 0: none */
    int read_rc;       /* how reading it went */
    bool read_here;    /* the group read it (else an earlier stage holds it: kept) */
    size_t failed;     /* the first failed member's pipeline index + 1; 0: none */
};

/* ------------------------------------------------------------ planning */

static bool skipped(const tp_run *run, const pstage *s)
{
    return (s->batch && run->opts.skip_batch) ||
           (s->kind == TP_STAGE_WRITER && run->opts.skip_writers);
}

/* A streaming stage with at least one trace read late (a batch's). */
static bool streams_late(tp_run *run, const pstage *s)
{
    if (!(s->desc->flags & TP_STAGE_F_STREAM) || s->deferred)
        return false;
    for (size_t t = 0; t < s->n_traces; t++) {
        tp_run_slot *slot = tp_run_slot_of(run, s->traces[t]);
        if (slot != NULL && slot->reader != NULL)
            return true;
    }
    return false;
}

/* Whether result id a and stage or input name b can name the same results. */
static bool names_meet(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    size_t l = la < lb ? la : lb;
    return strncmp(a, b, l) == 0 && (a[l] == '\0' || a[l] == '.') && (b[l] == '\0' || b[l] == '.');
}

static bool declares_overlay(const tp_result_decl *d)
{
    static const char *const kinds[] = {"flow", "counter", "arg"}; /* CONVENTIONS */
    for (; d && d->name; d++)
        for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++)
            if (d->kind && strcmp(d->kind, kinds[k]) == 0)
                return true;
    return false;
}

/* Stage s makes results, as far as we can tell; *tables: all of them
 * declared and none of an overlay kind (its required analyses' too). */
static bool makes_results(const pstage *s, bool *tables)
{
    *tables = false;
    if (s->kind == TP_STAGE_WRITER)
        return false;
    const tp_result_decl *d = tp_schema_of(s->desc, s->config);
    if (d == NULL)
        return true; /* it does not say */
    bool overlay = declares_overlay(d);
    for (size_t q = 0; q < s->n_reqs; q++)
        overlay |= declares_overlay(tp_schema_of(s->reqs[q].desc, s->reqs[q].config));
    *tables = !overlay;
    return true;
}

/* Whether stage j may run beside the stages from i on, before them; its
 * implicit inputs (a writer without `input:`) then are none, when the
 * stage it would take them from makes tables only and it uses overlays. */
static bool independent(tp_run *run, const tp_pipeline *p, size_t i, size_t j, bool *no_inputs)
{
    const pstage *sj = &p->stages[j];
    *no_inputs = false;
    if (sj->inputs_given) {
        for (size_t k = i; k < j; k++)
            for (size_t q = 0; q < sj->n_inputs; q++)
                if (!skipped(run, &p->stages[k]) && names_meet(sj->inputs[q], p->stages[k].id))
                    return false;
        return true;
    }
    if (sj->kind != TP_STAGE_WRITER)
        return true;
    for (size_t k = j; k-- > i;) {
        bool tables;
        if (skipped(run, &p->stages[k]) || !makes_results(&p->stages[k], &tables))
            continue;
        if (!tables || !(sj->desc->flags & TP_STAGE_F_OVERLAYS))
            return false;
        *no_inputs = true;
        return true;
    }
    return true; /* takes results made before the group */
}

/* The members of a group that starts at stage i (i itself first). */
static size_t plan(tp_run *run, const tp_pipeline *p, size_t i, member *m)
{
    size_t n = 0;
    if (!streams_late(run, &p->stages[i]))
        return 0;
    m[n++].index = i;
    for (size_t j = i + 1; j < p->n; j++) {
        const pstage *s = &p->stages[j];
        if (skipped(run, s))
            continue;
        if (s->kind == TP_STAGE_FILTER || (s->kind == TP_STAGE_READER &&
                                           !(s->desc->flags & TP_STAGE_F_NO_TRACE)))
            break; /* the traces change there */
        bool no_inputs;
        if (streams_late(run, s) && independent(run, p, i, j, &no_inputs)) {
            m[n].index = j;
            m[n++].no_inputs = no_inputs;
        }
    }
    return n;
}

/* ------------------------------------------------------------ running */

static void hand_over(struct tp_run_group *g, size_t to)
{
    g->turn = to;
    pthread_cond_broadcast(&g->turn_changed);
}

static void wait_turn(struct tp_run_group *g, size_t me)
{
    while (g->turn != me)
        pthread_cond_wait(&g->turn_changed, &g->lock);
}

/* The loaded trace freed: a member that had it fails if its file changed
 * meanwhile, and every waiting member's pointers follow. */
static void free_loaded(struct tp_run_group *g)
{
    if (g->loaded == 0)
        return;
    size_t k = g->loaded - 1;
    g->loaded = 0;
    if (!g->read_here || !g->run->traces[k].loaded)
        return;
    char why[1024];
    tp_run_slot_husk(g->run, k, why, sizeof why);
    for (size_t q = 0; q < g->n; q++) {
        member *m = &g->m[q];
        if (m->state != M_WAITING && m->state != M_ENDING)
            continue;
        if (why[0] && m->had == k + 1 && m->st.error_code == 0) {
            snprintf(m->st.error, sizeof m->st.error, "%s", why);
            m->st.error_code = TP_EIO;
        }
        tp_run_stage_rebind(&m->st);
    }
}

static bool cancelled(const struct tp_run_group *g, const member *m)
{
    return g->failed != 0 && g->failed - 1 < m->index;
}

static bool earlier_done(const struct tp_run_group *g, size_t q)
{
    while (q-- > 0)
        if (g->m[q].state != M_DONE)
            return false;
    return true;
}

/* Called by the member giving up the baton (waiting or done): the next to
 * run, reading the trace the waiting members ask for when none can run. */
static void schedule(struct tp_run_group *g)
{
    size_t lowest = (size_t)-1, first = g->n;
    for (size_t q = 0; q < g->n; q++) {
        member *m = &g->m[q];
        if (m->state == M_WAITING && (m->want + 1 == g->loaded || cancelled(g, m))) {
            hand_over(g, q);
            return;
        }
        if (m->state == M_READY || (m->state == M_ENDING && earlier_done(g, q))) {
            hand_over(g, q);
            return;
        }
        if (m->state == M_WAITING && m->want < lowest) {
            lowest = m->want;
            first = q;
        }
    }
    if (first == g->n) {
        hand_over(g, g->n); /* all done */
        return;
    }
    free_loaded(g);
    g->loaded = lowest + 1;
    /* a trace an earlier stage holds is used as it is, never read again */
    g->read_here = !g->run->traces[lowest].loaded;
    g->read_rc = g->read_here ? tp_run_slot_read(g->run, lowest) : TP_OK;
    /* the read may have replaced a slot's trace: every member that waits
     * or ends follows it, not only those free_loaded saw */
    for (size_t q = 0; q < g->n; q++)
        if (g->m[q].state == M_WAITING || g->m[q].state == M_ENDING)
            tp_run_stage_rebind(&g->m[q].st);
    hand_over(g, first);
}

int tp_run_group_trace(tp_stage *st, size_t k)
{
    struct tp_run_group *g = st->group;
    member *m = &g->m[st->member];
    if (g->loaded != k + 1 && !cancelled(g, m)) {
        m->state = M_WAITING;
        m->want = k;
        schedule(g);
        wait_turn(g, st->member);
        m->state = M_RUNNING;
    }
    int rc = TP_OK;
    if (cancelled(g, m)) {
        snprintf(st->error, sizeof st->error, "not run: an earlier stage failed");
        rc = TP_ERR;
    } else if (g->read_rc != TP_OK || !g->run->traces[k].loaded) {
        snprintf(st->error, sizeof st->error, "trace '%s' could not be read (above)",
                 g->run->traces[k].id);
        rc = g->read_rc != TP_OK ? g->read_rc : TP_ERR;
    } else {
        m->had = k + 1;
        if ((rc = tp_run_slot_reqs(g->run, k, st->ps)) != TP_OK)
            snprintf(st->error, sizeof st->error, "trace '%s' could not be read (above)",
                     g->run->traces[k].id);
    }
    if (rc != TP_OK && st->error_code == 0)
        st->error_code = rc;
    tp_run_stage_rebind(st);
    return rc;
}

int tp_run_group_end(tp_stage *st, int rc)
{
    struct tp_run_group *g = st->group;
    member *m = &g->m[st->member];
    m->state = M_ENDING;
    schedule(g);
    wait_turn(g, st->member);
    m->state = M_RUNNING;
    tp_run_stage_rebind(st); /* slots may have been read or freed meanwhile */
    if (!cancelled(g, m))
        return rc;
    snprintf(st->error, sizeof st->error, "not run: an earlier stage failed");
    return st->error_code = TP_ERR;
}

void tp_run_group_hold(tp_stage *st)
{
    member *m = &st->group->m[st->member];
    m->held = st->outputs;
    m->n_held = st->n_outputs;
    st->outputs = NULL;
    st->n_outputs = 0;
}

/* One member's stage, as tp_pipeline_run runs one. */
static int run_member(struct tp_run_group *g, member *m)
{
    tp_run *run = g->run;
    const pstage *s = &g->p->stages[m->index];
    run->has_rank_hint = s->has_rank_hint || run->opts.has_rank_hint;
    run->rank_hint = s->has_rank_hint ? s->rank_hint : run->opts.rank_hint;
    m->st.ps = s;
    m->st.group = g;
    m->st.member = (size_t)(m - g->m);
    int rc = TP_OK;
    if (m->no_inputs)
        m->st.inputs = calloc(1, sizeof *m->st.inputs);
    else
        rc = tp_run_resolve_inputs(run, g->p, m->index, &m->st);
    if (rc == TP_OK && m->st.inputs == NULL)
        rc = TP_ENOMEM;
    if (rc == TP_OK)
        rc = tp_run_exec_stage(run, s->desc, s->id, s->config, &m->st, tp_stage_kind_name(s->kind),
                               s->traces, s->n_traces);
    free(m->st.inputs);
    m->st.inputs = NULL;
    return rc;
}

static void *member_main(void *arg)
{
    member *m = arg;
    struct tp_run_group *g = m->g;
    size_t me = (size_t)(m - g->m);
    pthread_mutex_lock(&g->lock);
    wait_turn(g, me);
    m->state = M_RUNNING;
    m->rc = cancelled(g, m) ? TP_ERR : run_member(g, m);
    if (m->rc != TP_OK && (g->failed == 0 || m->index < g->failed - 1))
        g->failed = m->index + 1;
    m->state = M_DONE;
    schedule(g);
    pthread_mutex_unlock(&g->lock);
    return NULL;
}

/* The members' stacks: as large as the main thread's (plugins recurse as
 * deep there), at least 8 MiB. */
static size_t stack_size(void)
{
    struct rlimit rl;
    size_t want = (size_t)8 << 20;
    if (getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
        rl.rlim_cur > want && rl.rlim_cur <= ((rlim_t)1 << 30))
        want = (size_t)rl.rlim_cur;
    return want;
}

/* Runs the members; signals stay with the main thread. */
static int run_group(struct tp_run_group *g)
{
    pthread_attr_t attr;
    sigset_t all, old;
    size_t started = 0;
    if (pthread_attr_init(&attr) != 0)
        return TP_ENOMEM;
    pthread_attr_setstacksize(&attr, stack_size());
    sigfillset(&all);
    /* faults stay with the thread that makes them: tp_guard's SIGBUS handler
     * turns a trace truncated under its mapping into an error (a blocked
     * synchronous signal would kill the process) */
    static const int synchronous[] = {SIGBUS, SIGSEGV, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS};
    for (size_t k = 0; k < sizeof synchronous / sizeof synchronous[0]; k++)
        sigdelset(&all, synchronous[k]);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    pthread_mutex_lock(&g->lock);
    g->turn = g->n;
    for (; started < g->n; started++) {
        g->m[started].g = g;
        if (pthread_create(&g->m[started].thread, &attr, member_main, &g->m[started]) != 0)
            break;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
    for (size_t q = started; q < g->n; q++)
        g->m[q].state = M_DONE; /* no thread: never runs */
    int rc = started < g->n ? TP_ENOMEM : TP_OK;
    if (started > 0) {
        schedule(g);
        wait_turn(g, g->n);
    }
    free_loaded(g);
    pthread_mutex_unlock(&g->lock);
    for (size_t q = 0; q < started; q++)
        pthread_join(g->m[q].thread, NULL);
    return rc;
}

/* ------------------------------------------------------------ the loop */

/* A stage's held outputs completed (ok) or removed; its status. */
static int settle(tp_run *run, struct tp_run_ran *r, bool ok)
{
    if (r->n_held == 0)
        return TP_OK;
    tp_stage st;
    memset(&st, 0, sizeof st);
    st.run = run;
    st.outputs = r->held;
    st.n_outputs = r->n_held;
    r->held = NULL;
    r->n_held = 0;
    tp_run_finish_outputs(&st, ok);
    if (st.error_code != 0)
        snprintf(r->error, sizeof r->error, "%s", st.error);
    return st.error_code;
}

static void report(tp_run *run, size_t i, int rc, const char *error)
{
    const pstage *s = &run->pipeline->stages[i];
    tp_stage st;
    memset(&st, 0, sizeof st);
    snprintf(st.error, sizeof st.error, "%s", error);
    tp_run_report_failure(run, s, s->id, &st, rc);
}

bool tp_run_group_turn(tp_run *run, size_t i, int *rc)
{
    tp_pipeline *p = run->pipeline;
    if (run->ran != NULL && run->ran[i].ran) {
        /* its files are completed at its place, after the stages it overtook */
        if ((*rc = run->ran[i].rc) == TP_OK)
            *rc = settle(run, &run->ran[i], true);
        if (*rc != TP_OK)
            report(run, i, *rc, run->ran[i].error);
        return true;
    }
    member *m = calloc(p->n, sizeof *m);
    struct tp_run_group g;
    memset(&g, 0, sizeof g);
    g.n = m ? plan(run, p, i, m) : 0;
    if (g.n < 2 || (run->ran == NULL && (run->ran = calloc(p->n, sizeof *run->ran)) == NULL)) {
        free(m);
        return false;
    }
    g.run = run;
    g.p = p;
    g.m = m;
    pthread_mutex_init(&g.lock, NULL);
    pthread_cond_init(&g.turn_changed, NULL);
    int grc = run_group(&g);
    pthread_cond_destroy(&g.turn_changed);
    pthread_mutex_destroy(&g.lock);
    for (size_t q = 0; q < g.n; q++) {
        struct tp_run_ran *r = &run->ran[m[q].index];
        r->ran = true;
        r->rc = grc != TP_OK ? grc : m[q].rc;
        snprintf(r->error, sizeof r->error, "%s", m[q].st.error);
        r->held = m[q].held;
        r->n_held = m[q].n_held;
    }
    free(m);
    return tp_run_group_turn(run, i, rc);
}

void tp_run_groups_discard(tp_run *run)
{
    for (size_t i = 0; run->ran != NULL && i < run->pipeline->n; i++)
        settle(run, &run->ran[i], false);
}

void tp_run_groups_free(tp_run *run)
{
    free(run->ran); /* tp_pipeline_run settled every held output */
    run->ran = NULL;
}
