/*
 * The svg writer's timeline: a Gantt view of a window of the trace, one
 * lane per host thread (nested events on rows below each other) and per GPU
 * stream, boxes coloured by event kind.  Boxes closer than a pixel on one
 * row merge into one, so the document stays small whatever the trace holds.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tracepipe/tp_sdk_trace.h>

#include <tracepipe/tp_sdk_iter.h>

#include "svg.h"

#define ROW_H 14.0
#define BOX_H 12.0
#define LANE_GAP 6.0

typedef struct tl_lane {
    int gpu;
    int64_t a, b;   /* pid, tid or device, stream */
    double busy;    /* ns inside the window, to choose lanes */
    int rows;       /* nesting rows used (host) */
    double y;       /* top, once laid out */
    int shown;
} tl_lane;

typedef struct tl_event {
    uint32_t row;
    uint32_t lane;
    int32_t depth; /* nesting row, once known */
    int64_t ts, end;
} tl_event;

static int kind_drawn(unsigned kind)
{
    return kind == TP_KIND_CPU_OP || kind == TP_KIND_ANNOTATION || kind == TP_KIND_RUNTIME ||
           kind == TP_KIND_SYNC || kind == TP_KIND_KERNEL || kind == TP_KIND_MEMCPY ||
           kind == TP_KIND_MEMSET;
}

static size_t kind_color(unsigned kind)
{
    switch (kind) {
    case TP_KIND_CPU_OP: return 1;
    case TP_KIND_ANNOTATION: return 9;
    case TP_KIND_RUNTIME: return 0;
    case TP_KIND_SYNC: return 5;
    case TP_KIND_KERNEL: return 3;
    case TP_KIND_MEMCPY: return 4;
    default: return 2; /* memset */
    }
}

static int by_lane_time(const void *x, const void *y)
{
    const tl_event *a = x, *b = y;
    if (a->lane != b->lane)
        return a->lane < b->lane ? -1 : 1;
    if (a->depth != b->depth)
        return a->depth < b->depth ? -1 : 1;
    if (a->ts != b->ts)
        return a->ts < b->ts ? -1 : 1;
    if (a->end != b->end)
        return a->end > b->end ? -1 : 1; /* the enclosing event first */
    return (a->row > b->row) - (a->row < b->row);
}

typedef struct tl_lanes {
    tl_lane *l;
    size_t n;
    uint32_t *of_track; /* lane + 1 per track, 0: not yet */
} tl_lanes;

static int64_t lane_of(tl_lanes *L, const tp_cols *c, size_t row)
{
    uint32_t tr = c->track[row];
    if (L->of_track[tr])
        return L->of_track[tr] - 1;
    const tp_track *t = &c->tracks[tr];
    int gpu = TP_KIND_IS_GPU(c->kind[row]);
    int64_t a = gpu ? t->device : t->pid, b = gpu ? t->stream : t->tid;
    size_t k = 0;
    while (k < L->n && !(L->l[k].gpu == gpu && L->l[k].a == a && L->l[k].b == b))
        k++;
    if (k == L->n) {
        memset(&L->l[k], 0, sizeof L->l[k]);
        L->l[k].gpu = gpu;
        L->l[k].a = a;
        L->l[k].b = b;
        L->n++;
    }
    L->of_track[tr] = (uint32_t)k + 1;
    return (int64_t)k;
}

static int by_place(const void *x, const void *y)
{
    const tl_lane *a = x, *b = y;
    if (a->gpu != b->gpu)
        return a->gpu - b->gpu;
    if (a->a != b->a)
        return a->a < b->a ? -1 : 1;
    return (a->b > b->b) - (a->b < b->b);
}

static int by_busy(const void *x, const void *y)
{
    const tl_lane *a = x, *b = y;
    if (a->busy != b->busy)
        return a->busy > b->busy ? -1 : 1;
    return by_place(x, y);
}

/* The iteration whose step number (the SDK view's: ProfilerStep#10 is 10,
 * the 0-based ordinal for markers without numbers) is `iteration`; -1 when
 * none. */
static int64_t iteration_index(const tp_iter_view *steps, const svg_config *cfg)
{
    for (size_t k = 0; k < steps->n; k++)
        if (steps->step[k] == cfg->iteration)
            return (int64_t)k;
    return -1;
}

