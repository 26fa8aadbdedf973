/*
 * The svg writer's drawing surface (svg_doc.h).
 */
#include "svg_doc.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tracepipe/tp_sdk_text.h>

void svg_doc_init(svg_doc *d, double width)
{
    memset(d, 0, sizeof *d);
    d->width = width;
}

void svg_doc_free(svg_doc *d)
{
    free(d->buf);
    free(d->labels);
    memset(d, 0, sizeof *d);
}

static int reserve(svg_doc *d, size_t extra)
{
    if (d->oom)
        return 0;
    if (d->len + extra + 1 <= d->cap)
        return 1;
    size_t cap = d->cap ? d->cap : 4096;
    while (cap < d->len + extra + 1)
        cap *= 2;
    char *p = realloc(d->buf, cap);
    if (p == NULL) {
        d->oom = 1;
        return 0;
    }
    d->buf = p;
    d->cap = cap;
    return 1;
}

void svg_printf(svg_doc *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || !reserve(d, (size_t)n))
        return;
    va_start(ap, fmt);
    vsnprintf(d->buf + d->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    d->len += (size_t)n;
}

static void put(svg_doc *d, const char *s, size_t n)
{
    if (!reserve(d, n))
        return;
    memcpy(d->buf + d->len, s, n);
    d->len += n;
    d->buf[d->len] = '\0';
}

void svg_escape(svg_doc *d, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        switch (*p) {
        case '&': put(d, "&amp;", 5); p++; continue;
        case '<': put(d, "&lt;", 4); p++; continue;
        case '>': put(d, "&gt;", 4); p++; continue;
        case '"': put(d, "&quot;", 6); p++; continue;
        case '\'': put(d, "&#39;", 5); p++; continue;
        default: break;
        }
        size_t n = tp_utf8_len(p);
        if (n == 0 || (*p < 0x20 && *p != '\t') || *p == 0x7F) {
            put(d, "\xEF\xBF\xBD", 3); /* XML 1.0 allows neither */
            p++;
            continue;
        }
        put(d, (const char *)p, n);
        p += n;
    }
}

char *svg_doc_finish(svg_doc *d, const char *title, size_t *len)
{
    svg_doc out;
    svg_doc_init(&out, d->width);
    svg_printf(&out,
               "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
               "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%.0f\" "
               "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-family=\"DejaVu Sans, Arial, "
               "Helvetica, sans-serif\" font-size=\"%.0f\">\n",
               d->width, ceil(d->height), d->width, ceil(d->height), SVG_FONT);
    svg_printf(&out, "<title>");
    svg_escape(&out, title);
    svg_printf(&out, "</title>\n<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" "
                     "fill=\"#FFFFFF\"/>\n",
               d->width, ceil(d->height));
    if (d->len)
        put(&out, d->buf, d->len);
    svg_printf(&out, "</svg>\n");
    if (out.oom || d->oom) {
        svg_doc_free(&out);
        return NULL;
    }
    free(out.labels);
    *len = out.len;
    return out.buf;
}

/* ------------------------------------------------------------------ text */

static double glyph_em(unsigned char c)
{
    if (c >= 0x80)
        return 1.0; /* the lead byte of a non-ASCII character; the rest count 0 */
    if (strchr("iljtfI.,:;'|!()[] ", c))
        return 0.36;
    if (strchr("MWmw@%", c))
        return 0.95;
    if (c >= 'A' && c <= 'Z')
        return 0.72;
    return 0.64;
}

double svg_text_width(const char *s, double size)
{
    double em = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p < 0x80 || *p >= 0xC0)
            em += glyph_em(*p);
    return em * size;
}

char *svg_shorten(const char *s, double max_w, double size)
{
    size_t n = strlen(s);
    if (svg_text_width(s, size) <= max_w)
        return strdup(s);
    char *out = malloc(n + 4);
    if (out == NULL)
        return NULL;
    double dots = svg_text_width("...", size), w = 0;
    size_t keep = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        size_t len = tp_utf8_len(p);
        if (len == 0)
            len = 1;
        double g = glyph_em(*p) * size;
        if (w + g + dots > max_w)
            break;
        w += g;
        p += len;
        keep = (size_t)(p - (const unsigned char *)s);
    }
    memcpy(out, s, keep);
    memcpy(out + keep, "...", 4);
    return out;
}

svg_box svg_text_box(double x, double y, double size, enum svg_anchor anchor, const char *text)
{
    double w = svg_text_width(text, size);
    double x0 = anchor == SVG_START ? x : anchor == SVG_MIDDLE ? x - w / 2 : x - w;
    svg_box b = {x0, y - 0.8 * size, x0 + w, y + 0.22 * size};
    return b;
}

