/*
 * Batch runs (issue 17, items 1-2): one pipeline over many traces.
 *
 * `pipeline run P --input SPEC` (or `--set trace=SPEC` naming a folder or a
 * glob) expands SPEC into traces: a file; a folder, searched recursively
 * for files with trace suffixes; or a glob pattern.  The pipeline then runs
 * once per trace, in a child process each (a crash or an out-of-memory in
 * one trace cannot take the others down, and its memory is returned when
 * it ends), up to `-j N` at once and within `--max-memory`, with the
 * variables `trace` (the path), `trace_name` (its label, when declared)
 * and, when the pipeline declares it, `out` moved to OUT/LABEL so every
 * trace writes its own folder.  One failed trace is reported and the others finish; the
 * summary and the exit status say how many failed.
 */
#include "tp_batch.h"
#include "tp_guard.h"
#include "tp_host.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Files a folder search takes: what the readers read. */
static const char *const trace_suffixes[] = {".json", ".json.gz", ".jsonl", ".sqlite", ".log",
                                             ".txt"};
/* Stripped from labels, longest first. */
static const char *const label_suffixes[] = {".pt.trace.json.gz", ".trace.json.gz", ".pt.trace.json",
                                             ".json.gz", ".trace.json", ".json", ".jsonl",
                                             ".sqlite", ".log", ".txt", ".gz"};

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

static int is_trace_name(const char *name)
{
    if (name[0] == '.')
        return 0;
    for (size_t i = 0; i < sizeof trace_suffixes / sizeof *trace_suffixes; i++)
        if (ends_with(name, trace_suffixes[i]))
            return 1;
    return 0;
}

int tp_batch_list_add(tp_batch_list *l, const char *path, const char *label)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        tp_batch_trace *v = realloc(l->v, cap * sizeof *v);
        if (v == NULL)
            return TP_ENOMEM;
        l->v = v;
        l->cap = cap;
    }
    char *p = strdup(path), *lab = strdup(label);
    if (p == NULL || lab == NULL) {
        free(p);
        free(lab);
        return TP_ENOMEM;
    }
    l->v[l->n++] = (tp_batch_trace){p, lab, 0, NULL, NULL};
    return TP_OK;
}

/* mkdir -p: a shard with no traces may be the first to reach a nested OUT,
 * a batch of batch writers only has no trace folder under it. */
int tp_batch_make_dirs(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s", dir);
    for (char *p = path + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            if (mkdir(path, 0777) != 0 && errno != EEXIST)
                return -1;
            *p = '/';
        }
    return mkdir(path, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

int tp_batch_walk_stat(const char *path, struct stat *sb)
{
    if (lstat(path, sb) != 0)
        return -1;
    if (S_ISLNK(sb->st_mode) && (stat(path, sb) != 0 || S_ISDIR(sb->st_mode)))
        return -1;
    return 0;
}

/* A folder, recursively, in name order (so every run lists the same). */
static int walk_dir(tp_batch_list *l, const char *dir, size_t root_len, int depth, char *err,
                    size_t errsz)
{
    struct dirent **ents = NULL;
    int n = scandir(dir, &ents, NULL, alphasort);
    if (n < 0) {
        snprintf(err, errsz, "%s: cannot read folder: %s", dir, strerror(errno));
        return TP_EIO;
    }
    int rc = TP_OK;
    for (int i = 0; i < n; i++) {
        const char *name = ents[i]->d_name;
        if (rc == TP_OK && name[0] != '.') {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", dir, name);
            struct stat sb;
            if (tp_batch_walk_stat(path, &sb) != 0)
                ; /* vanished, a broken link or a link to a folder: not followed */
            else if (S_ISDIR(sb.st_mode) && depth < 32)
                rc = walk_dir(l, path, root_len, depth + 1, err, errsz);
            else if (S_ISREG(sb.st_mode) && is_trace_name(name))
                rc = tp_batch_list_add(l, path, path + root_len);
        }
        free(ents[i]);
    }
    free(ents);
    return rc;
}

static int has_glob_chars(const char *s) { return strpbrk(s, "*?[") != NULL; }

/* The length of the inputs' deepest common folder in their paths (0:
 * none), each path's folder compared a whole name at a time. */
static size_t common_folder(const tp_batch_list *l)
{
    const char *first = l->v[0].path, *slash = strrchr(first, '/');
    size_t len = slash ? (size_t)(slash - first) : 0;
    for (size_t i = 1; i < l->n && len > 0; i++) {
        const char *p = l->v[i].path, *ps = strrchr(p, '/');
        size_t plen = ps ? (size_t)(ps - p) : 0;
        while (len > 0 && !(plen >= len && strncmp(p, first, len) == 0 &&
                            (p[len] == '/' || len == plen)))
            while (len > 0 && first[--len] != '/')
                ;
    }
    return len;
}

static void strip_trace_suffix(char *lab)
{
    for (size_t k = 0; k < sizeof label_suffixes / sizeof *label_suffixes; k++)
        if (ends_with(lab, label_suffixes[k]) && strlen(lab) > strlen(label_suffixes[k])) {
            lab[strlen(lab) - strlen(label_suffixes[k])] = '\0';
            return;
        }
}

static int by_label(const void *a, const void *b)
{
    return strcmp((*(tp_batch_trace *const *)a)->label, (*(tp_batch_trace *const *)b)->label);
}

/* A trace's path below the common folder (its first common bytes). */
static char *below(const char *path, size_t common)
{
    const char *p = path + common;
    while (*p == '/')
        p++;
    return strdup(p);
}

/* Runs of equal labels in the sorted index: each member's full name (if
 * full) or an error naming the first pair (if !full).  1: some were equal. */
static int same_labels(tp_batch_trace **ix, size_t n, size_t common, int full, char *err,
                       size_t errsz)
{
    int found = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && strcmp(ix[i]->label, ix[j]->label) == 0)
            j++;
        if (j - i > 1 && !full && !found)
            snprintf(err, errsz, "%s and %s would both be labelled '%s' (the output folder "
                     "OUT/LABEL): rename one", ix[i]->path, ix[i + 1]->path, ix[i]->label);
        for (size_t k = i; j - i > 1 && full && k < j; k++) {
            char *name = below(ix[k]->path, common);
            if (name) {
                free(ix[k]->label);
                ix[k]->label = name;
            }
        }
        found |= j - i > 1;
        i = j;
    }
    return found;
}

