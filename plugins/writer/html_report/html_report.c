/*
 * writer `html_report`: one self-contained HTML file a person opens: what
 * the run read (each trace's source and what it says about itself), every
 * chart the run drew so far (the .svg files earlier stages completed,
 * inline), and the input results as tables that sort by a click.
 *
 * Nothing is fetched: CSS, SVG and a few lines of JavaScript are inline, so
 * the file can be mailed or attached to a ticket.  No time or absolute path
 * the run did not give is written: identical inputs give identical bytes.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk_output.h>
#include <tracepipe/tp_sdk_tree.h>

#include <tracepipe/tp_sdk_text.h>

#include "html_report.h"

#define MAX_SVG_BYTES (8u << 20)

static const tp_option hr_options[] = {
    TP_OPTION_OUTPUT_FILE("path", hr_config, path, NULL, "output file (.html); stdout when absent"),
    TP_OPTION_STRING("title", hr_config, title, NULL,
                     "the page's title and heading; default: the pipeline's name and the "
                     "traces' labels"),
    TP_OPTION_INT("max_rows", hr_config, max_rows, "200", 1, 1000000,
                  "rows shown per table; the rest are counted (the CSV writer writes them all)"),
    TP_OPTION_BOOL("charts", hr_config, charts, "true",
                   "embed every .svg file earlier stages of the run wrote"),
    TP_OPTION_LIST("svg_files", hr_config, svg_files,
                   "more SVG files to embed (charts made by another run)"),
    TP_OPTION_INT("findings", hr_config, findings, "5", 0, 1000,
                  "findings listed in the summary, strongest first (all in the table)"),
    TP_OPTION_END};

/* Text as HTML character data or attribute value. */
void hr_text(FILE *f, const char *s)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    while (*p) {
        switch (*p) {
        case '&': fputs("&amp;", f); p++; continue;
        case '<': fputs("&lt;", f); p++; continue;
        case '>': fputs("&gt;", f); p++; continue;
        case '"': fputs("&quot;", f); p++; continue;
        case '\'': fputs("&#39;", f); p++; continue;
        default: break;
        }
        size_t n = tp_utf8_len(p);
        if (n == 0 || (*p < 0x20 && *p != '\t' && *p != '\n')) {
            fputs("\xEF\xBF\xBD", f);
            p++;
            continue;
        }
        fwrite(p, 1, n, f);
        p += n;
    }
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* Tables fit the page (issue 29): a fixed layout over the page's width,
 * each numeric column as wide as its longest value (html's <col> widths,
 * in ch), text cells cut with an ellipsis, their full text in the cell
 * (selectable, copied whole) and in the title (on hover). */
static const char style[] =
    "body{font-family:'DejaVu Sans',Arial,Helvetica,sans-serif;margin:24px auto;max-width:1200px;"
    "padding:0 16px;color:#222}\n"
    "h1{font-size:24px;overflow-wrap:anywhere}h2{font-size:19px;border-bottom:1px solid #ccc;"
    "padding-bottom:4px;margin-top:32px}h3{font-size:15px;margin:20px 0 6px;overflow-wrap:anywhere}\n"
    "table{border-collapse:collapse;font-size:13px;margin-bottom:8px}\n"
    "table.sortable,table.tree,table.facts{table-layout:fixed;width:100%}\n"
    "th,td{border:1px solid #ddd;padding:3px 8px;text-align:left;vertical-align:top}\n"
    "th{overflow-wrap:anywhere}\n"
    "td{overflow:hidden;text-overflow:ellipsis;white-space:nowrap}\n"
    "td.n{text-align:right;font-variant-numeric:tabular-nums;text-overflow:clip}\n"
    "table.info{table-layout:fixed;width:100%}table.info th{width:13em}\n"
    "table.info td{white-space:normal;overflow-wrap:anywhere}\n"
    "table.summary td{font-size:14px}.nm{color:#888}a.src{font-size:11px;color:#666;margin-left:6px}\n"
    "ol.findings{margin:4px 0 0;padding-left:22px}.sev{font-weight:bold;color:#b35900}\n"
    "span.name{font-family:monospace;display:inline-block;max-width:40em;overflow:hidden;"
    "text-overflow:ellipsis;white-space:nowrap;vertical-align:bottom}.where{color:#555}\n"
    "tr.straggler td{background:#fde2e1}figure.rank.straggler{outline:3px solid #d62728}\n"
    "div.multiples{display:flex;flex-wrap:wrap;gap:8px}figure.rank{margin:0;padding:4px;"
    "border:1px solid #ddd;max-width:100%}\n"
    "th{background:#f3f3f3}table.sortable th{cursor:pointer}\n"
    "th[data-dir=asc]:after{content:' \\25B2'}th[data-dir=desc]:after{content:' \\25BC'}\n"
    "figure{margin:12px 0 24px}figcaption{font-size:12px;color:#666}\n"
    "figure svg{max-width:100%;height:auto}p.more,p.empty,p.part{font-size:12px;color:#666}\n"
    "nav a{margin-right:12px}\n";

