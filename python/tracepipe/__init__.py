"""tracepipe from Python: run pipelines over profiler traces, get typed tables.

    import tracepipe
    res = tracepipe.run("dlrm_breakdown", trace="rank0.pt.trace.json.gz")
    res["kernels"].to_pandas()          # numeric columns as NumPy arrays
    ev = tracepipe.read("rank0.pt.trace.json.gz").to_pandas()

The work is done by the same C core and plugins as the `pipeline` command
(see docs/python.md); the GIL is released while a pipeline runs.
"""
import html
import json
import os
import shutil
import tempfile
import threading
import warnings
from collections.abc import Mapping

from . import _tracepipe as _c

__all__ = ["Error", "Table", "Column", "Results", "Batch", "Events", "Report", "run", "batch", "read",
           "validate", "plugins", "describe", "report"]
__version__ = _c.VERSION
Error = _c.Error

_session = None
_session_lock = threading.Lock()


def _tree_dirs():
    """Plugins and bundled pipelines beside the package: a build tree
    (build/python/tracepipe: build/plugins, pipelines/) or an install
    (PREFIX/lib/pythonX.Y/dist-packages/tracepipe: PREFIX/lib/tracepipe/plugins,
    PREFIX/share/tracepipe/pipelines), else the configured install dirs."""
    here = os.path.dirname(os.path.abspath(__file__))
    up = [here]
    for _ in range(4):
        up.append(os.path.dirname(up[-1]))
    plugin_dirs = [os.path.join(up[2], "plugins"), os.path.join(up[3], "tracepipe", "plugins")]
    pipeline_dirs = [os.path.join(up[3], "pipelines"), os.path.join(up[4], "share", "tracepipe", "pipelines"),
                     _c.DEFAULT_PIPELINE_DIR]
    return ([d for d in plugin_dirs if os.path.isdir(d)],
            [d for d in pipeline_dirs if os.path.isdir(d)])


def _get_session():
    global _session
    with _session_lock:
        if _session is None:
            plugins_dirs, pipeline_dirs = _tree_dirs()
            _session, warn = _c._open(plugins_dirs, pipeline_dirs)
            if warn:
                warnings.warn(warn.rstrip(), stacklevel=3)
        return _session


def _value_text(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, os.PathLike):
        return os.fspath(v)
    return str(v)


def _is_yaml_text(pipeline):
    return "\n" in pipeline or pipeline.lstrip().startswith(("stages:", "vars:", "{"))


def _call(pipeline, vars, input, flags):
    pipeline = os.fspath(pipeline)
    if _is_yaml_text(pipeline):
        flags |= _c.TEXT
    pairs = [(k, _value_text(v)) for k, v in vars.items()]
    results, log = _c._run(_get_session(), pipeline, pairs, None if input is None else os.fspath(input),
                           flags)
    if log:
        for line in log.splitlines():
            if "warning" in line:
                warnings.warn(line, stacklevel=3)
    return results, log


# ------------------------------------------------------------------ tables

_DTYPES = {"int64": "q", "double": "d"}


class Column:
    """One column of a result: name, type ('text', 'int64', 'double'), unit
    (e.g. 'us', 'bytes', 'percent', or None), meaning (the line its stage
    declares, or None), values and nulls."""

    __slots__ = ("name", "type", "unit", "_data", "_nulls", "meaning")

    def __init__(self, name, type, unit, data, nulls, meaning=None):
        self.name, self.type, self.unit, self._data, self._nulls = name, type, unit, data, nulls
        self.meaning = meaning

    def __len__(self):
        return len(self._data) // 8 if self.type in _DTYPES else len(self._data)

    def __repr__(self):
        return "Column(%r, %s%s, %d rows)" % (self.name, self.type, ", " + self.unit if self.unit else "",
                                             len(self))

    @property
    def nulls(self):
        """A sequence of bools (True = no value), or None when every cell has one."""
        return None if self._nulls is None else memoryview(self._nulls).cast("B")

    def values(self):
        """Numeric columns: a memoryview of int64/double (0 where null);
        text columns: a list of str or None."""
        if self.type in _DTYPES:
            return memoryview(self._data).cast(_DTYPES[self.type])
        return self._data

    def to_numpy(self):
        """A NumPy array over the column's buffer (no copy; numeric columns)."""
        import numpy as np
        if self.type in _DTYPES:
            return np.frombuffer(self._data, dtype=np.int64 if self.type == "int64" else np.float64)
        return np.array(self._data, dtype=object)

    def cell(self, i):
        if self._nulls is not None and self._nulls[i]:
            return None
        return self.values()[i]

    def to_pandas(self):
        import numpy as np
        import pandas as pd
        if self.type not in _DTYPES:
            return pd.array(self._data, dtype=object)
        values = self.to_numpy()
        if self._nulls is None:
            return values
        mask = np.frombuffer(self._nulls, dtype=np.bool_)
        if self.type == "int64":
            return pd.arrays.IntegerArray(values, mask)
        return pd.arrays.FloatingArray(values, mask)