/* Labels (CONVENTIONS "Batch labels"): each trace's path below the inputs'
 * deepest common folder, trace suffixes removed; where two would share
 * one, both keep their full file names; never two alike (an error). */
static int make_labels(tp_batch_list *l, char *err, size_t errsz)
{
    size_t common = common_folder(l);
    tp_batch_trace **ix = malloc(l->n * sizeof *ix);
    if (ix == NULL)
        return TP_ENOMEM;
    for (size_t i = 0; i < l->n; i++) {
        char *lab = below(l->v[i].path, common);
        if (lab == NULL) {
            free(ix);
            return TP_ENOMEM;
        }
        free(l->v[i].label);
        l->v[i].label = lab;
        strip_trace_suffix(lab);
        ix[i] = &l->v[i];
    }
    qsort(ix, l->n, sizeof *ix, by_label);
    int rc = TP_OK;
    if (same_labels(ix, l->n, common, 1, err, errsz)) {
        qsort(ix, l->n, sizeof *ix, by_label);
        if (same_labels(ix, l->n, common, 0, err, errsz))
            rc = TP_EINVAL;
    }
    free(ix);
    return rc;
}

int tp_batch_expand(const char *spec, tp_batch_list *l, char *err, size_t errsz)
{
    struct stat sb;
    int rc = TP_OK;
    memset(l, 0, sizeof *l);
    if (stat(spec, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        size_t root = strlen(spec);
        while (root > 1 && spec[root - 1] == '/')
            root--;
        char dir[4096];
        snprintf(dir, sizeof dir, "%.*s", (int)root, spec);
        rc = walk_dir(l, dir, root + 1, 0, err, errsz);
        l->from_folder = 1;
    } else if (stat(spec, &sb) == 0) {
        const char *base = strrchr(spec, '/');
        rc = tp_batch_list_add(l, spec, base ? base + 1 : spec);
    } else if (has_glob_chars(spec)) {
        glob_t g;
        int gr = glob(spec, GLOB_ERR, NULL, &g);
        for (size_t i = 0; gr == 0 && i < g.gl_pathc && rc == TP_OK; i++) {
            if (stat(g.gl_pathv[i], &sb) != 0 || !S_ISREG(sb.st_mode))
                continue;
            const char *base = strrchr(g.gl_pathv[i], '/');
            rc = tp_batch_list_add(l, g.gl_pathv[i], base ? base + 1 : g.gl_pathv[i]);
        }
        if (gr == 0)
            globfree(&g);
        else if (gr == GLOB_ABORTED)
            snprintf(err, errsz, "%s: a folder of the pattern cannot be read", spec), rc = TP_EIO;
    } else {
        snprintf(err, errsz, "%s: no such file or folder (and not a glob pattern)", spec);
        return TP_ENOTFOUND;
    }
    if (rc == TP_OK && l->n == 0) {
        snprintf(err, errsz, "%s: no traces there (files ending in .json, .json.gz, .jsonl, "
                 ".sqlite, .log, .txt)", spec);
        rc = TP_ENOTFOUND;
    }
    if (rc == TP_OK)
        rc = make_labels(l, err, errsz);
    if (rc != TP_OK)
        tp_batch_list_free(l); /* the caller frees a list only on success */
    return rc;
}

void tp_batch_list_free(tp_batch_list *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free(l->v[i].path);
        free(l->v[i].label);
        free(l->v[i].capture);
    }
    free(l->v);
    memset(l, 0, sizeof *l);
}

