/*
 * _tracepipe: the C half of the Python module `tracepipe` (python/tracepipe/
 * is the other).  A thin layer over the embedding API (core/tp_api.h):
 * sessions, runs into memory, results and the event table handed to
 * Python as column buffers — one bytearray per numeric column, filled in C
 * with the GIL released, so no Python object is made per event or per
 * numeric cell.  Text result cells become str (results are small).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "tp_api.h"
#include "tp_loader.h"

#include <stdlib.h>
#include <string.h>
#include <tracepipe/tp_sdk_trace.h>

static PyObject *tp_py_error; /* tracepipe.Error */

/* The SDK's sort allocates through the host, as in a plugin: the module is
 * its own host (set when the module is imported). */
TP_HIDDEN const tp_host_api *tp_host;

#define SESSION_CAPSULE "tracepipe.session"

/* ------------------------------------------------------------ session */

static void session_free(PyObject *capsule)
{
    tp_api_close(PyCapsule_GetPointer(capsule, SESSION_CAPSULE));
}

static tp_api *session_of(PyObject *capsule)
{
    return PyCapsule_GetPointer(capsule, SESSION_CAPSULE);
}

/* A list of str as C strings borrowed from it (n of them), or NULL. */
static const char **str_array(PyObject *list, size_t *n)
{
    Py_ssize_t len = PyList_Size(list);
    if (len < 0)
        return NULL;
    const char **v = calloc((size_t)len + 1, sizeof *v);
    if (v == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    for (Py_ssize_t i = 0; i < len; i++) {
        v[i] = PyUnicode_AsUTF8(PyList_GetItem(list, i));
        if (v[i] == NULL) {
            free(v);
            return NULL;
        }
    }
    *n = (size_t)len;
    return v;
}

static PyObject *py_open(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *plugin_dirs, *pipeline_dirs;
    if (!PyArg_ParseTuple(args, "O!O!", &PyList_Type, &plugin_dirs, &PyList_Type, &pipeline_dirs))
        return NULL;
    size_t np = 0, nq = 0;
    const char **pv = str_array(plugin_dirs, &np);
    const char **qv = pv ? str_array(pipeline_dirs, &nq) : NULL;
    if (qv == NULL) {
        free(pv);
        return NULL;
    }
    char *warnings = NULL;
    tp_api *a;
    Py_BEGIN_ALLOW_THREADS
    a = tp_api_open(pv, np, qv, nq, &warnings);
    Py_END_ALLOW_THREADS
    free(pv);
    free(qv);
    if (a == NULL) {
        free(warnings);
        return PyErr_NoMemory();
    }
    PyObject *capsule = PyCapsule_New(a, SESSION_CAPSULE, session_free);
    if (capsule == NULL) {
        tp_api_close(a);
        free(warnings);
        return NULL;
    }
    PyObject *w = warnings ? PyUnicode_DecodeUTF8(warnings, (Py_ssize_t)strlen(warnings), "replace")
                           : (Py_INCREF(Py_None), Py_None);
    free(warnings);
    if (w == NULL) {
        Py_DECREF(capsule); /* closes the session */
        return NULL;
    }
    return Py_BuildValue("(NN)", capsule, w);
}

/* ---------------------------------------------------------------- runs */

static PyObject *text_or_none(const char *s)
{
    if (s == NULL)
        Py_RETURN_NONE;
    return PyUnicode_DecodeUTF8(s, (Py_ssize_t)strlen(s), "replace");
}

/* raises tracepipe.Error with the run's messages (or what failed). */
static PyObject *raise_error(const char *log, const char *fallback)
{
    const char *msg = log && *log ? log : fallback;
    size_t len = strlen(msg);
    while (len > 0 && msg[len - 1] == '\n')
        len--;
    PyObject *text = PyUnicode_DecodeUTF8(msg, (Py_ssize_t)len, "replace");
    if (text) {
        PyErr_SetObject(tp_py_error, text);
        Py_DECREF(text);
    }
    return NULL;
}

/* The (name, value) pairs of a list of 2-tuples of str, borrowed. */
static tp_var *vars_array(PyObject *list, size_t *n)
{
    Py_ssize_t len = PyList_Size(list);
    if (len < 0)
        return NULL;
    tp_var *v = calloc((size_t)len + 1, sizeof *v);
    if (v == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    for (Py_ssize_t i = 0; i < len; i++) {
        if (!PyArg_ParseTuple(PyList_GetItem(list, i), "ss", &v[i].name, &v[i].value)) {
            free(v);
            return NULL;
        }
    }
    *n = (size_t)len;
    return v;
}

static PyObject *new_buffer(size_t bytes)
{
    return PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)bytes);
}