class Table:
    """A result table: `id`, `columns` (Column objects, in order), `notes`
    (the result's notes: title, kind, ...), rows by position."""

    def __init__(self, id, nrows, columns, notes):
        self.id, self._n, self.notes = id, nrows, notes
        self.columns = [Column(*c) for c in columns]

    def __len__(self):
        return self._n

    def __repr__(self):
        return "Table(%r, %d rows: %s)" % (self.id, self._n, ", ".join(c.name for c in self.columns))

    @property
    def names(self):
        return [c.name for c in self.columns]

    @property
    def units(self):
        """{column: unit} for the columns that have one."""
        return {c.name: c.unit for c in self.columns if c.unit}

    @property
    def meanings(self):
        """{column: meaning} for the columns whose stage declares one."""
        return {c.name: c.meaning for c in self.columns if c.meaning}

    def column(self, name):
        for c in self.columns:
            if c.name == name:
                return c
        raise KeyError("%s has no column %r (columns: %s)" % (self.id, name, ", ".join(self.names)))

    def __getitem__(self, name):
        return self.column(name)

    def row(self, i):
        if not 0 <= i < self._n:
            raise IndexError(i)
        return {c.name: c.cell(i) for c in self.columns}

    def __iter__(self):
        for i in range(self._n):
            yield self.row(i)

    def to_dicts(self):
        return list(self)

    def to_pandas(self):
        """A DataFrame: numeric columns from the C buffers (NumPy, no object
        per cell; nullable Int64/Float64 where a column has nulls), text as
        objects; units in df.attrs['units']."""
        import pandas as pd
        df = pd.DataFrame({c.name: c.to_pandas() for c in self.columns}, columns=self.names)
        df.attrs["units"] = self.units
        df.attrs["meanings"] = self.meanings
        df.attrs["id"] = self.id
        return df

    def _repr_html_(self, max_rows=50):
        head = "".join("<th title='%s'>%s%s</th>" % (html.escape(c.type), html.escape(c.name),
                                                    " (%s)" % html.escape(c.unit) if c.unit else "")
                       for c in self.columns)
        body = []
        for i in range(min(self._n, max_rows)):
            cells = []
            for c in self.columns:
                v = c.cell(i)
                cells.append("<td>%s</td>" % ("" if v is None else html.escape(str(v))))
            body.append("<tr>%s</tr>" % "".join(cells))
        more = "" if self._n <= max_rows else "<p>%d of %d rows shown</p>" % (max_rows, self._n)
        title = html.escape(self.notes.get("title", self.id))
        if self._n == 0:
            return "<p><b>%s</b>: no rows</p>" % title
        return "<p><b>%s</b> (%d rows)</p><table><thead><tr>%s</tr></thead><tbody>%s</tbody></table>%s" % (
            title, self._n, head, "".join(body), more)


class Results(Mapping):
    """The results of a run: result id -> Table, in the order they were
    made; `log` is what the run said (warnings)."""

    def __init__(self, tables, log=None):
        self._tables = {t.id: t for t in tables}
        self.log = log

    def __getitem__(self, id):
        try:
            return self._tables[id]
        except KeyError:
            raise KeyError("no result %r (results: %s)" % (id, ", ".join(self._tables))) from None

    def __iter__(self):
        return iter(self._tables)

    def __len__(self):
        return len(self._tables)

    def __repr__(self):
        return "Results(%s)" % ", ".join("%s: %d rows" % (k, len(t)) for k, t in self._tables.items())

    def _repr_html_(self):
        return "".join(t._repr_html_(max_rows=10) for t in self._tables.values())


def run(pipeline, trace=None, *, write=False, input=None, **vars):
    """Runs a pipeline — a YAML file, a bundled pipeline's name, or YAML
    text — and returns its Results.  trace= and every other keyword set
    the pipeline's variables (as --set NAME=VALUE); input= is --input.
    Writers run only with write=True.  Raises tracepipe.Error with the
    file:line:col of what is wrong."""
    if trace is not None:
        vars["trace"] = trace
    results, log = _call(pipeline, vars, input, _c.WRITE if write else 0)
    return Results([Table(*r) for r in results], log)


# ------------------------------------------------------------------- batch

def _batch_type(types):
    """The type of a batch column whose traces have these types."""
    if len(types) == 1:
        return types.pop()
    return "double" if types <= {"int64", "double"} else "text"


