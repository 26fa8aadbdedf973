/*
 * analysis predict: the calibration file (calibrate: fit writes it with
 * calibration_out, calibration: reads it).  JSON, documented in
 * docs/prediction.md ("The calibration file"):
 *
 *   {"format": "tracepipe.calibration", "version": 1,
 *    "curve": "measured_us = t0_us * kernels + slope * bound_us",
 *    "holdout": "trace", "traces": ["rank0", ...],
 *    "curves": [{"device": "v100_sxm2", "category": "gemm", "t0_us": 5.1,
 *                "slope": 1.9, "efficiency": 0.53, "n_samples": 184,
 *                "n_groups": 8}, ...]}
 */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "predict_internal.h"

#define PR_CALIB_FORMAT "tracepipe.calibration"

void pr_calib_free(pr_calib *c)
{
    for (size_t i = 0; i < c->ntraces; i++)
        tp_free(c->traces[i]);
    tp_free(c->traces);
    tp_free(c->curves);
    memset(c, 0, sizeof *c);
}

static int category_of(const char *name, tp_op_category *out)
{
    for (int k = 0; k < TP_OPCAT_N; k++)
        if (strcmp(name, tp_op_category_name((tp_op_category)k)) == 0) {
            *out = (tp_op_category)k;
            return 1;
        }
    return 0;
}

/* A number >= 0 under key, or -1 when absent, not a number or negative. */
static double nonneg(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return json_is_number(v) && json_number_value(v) >= 0 ? json_number_value(v) : -1;
}

static int bad(tp_stage *st, const char *path, size_t i, const char *what)
{
    return tp_fail(st, TP_EINVAL, "%s: curves[%zu]: %s", path, i, what);
}

static int read_curve(tp_stage *st, const char *path, size_t i, const json_t *o, pr_curve *c)
{
    const char *dev = json_string_value(json_object_get(o, "device"));
    const char *cat = json_string_value(json_object_get(o, "category"));
    if (!json_is_object(o))
        return bad(st, path, i, "not an object");
    if (dev == NULL || dev[0] == '\0' || strlen(dev) >= sizeof c->device)
        return bad(st, path, i, "'device' is missing or not a preset name");
    if (cat == NULL || !category_of(cat, &c->category))
        return bad(st, path, i, "'category' is missing or not one of gemm, attention, moe, "
                   "norm, conv, elementwise, communication, other");
    c->c.t0_us = nonneg(o, "t0_us");
    c->c.slope = nonneg(o, "slope");
    if (c->c.t0_us < 0)
        return bad(st, path, i, "'t0_us' is missing or not a number >= 0");
    if (c->c.slope < 0)
        return bad(st, path, i, "'slope' is missing or not a number >= 0");
    snprintf(c->device, sizeof c->device, "%s", dev);
    const char *dt = json_string_value(json_object_get(o, "dtype")); /* optional: all types */
    if (dt && strlen(dt) >= sizeof c->dtype)
        return bad(st, path, i, "'dtype' is not a type name (fp32, tf32, bf16 ...)");
    snprintf(c->dtype, sizeof c->dtype, "%s", dt ? dt : "");
    double n = nonneg(o, "n_samples"), g = nonneg(o, "n_groups");
    c->c.n = n > 0 ? (size_t)n : 0;
    c->n_groups = g > 0 ? (int64_t)g : 0;
    return TP_OK;
}

static char *dup_text(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = tp_malloc(n);
    return d ? memcpy(d, s, n) : NULL;
}

static int read_traces(tp_stage *st, const char *path, const json_t *a, pr_calib *c)
{
    if (a == NULL)
        return TP_OK;
    if (!json_is_array(a))
        return tp_fail(st, TP_EINVAL, "%s: 'traces' is not a list of trace labels", path);
    c->traces = tp_calloc(json_array_size(a) + 1, sizeof *c->traces);
    if (c->traces == NULL)
        return TP_ENOMEM;
    for (size_t i = 0; i < json_array_size(a); i++) {
        const char *s = json_string_value(json_array_get(a, i));
        if (s == NULL)
            return tp_fail(st, TP_EINVAL, "%s: traces[%zu]: not a text", path, i);
        if ((c->traces[c->ntraces++] = dup_text(s)) == NULL)
            return TP_ENOMEM;
    }
    return TP_OK;
}