/* The window: the trace's, or one iteration of it, narrowed by start_us and end_us. */
static int timeline_window(tp_stage *st, const svg_config *cfg, tp_trace *t,
                           int64_t *lo, int64_t *hi)
{
    if (!tp_trace_window(t, lo, hi))
        return tp_fail(st, TP_EINVAL, "the trace holds no events with a duration to draw");
    if (cfg->iteration >= 0) {
        tp_iter_override ov = {.prefix = cfg->marker, .option = "marker"};
        tp_iter_view steps;
        int rc = tp_iter_view_get(st, t, &ov, &steps);
        tp_iterations it = tp_iter_as_iterations(&steps);
        int64_t k = rc == TP_OK ? iteration_index(&steps, cfg) : -1;
        if (rc == TP_OK && k < 0)
            rc = tp_fail(st, TP_EINVAL, "iteration %lld: no such iteration among the %zu marked by '%s'",
                         (long long)cfg->iteration, it.n, steps.marker);
        if (rc == TP_OK) {
            *lo = it.it[k].start;
            *hi = it.it[k].end;
        }
        tp_iter_view_release(&steps);
        if (rc != TP_OK)
            return rc;
    }
    int64_t base = *lo;
    if (cfg->start_us)
        *lo = base + (int64_t)llround(strtod(cfg->start_us, NULL) * 1e3);
    if (cfg->end_us)
        *hi = base + (int64_t)llround(strtod(cfg->end_us, NULL) * 1e3);
    if (*hi <= *lo)
        return tp_fail(st, TP_EINVAL, "the window to draw is empty (start_us %s, end_us %s)",
                       cfg->start_us ? cfg->start_us : "-", cfg->end_us ? cfg->end_us : "-");
    return TP_OK;
}

static void lane_label(tp_stage *st, const tl_lane *l, int one_pid, char *buf, size_t size)
{
    char a[64], b[64];
    if (l->gpu) {
        snprintf(buf, size, "GPU %lld stream %lld", (long long)l->a, (long long)l->b);
        return;
    }
    tp_id_text(st, l->a, a, sizeof a);
    tp_id_text(st, l->b, b, sizeof b);
    if (one_pid)
        snprintf(buf, size, "thread %s", b);
    else
        snprintf(buf, size, "pid %s thread %s", a, b);
}

/* A box waiting to be drawn: boxes on one row merge while they touch. */
typedef struct tl_box {
    double x0, x1, y;
    unsigned kind;
    size_t count;
    uint32_t row;
} tl_box;

static void flush_box(tp_stage *st, svg_doc *doc, const tp_cols *c, tl_box *b)
{
    if (b->count == 0)
        return;
    double w = fmax(b->x1 - b->x0, 0.5);
    svg_printf(doc, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.0f\" fill=\"%s\"><title>",
               b->x0, b->y, w, BOX_H, svg_color(kind_color(b->kind)));
    if (b->count == 1) {
        svg_escape(doc, tp_str_text(st, c->name[b->row]));
        svg_printf(doc, " (%.3f us)", (double)c->dur[b->row] / 1e3);
    } else {
        svg_printf(doc, "%zu %s events", b->count, tp_kind_name(b->kind));
    }
    svg_printf(doc, "</title></rect>\n");
    b->count = 0;
}

static void draw_axis(svg_doc *doc, double x0, double x1, double y, int64_t lo, int64_t hi)
{
    double span_us = (double)(hi - lo) / 1e3, scale = span_us >= 10000 ? 1e3 : 1;
    const char *unit = scale > 1 ? "ms" : "us";
    svg_ticks t = svg_nice_ticks(0, span_us / scale, (int)((x1 - x0) / 80));
    for (int k = 0; k < t.n; k++) {
        double v = t.first + k * t.step;
        if (v > span_us / scale + 1e-9)
            break;
        double x = x0 + v * scale / span_us * (x1 - x0);
        char buf[48];
        svg_fmt_num(buf, sizeof buf, v, t.step);
        svg_printf(doc, "<line x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\" stroke=\"#444444\"/>\n",
                   x, y, x, y + 4);
        svg_text(doc, x, y + 16, SVG_FONT_SMALL, SVG_MIDDLE, NULL, buf, NULL);
    }
    svg_printf(doc, "<line x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\" stroke=\"#444444\"/>\n", x0,
               y, x1, y);
    char label[64];
    snprintf(label, sizeof label, "time from the window start (%s)", unit);
    svg_text(doc, (x0 + x1) / 2, y + 34, SVG_FONT, SVG_MIDDLE, NULL, label, NULL);
}