def _column_of(name, type, unit, meaning, cells):
    """A Column from Python cells (None: null)."""
    nulls = bytearray(c is None for c in cells)
    if type in _DTYPES:
        import array
        zero = 0 if type == "int64" else 0.0
        conv = int if type == "int64" else float
        data = bytearray(array.array(_DTYPES[type], [zero if c is None else conv(c) for c in cells]))
    else:
        data = [None if c is None else str(c) for c in cells]
    return Column(name, type, unit, data, nulls if any(nulls) else None, meaning)


def _batch_table(id, parts):
    """The batch table of result `id`: [(label, Table)] concatenated, a first
    column `trace` (the label), the union of the columns in order of first
    appearance (a cell a trace lacks is null), and `rank` (the result's
    rank note) when no trace has that column: the `pipeline run --input`
    batch tables' rule (docs/batch.md)."""
    order, types, first = [], {}, {}
    for _, t in parts:
        for c in t.columns:
            if c.name not in types:
                order.append(c.name)
                types[c.name], first[c.name] = set(), c
            types[c.name].add(c.type)
    cells = {name: [] for name in order}
    labels, ranks = [], []
    for label, t in parts:
        by_name = {c.name: c for c in t.columns}
        rank = t.notes.get("rank")
        for i in range(len(t)):
            labels.append(label)
            ranks.append(None if rank in (None, "") else int(rank))
            for name in order:
                cells[name].append(by_name[name].cell(i) if name in by_name else None)
    columns = [_column_of("trace", "text", None, "the trace's label", labels)]
    columns += [_column_of(n, _batch_type(types[n]), first[n].unit, first[n].meaning, cells[n])
                for n in order]
    if "rank" not in types:
        columns.append(_column_of("rank", "int64", None, "the trace's rank, when it records one", ranks))
    table = Table(id, len(labels), [], dict(parts[0][1].notes) if parts else {})
    table.notes.pop("rank", None)
    table.columns = columns
    return table


class Batch(Mapping):
    """A pipeline run over several traces: label -> Results of each trace that
    ran, in label order; `labels` (every trace), `paths` ({label: path}),
    `errors` ({label: the tracepipe.Error message} of traces that failed),
    and `tables`: Results of the batch tables, each result id's tables of
    every trace concatenated (see _batch_table)."""

    def __init__(self, items, outcomes):
        self.labels = [label for _, label in items]
        self.paths = {label: path for path, label in items}
        self._results = {l: o for l, o in zip(self.labels, outcomes) if isinstance(o, Results)}
        self.errors = {l: str(o) for l, o in zip(self.labels, outcomes) if not isinstance(o, Results)}
        ids = []
        for res in self._results.values():
            ids += [id for id in res if id not in ids]
        self.tables = Results([_batch_table(id, [(l, r[id]) for l, r in self._results.items() if id in r])
                               for id in ids])

    def __getitem__(self, label):
        if label in self.errors:
            raise Error(self.errors[label])
        return self._results[label]

    def __iter__(self):
        return iter(self._results)

    def __len__(self):
        return len(self._results)

    def __repr__(self):
        return "Batch(%d traces, %d failed; tables: %s)" % (len(self.labels), len(self.errors),
                                                          ", ".join(self.tables))

    def _repr_html_(self):
        return self.tables._repr_html_()


def _batch_items(traces):
    """[(path, label)]: a spec (file, folder, glob) as `pipeline run --input`
    lists it, or a list of specs (labels must then differ)."""
    if isinstance(traces, (str, os.PathLike)):
        return _c._expand(os.fspath(traces))
    items = [item for spec in traces for item in _c._expand(os.fspath(spec))]
    labels = [label for _, label in items]
    twice = sorted({l for l in labels if labels.count(l) > 1})
    if twice:
        raise Error("batch: traces with the same label: %s (give a folder or a glob: labels are "
                    "then paths below their common folder)" % ", ".join(twice))
    return items


def batch(pipeline, traces, *, jobs=1, **vars):
    """Runs a pipeline over several traces — a folder (searched as `pipeline
    run --input FOLDER` searches it), a glob, a file, or a list of them —
    each as --input, `jobs` at a time (threads: the GIL is released while a
    pipeline runs), and returns a Batch.  A trace that fails is in
    Batch.errors, not raised; a bad spec raises tracepipe.Error."""
    import concurrent.futures
    items = _batch_items(traces)
    if jobs < 1:
        raise ValueError("jobs must be at least 1")

    def one(path):
        try:
            return run(pipeline, input=path, **vars)
        except Error as e:
            return e

    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        outcomes = list(pool.map(one, [path for path, _ in items]))
    return Batch(items, outcomes)


def validate(pipeline, *, input=None, **vars):
    """Loads and checks a pipeline as `pipeline validate` does: True, or
    raises tracepipe.Error with every problem and its place."""
    _call(pipeline, vars, input, _c.VALIDATE)
    return True