/* One result column: (name, type, unit, data, nulls, meaning). */
static PyObject *result_column(const tp_result *res, int col)
{
    size_t n = tp_result_nrows(res);
    tp_coltype type = tp_result_coltype(res, col);
    PyObject *data = NULL, *nulls = NULL;
    const char *type_name = "text";
    int has_null = 0;
    for (size_t i = 0; i < n && !has_null; i++)
        has_null = tp_result_null(res, i, col);
    if (has_null) {
        if ((nulls = new_buffer(n)) == NULL)
            return NULL;
        char *m = PyByteArray_AS_STRING(nulls);
        for (size_t i = 0; i < n; i++)
            m[i] = (char)(tp_result_null(res, i, col) != 0);
    } else {
        Py_INCREF(Py_None);
        nulls = Py_None;
    }
    if (type == TP_COL_I64 || type == TP_COL_F64) {
        type_name = type == TP_COL_I64 ? "int64" : "double";
        data = new_buffer(n * 8);
        char *p = data ? PyByteArray_AS_STRING(data) : NULL;
        for (size_t i = 0; p && i < n; i++) {
            if (type == TP_COL_I64) {
                int64_t v = tp_result_null(res, i, col) ? 0 : tp_result_i64(res, i, col);
                memcpy(p + 8 * i, &v, 8);
            } else {
                double v = tp_result_null(res, i, col) ? 0.0 : tp_result_f64(res, i, col);
                memcpy(p + 8 * i, &v, 8);
            }
        }
    } else {
        data = PyList_New((Py_ssize_t)n);
        for (size_t i = 0; data && i < n; i++) {
            PyObject *s = tp_result_null(res, i, col) ? (Py_INCREF(Py_None), Py_None)
                                                      : text_or_none(tp_result_str(res, i, col));
            if (s == NULL) {
                Py_CLEAR(data);
                break;
            }
            PyList_SET_ITEM(data, (Py_ssize_t)i, s);
        }
    }
    if (data == NULL) {
        Py_DECREF(nulls);
        return NULL;
    }
    return Py_BuildValue("(ssNNNN)", tp_result_colname(res, col), type_name,
                         text_or_none(tp_api_result_unit(res, col)), data, nulls,
                         text_or_none(tp_api_result_meaning(res, col)));
}

/* (id, nrows, [columns], {notes}) */
static PyObject *result_tuple(const tp_result *res)
{
    size_t nc = tp_result_ncols(res);
    PyObject *cols = PyList_New((Py_ssize_t)nc);
    PyObject *notes = PyDict_New();
    for (size_t c = 0; cols && notes && c < nc; c++) {
        PyObject *col = result_column(res, (int)c);
        if (col == NULL) {
            Py_CLEAR(cols);
            break;
        }
        PyList_SET_ITEM(cols, (Py_ssize_t)c, col);
    }
    for (size_t i = 0; cols && notes && i < tp_result_meta_n(res); i++) {
        const char *key = tp_result_meta_key_at(res, i);
        PyObject *v = text_or_none(tp_result_meta_get(res, key));
        if (v == NULL || PyDict_SetItemString(notes, key, v) != 0) {
            Py_XDECREF(v);
            Py_CLEAR(notes);
            break;
        }
        Py_DECREF(v);
    }
    if (cols == NULL || notes == NULL) {
        Py_XDECREF(cols);
        Py_XDECREF(notes);
        return NULL;
    }
    return Py_BuildValue("(snNN)", tp_result_get_id(res), (Py_ssize_t)tp_result_nrows(res), cols,
                         notes);
}

static PyObject *run_results(const tp_api_run *r)
{
    size_t n = tp_api_result_count(r);
    PyObject *list = PyList_New((Py_ssize_t)n);
    for (size_t i = 0; list && i < n; i++) {
        PyObject *t = result_tuple(tp_api_result_at(r, i));
        if (t == NULL) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, (Py_ssize_t)i, t);
    }
    return list;
}

