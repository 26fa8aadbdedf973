/*
 * Diagnostics: a list of one-line messages, each "file:line:col: error: …",
 * collected so that validation reports every problem, not just the first.
 */
#include "tp_core.h"

#include <tracepipe/tp_sdk_text.h>

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* The escape for the character at p (n bytes: 1, or a valid UTF-8
 * sequence), written to esc; 0 when it is shown as is. */
static size_t escape_of(const unsigned char *p, size_t n, char esc[8])
{
    if (n == 2 && p[0] == 0xC2 && p[1] < 0xA0) /* C1 controls: U+0080 .. U+009F */
        return (size_t)snprintf(esc, 8, "\\u%04x", p[1]);
    if (n != 1)
        return 0;
    if (*p == '\n' || *p == '\r' || *p == '\t') {
        esc[0] = '\\';
        esc[1] = *p == '\n' ? 'n' : *p == '\r' ? 'r' : 't';
        esc[2] = '\0';
        return 2;
    }
    if (*p < 0x20 || *p >= 0x7F)
        return (size_t)snprintf(esc, 8, "\\x%02x", *p);
    return 0;
}

size_t tp_escape_text(const char *s, char *out, size_t size)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t len = 0;
    while (*p) {
        size_t n = *p >= 0x80 ? tp_utf8_len(p) : 1;
        if (n == 0)
            n = 1; /* an invalid byte: escaped below */
        char esc[8];
        size_t e = escape_of(p, n, esc);
        const char *piece = e ? esc : (const char *)p;
        size_t piece_len = e ? e : n;
        if (len + piece_len < size)
            memcpy(out + len, piece, piece_len);
        else if (len < size)
            size = len + 1; /* full: keep every later piece out too */
        len += piece_len;
        p += n;
    }
    if (size > 0)
        out[len < size ? len : size - 1] = '\0';
    return len;
}

/* A new escaped copy of s, or NULL when out of memory. */
static char *escaped_copy(const char *s)
{
    size_t n = tp_escape_text(s, NULL, 0);
    char *copy = malloc(n + 1);
    if (copy)
        tp_escape_text(s, copy, n + 1);
    return copy;
}

void tp_print_line(FILE *f, const char *fmt, ...)
{
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *text = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (text)
        vsnprintf(text, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    char *shown = text ? escaped_copy(text) : NULL;
    fprintf(f, "%s\n", shown ? shown : "pipeline: (out of memory formatting a message)");
    free(shown);
    free(text);
}

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
    char *raw = malloc(n);
    if (raw == NULL)
        return;
    snprintf(raw, n, "%s%s", head, msg);
    char *s = escaped_copy(raw); /* one line, nothing a terminal acts on */
    free(raw);
    if (s == NULL)
        return;
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
