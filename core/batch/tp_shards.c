/*
 * Shard manifests (issue 17, item 5): a shard (`--shard I/N`) leaves
 * OUT/.tracepipe-shard-I-of-N, the traces it ran and how each ended, so
 * that `pipeline merge` can tell whether every shard has finished and, with
 * `--pipeline`, run the batch stages over every trace that went through, in
 * the order one unsharded run would have used.
 *
 *   # tracepipe shard 1/3
 *   POSITION <tab> EXIT <tab> LABEL <tab> PATH
 *
 * POSITION is the trace's place in the whole batch's stable list; PATH is
 * absolute (merge may run in another folder); tabs,
 * newlines and backslashes in labels and paths are written \t, \n, \\.
 */
#include "tp_batch.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MANIFEST_PREFIX ".tracepipe-shard-"
#define MAX_SHARDS TP_BATCH_MAX_SHARDS /* a file name asking for more is not ours */

static void put_escaped(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '\t')
            fputs("\\t", f);
        else if (*s == '\n')
            fputs("\\n", f);
        else if (*s == '\\')
            fputs("\\\\", f);
        else
            fputc(*s, f);
    }
}

static uint64_t fnv1a(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ULL;
    return h;
}

tp_shard_key tp_shard_key_of(const char *pipeline_file, const tp_batch_list *whole)
{
    tp_shard_key k = {0xcbf29ce484222325ULL, 0xcbf29ce484222325ULL};
    FILE *f = pipeline_file ? fopen(pipeline_file, "rb") : NULL;
    char buf[4096];
    size_t n;
    while (f && (n = fread(buf, 1, sizeof buf, f)) > 0)
        k.pipeline = fnv1a(k.pipeline, buf, n);
    if (f)
        fclose(f);
    for (size_t i = 0; i < whole->n; i++)
        k.traces = fnv1a(k.traces, whole->v[i].label, strlen(whole->v[i].label) + 1);
    return k;
}

int tp_shard_manifest_write(const char *out, long shard, long nshards, tp_shard_key key,
                            const tp_batch_list *l, const size_t *positions, char *err,
                            size_t errsz)
{
    char path[4096], tmp[4200];
    snprintf(path, sizeof path, "%s/" MANIFEST_PREFIX "%ld-of-%ld", out, shard, nshards);
    snprintf(tmp, sizeof tmp, "%s.tmp-%ld", path, (long)getpid());
    if (tp_batch_make_dirs(out) != 0) {
        snprintf(err, errsz, "%s: %s", out, strerror(errno));
        return TP_EIO;
    }
    FILE *f = fopen(tmp, "wx");
    if (f == NULL) {
        snprintf(err, errsz, "%s: %s", tmp, strerror(errno));
        return TP_EIO;
    }
    fprintf(f, "# tracepipe shard %ld/%ld pipeline %016llx traces %016llx\n", shard, nshards,
            (unsigned long long)key.pipeline, (unsigned long long)key.traces);
    for (size_t i = 0; i < l->n; i++) {
        fprintf(f, "%zu\t%d\t", positions[i], l->v[i].exit_code);
        put_escaped(f, l->v[i].label);
        fputc('\t', f);
        char *abs = realpath(l->v[i].path, NULL); /* merge may run elsewhere */
        put_escaped(f, abs ? abs : l->v[i].path);
        free(abs);
        fputc('\n', f);
    }
    int bad = ferror(f) | (fclose(f) != 0);
    if (bad || rename(tmp, path) != 0) {
        snprintf(err, errsz, "%s: %s", path, strerror(errno ? errno : EIO));
        unlink(tmp);
        return TP_EIO;
    }
    return TP_OK;
}

/* Undoes put_escaped in place, up to the end of s. */
static void unescape(char *s)
{
    char *w = s;
    for (char *r = s; *r; r++) {
        if (*r == '\\' && (r[1] == 't' || r[1] == 'n' || r[1] == '\\')) {
            r++;
            *w++ = *r == 't' ? '\t' : *r == 'n' ? '\n' : '\\';
        } else {
            *w++ = *r;
        }
    }
    *w = '\0';
}

