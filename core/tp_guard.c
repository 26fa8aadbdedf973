/*
 * The two pieces of process-wide state that signal handlers must reach, so
 * they cannot live in a tp_run:
 *
 *   - the temporary output files being written, removed by
 *     tp_remove_temp_files() when SIGINT/SIGTERM/SIGHUP ends the process;
 *   - the read-only mappings of source files: after the file is truncated,
 *     touching a page past its new end raises SIGBUS.  The handler maps zero
 *     pages over the rest of that mapping and flags it, so the stage finishes
 *     and the core reports the change as a clean error (tp_trace.c).
 *
 * Each is a list of slots that are never freed, only reused, so a handler
 * can walk it without locks: a slot is published with an atomic state.
 */
#include "tp_guard.h"
#include "tp_run.h"

#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

enum { SLOT_FREE, SLOT_BUSY, SLOT_LIVE };

/* ---- temporary files */

struct tp_temp_slot {
    struct tp_temp_slot *next; /* fixed once the slot is in the list */
    atomic_int state;
    char path[PATH_MAX];
};

static _Atomic(tp_temp_slot *) temp_head;

tp_temp_slot *tp_temp_register(const char *path)
{
    size_t len = strlen(path);
    if (len >= PATH_MAX)
        return NULL;
    for (tp_temp_slot *s = atomic_load(&temp_head); s; s = s->next) {
        int expect = SLOT_FREE;
        if (atomic_compare_exchange_strong(&s->state, &expect, SLOT_BUSY)) {
            memcpy(s->path, path, len + 1);
            atomic_store(&s->state, SLOT_LIVE);
            return s;
        }
    }
    tp_temp_slot *s = calloc(1, sizeof *s);
    if (s == NULL)
        return NULL;
    memcpy(s->path, path, len + 1);
    atomic_init(&s->state, SLOT_LIVE);
    s->next = atomic_load(&temp_head);
    while (!atomic_compare_exchange_weak(&temp_head, &s->next, s))
        ;
    return s;
}

void tp_temp_unregister(tp_temp_slot *s)
{
    if (s != NULL)
        atomic_store(&s->state, SLOT_FREE);
}

/* A folder of numbered files (a batch's hand-offs): DIR/I.SUFFIX and
 * DIR/I.SUFFIX.tmp for I < n, then DIR itself.  One at a time per process;
 * its names are made when removed, so any number of files costs nothing. */
static char numbered_dir[PATH_MAX - 64], numbered_suffix[16];
static atomic_size_t numbered_n; /* 0: none */

int tp_temp_register_numbered(const char *dir, size_t n, const char *suffix)
{
    if (strlen(dir) >= sizeof numbered_dir || strlen(suffix) >= sizeof numbered_suffix ||
        atomic_load(&numbered_n) != 0)
        return -1;
    strcpy(numbered_dir, dir);
    strcpy(numbered_suffix, suffix);
    atomic_store(&numbered_n, n + 1);
    return 0;
}

void tp_temp_unregister_numbered(void) { atomic_store(&numbered_n, 0); }

/* Appends the decimal digits of v at p; returns the end. */
static char *put_decimal(char *p, size_t v)
{
    char digits[24];
    size_t k = 0;
    do
        digits[k++] = (char)('0' + v % 10);
    while ((v /= 10) > 0);
    while (k > 0)
        *p++ = digits[--k];
    return p;
}

static void remove_numbered(void)
{
    size_t n = atomic_load(&numbered_n);
    char path[PATH_MAX];
    size_t dl = strlen(numbered_dir), sl = strlen(numbered_suffix);
    for (size_t i = 0; n > 0 && i < n - 1; i++) {
        memcpy(path, numbered_dir, dl);
        char *p = put_decimal(path + dl, i);
        memcpy(p, numbered_suffix, sl);
        memcpy(p + sl, ".tmp", 5);
        unlink(path);
        p[sl] = '\0';
        unlink(path);
    }
    if (n > 0)
        rmdir(numbered_dir);
}

void tp_remove_temp_files(void)
{
    /* async-signal-safe: atomics, string copies, unlink and rmdir only */
    for (tp_temp_slot *s = atomic_load(&temp_head); s; s = s->next)
        if (atomic_load(&s->state) == SLOT_LIVE)
            unlink(s->path);
    remove_numbered();
}

/* ---- guarded mappings */

struct tp_map_slot {
    struct tp_map_slot *next;
    atomic_int state;
    _Atomic uintptr_t start;
    _Atomic size_t len;
    atomic_int faulted;
};

static _Atomic(tp_map_slot *) map_head;
static struct sigaction previous_bus;
static uintptr_t page_size;
static pthread_once_t bus_once = PTHREAD_ONCE_INIT;

/* Not a fault on a guarded mapping: whatever would have happened without
 * us (the earlier handler, or the default action: the process dies). */
static void pass_on_sigbus(int sig, siginfo_t *si, void *ctx)
{
    if ((previous_bus.sa_flags & SA_SIGINFO) && previous_bus.sa_sigaction != NULL) {
        previous_bus.sa_sigaction(sig, si, ctx);
        return;
    }
    if (previous_bus.sa_handler != SIG_DFL && previous_bus.sa_handler != SIG_IGN) {
        previous_bus.sa_handler(sig);
        return;
    }
    signal(SIGBUS, SIG_DFL);
    raise(SIGBUS);
}

static void on_sigbus(int sig, siginfo_t *si, void *ctx)
{
    uintptr_t at = (uintptr_t)si->si_addr;
    for (tp_map_slot *s = atomic_load(&map_head); s; s = s->next) {
        if (atomic_load(&s->state) != SLOT_LIVE)
            continue;
        uintptr_t start = atomic_load(&s->start);
        size_t len = atomic_load(&s->len);
        if (at < start || at - start >= len)
            continue;
        /* the file shrank under the mapping: zeros from this page to the
         * end, so the reading code goes on and the run reports the change */
        uintptr_t from = at & ~(page_size - 1);
        uintptr_t end = (start + len + page_size - 1) & ~(page_size - 1);
        void *p = mmap((void *)from, end - from, PROT_READ,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
        if (p != MAP_FAILED) {
            atomic_store(&s->faulted, 1);
            return;
        }
        break;
    }
    pass_on_sigbus(sig, si, ctx);
}

static void install_sigbus_handler(void)
{
    page_size = (uintptr_t)sysconf(_SC_PAGESIZE);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, &previous_bus);
}

tp_map_slot *tp_map_guard(const void *start, size_t len)
{
    pthread_once(&bus_once, install_sigbus_handler);
    tp_map_slot *s = NULL;
    for (tp_map_slot *it = atomic_load(&map_head); it && s == NULL; it = it->next) {
        int expect = SLOT_FREE;
        if (atomic_compare_exchange_strong(&it->state, &expect, SLOT_BUSY))
            s = it;
    }
    if (s == NULL) {
        if ((s = calloc(1, sizeof *s)) == NULL)
            return NULL;
        atomic_init(&s->state, SLOT_BUSY);
        s->next = atomic_load(&map_head);
        while (!atomic_compare_exchange_weak(&map_head, &s->next, s))
            ;
    }
    atomic_store(&s->start, (uintptr_t)start);
    atomic_store(&s->len, len);
    atomic_store(&s->faulted, 0);
    atomic_store(&s->state, SLOT_LIVE);
    return s;
}

void tp_map_unguard(tp_map_slot *s)
{
    if (s != NULL)
        atomic_store(&s->state, SLOT_FREE);
}

bool tp_map_faulted(tp_map_slot *s)
{
    return s != NULL && atomic_load(&s->faulted) != 0;
}