def plugins():
    """The loaded stages: [{kind, name, version, summary}]."""
    return [dict(zip(("kind", "name", "version", "summary"), p)) for p in _c._plugins(_get_session())]


def describe(stage):
    """A stage's declared results (as `pipeline describe --json`)."""
    return json.loads(_c._describe(_get_session(), stage))


# ------------------------------------------------------------------ events

_READ_PIPELINE = "stages:\n  - reader: %s\n    id: trace\n"


class Events:
    """The event table of a trace, as column arrays: ts_ns, dur_ns (-1: no
    duration), kind, name, cat, pid, tid, device, stream, correlation,
    external_id (-1: none), launch (the row of the runtime call that
    launched a GPU activity, -1 elsewhere).  No Python object per event."""

    def __init__(self, d, log):
        self._d, self.log = d, log

    def __len__(self):
        return self._d["n"]

    def __repr__(self):
        return "Events(%d rows)" % len(self)

    def _codes(self, key, dtype):
        import numpy as np
        return np.frombuffer(self._d[key], dtype=dtype)

    def columns(self):
        """{name: NumPy array}; text columns as codes into texts (name_id,
        cat_id, kind_id) beside `texts` and `kinds` lists."""
        import numpy as np
        track = self._codes("track", np.uint32)
        tracks = self._d["tracks"]
        cols = {"ts_ns": self._codes("ts", np.int64), "dur_ns": self._codes("dur", np.int64),
                "kind_id": self._codes("kind", np.uint8), "name_id": self._codes("name", np.uint32),
                "cat_id": self._codes("cat", np.uint32)}
        for i, field in enumerate(("pid", "tid", "device", "stream")):
            per_track = [t[i] for t in tracks]
            if all(isinstance(v, int) for v in per_track):
                table = np.array(per_track, dtype=np.int64)
            else:
                table = np.array(per_track, dtype=object)
            cols[field] = table[track] if len(tracks) else np.zeros(0, dtype=np.int64)
        cols["correlation"] = self._codes("correlation", np.int64)
        cols["external_id"] = self._codes("external_id", np.int64)
        cols["launch"] = self._codes("launch", np.int64)
        return cols

    @property
    def texts(self):
        return self._d["texts"]

    @property
    def kinds(self):
        return self._d["kinds"]

    def to_pandas(self):
        """A DataFrame; kind, name and cat as categoricals over the trace's
        interned strings (no object per event)."""
        import pandas as pd
        cols = self.columns()
        out = {"ts_ns": cols["ts_ns"], "dur_ns": cols["dur_ns"],
               "kind": _categorical(pd, cols["kind_id"], self.kinds),
               "name": _categorical(pd, cols["name_id"], self.texts),
               "cat": _categorical(pd, cols["cat_id"], self.texts)}
        for k in ("pid", "tid", "device", "stream", "correlation", "external_id", "launch"):
            out[k] = cols[k]
        return pd.DataFrame(out, copy=False)  # no consolidation: the columns stay the C buffers


def _categorical(pd, codes, categories):
    if len(set(categories)) != len(categories):  # text the decoder had to replace collided
        import numpy as np
        return np.array(categories, dtype=object)[codes]
    return pd.Categorical.from_codes(codes.astype("int64"), categories=categories)


def read(trace, reader="auto"):
    """Reads one trace (any format the readers know) into an Events table."""
    if not reader.replace("_", "").isalnum():
        raise Error("reader: %r is not a reader's name" % reader)
    d, log = _c._read(_get_session(), os.fspath(trace), _READ_PIPELINE % reader)
    return Events(d, log)


# ------------------------------------------------------------------ report

class Report:
    """An HTML report written by a pipeline's html_report writer; shown in
    a notebook cell (an iframe of the page), or saved with .save(path)."""

    def __init__(self, page, results):
        self.html, self.results = page, results

    def _repr_html_(self):
        return ("<iframe style='width:100%%;height:900px;border:0' srcdoc=\"%s\"></iframe>"
                % html.escape(self.html, quote=True))

    def save(self, path):
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.html)


def report(pipeline="dlrm_breakdown", trace=None, **vars):
    """Runs a pipeline with its writers into a temporary `out` folder and
    returns the HTML report it wrote (the pipeline must have an html_report
    writer under ${out})."""
    out = tempfile.mkdtemp(prefix="tracepipe-report-")
    try:
        vars["out"] = out
        res = run(pipeline, trace, write=True, **vars)
        pages = [os.path.join(d, f) for d, _, fs in os.walk(out) for f in fs if f.endswith(".html")]
        if not pages:
            raise Error("%s wrote no HTML report under its out folder" % pipeline)
        with open(sorted(pages)[0], encoding="utf-8") as f:
            return Report(f.read(), res)
    finally:
        shutil.rmtree(out, ignore_errors=True)