typedef struct entry {
    size_t pos;
    tp_batch_trace t;
} entry;

typedef struct manifests {
    entry *e;
    size_t n, cap;
    long nshards;
    unsigned char *seen; /* per shard */
    char key[80];        /* the first manifest's "pipeline P traces T" */
    char key_file[4096];
} manifests;

/* Every manifest of a merge belongs to one (pipeline, trace list, N). */
static int check_key(manifests *m, const char *file, const char *header, char *err,
                     size_t errsz)
{
    const char *k = strstr(header, " pipeline ");
    char key[80];
    snprintf(key, sizeof key, "%s", k && header[0] == '#' ? k + 1 : "(none)");
    if (m->key[0] == '\0') {
        snprintf(m->key, sizeof m->key, "%s", key);
        snprintf(m->key_file, sizeof m->key_file, "%s", file);
        return TP_OK;
    }
    if (strcmp(m->key, key) == 0)
        return TP_OK;
    snprintf(err, errsz, "%s and %s come from different runs (%s, %s: %s): the pipeline or "
             "the list of traces changed between shards; run every shard again", m->key_file,
             file, m->key, key, strncmp(m->key, key, 26) != 0 ? "another pipeline"
                                                              : "another list of traces");
    return TP_EINVAL;
}

static int add_entry(manifests *m, size_t pos, int exit_code, const char *label, const char *path,
                     const char *root)
{
    if (m->n == m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 16;
        entry *e = realloc(m->e, cap * sizeof *e);
        if (e == NULL)
            return TP_ENOMEM;
        m->e = e;
        m->cap = cap;
    }
    entry *x = &m->e[m->n];
    x->pos = pos;
    x->t.exit_code = exit_code;
    x->t.label = strdup(label);
    x->t.path = strdup(path);
    x->t.root = root;
    x->t.capture = NULL;
    m->n++;
    return x->t.label && x->t.path ? TP_OK : TP_ENOMEM;
}

/* One manifest file; TP_OK or an error naming file:line. */
static int read_manifest(manifests *m, const char *root, const char *file, long shard,
                         long nshards, char *err, size_t errsz)
{
    if (m->nshards == 0) {
        m->nshards = nshards;
        if ((m->seen = calloc((size_t)nshards, 1)) == NULL) {
            snprintf(err, errsz, "out of memory");
            return TP_ENOMEM;
        }
    } else if (m->nshards != nshards) {
        snprintf(err, errsz, "%s: a shard of %ld, but other manifests say %ld shards", file,
                 nshards, m->nshards);
        return TP_EINVAL;
    }
    if (m->seen[shard]) {
        snprintf(err, errsz, "shard %ld/%ld is in both %s and an earlier manifest (another "
                 "folder, or another spelling of its number)", shard, nshards, file);
        return TP_EINVAL;
    }
    m->seen[shard] = 1;
    FILE *f = fopen(file, "r");
    if (f == NULL) {
        snprintf(err, errsz, "%s: %s", file, strerror(errno));
        return TP_EIO;
    }
    char *line = NULL;
    size_t cap = 0;
    int rc = TP_OK, lineno = 0;
    ssize_t len;
    while (rc == TP_OK && (len = getline(&line, &cap, f)) > 0) {
        lineno++;
        if (line[len - 1] == '\n')
            line[--len] = '\0';
        if (lineno == 1 && (rc = check_key(m, file, line, err, errsz)) != TP_OK)
            break;
        if (line[0] == '#' || line[0] == '\0')
            continue;
        char *pos = line, *code = strchr(pos, '\t');
        char *label = code ? strchr(code + 1, '\t') : NULL;
        char *path = label ? strchr(label + 1, '\t') : NULL;
        char *end;
        if (path == NULL) {
            snprintf(err, errsz, "%s:%d: not a manifest line (position, exit, label, path)", file,
                     lineno);
            rc = TP_EINVAL;
            break;
        }
        *code++ = *label++ = *path++ = '\0';
        char *end2;
        unsigned long p = strtoul(pos, &end, 10);
        long x = strtol(code, &end2, 10);
        if (end == pos || *end != '\0' || end2 == code || *end2 != '\0') {
            snprintf(err, errsz, "%s:%d: position and exit status must be numbers", file, lineno);
            rc = TP_EINVAL;
            break;
        }
        unescape(label);
        unescape(path);
        if ((rc = add_entry(m, (size_t)p, (int)x, label, path, root)) != TP_OK)
            snprintf(err, errsz, "out of memory");
    }
    free(line);
    fclose(f);
    return rc;
}