/* Runs the pipeline with the GIL released; NULL after raising. */
static tp_api_run *run_released(tp_api *a, const char *pipeline, const tp_var *vars, size_t n,
                                const char *input, unsigned flags, char **log)
{
    tp_api_run *r = NULL;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = tp_api_run_pipeline(a, pipeline, vars, n, input, flags, &r, log);
    Py_END_ALLOW_THREADS
    if (rc != TP_OK) {
        raise_error(*log, rc == TP_ENOMEM ? "out of memory" : "the pipeline failed");
        return NULL;
    }
    return r;
}

/* _run(session, pipeline, [(name, value)], input or None, flags) ->
 * ([results], log) */
/* "O&" converter: None, or a path (str in the file system's encoding, with
 * surrogate escapes for undecodable bytes as os.listdir gives them, or
 * bytes) as bytes. */
static int fs_path_or_none(PyObject *o, void *out)
{
    if (o == Py_None) {
        *(PyObject **)out = NULL;
        return 1;
    }
    return PyUnicode_FSConverter(o, out);
}

static PyObject *py_run(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *capsule, *vlist, *input_path = NULL;
    const char *pipeline, *input = NULL;
    unsigned int flags;
    if (!PyArg_ParseTuple(args, "OsO!O&I", &capsule, &pipeline, &PyList_Type, &vlist,
                          fs_path_or_none, &input_path, &flags))
        return NULL;
    if (input_path != NULL)
        input = PyBytes_AS_STRING(input_path);
    tp_api *a = session_of(capsule);
    size_t n = 0;
    tp_var *vars = a ? vars_array(vlist, &n) : NULL;
    if (vars == NULL) {
        Py_XDECREF(input_path);
        return NULL;
    }
    char *log = NULL;
    tp_api_run *r = run_released(a, pipeline, vars, n, input, flags, &log);
    free(vars);
    PyObject *out = NULL;
    if (r != NULL || (flags & TP_API_VALIDATE && !PyErr_Occurred())) {
        PyObject *results = r ? run_results(r) : PyList_New(0);
        out = results ? Py_BuildValue("(NN)", results, text_or_none(log)) : NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    tp_api_run_free(r);
    Py_END_ALLOW_THREADS
    free(log);
    Py_XDECREF(input_path);
    return out;
}

/* ------------------------------------------------------------ events */

typedef struct event_buffers {
    PyObject *ts, *dur, *kind, *name, *cat, *track, *corr, *ext_id, *launch;
} event_buffers;

static int alloc_event_buffers(event_buffers *b, size_t n)
{
    b->ts = new_buffer(8 * n);
    b->dur = new_buffer(8 * n);
    b->kind = new_buffer(n);
    b->name = new_buffer(4 * n);
    b->cat = new_buffer(4 * n);
    b->track = new_buffer(4 * n);
    b->corr = new_buffer(8 * n);
    b->ext_id = new_buffer(8 * n);
    b->launch = new_buffer(8 * n);
    return b->ts && b->dur && b->kind && b->name && b->cat && b->track && b->corr && b->ext_id &&
                   b->launch
               ? 0
               : -1;
}

static void free_event_buffers(event_buffers *b)
{
    Py_XDECREF(b->ts);
    Py_XDECREF(b->dur);
    Py_XDECREF(b->kind);
    Py_XDECREF(b->name);
    Py_XDECREF(b->cat);
    Py_XDECREF(b->track);
    Py_XDECREF(b->corr);
    Py_XDECREF(b->ext_id);
    Py_XDECREF(b->launch);
}

/* The buffers' memory, taken with the GIL held. */
typedef struct event_ptrs {
    char *ts, *dur, *kind, *name, *cat, *track;
    int64_t *corr, *ext_id, *launch;
} event_ptrs;

static event_ptrs event_pointers(const event_buffers *b)
{
    event_ptrs p = {
        PyByteArray_AS_STRING(b->ts),    PyByteArray_AS_STRING(b->dur),
        PyByteArray_AS_STRING(b->kind),  PyByteArray_AS_STRING(b->name),
        PyByteArray_AS_STRING(b->cat),   PyByteArray_AS_STRING(b->track),
        (int64_t *)(void *)PyByteArray_AS_STRING(b->corr),
        (int64_t *)(void *)PyByteArray_AS_STRING(b->ext_id),
        (int64_t *)(void *)PyByteArray_AS_STRING(b->launch),
    };
    return p;
}

/* Fills every buffer from the columns (no Python call: runs without the
 * GIL); the launch links by the SDK's rule.  0, or -1 out of memory. */
static int fill_events(const tp_cols *c, const event_ptrs *p)
{
    size_t n = c->n;
    if (n == 0)
        return 0;
    memcpy(p->ts, c->ts, 8 * n);
    memcpy(p->dur, c->dur, 8 * n);
    memcpy(p->kind, c->kind, n);
    memcpy(p->name, c->name, 4 * n);
    memcpy(p->cat, c->cat, 4 * n);
    memcpy(p->track, c->track, 4 * n);
    for (size_t i = 0; i < n; i++) {
        p->corr[i] = tp_ev_corr(c, i);
        p->ext_id[i] = tp_ev_ext_id(c, i);
    }
    int32_t *launcher = malloc(n * sizeof *launcher);
    if (launcher == NULL || tp_link_launches(c, NULL, NULL, launcher, NULL) != TP_OK) {
        free(launcher);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        p->launch[i] = launcher[i];
    free(launcher);
    return 0;
}

/* pid or tid: an int, or the text a string id stands for */
static PyObject *place_id(const tp_api_run *r, int64_t v)
{
    if (TP_ID_IS_STR(v))
        return text_or_none(tp_api_text(r, TP_ID_STR(v)));
    return PyLong_FromLongLong(v);
}

static PyObject *tracks_list(const tp_api_run *r, const tp_cols *c)
{
    PyObject *list = PyList_New((Py_ssize_t)c->n_tracks);
    for (size_t i = 0; list && i < c->n_tracks; i++) {
        const tp_track *t = &c->tracks[i];
        PyObject *item = Py_BuildValue("(NNii)", place_id(r, t->pid), place_id(r, t->tid),
                                       (int)t->device, (int)t->stream);
        if (item == NULL) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, (Py_ssize_t)i, item);
    }
    return list;
}

static PyObject *texts_list(const tp_api_run *r)
{
    size_t n = tp_api_text_count(r);
    PyObject *list = PyList_New((Py_ssize_t)n);
    for (size_t i = 0; list && i < n; i++) {
        PyObject *s = text_or_none(tp_api_text(r, (tp_str)i));
        if (s == NULL) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, (Py_ssize_t)i, s);
    }
    return list;
}

