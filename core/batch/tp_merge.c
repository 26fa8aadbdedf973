/*
 * Batch tables (issue 17, items 3 and 5): the per-trace CSV files of a
 * batch, OUT/LABEL/NAME.csv, concatenated into OUT/NAME.csv with a first
 * column `trace` (the label), in label order, so a run split into shards
 * and merged afterwards (`pipeline merge`) gives the same bytes as one run.
 *
 * Columns are the union of the traces' headers, in order of first
 * appearance (extension columns may exist in some traces only); a cell a
 * trace lacks is empty.  A per-trace `rank` column (the CSV writer's, for
 * traces that know their rank) is kept as it is; tables of traces that do
 * not know theirs get an empty one (last, when no trace has one).  Written to a temporary
 * name, then renamed.
 */
#include "tp_batch.h"

#include <tracepipe/tp_sdk_output.h>

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- a minimal RFC 4180 reader: rows of fields, quotes, doubled quotes,
 * commas and newlines inside quotes */

typedef struct csv_row {
    char **f;
    size_t n;
} csv_row;

typedef struct csv_file {
    csv_row *rows; /* rows[0] is the header */
    size_t n;
} csv_file;

static void csv_free(csv_file *c)
{
    for (size_t i = 0; i < c->n; i++) {
        for (size_t k = 0; k < c->rows[i].n; k++)
            free(c->rows[i].f[k]);
        free(c->rows[i].f);
    }
    free(c->rows);
    memset(c, 0, sizeof *c);
}

/* A field as read, without the CSV-injection guard a writer added. */
static int push_field(csv_row *r, const char *s, size_t len)
{
    if (len >= 2 && s[0] == '\'' && tp_csv_is_trigger(s[1]))
        s++, len--;
    char **f = realloc(r->f, (r->n + 1) * sizeof *f);
    if (f == NULL)
        return TP_ENOMEM;
    r->f = f;
    if ((f[r->n] = malloc(len + 1)) == NULL)
        return TP_ENOMEM;
    memcpy(f[r->n], s, len);
    f[r->n++][len] = '\0';
    return TP_OK;
}

static int push_row(csv_file *c, csv_row *r)
{
    csv_row *rows = realloc(c->rows, (c->n + 1) * sizeof *rows);
    if (rows == NULL)
        return TP_ENOMEM;
    c->rows = rows;
    rows[c->n++] = *r;
    memset(r, 0, sizeof *r);
    return TP_OK;
}

static int csv_parse(const char *t, size_t len, csv_file *c)
{
    memset(c, 0, sizeof *c);
    csv_row row = {0};
    char *field = malloc(len + 1);
    size_t fl = 0, i = 0;
    int rc = field ? TP_OK : TP_ENOMEM;
    while (rc == TP_OK && i < len) {
        fl = 0;
        if (t[i] == '"') { /* quoted */
            for (i++; i < len; i++) {
                if (t[i] == '"' && i + 1 < len && t[i + 1] == '"')
                    field[fl++] = t[i++];
                else if (t[i] == '"')
                    break;
                else
                    field[fl++] = t[i];
            }
            i++;
        }
        while (i < len && t[i] != ',' && t[i] != '\n' && t[i] != '\r')
            field[fl++] = t[i++];
        rc = push_field(&row, field, fl);
        if (i < len && t[i] == ',') {
            i++;
            if (i == len || t[i] == '\n' || t[i] == '\r') /* a trailing empty field */
                rc = rc ? rc : push_field(&row, "", 0);
            else
                continue;
        }
        if (i < len && t[i] == '\r')
            i++;
        if (i < len && t[i] == '\n')
            i++;
        rc = rc ? rc : push_row(c, &row);
    }
    if (rc == TP_OK && row.n > 0)
        rc = push_row(c, &row);
    free(field);
    for (size_t k = 0; k < row.n; k++)
        free(row.f[k]);
    free(row.f);
    if (rc != TP_OK)
        csv_free(c);
    return rc;
}

static int csv_read(const char *path, csv_file *c)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return TP_EIO;
    char *buf = NULL;
    size_t n = 0, cap = 0, got;
    int rc = TP_OK;
    for (;;) {
        if (n == cap) {
            char *nb = realloc(buf, cap = cap ? cap * 2 : 1 << 16);
            if (nb == NULL) {
                rc = TP_ENOMEM;
                break;
            }
            buf = nb;
        }
        if ((got = fread(buf + n, 1, cap - n, f)) == 0)
            break;
        n += got;
    }
    if (ferror(f))
        rc = TP_EIO;
    fclose(f);
    if (rc == TP_OK)
        rc = csv_parse(buf, n, c);
    free(buf);
    return rc;
}