/* Sorting by a click on a header: numbers by value (data-v), text by
 * locale order, again to reverse.  "#layout" measures the page (the
 * viewport's width, the document's scrollWidth, numeric cells ending right
 * of the viewport or clipped, text cells cut) into body data-layout, for
 * tests/e2e/report_layout.sh.  "#selftest" sorts the first table by
 * its first numeric column and records whether the rows came out in order
 * (body data-selftest), for the headless-browser test. */
static const char script[] =
    "(function(){\n"
    "function key(c){return c.hasAttribute('data-v')?parseFloat(c.getAttribute('data-v')):"
    "c.textContent;}\n"
    "function sortBy(th){var t=th.closest('table'),b=t.tBodies[0];"
    "var i=Array.prototype.indexOf.call(th.parentNode.children,th);"
    "var d=th.getAttribute('data-dir')==='asc'?-1:1;"
    "t.querySelectorAll('th').forEach(function(h){h.removeAttribute('data-dir');});"
    "th.setAttribute('data-dir',d>0?'asc':'desc');"
    "var rows=Array.prototype.slice.call(b.rows);"
    "rows.sort(function(x,y){var a=key(x.cells[i]),c=key(y.cells[i]);"
    "if(typeof a==='number'&&typeof c==='number'){return (a-c)*d;}"
    "return String(a).localeCompare(String(c))*d;});"
    "rows.forEach(function(r){b.appendChild(r);});}\n"
    "document.querySelectorAll('table.sortable th').forEach(function(th){"
    "th.addEventListener('click',function(){sortBy(th);});});\n"
    "if(location.hash==='#selftest'){var th=document.querySelector("
    "'table.sortable th[data-num]');var ok='none';if(th){sortBy(th);var t=th.closest('table');"
    "var i=Array.prototype.indexOf.call(th.parentNode.children,th);var prev=-Infinity;ok='ok';"
    "Array.prototype.forEach.call(t.tBodies[0].rows,function(r){var v=key(r.cells[i]);"
    "if(!isNaN(v)){if(v<prev){ok='fail';}prev=v;}});}"
    "document.body.setAttribute('data-selftest',ok);}\n"
    "if(location.hash==='#layout'){var W=document.documentElement.clientWidth,bad=[];"
    "document.querySelectorAll('td.n').forEach(function(c){var b=c.getBoundingClientRect();"
    "if(b.right>W+0.5||b.width<c.scrollWidth-0.5){bad.push(c.textContent);}});"
    "document.body.setAttribute('data-layout','width='+W+' scroll='+"
    "document.documentElement.scrollWidth+' cells='+document.querySelectorAll('td.n').length+"
    "' hidden='+bad.length+' cut='+Array.prototype.filter.call(document.querySelectorAll("
    "'td:not(.n)'),function(c){return c.scrollWidth>c.clientWidth;}).length+"
    "(bad.length?' first='+bad[0]:''));}\n"
    "document.body.setAttribute('data-ready','1');\n"
    "})();\n";