/* ------------------------------------------------------------ running */

uint64_t tp_batch_trace_bytes(const char *path)
{
    struct stat sb;
    uint64_t size = stat(path, &sb) == 0 ? (uint64_t)sb.st_size : 0;
    uint64_t text = ends_with(path, ".gz") ? size * 8 : size;
    return text / 100 * 35;
}

/* What a trace's run may take at its peak: its trace and the process. */
static uint64_t memory_estimate(const char *path)
{
    return tp_batch_trace_bytes(path) + TP_BATCH_PROCESS_BYTES;
}

typedef struct child {
    pid_t pid;
    size_t index;
    uint64_t memory;
    char log[4200]; /* the trace's stderr */
    struct timespec start;
    int threads;    /* what its stages may keep busy (tp_threads) */
} child;

/* Each trace process's share of the cores when jobs run at once: a reader
 * that would parse on two threads takes a core another trace needs (at
 * -j 2 on two cores the split parse only costs its merging, ~8 % CPU). */
static int threads_per_trace(size_t jobs)
{
    int cores = tp_host_threads(NULL);
    return cores / (int)jobs > 1 ? cores / (int)jobs : 1;
}

/* The trace's stdout (text writers), printed in input order at the end. */
static void out_path(const char *tmpdir, size_t i, char *buf, size_t size)
{
    snprintf(buf, size, "%s/%zu.out", tmpdir, i);
}

static double seconds_since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

/* The first "error:" line of a child's log (or its last line). */
static void first_error(const char *log, char *out, size_t size)
{
    FILE *f = fopen(log, "r");
    char line[1024];
    out[0] = '\0';
    while (f && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (strstr(line, "error:")) {
            snprintf(out, size, "%s", line);
            break;
        }
        if (line[0])
            snprintf(out, size, "%s", line);
    }
    if (f)
        fclose(f);
}

static void relay(const char *log, FILE *to)
{
    FILE *f = fopen(log, "r");
    char buf[4096];
    size_t n;
    while (f && (n = fread(buf, 1, sizeof buf, f)) > 0)
        fwrite(buf, 1, n, to);
    if (f)
        fclose(f);
}

/* ---- SIGINT, SIGTERM, SIGHUP during a batch: the children get the signal
 * too (a SIGTERM sent to the parent alone left them running), the parent
 * waits for them, removes the batch's log folder and dies of the signal. */
static volatile sig_atomic_t batch_signal;
static const int batch_signals[] = {SIGINT, SIGTERM, SIGHUP};
#define NSIGNALS (sizeof batch_signals / sizeof *batch_signals)

static struct sigaction batch_old[NSIGNALS]; /* the command's handlers */

static void on_batch_signal(int sig) { batch_signal = sig; }

static void catch_signals(void)
{
    struct sigaction *old = batch_old;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_batch_signal; /* no SA_RESTART: wait4 returns EINTR */
    sigemptyset(&sa.sa_mask);
    batch_signal = 0;
    for (size_t i = 0; i < NSIGNALS; i++)
        if (sigaction(batch_signals[i], NULL, &old[i]) == 0 && old[i].sa_handler != SIG_IGN)
            sigaction(batch_signals[i], &sa, NULL);
}

static void restore_signals(void)
{
    const struct sigaction *old = batch_old;
    for (size_t i = 0; i < NSIGNALS; i++)
        sigaction(batch_signals[i], &old[i], NULL);
}

