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

#define MAX_SVG_BYTES (8u << 20)

typedef struct hr_config {
    const char *path;
    const char *title;
    int64_t max_rows;
    int charts;
    tp_strlist svg_files;
} hr_config;

static const tp_option hr_options[] = {
    TP_OPTION_OUTPUT_FILE("path", hr_config, path, NULL, "output file (.html); stdout when absent"),
    TP_OPTION_STRING("title", hr_config, title, "tracepipe report", "the page's title and heading"),
    TP_OPTION_INT("max_rows", hr_config, max_rows, "200", 1, 1000000,
                  "rows shown per table; the rest are counted (the CSV writer writes them all)"),
    TP_OPTION_BOOL("charts", hr_config, charts, "true",
                   "embed every .svg file earlier stages of the run wrote"),
    TP_OPTION_LIST("svg_files", hr_config, svg_files,
                   "more SVG files to embed (charts made by another run)"),
    TP_OPTION_END};

/* Text as HTML character data or attribute value. */
static void put_text(FILE *f, const char *s)
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

static const char style[] =
    "body{font-family:'DejaVu Sans',Arial,Helvetica,sans-serif;margin:24px auto;max-width:1200px;"
    "padding:0 16px;color:#222}\n"
    "h1{font-size:24px}h2{font-size:19px;border-bottom:1px solid #ccc;padding-bottom:4px;"
    "margin-top:32px}h3{font-size:15px;margin:20px 0 6px}\n"
    "table{border-collapse:collapse;font-size:13px;margin-bottom:8px}\n"
    "th,td{border:1px solid #ddd;padding:3px 8px;text-align:left;vertical-align:top}\n"
    "td.n{text-align:right;font-variant-numeric:tabular-nums}\n"
    "th{background:#f3f3f3}table.sortable th{cursor:pointer}\n"
    "th[data-dir=asc]:after{content:' \\25B2'}th[data-dir=desc]:after{content:' \\25BC'}\n"
    "figure{margin:12px 0 24px}figcaption{font-size:12px;color:#666}\n"
    "figure svg{max-width:100%;height:auto}p.more{font-size:12px;color:#666}\n"
    "nav a{margin-right:12px}\n";

/* Sorting by a click on a header: numbers by value (data-v), text by
 * locale order, again to reverse.  "#selftest" sorts the first table by
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
    "document.body.setAttribute('data-ready','1');\n"
    "})();\n";

/* ------------------------------------------------------------- metadata */