static int boxes_overlap(const svg_box *a, const svg_box *b)
{
    return a->x0 < b->x1 && b->x0 < a->x1 && a->y0 < b->y1 && b->y0 < a->y1;
}

int svg_text(svg_doc *d, double x, double y, double size, enum svg_anchor anchor,
             const char *attrs, const char *text, const char *full)
{
    static const char *const anchors[] = {"start", "middle", "end"};
    svg_box box = svg_text_box(x, y, size, anchor, text);

    for (size_t i = 0; i < d->nlabels; i++)
        if (boxes_overlap(&box, &d->labels[i]))
            return 0;
    if (d->nlabels == d->cap_labels) {
        size_t cap = d->cap_labels ? d->cap_labels * 2 : 64;
        svg_box *p = realloc(d->labels, cap * sizeof *p);
        if (p == NULL) {
            d->oom = 1;
            return 0;
        }
        d->labels = p;
        d->cap_labels = cap;
    }
    d->labels[d->nlabels++] = box;
    svg_printf(d, "<text x=\"%.1f\" y=\"%.1f\"", x, y);
    if (size != SVG_FONT)
        svg_printf(d, " font-size=\"%.0f\"", size);
    if (anchor != SVG_START)
        svg_printf(d, " text-anchor=\"%s\"", anchors[anchor]);
    if (attrs)
        svg_printf(d, " %s", attrs);
    svg_printf(d, ">");
    if (full && strcmp(full, text) != 0) {
        svg_printf(d, "<title>");
        svg_escape(d, full);
        svg_printf(d, "</title>");
    }
    svg_escape(d, text);
    svg_printf(d, "</text>\n");
    return 1;
}

size_t svg_overlaps(const svg_doc *d)
{
    size_t n = 0;
    for (size_t i = 0; i < d->nlabels; i++)
        for (size_t j = i + 1; j < d->nlabels; j++)
            n += (size_t)boxes_overlap(&d->labels[i], &d->labels[j]);
    return n;
}

/* ---------------------------------------------------------------- colour */

const char *svg_color(size_t i)
{
    /* Okabe & Ito (2008), without black; then each mixed half with white */
    static const char *const colors[] = {
        "#E69F00", "#56B4E9", "#009E73", "#0072B2", "#D55E00", "#CC79A7", "#F0E442",
        "#F3CF80", "#ABDAF4", "#80CFB9", "#80B9D9", "#EAAF80", "#E6BCD3", "#F8F2A1",
    };
    return colors[i % (sizeof colors / sizeof colors[0])];
}

/* ----------------------------------------------------------------- ticks */

svg_ticks svg_nice_ticks(double lo, double hi, int max_ticks)
{
    svg_ticks t = {lo, 1, 1};
    if (!(hi > lo) || !isfinite(lo) || !isfinite(hi)) {
        t.step = lo != 0 ? fabs(lo) : 1;
        return t;
    }
    if (max_ticks < 2)
        max_ticks = 2;
    double raw = (hi - lo) / (max_ticks - 1), mag = pow(10, floor(log10(raw)));
    static const double mult[] = {1, 2, 5, 10};
    double step = 10 * mag;
    for (size_t i = 0; i < 4; i++) {
        double s = mult[i] * mag;
        if (ceil(hi / s - 1e-9) - floor(lo / s + 1e-9) + 1 <= max_ticks) {
            step = s;
            break;
        }
    }
    t.step = step;
    t.first = floor(lo / step + 1e-9) * step;
    t.n = (int)(ceil(hi / step - 1e-9) - floor(lo / step + 1e-9)) + 1;
    return t;
}

void svg_fmt_num(char *buf, size_t size, double v, double step)
{
    static const char suffix[] = "kMGTP";
    double a = fabs(step) > fabs(v) ? fabs(step) : fabs(v);
    int k = 0;
    if (a >= 1e6)
        while (k < 5 && a >= 1e3 * pow(1e3, k))
            k++;
    double scale = pow(1e3, k), s = fabs(step) / scale;
    int decimals = s > 0 && s < 1 ? (int)ceil(-log10(s) - 1e-9) : 0;
    if (decimals > 6)
        decimals = 6;
    double x = v / scale;
    if (fabs(x) < 0.5 * pow(10, -decimals))
        x = 0; /* no "-0" */
    if (k)
        snprintf(buf, size, "%.*f%c", decimals, x, suffix[k - 1]);
    else
        snprintf(buf, size, "%.*f", decimals, x);
}