/* ------------------------------------------------------------- metadata */

static void put_info(FILE *f, const tp_trace *t, const char *key)
{
    int64_t iv;
    double dv;
    char num[40];
    switch (tp_trace_info_type(t, key)) {
    case TP_COL_STR: hr_text(f, tp_trace_info_str(t, key)); break;
    case TP_COL_I64:
        if (tp_trace_info_i64(t, key, &iv) == TP_OK)
            fprintf(f, "%" PRId64, iv);
        break;
    default:
        if (tp_trace_info_f64(t, key, &dv) == TP_OK) {
            tp_fmt_f64(num, sizeof num, dv);
            fputs(num, f);
        }
        break;
    }
}

/* "device.N.FIELD": N and FIELD, else 0. */
static int device_key(const char *key, long *n, const char **field)
{
    char *end;
    if (strncmp(key, "device.", 7) != 0)
        return 0;
    *n = strtol(key + 7, &end, 10);
    if (end == key + 7 || *end != '.')
        return 0;
    *field = end + 1;
    return 1;
}

/* The devices a trace names, a row each, the fields as columns (in order
 * of first appearance). */
static void device_table(FILE *f, const tp_trace *t)
{
    const char *fields[16];
    long devs[64];
    size_t nf = 0, nd = 0;
    for (size_t k = 0; k < tp_trace_info_count(t); k++) {
        long n;
        const char *field;
        if (!device_key(tp_trace_info_key(t, k), &n, &field))
            continue;
        size_t i = 0;
        while (i < nd && devs[i] != n)
            i++;
        if (i == nd && nd < 64)
            devs[nd++] = n;
        for (i = 0; i < nf && strcmp(fields[i], field) != 0; i++)
            ;
        if (i == nf && nf < 16)
            fields[nf++] = field;
    }
    if (nd == 0)
        return;
    fputs("<table class=\"sortable\"><thead><tr><th data-num=\"1\">device</th>", f);
    for (size_t i = 0; i < nf; i++) {
        fputs("<th>", f);
        hr_text(f, fields[i]);
        fputs("</th>", f);
    }
    fputs("</tr></thead><tbody>\n", f);
    for (size_t d = 0; d < nd; d++) {
        fprintf(f, "<tr><td class=\"n\" data-v=\"%ld\">%ld</td>", devs[d], devs[d]);
        for (size_t i = 0; i < nf; i++) {
            char key[128];
            snprintf(key, sizeof key, "device.%ld.%s", devs[d], fields[i]);
            fputs("<td>", f);
            put_info(f, t, key);
            fputs("</td>", f);
        }
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table>\n", f);
}

/* The iterations an input result lists (a column `iteration`, as the
 * iterations analysis writes): how many, first and last, as a fact row. */
static void iteration_facts(tp_stage *st, FILE *f)
{
    for (size_t i = 0; i < tp_input_count(st); i++) {
        const tp_result *r = tp_input(st, i);
        int col = tp_result_find_col(r, "iteration");
        size_t rows = tp_result_rows(r);
        if (col < 0 || rows == 0 || tp_result_col_type(r, col) != TP_COL_I64 ||
            tp_result_find_col(r, "dur_us") < 0)
            continue;
        fprintf(f, "<tr><th>iterations</th><td>%zu (%" PRId64 " to %" PRId64 ", result ", rows,
                tp_result_get_i64(r, 0, col), tp_result_get_i64(r, rows - 1, col));
        hr_text(f, tp_result_id(r));
        fputs(")</td></tr>\n", f);
        return;
    }
}

static void trace_section(tp_stage *st, FILE *f)
{
    size_t n = tp_stage_trace_count(st);
    if (n == 0)
        return;
    fputs("<section id=\"traces\"><h2>Traces</h2>\n", f);
    if (n > 1) { /* a batch, a diff: one row per trace, then per rank */
        hr_traces_table(st, f);
        hr_rank_multiples(st, f);
        fputs("</section>\n", f);
        return;
    }
    const tp_trace *t = tp_stage_trace_at(st, 0);
    fputs("<h3>", f);
    hr_text(f, tp_trace_id(t));
    fputs("</h3>\n<table class=\"info\"><tbody>\n<tr><th>source</th><td>", f);
    hr_text(f, tp_trace_source(t));
    fprintf(f, "</td></tr>\n<tr><th>events</th><td class=\"n\">%zu</td></tr>\n",
            tp_trace_cols(t)->n);
    for (size_t k = 0; k < tp_trace_info_count(t); k++) {
        const char *key = tp_trace_info_key(t, k), *field;
        long dev;
        if (device_key(key, &dev, &field))
            continue; /* in the devices table below */
        fputs("<tr><th>", f);
        hr_text(f, key);
        fputs("</th><td>", f);
        put_info(f, t, key);
        fputs("</td></tr>\n", f);
    }
    iteration_facts(st, f);
    fputs("</tbody></table>\n", f);
    device_table(f, t);
    fputs("</section>\n", f);
}

/* The trace's label (trace info), else its file's name. */
static const char *trace_label(const tp_trace *t)
{
    const char *label = tp_trace_info_str(t, "label");
    return label && *label ? label : base_name(tp_trace_source(t));
}

/* The traces' labels: "A", "A vs B" for two, "A and N more traces". */
static void put_labels(tp_stage *st, FILE *f, size_t n)
{
    hr_text(f, trace_label(tp_stage_trace_at(st, 0)));
    if (n == 2) {
        fputs(" vs ", f);
        hr_text(f, trace_label(tp_stage_trace_at(st, 1)));
    } else if (n > 2)
        fprintf(f, " and %zu more traces", n - 1);
}

/* The page's title: the `title` option, else the pipeline's `name:` and
 * the traces' labels ("dlrm_breakdown: rank0"), else either, else
 * "tracepipe report". */
static void put_title(tp_stage *st, FILE *f, const hr_config *cfg)
{
    size_t n = tp_stage_trace_count(st);
    const char *name = tp_pipeline_name(st);
    if (cfg->title && *cfg->title) {
        hr_text(f, cfg->title);
        return;
    }
    if (name)
        hr_text(f, name);
    if (name && n > 0)
        fputs(": ", f);
    if (n > 0)
        put_labels(st, f, n);
    else if (name == NULL)
        fputs("tracepipe report", f);
}

/* ---------------------------------------------------------------- charts */

/* One SVG file inline: from its <svg> on (the XML prolog and any DOCTYPE
 * are not HTML).  0 when embedded, else why not is logged. */
static int embed_svg(tp_stage *st, FILE *f, const char *path)
{
    FILE *in = fopen(path, "rb");
    if (in == NULL) {
        tp_log(st, TP_LOG_WARN, "%s: cannot read the chart, not embedded", path);
        return -1;
    }
    char *buf = malloc(MAX_SVG_BYTES + 1);
    size_t len = buf ? fread(buf, 1, MAX_SVG_BYTES, in) : 0;
    int too_big = buf && len == MAX_SVG_BYTES && fgetc(in) != EOF;
    fclose(in);
    if (buf == NULL || too_big) {
        tp_log(st, TP_LOG_WARN, "%s: %s, not embedded", path,
               buf ? "larger than 8 MiB" : "out of memory");
        free(buf);
        return -1;
    }
    buf[len] = '\0';
    const char *svg = strstr(buf, "<svg");
    if (svg == NULL) {
        tp_log(st, TP_LOG_WARN, "%s: no <svg> element, not embedded", path);
        free(buf);
        return -1;
    }
    fputs("<figure>\n", f);
    fwrite(svg, 1, len - (size_t)(svg - buf), f);
    fputs("<figcaption>", f);
    hr_text(f, base_name(path));
    fputs("</figcaption></figure>\n", f);
    free(buf);
    return 0;
}

static void chart_section(tp_stage *st, FILE *f, const hr_config *cfg)
{
    size_t n = cfg->charts ? tp_run_output_count(st) : 0, shown = 0;
    for (size_t i = 0; i < n; i++)
        shown += ends_with(tp_run_output(st, i), ".svg") ? 1u : 0u;
    if (shown + cfg->svg_files.n == 0)
        return;
    fputs("<section id=\"charts\"><h2>Charts</h2>\n", f);
    for (size_t i = 0; i < n; i++)
        if (ends_with(tp_run_output(st, i), ".svg"))
            embed_svg(st, f, tp_run_output(st, i));
    for (size_t i = 0; i < cfg->svg_files.n; i++)
        embed_svg(st, f, cfg->svg_files.items[i]);
    fputs("</section>\n", f);
}

/* ---------------------------------------------------------------- tables */

int hr_col(const tp_result *r, const char *name, tp_coltype type)
{
    int c = tp_result_find_col(r, name);
    return c >= 0 && (type == 0 || tp_result_col_type(r, c) == type) ? c : -1;
}

int hr_num_col(const tp_result *r, const char *name)
{
    int c = tp_result_find_col(r, name);
    tp_coltype t = c >= 0 ? tp_result_col_type(r, c) : 0;
    return t == TP_COL_F64 || t == TP_COL_I64 ? c : -1;
}

double hr_f64(const tp_result *r, size_t row, int col)
{
    return tp_result_col_type(r, col) == TP_COL_I64 ? (double)tp_result_get_i64(r, row, col)
                                                    : tp_result_get_f64(r, row, col);
}

static int has_cols(const tp_result *r, const char *const *names)
{
    for (size_t k = 0; names && names[k]; k++)
        if (tp_result_find_col(r, names[k]) < 0)
            return 0;
    return 1;
}

static int has_any_col(const tp_result *r, const char *const *names)
{
    for (size_t k = 0; names && names[k]; k++)
        if (tp_result_find_col(r, names[k]) >= 0)
            return 1;
    return 0;
}

long hr_find_input(tp_stage *st, size_t from, const char *const *names, const char *const *without)
{
    for (size_t i = from; i < tp_input_count(st); i++)
        if (has_cols(tp_input(st, i), names) && !has_any_col(tp_input(st, i), without))
            return (long)i;
    return -1;
}

void hr_duration(FILE *f, double us)
{
    double a = fabs(us);
    if (a >= 1e6)
        fprintf(f, "%.3g s", us / 1e6);
    else if (a >= 1e3)
        fprintf(f, "%.3g ms", us / 1e3);
    else
        fprintf(f, "%.3g us", us);
}

void hr_row_anchor(FILE *f, const tp_result *r, size_t row)
{
    fputs("r-", f);
    hr_text(f, tp_result_id(r));
    fprintf(f, "-%zu", row);
}

void hr_number(char *buf, size_t size, const tp_result *r, size_t row, int col)
{
    if (tp_result_is_null(r, row, col)) {
        snprintf(buf, size, "%s", "");
        return;
    }
    switch (tp_result_col_type(r, col)) {
    case TP_COL_STR: snprintf(buf, size, "%s", tp_result_get_str(r, row, col)); break;
    case TP_COL_F64: {
        double v = tp_result_get_f64(r, row, col);
        if (!isfinite(v))
            tp_fmt_f64(buf, size, v);
        else if (v != 0 && fabs(v) < 0.01)
            snprintf(buf, size, "%.3g", v);
        else
            snprintf(buf, size, "%.2f", v);
        break;
    }
    default: snprintf(buf, size, "%" PRId64, tp_result_get_i64(r, row, col)); break;
    }
}

static void put_cell(FILE *f, const tp_result *r, size_t row, int col, int indent)
{
    char num[48], key[48];
    if (tp_result_is_null(r, row, col)) {
        fputs("<td></td>", f);
        return;
    }
    if (tp_result_col_type(r, col) == TP_COL_STR) {
        const char *s = tp_result_get_str(r, row, col);
        if (indent > 0)
            fprintf(f, "<td style=\"padding-left:%.1fem\" title=\"", 0.5 + 1.2 * indent);
        else
            fputs("<td title=\"", f);
        hr_text(f, s);
        fputs("\">", f);
        hr_text(f, s);
        fputs("</td>", f);
        return;
    }
    hr_number(num, sizeof num, r, row, col);
    if (tp_result_col_type(r, col) == TP_COL_F64) {
        double v = tp_result_get_f64(r, row, col);
        tp_fmt_f64(key, sizeof key, v);
        fprintf(f, "<td class=\"n\" data-v=\"%s\">%s</td>", isfinite(v) ? key : "NaN", num);
    } else {
        fprintf(f, "<td class=\"n\" data-v=\"%s\">%s</td>", num, num);
    }
}

/* The longest word of a column's name (words end at underscores), at most
 * 10 characters: the header's least width. */
static size_t header_word(const char *name)
{
    size_t w = 0, cur = 0;
    for (; *name; name++) {
        cur = *name == '_' ? 0 : cur + 1;
        w = cur > w ? cur : w;
    }
    return w < 10 ? w : 10;
}

/* The width a numeric column needs, in characters: its longest shown value
 * (every row shown) or header word, at least 5. */
static size_t number_width(const tp_result *r, int col, size_t shown)
{
    char num[48];
    size_t w = header_word(tp_result_col_name(r, col)) + 1;
    w = w < 5 ? 5 : w;
    for (size_t row = 0; row < shown; row++) {
        hr_number(num, sizeof num, r, row, col);
        if (strlen(num) > w)
            w = strlen(num);
    }
    return w;
}

/* Page width a table may take, in px (body max-width), and an estimate of
 * a character's width at the tables' 13 px (DejaVu Sans digits: 8.3 px),
 * for cutting wide tables into parts that fit. */
#define PAGE_PX 1180.0
#define CH_PX 8.3
#define CELL_PX 21.0     /* padding 16, border 1, and the sort arrow's room */
#define TEXT_MIN_CH 10   /* a text column's least useful width */

/* The columns of one part of a table: the key columns, then data columns. */
typedef struct hr_part {
    int cols[256];
    size_t n;
} hr_part;

static double col_px(const tp_result *r, int c, const size_t *width)
{
    if (tp_result_col_type(r, c) == TP_COL_STR)
        return TEXT_MIN_CH * CH_PX + CELL_PX;
    return (double)(width[c] + 1) * CH_PX + CELL_PX;
}

/* The key columns every part repeats: through the first text column when
 * it is among the first four (a tree's name, a diff's name), else the
 * first column. */
static size_t key_cols(const tp_result *r)
{
    for (size_t c = 0; c < tp_result_cols(r) && c < 4; c++)
        if (tp_result_col_type(r, (int)c) == TP_COL_STR)
            return c + 1;
    return tp_result_cols(r) ? 1 : 0;
}

/* Cuts the columns into parts that fit the page, each with the key
 * columns; returns how many parts (at most max). */
static size_t table_parts(const tp_result *r, const size_t *width, hr_part *parts, size_t max)
{
    size_t nk = key_cols(r), np = 0, ncols = tp_result_cols(r);
    double key_px = 0;
    for (size_t c = 0; c < nk; c++)
        key_px += col_px(r, (int)c, width);
    for (size_t c = nk; c < ncols || np == 0;) {
        hr_part *p = &parts[np++];
        double px = key_px;
        p->n = 0;
        for (size_t k = 0; k < nk; k++)
            p->cols[p->n++] = (int)k;
        /* at least one data column per part; the last part takes the rest
         * when no more parts are allowed */
        while (c < ncols && p->n < 256 &&
               (p->n == nk || px + col_px(r, (int)c, width) <= PAGE_PX || np == max)) {
            px += col_px(r, (int)c, width);
            p->cols[p->n++] = (int)c++;
        }
        if (np == max)
            break;
    }
    return np;
}

/* Numeric columns as wide as their values (plus the cell's padding and the
 * sort arrow); text columns share the rest of the page's width. */
static void col_widths(FILE *f, const tp_result *r, const hr_part *p, const size_t *width)
{
    fputs("<colgroup>", f);
    for (size_t k = 0; k < p->n; k++) {
        if (tp_result_col_type(r, p->cols[k]) == TP_COL_STR)
            fputs("<col>", f);
        else
            fprintf(f, "<col style=\"width:calc(%zuch + 20px)\">", width[p->cols[k]] + 1);
    }
    fputs("</colgroup>", f);
}

static void result_heading(FILE *f, const tp_result *r)
{
    const char *title = tp_result_meta(r, "title"), *id = tp_result_id(r);
    fputs("<h3 id=\"r-", f);
    hr_text(f, id);
    fputs("\">", f);
    if (title) {
        hr_text(f, title);
        fputs(" (", f);
    }
    hr_text(f, id);
    fputs(title ? ")</h3>\n" : "</h3>\n", f);
    const char *warning = tp_result_meta(r, "warning"); /* e.g. diff: the traces differ */
    if (warning) {
        fputs("<p class=\"warn\" style=\"background:#fff4e5;border-left:4px solid #e8a33d;"
              "padding:6px 10px\">warning: ", f);
        hr_text(f, warning);
        fputs("</p>\n", f);
    }
}

/* A column name, breakable after its underscores. */
static void put_header_name(FILE *f, const char *name)
{
    for (const char *us; (us = strchr(name, '_')) != NULL; name = us + 1) {
        char part[128];
        size_t n = (size_t)(us - name) + 1;
        snprintf(part, sizeof part, "%.*s", (int)(n < sizeof part ? n : sizeof part - 1), name);
        hr_text(f, part);
        fputs("<wbr>", f);
    }
    hr_text(f, name);
}

static void table_header(FILE *f, const tp_result *r, const hr_part *p)
{
    fputs("<thead><tr>", f);
    for (size_t k = 0; k < p->n; k++) {
        int c = p->cols[k];
        const char *unit = tp_result_col_unit(r, c), *name = tp_result_col_name(r, c);
        fprintf(f, "<th%s>", tp_result_col_type(r, c) == TP_COL_STR ? "" : " data-num=\"1\"");
        put_header_name(f, name);
        if (unit && *unit && !ends_with(name, unit)) {
            fputs(" (", f);
            hr_text(f, unit);
            fputs(")", f);
        }
        fputs("</th>", f);
    }
    fputs("</tr></thead>\n", f);
}

static void row_open(FILE *f, const tp_result *r, size_t row, int anchor, int strag_col)
{
    fputs("<tr", f);
    if (anchor) {
        fputs(" id=\"", f);
        hr_row_anchor(f, r, row);
        fputs("\"", f);
    }
    fputs(hr_is_straggler_row(r, strag_col, row) ? " class=\"straggler\">" : ">", f);
}

static void empty_result(FILE *f, const tp_result *r)
{
    fprintf(f, "<p class=\"empty\">No rows: the result is empty (%zu columns: ", tp_result_cols(r));
    for (size_t c = 0; c < tp_result_cols(r); c++) {
        fputs(c ? ", " : "", f);
        hr_text(f, tp_result_col_name(r, (int)c));
    }
    fputs(").</p>\n", f);
}

/* One part of a table: its columns of the first `shown` rows; the first
 * part anchors a findings result's rows. */
static void table_part(FILE *f, const tp_result *r, const hr_part *p, const size_t *width,
                       const tp_result_tree *tree, size_t shown, size_t part)
{
    int name_col = tree ? tp_result_find_col(r, "name") : -1;
    int anchor = part == 0 && tp_result_is_findings(r), strag = hr_straggler_col(r);
    /* a tree keeps its order: sorting would tear children from parents */
    fprintf(f, "<table class=\"%s\">", tree ? "tree" : "sortable");
    col_widths(f, r, p, width);
    table_header(f, r, p);
    fputs("<tbody>\n", f);
    for (size_t row = 0; row < shown; row++) {
        row_open(f, r, row, anchor, strag);
        for (size_t k = 0; k < p->n; k++)
            put_cell(f, r, row, p->cols[k], p->cols[k] == name_col ? (int)tree->level[row] : 0);
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table>\n", f);
}

#define MAX_PARTS 8

static int result_table(tp_stage *st, FILE *f, const tp_result *r, const hr_config *cfg)
{
    tp_result_tree tree = {0};
    int is_tree = tp_result_is_tree(r) && tp_result_tree_load(st, r, &tree) == TP_OK;
    size_t rows = tp_result_rows(r), shown = rows < (size_t)cfg->max_rows ? rows : (size_t)cfg->max_rows;
    size_t ncols = tp_result_cols(r);
    size_t *width = tp_calloc(ncols ? ncols : 1, sizeof *width);
    hr_part *parts = tp_malloc(MAX_PARTS * sizeof *parts);
    if (width == NULL || parts == NULL) {
        tp_free(width);
        tp_free(parts);
        if (is_tree)
            tp_result_tree_free(&tree);
        return tp_fail(st, TP_ENOMEM, "out of memory");
    }
    result_heading(f, r);
    if (rows == 0)
        empty_result(f, r);
    for (size_t c = 0; rows > 0 && c < ncols; c++)
        width[c] = number_width(r, (int)c, shown);
    size_t np = rows > 0 ? table_parts(r, width, parts, MAX_PARTS) : 0;
    for (size_t k = 0; k < np; k++) {
        if (np > 1)
            fprintf(f, "<p class=\"part\">part %zu of %zu (columns cut to fit the page; the "
                       "first repeats)</p>\n", k + 1, np);
        table_part(f, r, &parts[k], width, is_tree ? &tree : NULL, shown, k);
    }
    if (shown < rows)
        fprintf(f, "<p class=\"more\">%zu more rows not shown (max_rows: %zu; the csv writer "
                   "writes every row)</p>\n", rows - shown, shown);
    tp_free(width);
    tp_free(parts);
    if (is_tree)
        tp_result_tree_free(&tree);
    return TP_OK;
}

static int write_report(tp_stage *st, FILE *f, const hr_config *cfg)
{
    size_t n = tp_input_count(st);
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>", f);
    put_title(st, f, cfg);
    fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>", style);
    put_title(st, f, cfg);
    fputs("</h1>\n<nav><a href=\"#summary\">Summary</a>", f);
    if (tp_stage_trace_count(st))
        fputs("<a href=\"#traces\">Traces</a>", f);
    fputs("<a href=\"#charts\">Charts</a><a href=\"#results\">Results</a></nav>\n", f);
    hr_summary_section(st, f, cfg);
    trace_section(st, f);
    chart_section(st, f, cfg);
    int rc = TP_OK;
    if (n > 0) {
        fputs("<section id=\"results\"><h2>Results</h2>\n", f);
        for (size_t i = 0; i < n && rc == TP_OK; i++)
            rc = result_table(st, f, tp_input(st, i), cfg);
        fputs("</section>\n", f);
    }
    fprintf(f, "<script>\n%s</script>\n</body>\n</html>\n", script);
    return rc;
}

static int hr_run(tp_stage *st, const void *config, void *state)
{
    const hr_config *cfg = config;
    (void)state;
    FILE *f = tp_out_open(st, cfg->path);
    if (f == NULL)
        return TP_EIO;
    return tp_out_close(st, f, cfg->path, write_report(st, f, cfg));
}

static const tp_stage_desc hr_stages[] = {
    TP_STAGE_FULL(TP_STAGE_WRITER, "html_report",
                  "one self-contained HTML page: the traces, every chart of the run, sortable "
                  "result tables",
                  hr_options, hr_config, NULL, TP_PRODUCES_NONE, TP_STAGE_F_TRACES, NULL, hr_run,
                  NULL),
    TP_STAGE_END};

TP_PLUGIN_DEFINE("html_report", "0.1.0", hr_stages);