/* ---- the merge */

static int by_string(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int list_add(char ***v, size_t *n, const char *s)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp((*v)[i], s) == 0)
            return TP_OK;
    char **g = realloc(*v, (*n + 1) * sizeof *g);
    if (g == NULL || (g[*n] = strdup(s)) == NULL) {
        if (g)
            *v = g;
        return TP_ENOMEM;
    }
    *v = g;
    (*n)++;
    return TP_OK;
}

static void list_free(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

/* The CSV files in a trace's folder ROOT/LABEL (not below it). */
static int find_tables(const char *root, const char *label, char ***names, size_t *nnames)
{
    char dir[4096];
    if (snprintf(dir, sizeof dir, "%s/%s", root, label) >= (int)sizeof dir)
        return TP_OK;
    DIR *d = opendir(dir);
    if (d == NULL)
        return TP_OK; /* a trace that wrote nothing there */
    struct dirent *e;
    int rc = TP_OK;
    while (rc == TP_OK && (e = readdir(d)) != NULL) {
        char path[4096];
        struct stat sb;
        size_t len = strlen(e->d_name);
        if (e->d_name[0] != '.' && len > 4 && strcmp(e->d_name + len - 4, ".csv") == 0 &&
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name) < (int)sizeof path &&
            stat(path, &sb) == 0 && S_ISREG(sb.st_mode))
            rc = list_add(names, nnames, e->d_name);
    }
    closedir(d);
    return rc;
}

/* The trace folders under root (every folder below it holding a .csv,
 * links to folders and the folder `skip` left out), as labels. */
static int find_traces(const char *root, const char *rel, int depth, const struct stat *skip,
                       tp_batch_list *l)
{
    char dir[4096];
    if (snprintf(dir, sizeof dir, "%s%s%s", root, rel[0] ? "/" : "", rel) >= (int)sizeof dir)
        return TP_OK;
    DIR *d = opendir(dir);
    if (d == NULL)
        return depth == 0 ? TP_EIO : TP_OK;
    struct dirent *e;
    int rc = TP_OK, has_csv = 0;
    while (rc == TP_OK && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char path[4096], sub[4096];
        struct stat sb;
        if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= (int)sizeof path ||
            snprintf(sub, sizeof sub, "%s%s%s", rel, rel[0] ? "/" : "", e->d_name) >=
                (int)sizeof sub ||
            tp_batch_walk_stat(path, &sb) != 0)
            continue; /* (a path too long to be a batch's, a link to a folder) */
        size_t len = strlen(e->d_name);
        if (S_ISDIR(sb.st_mode) && depth < 16 &&
            !(skip && sb.st_dev == skip->st_dev && sb.st_ino == skip->st_ino))
            rc = find_traces(root, sub, depth + 1, skip, l);
        else if (depth > 0 && S_ISREG(sb.st_mode) && len > 4 &&
                 strcmp(e->d_name + len - 4, ".csv") == 0)
            has_csv = 1;
    }
    closedir(d);
    if (rc == TP_OK && has_csv)
        rc = tp_batch_list_add(l, root, rel);
    return rc;
}

int tp_merge_scan(const char *const *roots, size_t nroots, const char *out, tp_batch_list *l,
                  char *err, size_t errsz)
{
    struct stat skip;
    int has_skip = stat(out, &skip) == 0;
    memset(l, 0, sizeof *l);
    for (size_t r = 0; r < nroots; r++) {
        int rc = find_traces(roots[r], "", 0, has_skip ? &skip : NULL, l);
        for (size_t i = 0; i < l->n; i++)
            if (l->v[i].root == NULL)
                l->v[i].root = roots[r];
        if (rc != TP_OK) {
            snprintf(err, errsz, "%s: cannot read folder: %s", roots[r], strerror(errno));
            tp_batch_list_free(l);
            return rc;
        }
    }
    return TP_OK;
}

typedef struct source {
    const char *root, *label;
} source;

