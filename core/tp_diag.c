/*
 * Diagnostics: a list of one-line messages, each "file:line:col: error: …",
 * collected so that validation reports every problem, not just the first.
 */
#include "tp_internal.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void tp_diags_add(tp_diags *d, const char *file, int line, int col, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);

    char head[512];
    if (line > 0)
        snprintf(head, sizeof head, "%s:%d:%d: ", file ? file : "<input>", line, col);
    else if (file)
        snprintf(head, sizeof head, "%s: ", file);
    else
        head[0] = '\0';

    size_t n = strlen(head) + strlen(msg) + 1;
    char *s = malloc(n);
    if (s == NULL)
        return;
    snprintf(s, n, "%s%s", head, msg);
    if (d->n == d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 8;
        char **lines = realloc(d->lines, cap * sizeof *lines);
        if (lines == NULL) {
            free(s);
            return;
        }
        d->lines = lines;
        d->cap = cap;
    }
    d->lines[d->n++] = s;
}

void tp_diags_print(const tp_diags *d, FILE *f)
{
    for (size_t i = 0; i < d->n; i++)
        fprintf(f, "%s\n", d->lines[i]);
}

void tp_diags_free(tp_diags *d)
{
    for (size_t i = 0; i < d->n; i++)
        free(d->lines[i]);
    free(d->lines);
    d->lines = NULL;
    d->n = d->cap = 0;
}