static void put_info(FILE *f, const tp_trace *t, const char *key)
{
    int64_t iv;
    double dv;
    char num[40];
    switch (tp_trace_info_type(t, key)) {
    case TP_COL_STR: put_text(f, tp_trace_info_str(t, key)); break;
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
        put_text(f, fields[i]);
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
        put_text(f, tp_result_id(r));
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
    for (size_t i = 0; i < n; i++) {
        const tp_trace *t = tp_stage_trace_at(st, i);
        fputs("<h3>", f);
        put_text(f, tp_trace_id(t));
        fputs("</h3>\n<table class=\"info\"><tbody>\n<tr><th>source</th><td>", f);
        put_text(f, tp_trace_source(t));
        fprintf(f, "</td></tr>\n<tr><th>events</th><td class=\"n\">%zu</td></tr>\n",
                tp_trace_cols(t)->n);
        for (size_t k = 0; k < tp_trace_info_count(t); k++) {
            const char *key = tp_trace_info_key(t, k), *field;
            long dev;
            if (device_key(key, &dev, &field))
                continue; /* in the devices table below */
            fputs("<tr><th>", f);
            put_text(f, key);
            fputs("</th><td>", f);
            put_info(f, t, key);
            fputs("</td></tr>\n", f);
        }
        if (n == 1)
            iteration_facts(st, f);
        fputs("</tbody></table>\n", f);
        device_table(f, t);
    }
    fputs("</section>\n", f);
}

/* --------------------------------------------------------------- summary */

/* The row of r with the largest non-null f64 in col (a summary's total row:
 * its share is the sum of the others'), or -1. */
static long largest_row(const tp_result *r, int col)
{
    long best = -1;
    for (size_t row = 0; row < tp_result_rows(r); row++)
        if (!tp_result_is_null(r, row, col) &&
            (best < 0 || tp_result_get_f64(r, row, col) > tp_result_get_f64(r, (size_t)best, col)))
            best = (long)row;
    return best;
}

static int f64_col(const tp_result *r, const char *name)
{
    int c = tp_result_find_col(r, name);
    return c >= 0 && tp_result_col_type(r, c) == TP_COL_F64 ? c : -1;
}

/* A prediction's coverage and GMAE (issue 25 item 6): an input result
 * declaring `coverage_percent` and `gmae_percent` (predict's <id>.summary),
 * from its row covering the most GPU time, as a fact row. */
static void prediction_facts(FILE *f, const tp_result *r, size_t row, int cov, int gmae)
{
    fputs("<tr><th>prediction (", f);
    put_text(f, tp_result_id(r));
    fprintf(f, ")</th><td>the models cover <span class=\"coverage\">%.2f</span> %% of the GPU "
               "time",
            tp_result_get_f64(r, row, cov));
    if (!tp_result_is_null(r, row, gmae))
        fprintf(f, "; GMAE <span class=\"gmae\">%.2f</span> %%", tp_result_get_f64(r, row, gmae));
    fputs("</td></tr>\n", f);
}

/* Figures read from the input results' declared columns (never stage ids);
 * the section is left out when no input declares any. */
static void summary_section(tp_stage *st, FILE *f)
{
    int open = 0;
    for (size_t i = 0; i < tp_input_count(st); i++) {
        const tp_result *r = tp_input(st, i);
        int cov = f64_col(r, "coverage_percent"), gmae = f64_col(r, "gmae_percent");
        long row = cov >= 0 && gmae >= 0 ? largest_row(r, cov) : -1;
        if (row < 0)
            continue;
        if (!open)
            fputs("<section id=\"summary\"><h2>Summary</h2>\n<table class=\"info\"><tbody>\n", f);
        open = 1;
        prediction_facts(f, r, (size_t)row, cov, gmae);
    }
    if (open)
        fputs("</tbody></table>\n</section>\n", f);
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
    put_text(f, base_name(path));
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

static void put_cell(FILE *f, const tp_result *r, size_t row, int col, int indent)
{
    char num[48];
    if (tp_result_is_null(r, row, col)) {
        fputs("<td></td>", f);
        return;
    }
    switch (tp_result_col_type(r, col)) {
    case TP_COL_STR:
        if (indent > 0)
            fprintf(f, "<td style=\"padding-left:%.1fem\">", 0.5 + 1.2 * indent);
        else
            fputs("<td>", f);
        put_text(f, tp_result_get_str(r, row, col));
        fputs("</td>", f);
        break;
    case TP_COL_F64: {
        double v = tp_result_get_f64(r, row, col);
        tp_fmt_f64(num, sizeof num, v);
        fprintf(f, "<td class=\"n\" data-v=\"%s\">", isfinite(v) ? num : "NaN");
        if (!isfinite(v))
            fputs(num, f);
        else if (v != 0 && fabs(v) < 0.01)
            fprintf(f, "%.3g", v);
        else
            fprintf(f, "%.2f", v);
        fputs("</td>", f);
        break;
    }
    default:
        fprintf(f, "<td class=\"n\" data-v=\"%" PRId64 "\">%" PRId64 "</td>",
                tp_result_get_i64(r, row, col), tp_result_get_i64(r, row, col));
        break;
    }
}

static int result_table(tp_stage *st, FILE *f, const tp_result *r, const hr_config *cfg)
{
    const char *title = tp_result_meta(r, "title"), *id = tp_result_id(r);
    tp_result_tree tree = {0};
    int is_tree = tp_result_is_tree(r) && tp_result_tree_load(st, r, &tree) == TP_OK;
    int name_col = is_tree ? tp_result_find_col(r, "name") : -1;
    size_t rows = tp_result_rows(r), shown = rows < (size_t)cfg->max_rows ? rows : (size_t)cfg->max_rows;

    fputs("<h3 id=\"r-", f);
    put_text(f, id);
    fputs("\">", f);
    if (title) {
        put_text(f, title);
        fputs(" (", f);
    }
    put_text(f, id);
    fputs(title ? ")</h3>\n" : "</h3>\n", f);
    const char *warning = tp_result_meta(r, "warning"); /* e.g. diff: the traces differ */
    if (warning) {
        fputs("<p class=\"warn\" style=\"background:#fff4e5;border-left:4px solid #e8a33d;"
              "padding:6px 10px\">warning: ", f);
        put_text(f, warning);
        fputs("</p>\n", f);
    }
    /* a tree keeps its order: sorting would tear children from parents */
    fprintf(f, "<table class=\"%s\"><thead><tr>", is_tree ? "tree" : "sortable");
    for (size_t c = 0; c < tp_result_cols(r); c++) {
        const char *unit = tp_result_col_unit(r, (int)c), *name = tp_result_col_name(r, (int)c);
        fprintf(f, "<th%s>", tp_result_col_type(r, (int)c) == TP_COL_STR ? "" : " data-num=\"1\"");
        put_text(f, name);
        if (unit && *unit && !ends_with(name, unit)) {
            fputs(" (", f);
            put_text(f, unit);
            fputs(")", f);
        }
        fputs("</th>", f);
    }
    fputs("</tr></thead>\n<tbody>\n", f);
    for (size_t row = 0; row < shown; row++) {
        fputs("<tr>", f);
        for (size_t c = 0; c < tp_result_cols(r); c++)
            put_cell(f, r, row, (int)c, (int)c == name_col ? (int)tree.level[row] : 0);
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table>\n", f);
    if (shown < rows)
        fprintf(f, "<p class=\"more\">%zu more rows not shown (max_rows: %zu; the csv writer "
                   "writes every row)</p>\n", rows - shown, shown);
    if (is_tree)
        tp_result_tree_free(&tree);
    return TP_OK;
}

static int write_report(tp_stage *st, FILE *f, const hr_config *cfg)
{
    size_t n = tp_input_count(st);
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>", f);
    put_text(f, cfg->title);
    fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>", style);
    put_text(f, cfg->title);
    fputs("</h1>\n<nav>", f);
    if (tp_stage_trace_count(st))
        fputs("<a href=\"#traces\">Traces</a>", f);
    fputs("<a href=\"#charts\">Charts</a><a href=\"#results\">Results</a></nav>\n", f);
    trace_section(st, f);
    summary_section(st, f);
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