/* OUT/name from every source's LABEL/name. */
static int merge_one(const source *src, size_t nsrc, const char *name, const char *out,
                     char *err, size_t errsz)
{
    csv_file *files = calloc(nsrc ? nsrc : 1, sizeof *files);
    char **cols = NULL;
    size_t ncols = 0;
    int rc = files ? list_add(&cols, &ncols, "trace") : TP_ENOMEM;
    for (size_t s = 0; rc == TP_OK && s < nsrc; s++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s/%s", src[s].root, src[s].label, name);
        struct stat sb;
        if (stat(path, &sb) != 0)
            continue; /* this trace made no such file */
        if ((rc = csv_read(path, &files[s])) != TP_OK)
            snprintf(err, errsz, "%s: cannot read", path);
        for (size_t k = 0; rc == TP_OK && files[s].n > 0 && k < files[s].rows[0].n; k++)
            rc = list_add(&cols, &ncols, files[s].rows[0].f[k]);
    }
    if (rc == TP_OK) /* always a rank column; empty where a trace did not know its rank */
        rc = list_add(&cols, &ncols, "rank");
    char final[4096], tmp[4200];
    snprintf(final, sizeof final, "%s/%s", out, name);
    snprintf(tmp, sizeof tmp, "%s/.%s.tmp-%ld", out, name, (long)getpid());
    FILE *f = rc == TP_OK ? fopen(tmp, "wx") : NULL;
    if (rc == TP_OK && f == NULL) {
        snprintf(err, errsz, "%s: cannot write: %s", final, strerror(errno));
        rc = TP_EIO;
    }
    for (size_t k = 0; f && k < ncols; k++) {
        if (k)
            fputc(',', f);
        tp_csv_put_text(f, cols[k]);
    }
    if (f)
        fputc('\n', f);
    for (size_t s = 0; f && s < nsrc; s++) {
        csv_file *c = &files[s];
        size_t *at = c->n ? malloc(ncols * sizeof *at) : NULL;
        for (size_t k = 0; at && k < ncols; k++) { /* each merged column's place here */
            at[k] = (size_t)-1;
            for (size_t j = 0; j < c->rows[0].n; j++)
                if (strcmp(c->rows[0].f[j], cols[k]) == 0)
                    at[k] = j;
        }
        for (size_t r = 1; at && r < c->n; r++) {
            tp_csv_put_text(f, src[s].label);
            for (size_t k = 1; k < ncols; k++) {
                fputc(',', f);
                if (at[k] != (size_t)-1 && at[k] < c->rows[r].n)
                    tp_csv_put_text(f, c->rows[r].f[at[k]]);
            }
            fputc('\n', f);
        }
        free(at);
    }
    if (f && (ferror(f) | fclose(f)) != 0) {
        snprintf(err, errsz, "%s: cannot write: %s", final, strerror(errno ? errno : EIO));
        rc = TP_EIO;
    }
    if (f && rc == TP_OK && rename(tmp, final) != 0) {
        snprintf(err, errsz, "%s: cannot rename into place: %s", final, strerror(errno));
        rc = TP_EIO;
    }
    if (rc != TP_OK && f)
        unlink(tmp);
    for (size_t s = 0; files && s < nsrc; s++)
        csv_free(&files[s]);
    free(files);
    list_free(cols, ncols);
    return rc;
}

int tp_merge_tables(const tp_batch_list *l, const char *out, size_t *nmerged, char *err,
                    size_t errsz)
{
    char **names = NULL;
    size_t nnames = 0, nsrc = 0;
    source *src = calloc(l->n ? l->n : 1, sizeof *src);
    int rc = src ? TP_OK : TP_ENOMEM;
    *nmerged = 0;
    for (size_t i = 0; rc == TP_OK && i < l->n; i++)
        if (tp_batch_went_through(&l->v[i])) { /* this run's traces, whole */
            src[nsrc++] = (source){l->v[i].root ? l->v[i].root : ".", l->v[i].label};
            rc = find_tables(src[nsrc - 1].root, l->v[i].label, &names, &nnames);
        }
    /* label order, whatever the folder or shard a trace came from */
    for (size_t i = 1; rc == TP_OK && i < nsrc; i++)
        for (size_t j = i; j > 0 && strcmp(src[j - 1].label, src[j].label) > 0; j--) {
            source t = src[j];
            src[j] = src[j - 1];
            src[j - 1] = t;
        }
    for (size_t i = 1; rc == TP_OK && i < nsrc; i++)
        if (strcmp(src[i - 1].label, src[i].label) == 0) {
            snprintf(err, errsz, "trace '%s' is in both %s and %s", src[i].label,
                     src[i - 1].root, src[i].root);
            rc = TP_EINVAL;
        }
    if (rc == TP_OK && names)
        qsort(names, nnames, sizeof *names, by_string);
    if (rc == TP_OK && tp_batch_make_dirs(out) != 0) {
        snprintf(err, errsz, "%s: cannot create: %s", out, strerror(errno));
        rc = TP_EIO;
    }
    for (size_t i = 0; rc == TP_OK && i < nnames; i++)
        if ((rc = merge_one(src, nsrc, names[i], out, err, errsz)) == TP_OK)
            (*nmerged)++;
    free(src);
    list_free(names, nnames);
    return rc;
}