static PyObject *kinds_list(void)
{
    PyObject *list = PyList_New(TP_KIND__COUNT);
    for (unsigned k = 0; list && k < TP_KIND__COUNT; k++) {
        PyObject *name = PyUnicode_FromString(tp_kind_name(k));
        if (name == NULL) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, k, name);
    }
    return list;
}

static PyObject *events_dict(const tp_api_run *r)
{
    const tp_cols *c = tp_api_events(r);
    if (c == NULL)
        return raise_error(NULL, "the reader made no event trace");
    event_buffers b = {0};
    if (alloc_event_buffers(&b, c->n) != 0) {
        free_event_buffers(&b);
        return NULL;
    }
    event_ptrs ptrs = event_pointers(&b);
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = fill_events(c, &ptrs);
    Py_END_ALLOW_THREADS
    if (rc != 0) {
        free_event_buffers(&b);
        return PyErr_NoMemory();
    }
    return Py_BuildValue("{sn sN sN sN sN sN sN sN sN sN sN sN sN}", "n", (Py_ssize_t)c->n,
                         "ts", b.ts, "dur", b.dur, "kind", b.kind, "name", b.name, "cat", b.cat,
                         "track", b.track, "correlation", b.corr, "external_id", b.ext_id,
                         "launch", b.launch, "texts", texts_list(r), "tracks", tracks_list(r, c),
                         "kinds", kinds_list());
}

/* _read(session, trace, pipeline_yaml) -> (events dict, log) */
static PyObject *py_read(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *capsule;
    const char *trace, *yaml;
    if (!PyArg_ParseTuple(args, "Oss", &capsule, &trace, &yaml))
        return NULL;
    tp_api *a = session_of(capsule);
    if (a == NULL)
        return NULL;
    char *log = NULL;
    tp_api_run *r = run_released(a, yaml, NULL, 0, trace, TP_API_TEXT, &log);
    PyObject *out = r ? events_dict(r) : NULL;
    if (out)
        out = Py_BuildValue("(NN)", out, text_or_none(log));
    Py_BEGIN_ALLOW_THREADS
    tp_api_run_free(r);
    Py_END_ALLOW_THREADS
    free(log);
    return out;
}

/* ------------------------------------------------- plugins, describe */