/* "NAME" is ".tracepipe-shard-I-of-N": 1 and I, N. */
static int manifest_name(const char *name, long *shard, long *nshards)
{
    if (strncmp(name, MANIFEST_PREFIX, sizeof MANIFEST_PREFIX - 1) != 0)
        return 0;
    char *end;
    const char *s = name + sizeof MANIFEST_PREFIX - 1;
    *shard = strtol(s, &end, 10);
    if (end == s || strncmp(end, "-of-", 4) != 0)
        return 0;
    s = end + 4;
    *nshards = strtol(s, &end, 10);
    return end != s && *end == '\0' && *nshards >= 1 && *nshards <= MAX_SHARDS && *shard >= 0 &&
           *shard < *nshards;
}

static int by_position(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    return (x->pos > y->pos) - (x->pos < y->pos);
}

int tp_shard_manifests_read(const char *const *roots, size_t nroots, tp_batch_list *l,
                            long *nshards, char *err, size_t errsz)
{
    manifests m = {0};
    int rc = TP_OK;
    memset(l, 0, sizeof *l);
    for (size_t r = 0; r < nroots && rc == TP_OK; r++) {
        DIR *d = opendir(roots[r]);
        if (d == NULL) {
            snprintf(err, errsz, "%s: %s", roots[r], strerror(errno));
            rc = TP_EIO;
            break;
        }
        struct dirent *de;
        long i, n;
        while (rc == TP_OK && (de = readdir(d)) != NULL)
            if (manifest_name(de->d_name, &i, &n)) {
                char file[4096];
                snprintf(file, sizeof file, "%s/%s", roots[r], de->d_name);
                rc = read_manifest(&m, roots[r], file, i, n, err, errsz);
            }
        closedir(d);
    }
    if (rc == TP_OK && m.nshards > 0) { /* every shard finished? */
        char missing[512] = "";
        size_t used = 0, nmissing = 0;
        for (long i = 0; i < m.nshards; i++)
            if (!m.seen[i] && used < sizeof missing - 24) {
                used += (size_t)snprintf(missing + used, sizeof missing - used, "%s%ld",
                                         nmissing ? ", " : "", i);
                nmissing++;
            }
        if (nmissing > 0) {
            snprintf(err, errsz, "shard%s %s of %ld ha%s not finished (no %s<I>-of-%ld in %s%s): "
                     "merge once every shard is done", nmissing > 1 ? "s" : "", missing,
                     m.nshards, nmissing > 1 ? "ve" : "s", MANIFEST_PREFIX, m.nshards, roots[0],
                     nroots > 1 ? " or the other folders" : "");
            rc = TP_EINVAL;
        }
    }
    if (rc == TP_OK && m.n > 0) {
        qsort(m.e, m.n, sizeof *m.e, by_position);
        if ((l->v = calloc(m.n, sizeof *l->v)) == NULL) {
            snprintf(err, errsz, "out of memory");
            rc = TP_ENOMEM;
        }
        for (size_t i = 0; rc == TP_OK && i < m.n; i++) {
            l->v[i] = m.e[i].t;
            m.e[i].t.label = m.e[i].t.path = NULL;
        }
        l->n = l->cap = rc == TP_OK ? m.n : 0;
    }
    for (size_t i = 0; i < m.n; i++) {
        free(m.e[i].t.label);
        free(m.e[i].t.path);
    }
    free(m.e);
    free(m.seen);
    *nshards = rc == TP_OK ? m.nshards : 0;
    return rc;
}