int svg_draw_timeline(tp_stage *st, svg_doc *doc, const svg_config *cfg)
{
    tp_trace *t = tp_stage_trace(st);
    if (t == NULL)
        return tp_fail(st, TP_EINVAL, "chart timeline draws a trace, and this run has none");
    const tp_cols *c = tp_trace_cols(t);
    int64_t lo, hi;
    int rc = timeline_window(st, cfg, t, &lo, &hi);
    if (rc != TP_OK)
        return rc;
    tl_lanes L = {calloc(c->n_tracks ? c->n_tracks : 1, sizeof *L.l), 0,
                  calloc(c->n_tracks ? c->n_tracks : 1, sizeof *L.of_track)};
    size_t nev = 0;
    tl_event *ev = NULL;
    for (size_t i = 0; i < c->n; i++)
        nev += kind_drawn(c->kind[i]) && c->dur[i] >= 0 && c->ts[i] < hi && c->ts[i] + c->dur[i] > lo;
    ev = malloc((nev ? nev : 1) * sizeof *ev);
    if (L.l == NULL || L.of_track == NULL || ev == NULL) {
        rc = tp_fail(st, TP_ENOMEM, "out of memory");
        goto out;
    }
    nev = 0;
    for (size_t i = 0; i < c->n; i++) {
        if (!kind_drawn(c->kind[i]) || c->dur[i] < 0 || c->ts[i] >= hi || c->ts[i] + c->dur[i] <= lo)
            continue;
        int64_t lane = lane_of(&L, c, i);
        ev[nev].row = (uint32_t)i;
        ev[nev].lane = (uint32_t)lane;
        ev[nev].ts = c->ts[i];
        ev[nev].end = c->ts[i] + c->dur[i];
        L.l[lane].busy += (double)((ev[nev].end < hi ? ev[nev].end : hi) - (ev[nev].ts > lo ? ev[nev].ts : lo));
        nev++;
    }
    if (nev == 0) {
        rc = tp_fail(st, TP_EINVAL, "no host or GPU events in the window to draw");
        goto out;
    }
    /* the busiest max_lanes lanes, drawn in order of place */
    size_t *order = malloc(L.n * sizeof *order);
    tl_lane *sorted = malloc(L.n * sizeof *sorted);
    if (order == NULL || sorted == NULL) {
        free(order);
        free(sorted);
        rc = tp_fail(st, TP_ENOMEM, "out of memory");
        goto out;
    }
    memcpy(sorted, L.l, L.n * sizeof *sorted);
    qsort(sorted, L.n, sizeof *sorted, by_busy);
    size_t shown = L.n < (size_t)cfg->max_lanes ? L.n : (size_t)cfg->max_lanes;
    qsort(sorted, shown, sizeof *sorted, by_place);
    for (size_t k = 0; k < L.n; k++) { /* old lane -> position, or L.n when not shown */
        order[k] = L.n;
        for (size_t j = 0; j < shown; j++)
            if (by_place(&sorted[j], &L.l[k]) == 0)
                order[k] = j;
    }
    for (size_t e = 0; e < nev; e++)
        ev[e].lane = (uint32_t)order[ev[e].lane];
    free(order);

    /* nesting rows per host lane: depth = open enclosing events */
    int64_t stack[64];
    for (size_t e = 0; e < nev; e++)
        ev[e].depth = 0;
    qsort(ev, nev, sizeof *ev, by_lane_time);
    for (size_t e = 0, top = 0; e < nev; e++) {
        if (e == 0 || ev[e].lane != ev[e - 1].lane)
            top = 0;
        if (ev[e].lane >= shown)
            continue;
        while (top > 0 && stack[top - 1] <= ev[e].ts)
            top--;
        ev[e].depth = sorted[ev[e].lane].gpu ? 0 : (int32_t)top;
        if (!sorted[ev[e].lane].gpu && top < 64)
            stack[top++] = ev[e].end;
        if (ev[e].depth < cfg->max_depth && ev[e].depth + 1 > sorted[ev[e].lane].rows)
            sorted[ev[e].lane].rows = ev[e].depth + 1;
    }
    qsort(ev, nev, sizeof *ev, by_lane_time); /* now row by row, so touching boxes merge */

    /* layout: labels, lanes, then the axis */
    int one_pid = 1;
    for (size_t k = 1; k < shown; k++)
        if (!sorted[k].gpu && !sorted[0].gpu && sorted[k].a != sorted[0].a)
            one_pid = 0;
    double label_w = 0;
    char label[160];
    for (size_t k = 0; k < shown; k++) {
        lane_label(st, &sorted[k], one_pid, label, sizeof label);
        label_w = fmax(label_w, svg_text_width(label, SVG_FONT_SMALL));
    }
    label_w = fmin(label_w, 0.25 * doc->width);
    double x0 = SVG_MARGIN + label_w + 8, x1 = doc->width - SVG_MARGIN - 12, y = doc->height + 8;
    for (size_t k = 0; k < shown; k++) {
        int rows = sorted[k].rows ? sorted[k].rows : 1;
        sorted[k].y = y;
        lane_label(st, &sorted[k], one_pid, label, sizeof label);
        char *s = svg_shorten(label, label_w, SVG_FONT_SMALL);
        if (s == NULL) {
            rc = TP_ENOMEM;
            break;
        }
        svg_printf(doc, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.0f\" fill=\"%s\"/>\n",
                   x0, y - 1, x1 - x0, rows * ROW_H, k % 2 ? "#FFFFFF" : "#F4F4F4");
        svg_text(doc, x0 - 6, y + 10, SVG_FONT_SMALL, SVG_END, NULL, s, label);
        free(s);
        y += rows * ROW_H + LANE_GAP;
    }
    tl_box box = {0};
    double scale = (x1 - x0) / (double)(hi - lo);
    for (size_t e = 0; e < nev && rc == TP_OK; e++) {
        if (ev[e].lane >= shown || ev[e].depth >= cfg->max_depth)
            continue;
        double bx0 = x0 + (double)((ev[e].ts > lo ? ev[e].ts : lo) - lo) * scale;
        double bx1 = x0 + (double)((ev[e].end < hi ? ev[e].end : hi) - lo) * scale;
        double by = sorted[ev[e].lane].y + ev[e].depth * ROW_H;
        unsigned kind = c->kind[ev[e].row];
        if (box.count && box.y == by && box.kind == kind && bx0 <= box.x1 + 1.0) {
            box.x1 = fmax(box.x1, bx1);
            box.count++;
            continue;
        }
        flush_box(st, doc, c, &box);
        box = (tl_box){bx0, bx1, by, kind, 1, ev[e].row};
    }
    flush_box(st, doc, c, &box);
    draw_axis(doc, x0, x1, y + 2, lo, hi);
    y += 46;
    if (shown < L.n) {
        char note[96];
        snprintf(note, sizeof note, "%zu quieter lanes not shown (max_lanes: %lld)", L.n - shown,
                 (long long)cfg->max_lanes);
        svg_text(doc, SVG_MARGIN, y + 4, SVG_FONT, SVG_START, NULL, note, NULL);
        y += 20;
    }
    /* legend of the kinds present */
    unsigned present[TP_KIND__COUNT] = {0};
    for (size_t e = 0; e < nev; e++)
        if (ev[e].lane < shown && ev[e].depth < cfg->max_depth)
            present[c->kind[ev[e].row]] = 1;
    char *names[TP_KIND__COUNT];
    const char *colors[TP_KIND__COUNT];
    size_t nk = 0;
    for (unsigned k = 0; k < TP_KIND__COUNT; k++)
        if (present[k]) {
            names[nk] = (char *)tp_kind_name(k);
            colors[nk++] = svg_color(kind_color(k));
        }
    y += svg_legend(doc, SVG_MARGIN, y, doc->width - 2 * SVG_MARGIN, nk, names, colors, NULL);
    doc->height = y + 8;
    free(sorted);
out:
    free(ev);
    free(L.l);
    free(L.of_track);
    return rc == TP_OK && doc->oom ? tp_fail(st, TP_ENOMEM, "out of memory") : rc;
}
