/*
 * The svg writer's drawing surface: an SVG 1.1 document built in memory,
 * text that is escaped, measured and never drawn over other text, the
 * colour-blind-safe palette and axis ticks.  Private to plugins/writer/svg.
 */
#ifndef TP_SVG_DOC_H
#define TP_SVG_DOC_H

#include <stddef.h>

#include <tracepipe/tp_plugin.h>

#define SVG_FONT 12.0       /* labels, legends, ticks */
#define SVG_FONT_SMALL 10.0 /* dense lanes and tick labels */
#define SVG_FONT_TITLE 16.0
#define SVG_MARGIN 16.0
#define SVG_OTHERS_COLOR "#BBBBBB"

/* A label's box, by the writer's own width estimate (svg_text_width). */
typedef struct svg_box {
    double x0, y0, x1, y1;
} svg_box;

typedef struct svg_doc {
    char *buf;
    size_t len, cap;
    int oom;
    svg_box *labels;
    size_t nlabels, cap_labels;
    double width, height; /* height grows as charts are laid out */
} svg_doc;

void svg_doc_init(svg_doc *d, double width);
void svg_doc_free(svg_doc *d);
void svg_printf(svg_doc *d, const char *fmt, ...) TP_PRINTF(2, 3);
/* s as XML character data: & < > " ' escaped, invalid UTF-8 and control
 * bytes replaced by U+FFFD, so xmllint accepts any trace name. */
void svg_escape(svg_doc *d, const char *s);
/* The full document: prolog, <svg> with the final size, a white
 * background, the chart title and everything drawn.  New string. */
char *svg_doc_finish(svg_doc *d, const char *title, size_t *len);

/* Width of s drawn at `size` px in a sans-serif face: a per-character
 * estimate that errs wide (narrow glyphs .36em, capitals .72em, wide .95em,
 * others .64em, any non-ASCII character 1em; DejaVu Sans, measured, stays inside). */
double svg_text_width(const char *s, double size);
/* s shortened with a trailing "..." so that it is at most max_w wide, as a
 * new string (s itself when it fits, still copied). */
char *svg_shorten(const char *s, double max_w, double size);

enum svg_anchor { SVG_START, SVG_MIDDLE, SVG_END };
/* Draws text with its baseline at y.  full (or NULL) becomes a <title>
 * tooltip, for names drawn shortened.  A label whose box would overlap one
 * already drawn is not drawn: returns 0 then, 1 when drawn. */
int svg_text(svg_doc *d, double x, double y, double size, enum svg_anchor anchor,
             const char *attrs, const char *text, const char *full);
/* The box svg_text gives a label. */
svg_box svg_text_box(double x, double y, double size, enum svg_anchor anchor, const char *text);
/* Pairs of drawn labels whose boxes overlap (0 for every chart drawn). */
size_t svg_overlaps(const svg_doc *d);

/* Palette colour i: Okabe and Ito's seven colours, then the same seven
 * lightened, then repeating. */
const char *svg_color(size_t i);

/* Round axis ticks over [lo, hi]: first tick, step and count, at most
 * max_ticks, with step 1, 2 or 5 times a power of ten. */
typedef struct svg_ticks {
    double first, step;
    int n;
} svg_ticks;
svg_ticks svg_nice_ticks(double lo, double hi, int max_ticks);
/* A tick or value as text: as many decimals as step needs, k/M/G/T
 * suffixes from a million up. */
void svg_fmt_num(char *buf, size_t size, double v, double step);

#endif