/* The signal passed on to the running children, which are waited for;
 * then the batch's files removed, and the process dies of it. */
static void die_of_signal(child *running, size_t nrun, const char *tmpdir, size_t ntraces)
{
    int sig = batch_signal;
    for (size_t k = 0; k < nrun; k++)
        kill(running[k].pid, sig);
    for (size_t k = 0; k < nrun; k++)
        while (waitpid(running[k].pid, NULL, 0) < 0 && errno == EINTR)
            ;
    for (size_t i = 0; i < ntraces; i++) {
        char f[4200];
        out_path(tmpdir, i, f, sizeof f);
        unlink(f);
        snprintf(f, sizeof f, "%s/%zu.log", tmpdir, i);
        unlink(f);
    }
    rmdir(tmpdir);
    free(running);
    restore_signals();
    fflush(NULL);
    raise(sig); /* the command's own handler: its temporary files, then death */
    signal(sig, SIG_DFL);
    raise(sig);
}

static int start_child(const tp_batch_opts *o, tp_batch_list *l, size_t i, child *c,
                       const char *tmpdir)
{
    snprintf(c->log, sizeof c->log, "%s/%zu.log", tmpdir, i);
    c->index = i;
    c->memory = memory_estimate(l->v[i].path);
    clock_gettime(CLOCK_MONOTONIC, &c->start);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return TP_ERR;
    if (pid == 0) {
        /* the batch's hand-off folder is the batch's to remove: a trace's
         * process dying of a signal must not take the others' with it */
        tp_temp_unregister_numbered();
        restore_signals(); /* the command's own, as in one run */
        int fd = open(c->log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd >= 0) {
            dup2(fd, 2);
            close(fd);
        }
        char out[4200];
        out_path(tmpdir, i, out, sizeof out);
        if ((fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600)) >= 0) {
            dup2(fd, 1);
            close(fd);
        }
        tp_host_set_threads(c->threads); /* its share of the cores */
        int code = o->run_one(o->ctx, &l->v[i], l);
        fflush(NULL);
        _exit(code);
    }
    c->pid = pid;
    return TP_OK;
}

static void finish_child(const tp_batch_opts *o, tp_batch_list *l, child *c, int status,
                         size_t done)
{
    tp_batch_trace *t = &l->v[c->index];
    t->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    double secs = seconds_since(&c->start);
    if (t->exit_code == 0) {
        if (o->verbosity > 1)
            relay(c->log, stderr);
        if (o->verbosity > 0)
            tp_print_line(stderr, "pipeline: [%zu/%zu] %s: ok (%.2f s)", done, l->n, t->label,
                          secs);
    } else {
        char why[1024];
        first_error(c->log, why, sizeof why);
        if (!WIFEXITED(status))
            snprintf(why, sizeof why, "killed by signal %d", WTERMSIG(status));
        tp_print_line(stderr, "pipeline: [%zu/%zu] %s: %s (exit %d): %s", done, l->n, t->label,
                      t->exit_code == TP_EXIT_SLOWER ? "PAST A GATE" : "FAILED", t->exit_code,
                      why[0] ? why : "no message");
        if (o->verbosity > 1)
            relay(c->log, stderr);
    }
    unlink(c->log);
}

/* What the traces printed on stdout, in input order, each under a header
 * when there are several (as head(1) prints files). */
static void print_outputs(const tp_batch_list *l, const char *tmpdir)
{
    int first = 1;
    for (size_t i = 0; i < l->n; i++) {
        char out[4200];
        out_path(tmpdir, i, out, sizeof out);
        struct stat sb;
        if (stat(out, &sb) == 0 && sb.st_size > 0) {
            if (l->n > 1 && !first)
                putchar('\n');
            if (l->n > 1)
                tp_print_line(stdout, "==> %s <==", l->v[i].label);
            first = 0;
            fflush(stdout);
            relay(out, stdout);
        }
        unlink(out);
    }
    fflush(stdout);
}

