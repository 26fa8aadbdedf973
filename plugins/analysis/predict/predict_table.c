/*
 * analysis predict: the FC benchmark table (section 5.5) read from its
 * CSV file (fc_table), or taken from an input result (fc_table_input,
 * predict_fc.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "predict_internal.h"

/* One CSV line's fields (double quotes honoured), in place. */
static size_t split_csv(char *line, char **f, size_t max)
{
    size_t n = 0;
    char *p = line;
    while (n < max) {
        char *out = p;
        f[n++] = p;
        int quoted = *p == '"';
        if (quoted)
            p++;
        while (*p && (quoted || (*p != ',' && *p != '\n' && *p != '\r'))) {
            if (quoted && *p == '"') {
                if (p[1] == '"') {
                    *out++ = '"';
                    p += 2;
                    continue;
                }
                quoted = 0;
                p++;
                continue;
            }
            *out++ = *p++;
        }
        char end = *p;
        *out = '\0';
        if (end != ',')
            break;
        p++;
    }
    return n;
}

/* The table: rows with every field, kernels starting with prefix. */
static int read_table(tp_stage *st, const char *path, const char *prefix, pr_table *t)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return tp_fail(st, TP_EIO, "%s: cannot open: %s", path, strerror(errno));
    char line[4096];
    size_t line_no = 0, cap = 0;
    int col[6] = {-1, -1, -1, -1, -1, -1}, rc = TP_OK;
    static const char *const names[] = {"batch_size", "M", "N", "K", "kernel_name",
                                         "kernel_runtime"};
    while (rc == TP_OK && fgets(line, sizeof line, f)) {
        char *fld[32];
        size_t nf = split_csv(line, fld, 32);
        if (++line_no == 1) {
            for (size_t i = 0; i < nf; i++)
                for (int k = 0; k < 6; k++)
                    if (strcmp(fld[i], names[k]) == 0)
                        col[k] = (int)i;
            for (int k = 0; k < 6 && rc == TP_OK; k++)
                if (col[k] < 0)
                    rc = tp_fail(st, TP_EFORMAT, "%s:1: no column '%s' (batch_size,M,N,K,"
                                 "kernel_name,kernel_runtime)", path, names[k]);
            continue;
        }
        int empty = 0;
        for (int k = 0; k < 6; k++)
            empty |= (size_t)col[k] >= nf || fld[col[k]][0] == '\0';
        if (empty || strncmp(fld[col[4]], prefix, strlen(prefix)) != 0)
            continue; /* the seed drops rows with an empty field */
        pm_fc_row r;
        char *end;
        for (int k = 0; k < 4 && rc == TP_OK; k++) {
            r.v[k] = strtoll(fld[col[k]], &end, 10);
            if (*end)
                rc = tp_fail(st, TP_EFORMAT, "%s:%zu: %s '%s' is not a whole number", path,
                             line_no, names[k], fld[col[k]]);
        }
        r.runtime_us = strtod(fld[col[5]], &end);
        if (rc == TP_OK && (*end || !(r.runtime_us > 0)))
            rc = tp_fail(st, TP_EFORMAT, "%s:%zu: kernel_runtime '%s' is not a positive number",
                         path, line_no, fld[col[5]]);
        if (rc == TP_OK && t->n == cap) {
            cap = cap ? cap * 2 : 64;
            pm_fc_row *g = tp_realloc(t->rows, cap * sizeof *g);
            if (g == NULL)
                rc = tp_fail(st, TP_ENOMEM, "out of memory");
            else
                t->rows = g;
        }
        if (rc == TP_OK)
            t->rows[t->n++] = r;
    }
    fclose(f);
    if (rc == TP_OK && line_no == 0)
        rc = tp_fail(st, TP_EFORMAT, "%s: empty table", path);
    return rc;
}

/* The fc table: fc_table's file or fc_table_input's result (TP_OK and no
 * rows without either). */
int pr_load_table(tp_stage *st, const pr_config *cfg, pr_table *t)
{
    if (cfg->fc_table)
        return read_table(st, cfg->fc_table, cfg->kernel_prefix, t);
    if (cfg->fc_table_input)
        return pf_table_from_input(st, cfg->fc_table_input, cfg->kernel_prefix, &t->rows, &t->n);
    return TP_OK;
}