static PyObject *py_plugins(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *capsule;
    if (!PyArg_ParseTuple(args, "O", &capsule))
        return NULL;
    tp_api *a = session_of(capsule);
    if (a == NULL)
        return NULL;
    size_t n = tp_api_stage_count(a);
    PyObject *list = PyList_New((Py_ssize_t)n);
    for (size_t i = 0; list && i < n; i++) {
        const char *version = NULL;
        const tp_stage_desc *s = tp_api_stage_at(a, i, &version);
        PyObject *item = Py_BuildValue("(ssNN)", tp_stage_kind_name(s->kind), s->name,
                                       text_or_none(version), text_or_none(s->summary));
        if (item == NULL) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, (Py_ssize_t)i, item);
    }
    return list;
}

static PyObject *py_describe(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *capsule;
    const char *name;
    if (!PyArg_ParseTuple(args, "Os", &capsule, &name))
        return NULL;
    tp_api *a = session_of(capsule);
    if (a == NULL)
        return NULL;
    char *why = NULL;
    char *json = tp_api_describe_json(a, name, &why);
    PyObject *out = json ? text_or_none(json) : raise_error(why, "out of memory");
    free(json);
    free(why);
    return out;
}

/* [(path, label)] of a batch spec (tp_api_expand). */
static PyObject *py_expand(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *spec_path;
    if (!PyArg_ParseTuple(args, "O&", PyUnicode_FSConverter, &spec_path))
        return NULL;
    char **paths, **labels, *why;
    size_t n;
    int rc = tp_api_expand(PyBytes_AS_STRING(spec_path), &paths, &labels, &n, &why);
    Py_DECREF(spec_path);
    if (rc != TP_OK) {
        PyObject *err = raise_error(why, "out of memory");
        free(why);
        return err;
    }
    PyObject *out = PyList_New((Py_ssize_t)n);
    for (size_t i = 0; i < n; i++) {
        /* file names as os.listdir gives them: any bytes (surrogate escapes) */
        PyObject *path = out ? PyUnicode_DecodeFSDefault(paths[i]) : NULL;
        PyObject *label = path ? PyUnicode_DecodeFSDefault(labels[i]) : NULL;
        PyObject *item = label ? PyTuple_Pack(2, path, label) : NULL;
        Py_XDECREF(path);
        Py_XDECREF(label);
        if (item == NULL)
            Py_CLEAR(out);
        else
            PyList_SET_ITEM(out, (Py_ssize_t)i, item);
        free(paths[i]);
        free(labels[i]);
    }
    free(paths);
    free(labels);
    return out;
}

static PyMethodDef methods[] = {
    {"_expand", py_expand, METH_VARARGS, "_expand(spec) -> [(path, label)]"},
    {"_open", py_open, METH_VARARGS, "_open(plugin_dirs, pipeline_dirs) -> (session, warnings)"},
    {"_run", py_run, METH_VARARGS, "_run(session, pipeline, vars, input, flags) -> (results, log)"},
    {"_read", py_read, METH_VARARGS, "_read(session, trace, pipeline_yaml) -> (events, log)"},
    {"_plugins", py_plugins, METH_VARARGS, "_plugins(session) -> [(kind, name, version, summary)]"},
    {"_describe", py_describe, METH_VARARGS, "_describe(session, stage) -> JSON text"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_tracepipe", "tracepipe's C core (use the tracepipe package)", -1,
    methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__tracepipe(void);
PyMODINIT_FUNC PyInit__tracepipe(void)
{
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    tp_host = tp_core_host_api();
    tp_py_error = PyErr_NewExceptionWithDoc("tracepipe.Error",
                                            "A pipeline or trace problem, with its file:line:col.",
                                            NULL, NULL);
    if (tp_py_error == NULL || PyModule_AddObjectRef(m, "Error", tp_py_error) < 0 ||
        PyModule_AddIntConstant(m, "WRITE", TP_API_WRITE) < 0 ||
        PyModule_AddIntConstant(m, "VALIDATE", TP_API_VALIDATE) < 0 ||
        PyModule_AddIntConstant(m, "TEXT", TP_API_TEXT) < 0 ||
        PyModule_AddIntConstant(m, "API_VERSION", TP_API_VERSION) < 0 ||
        PyModule_AddStringConstant(m, "VERSION", TP_VERSION) < 0 ||
        PyModule_AddStringConstant(m, "DEFAULT_PIPELINE_DIR", TP_DEFAULT_PIPELINE_DIR) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