int tp_batch_run(const tp_batch_opts *o, tp_batch_list *l)
{
    char tmpdir[] = "/tmp/tracepipe-batch-XXXXXX";
    if (mkdtemp(tmpdir) == NULL) {
        fprintf(stderr, "pipeline: error: cannot make a folder for the batch's logs: %s\n",
                strerror(errno));
        return TP_EXIT_FAIL;
    }
    size_t jobs = o->jobs > 0 ? (size_t)o->jobs : 1;
    if (jobs > l->n)
        jobs = l->n ? l->n : 1; /* no more slots than traces */
    child *running = calloc(jobs, sizeof *running);
    if (running == NULL) {
        fprintf(stderr, "pipeline: error: out of memory for %zu traces at once\n", jobs);
        rmdir(tmpdir);
        return TP_EXIT_FAIL;
    }
    size_t next = 0, nrun = 0, done = 0;
    uint64_t in_use = 0, peak_kib = 0;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    catch_signals();
    while (done < l->n) {
        if (batch_signal)
            die_of_signal(running, nrun, tmpdir, l->n);
        /* start what fits: a free slot, and memory for it unless nothing runs */
        while (next < l->n && nrun < jobs &&
               (nrun == 0 || o->max_memory == 0 ||
                in_use + memory_estimate(l->v[next].path) <= o->max_memory)) {
            running[nrun].threads = threads_per_trace(jobs);
            if (start_child(o, l, next, &running[nrun], tmpdir) != TP_OK) {
                l->v[next].exit_code = TP_EXIT_FAIL;
                tp_print_line(stderr, "pipeline: [%zu/%zu] %s: FAILED: cannot start a process",
                              ++done, l->n, l->v[next].label);
                next++;
                continue;
            }
            in_use += running[nrun].memory;
            nrun++;
            next++;
        }
        if (nrun == 0)
            break;
        if (batch_signal)
            continue; /* (a signal while starting one) */
        int status;
        struct rusage ru;
        pid_t pid = wait4(-1, &status, 0, &ru);
        if (pid < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        for (size_t k = 0; k < nrun; k++) {
            if (running[k].pid != pid)
                continue;
            finish_child(o, l, &running[k], status, ++done);
            if ((uint64_t)ru.ru_maxrss > peak_kib)
                peak_kib = (uint64_t)ru.ru_maxrss;
            in_use -= running[k].memory;
            running[k] = running[--nrun];
            break;
        }
    }
    if (batch_signal)
        die_of_signal(running, 0, tmpdir, l->n);
    restore_signals();
    free(running);
    print_outputs(l, tmpdir);
    rmdir(tmpdir);
    size_t failed = 0, slower = 0;
    int rc = TP_EXIT_OK;
    for (size_t i = 0; i < l->n; i++) {
        slower += l->v[i].exit_code == TP_EXIT_SLOWER;
        failed += l->v[i].exit_code != 0 && l->v[i].exit_code != TP_EXIT_SLOWER;
        rc = tp_exit_worst(rc, l->v[i].exit_code);
    }
    char gated[48] = ""; /* traces whose gate tripped, when there are */
    if (slower > 0)
        snprintf(gated, sizeof gated, ", %zu past a gate", slower);
    if (o->verbosity > 0 || failed + slower > 0)
        fprintf(stderr, "pipeline: batch: %zu trace(s), %zu ok, %zu failed%s (%.2f s, -j %zu, "
                "peak %.0f MiB in one trace's process)\n", l->n, l->n - failed - slower, failed,
                gated, seconds_since(&t0), jobs, (double)peak_kib / 1024.0);
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i].exit_code != 0)
            tp_print_line(stderr, "pipeline: %s: %s (%s)",
                          l->v[i].exit_code == TP_EXIT_SLOWER ? "past a gate" : "failed",
                          l->v[i].label, l->v[i].path);
    return rc;
}

int tp_batch_went_through(const tp_batch_trace *t)
{
    return t->exit_code == TP_EXIT_OK || t->exit_code == TP_EXIT_SLOWER;
}

int tp_batch_rank_of_label(const char *label, int64_t *rank)
{
    static const char *const words[] = {"rank", "worker"};
    int found = 0;
    for (const char *p = label; *p; p++) {
        for (size_t w = 0; w < 2; w++) {
            size_t n = strlen(words[w]);
            if (strncasecmp(p, words[w], n) != 0)
                continue;
            const char *d = p + n;
            if (*d == '_' || *d == '-' || *d == '.')
                d++;
            if (*d < '0' || *d > '9')
                continue;
            int64_t v = 0;
            while (*d >= '0' && *d <= '9' && v < INT32_MAX)
                v = v * 10 + (*d++ - '0');
            *rank = v; /* the last one named wins: runs/rank0/worker3.json is 3 */
            found = 1;
        }
    }
    return found;
}