static int read_doc(tp_stage *st, const char *path, const json_t *doc, pr_calib *c)
{
    const char *fmt = json_string_value(json_object_get(doc, "format"));
    const json_t *curves = json_object_get(doc, "curves");
    if (!json_is_object(doc) || fmt == NULL || strcmp(fmt, PR_CALIB_FORMAT) != 0)
        return tp_fail(st, TP_EINVAL, "%s: not a calibration file (an object with \"format\": "
                       "\"" PR_CALIB_FORMAT "\" expected)", path);
    if (json_integer_value(json_object_get(doc, "version")) != 1)
        return tp_fail(st, TP_EINVAL, "%s: 'version': 1 expected", path);
    if (!json_is_array(curves) || json_array_size(curves) == 0)
        return tp_fail(st, TP_EINVAL, "%s: 'curves' is missing or not a non-empty list", path);
    const char *h = json_string_value(json_object_get(doc, "holdout"));
    snprintf(c->holdout, sizeof c->holdout, "%s", h ? h : "");
    c->curves = tp_calloc(json_array_size(curves), sizeof *c->curves);
    if (c->curves == NULL)
        return TP_ENOMEM;
    for (size_t i = 0; i < json_array_size(curves); i++) {
        int rc = read_curve(st, path, i, json_array_get(curves, i), &c->curves[i]);
        if (rc != TP_OK)
            return rc;
        c->n++;
    }
    return read_traces(st, path, json_object_get(doc, "traces"), c);
}

int pr_calib_read(tp_stage *st, const char *path, pr_calib *c)
{
    json_error_t err;
    json_t *doc = json_load_file(path, JSON_REJECT_DUPLICATES, &err);
    memset(c, 0, sizeof *c);
    if (doc == NULL) {
        if (err.line <= 0)
            return tp_fail(st, TP_EIO, "%s: %s", path, err.text);
        return tp_fail(st, TP_EINVAL, "%s:%d:%d: %s", path, err.line, err.column, err.text);
    }
    int rc = read_doc(st, path, doc, c);
    json_decref(doc);
    if (rc != TP_OK)
        pr_calib_free(c);
    return rc == TP_ENOMEM ? tp_fail(st, rc, "out of memory") : rc;
}

static json_t *curve_json(const pr_curve *k)
{
    json_t *o = json_object();
    json_object_set_new(o, "device", json_string(k->device));
    json_object_set_new(o, "category", json_string(tp_op_category_name(k->category)));
    if (k->dtype[0])
        json_object_set_new(o, "dtype", json_string(k->dtype));
    json_object_set_new(o, "t0_us", json_real(k->c.t0_us));
    json_object_set_new(o, "slope", json_real(k->c.slope));
    json_object_set_new(o, "efficiency", k->c.slope > 0 ? json_real(1 / k->c.slope) : json_null());
    json_object_set_new(o, "n_samples", json_integer((json_int_t)k->c.n));
    json_object_set_new(o, "n_groups", json_integer((json_int_t)k->n_groups));
    return o;
}

int pr_calib_write(tp_stage *st, const char *path, const pr_calib *c)
{
    json_t *doc = json_object(), *curves = json_array(), *traces = json_array();
    json_object_set_new(doc, "format", json_string(PR_CALIB_FORMAT));
    json_object_set_new(doc, "version", json_integer(1));
    json_object_set_new(doc, "curve", json_string("measured_us = t0_us * kernels + slope * "
                                                  "bound_us"));
    json_object_set_new(doc, "holdout", json_string(c->holdout));
    for (size_t i = 0; i < c->ntraces; i++)
        json_array_append_new(traces, json_string(c->traces[i]));
    json_object_set_new(doc, "traces", traces);
    for (size_t i = 0; i < c->n; i++)
        json_array_append_new(curves, curve_json(&c->curves[i]));
    json_object_set_new(doc, "curves", curves);
    FILE *f = tp_out_open(st, path);
    if (f == NULL) {
        json_decref(doc);
        return TP_EIO;
    }
    int rc = json_dumpf(doc, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17))
                 ? TP_EIO
                 : TP_OK;
    if (rc == TP_OK && fputc('\n', f) == EOF)
        rc = TP_EIO;
    json_decref(doc);
    return tp_out_close(st, f, path, rc);
}
