"""The Python module (issue 33): `import tracepipe` from the build tree.

Run from the repository root by tests/python/run.sh (make check-python):
    PYTHONPATH=build/python /usr/bin/python3 -m unittest tests/python/test_tracepipe.py
"""
import csv
import glob
import gzip
import json
import math
import os
import subprocess
import sys
import tempfile
import threading
import time
import unittest

import tracepipe

BUILD = os.environ.get("TP_BUILD", "build")
VALID = "tests/pipelines/valid"
INVALID = "tests/pipelines/invalid"
DLRM = "tests/data/dlrm_worker0_step12.pt.trace.json.gz"


def golden_csv_cases():
    """Golden cases run by pipeline.yaml alone (no args, no `uses`) with a CSV writer."""
    for case in sorted(os.listdir(VALID)):
        d = os.path.join(VALID, case)
        if any(os.path.exists(os.path.join(d, f)) for f in ("args", "uses")):
            continue
        p = os.path.join(d, "pipeline.yaml")
        if os.path.exists(p) and "writer: csv" in open(p, encoding="utf-8").read():
            yield case, p


def same_cell(col, i, text):
    """Does the CSV writer's cell text say the Table's cell col[i]?"""
    v = col.cell(i)
    if v is None:
        return text == ""
    if col.type == "int64":
        return int(text) == v
    if col.type == "double":
        if text in ("nan", "NaN"):
            return math.isnan(v)
        return float(text) == v  # the writer prints the shortest text that reads back exactly
    # the writer defuses spreadsheet formulas with a leading apostrophe
    return text == v or (text == "'" + v and v[:1] in "=+-@\t\r")


class ResultsEqualCsvWriter(unittest.TestCase):
    """tracepipe.run's tables hold what the csv writer writes, cell for cell,
    on every golden case with a CSV output (one run: write=True)."""

    paths_checked = 0

    def check_tree_paths(self, table, paths):
        """path = the names from the root down, joined by ' / ' (rows by id)."""
        by_id = {r["id"]: r for r in table}
        for row, path in zip(table, paths):
            names, r = [], row
            while r is not None:
                names.append(r["name"])
                r = by_id.get(r["parent_id"]) if r["parent_id"] is not None else None
            self.assertEqual(" / ".join(reversed(names)), path)
            self.paths_checked += 1

    def test_every_golden_csv(self):
        checked_files = checked_cells = 0
        for case, pipeline in golden_csv_cases():
            with self.subTest(case=case), tempfile.TemporaryDirectory() as out:
                res = tracepipe.run(pipeline, write=True, out=out)
                for path in sorted(glob.glob(os.path.join(out, "**", "*.csv"), recursive=True)):
                    rid = os.path.basename(path)[:-4]
                    if rid not in res:
                        continue
                    table = res[rid]
                    with open(path, newline="", encoding="utf-8") as f:
                        rows = list(csv.reader(f))
                    if rows and rows[0][:1] and rows[0][0].startswith("#"):
                        rows = rows[1:]
                    # the writer's own last columns: a tree's `path` (names from the
                    # root), the trace's `rank` note; the Table has what makes them
                    extra = rows[0][len(table.names):]
                    self.assertEqual(rows[0][:len(table.names)], table.names, "%s: %s header" % (case, rid))
                    self.assertTrue(set(extra) <= {"path", "rank"}, "%s: %s: %s" % (case, rid, extra))
                    self.assertEqual(len(rows) - 1, len(table), "%s: %s rows" % (case, rid))
                    if "rank" in extra:
                        want = table.notes["rank"]
                        self.assertTrue(all(r[rows[0].index("rank")] == want for r in rows[1:]))
                    if "path" in extra:
                        self.check_tree_paths(table, [r[rows[0].index("path")] for r in rows[1:]])
                    for c, col in enumerate(table.columns):
                        for i in range(len(table)):
                            self.assertTrue(same_cell(col, i, rows[i + 1][c]),
                                            "%s: %s row %d column %s: csv %r, table %r"
                                            % (case, rid, i, col.name, rows[i + 1][c], col.cell(i)))
                            checked_cells += 1
                    checked_files += 1
        self.assertGreater(checked_files, 100, "too few CSV outputs compared")
        self.assertGreater(self.paths_checked, 100)
        self.assertGreater(checked_cells, 10000)


class TypesAndNulls(unittest.TestCase):
    def setUp(self):
        self.res = tracepipe.run("dlrm_breakdown", trace=DLRM)

    def test_columns_types_units(self):
        tree = self.res["device.tree"]
        self.assertEqual(tree.column("id").type, "int64")
        self.assertEqual(tree.column("percent_of_total").type, "double")
        self.assertEqual(tree.column("percent_of_total").unit, "percent")
        # the root has no parent: null, not 0
        self.assertIsNone(tree.row(0)["parent_id"])
        self.assertIsNotNone(tree.column("parent_id").nulls)

    def test_to_pandas_keeps_types_and_nulls(self):
        import numpy as np
        df = self.res["device.tree"].to_pandas()
        self.assertEqual(str(df["parent_id"].dtype), "Int64")  # nullable, no object per cell
        self.assertTrue(df["parent_id"].isna().iloc[0])
        self.assertEqual(df["percent_of_total"].dtype, np.float64)
        self.assertEqual(df.attrs["units"]["percent_of_total"], "percent")
        numeric = self.res["device.tree"].column("percent_of_total").to_numpy()
        self.assertIsNotNone(numeric.base)  # a view over the C buffer, not a copy
        self.assertEqual(len(df), len(self.res["device.tree"]))

    def test_dicts_iteration_html(self):
        host = self.res["host"]
        rows = host.to_dicts()
        self.assertEqual(len(rows), len(host))
        self.assertEqual(list(rows[0]), host.names)
        self.assertEqual(rows, list(iter(host)))
        self.assertIn("<table>", host._repr_html_())
        page = self.res._repr_html_()
        self.assertEqual(page.count("<table>") + page.count(": no rows</p>"), len(self.res))

    def test_writers_off_by_default(self):
        with tempfile.TemporaryDirectory() as out:
            tracepipe.run("dlrm_breakdown", trace=DLRM, out=out)
            self.assertEqual(os.listdir(out), [])
            tracepipe.run("dlrm_breakdown", trace=DLRM, out=out, write=True)
            self.assertIn("report.html", os.listdir(out))


class Errors(unittest.TestCase):
    def test_invalid_cases_same_messages_as_validate(self):
        """tracepipe.validate raises with exactly what `pipeline validate` prints."""
        n = 0
        for case in sorted(os.listdir(INVALID)):
            d = os.path.join(INVALID, case)
            if any(os.path.exists(os.path.join(d, f)) for f in ("args", "prefix", "exit")):
                continue
            want = open(os.path.join(d, "error"), encoding="utf-8").read().rstrip("\n")
            with self.subTest(case=case):
                with self.assertRaises(tracepipe.Error) as e:
                    tracepipe.validate(os.path.join(d, "pipeline.yaml"))
                self.assertEqual(str(e.exception), want)
                n += 1
        self.assertGreater(n, 20)

    def test_yaml_text_error_position(self):
        with self.assertRaises(tracepipe.Error) as e:
            tracepipe.run("stages:\n  - reader: kineto\n    path: [1, 2]\n")
        self.assertRegex(str(e.exception), r"^<string>:3:11: error: ")

    def test_bad_trace_names_file(self):
        with tempfile.NamedTemporaryFile(suffix=".json") as t:
            t.write(b'{"traceEvents": [{"ph": "X", "ts": 1, ')
            t.flush()
            with self.assertRaises(tracepipe.Error) as e:
                tracepipe.read(t.name)
            self.assertIn(t.name, str(e.exception))

    def test_unknown_pipeline_and_stage(self):
        with self.assertRaises(tracepipe.Error) as e:
            tracepipe.run("no_such_pipeline")
        self.assertIn("no bundled pipeline named 'no_such_pipeline'", str(e.exception))
        with self.assertRaises(tracepipe.Error) as e:
            tracepipe.describe("kernel_stat")
        self.assertIn("did you mean 'kernel_stats'", str(e.exception))


class ReadEvents(unittest.TestCase):
    def test_events_equal_the_json(self):
        ev = tracepipe.read(DLRM)
        with gzip.open(DLRM, "rt") as f:
            raw = json.load(f)["traceEvents"]
        kernels = sorted((e["name"], round(e["ts"] * 1000), round(e["dur"] * 1000))
                         for e in raw if e.get("cat") == "kernel" and e.get("ph") == "X")
        df = ev.to_pandas()
        k = df[df["kind"] == "kernel"]
        got = sorted(zip(k["name"].astype(str), k["ts_ns"].tolist(), k["dur_ns"].tolist()))
        self.assertEqual(len(got), len(kernels))
        self.assertEqual(got, kernels)
        # every kernel is linked to the runtime call with its correlation id
        launch = k["launch"].to_numpy()
        self.assertTrue((launch >= 0).all())
        self.assertTrue((df["correlation"].to_numpy()[launch] == k["correlation"].to_numpy()).all())
        self.assertTrue((df["kind"].iloc[launch] == "runtime").all())
        self.assertEqual(str(df["name"].dtype), "category")
        dev = {(e["args"]["device"], e["args"]["stream"]) for e in raw if e.get("cat") == "kernel"}
        self.assertEqual(set(zip(k["device"], k["stream"])), dev)

    def test_columns_without_pandas(self):
        cols = tracepipe.read(DLRM).columns()
        self.assertEqual(cols["ts_ns"].dtype.name, "int64")
        self.assertEqual(len(cols["ts_ns"]), len(cols["launch"]))


class GilReleased(unittest.TestCase):
    def test_a_thread_runs_while_a_pipeline_runs(self):
        with tempfile.TemporaryDirectory() as tmp:
            trace = os.path.join(tmp, "t.json")
            subprocess.run([sys.executable, "tests/tools/gen_trace.py", "--size", "60M", "-o", trace],
                           check=True, stdout=subprocess.DEVNULL)
            ticks = []
            done = threading.Event()

            def spin():
                while not done.is_set():
                    ticks.append(time.perf_counter())
                    time.sleep(0.001)
            t = threading.Thread(target=spin)
            t.start()
            start = time.perf_counter()
            res = tracepipe.run("stages:\n  - reader: kineto\n    path: ${trace}\n  - analysis: kernel_stats\n"
                                "vars:\n  trace: x\n", trace=trace)
            end = time.perf_counter()
            done.set()
            t.join()
            self.assertGreater(len(res["kernel_stats"]), 0)
            during = [x for x in ticks if start < x < end]
            # with the GIL held for the whole run the thread could not tick at all;
            # released, it ticks about once a millisecond
            self.assertGreater(end - start, 0.05)
            self.assertGreater(len(during), 10, "the thread ran %d times in %.2f s" % (len(during), end - start))


class SqliteWithPandas(unittest.TestCase):
    """The sqlite writer's tables, read back by pandas.read_sql, equal the
    same run's Tables: values, and dtypes by declared type (an INTEGER
    column with NULLs comes back as float with NaN: pandas' rule)."""

    def test_read_sql_equals_tables(self):
        import sqlite3
        import numpy as np
        import pandas as pd
        with tempfile.TemporaryDirectory() as out:
            res = tracepipe.run("tests/pipelines/valid/sqlite_dlrm/pipeline.yaml", write=True, out=out)
            db = sqlite3.connect(os.path.join(out, "trace.db"))
            tables = dict(db.execute("SELECT id, table_name FROM results").fetchall())
            self.assertTrue({"kernels", "kernels.ops", "device.streams", "device.tree"} <= set(tables), tables)
            for rid, table_name in tables.items():
                with self.subTest(result=rid):
                    got = pd.read_sql('SELECT * FROM "%s"' % table_name.replace('"', '""'), db)
                    want = res[rid]
                    self.assertEqual(list(got.columns), want.names)
                    self.assertEqual(len(got), len(want))
                    for col in want.columns:
                        g = got[col.name]
                        if col.type == "text":
                            self.assertEqual([None if v is None else v for v in g.tolist()],
                                             [col.cell(i) for i in range(len(want))])
                            continue
                        if len(want) == 0:
                            continue
                        expect = np.array([np.nan if col.cell(i) is None else col.cell(i)
                                           for i in range(len(want))], dtype=float)
                        if all(col.cell(i) is None for i in range(len(want))):
                            self.assertTrue(g.isna().all(), col.name)  # no value at all: no dtype to keep
                            continue
                        if col.type == "int64" and col.nulls is None:
                            self.assertEqual(g.dtype, np.int64, col.name)
                        else:
                            self.assertEqual(g.dtype, np.float64, col.name)
                        np.testing.assert_array_equal(g.to_numpy(dtype=float), expect)
            # the events table: one row per event, kinds as read() sees them
            ev = pd.read_sql("SELECT kind, count(*) AS n FROM events GROUP BY kind", db)
            mine = tracepipe.read(DLRM).to_pandas()["kind"].value_counts()
            self.assertEqual({k: int(n) for k, n in zip(ev["kind"], ev["n"])},
                             {str(k): int(n) for k, n in mine.items() if n})
            db.close()


BATCH_YAML = """vars: {trace: x, out: build/out}
stages:
  - reader: kineto
    path: ${trace}
  - analysis: kernel_stats
    top: 5
  - writer: csv
    path: ${out}/{id}.csv
"""
RANKS = "tests/data/kineto/corpus/dlrm_worker[1-3]_step12.pt.trace.json.gz"


class Batches(unittest.TestCase):
    """tracepipe.batch equals `pipeline run --input GLOB`: per trace, and its
    batch tables equal the command's OUT/NAME.csv cell for cell."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        yaml = os.path.join(cls.tmp.name, "p.yaml")
        with open(yaml, "w") as f:
            f.write(BATCH_YAML)
        cls.out = os.path.join(cls.tmp.name, "out")
        subprocess.run([os.path.join(BUILD, "pipeline"), "run", yaml, "--input", RANKS, "--set",
                        "out=" + cls.out], check=True, capture_output=True)
        cls.b = tracepipe.batch(BATCH_YAML, RANKS)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_labels_and_per_trace_results(self):
        b = self.b
        self.assertEqual(b.labels, ["dlrm_worker1_step12", "dlrm_worker2_step12", "dlrm_worker3_step12"])
        self.assertEqual(b.errors, {})
        one = tracepipe.run(BATCH_YAML, input=b.paths["dlrm_worker2_step12"])
        got = b["dlrm_worker2_step12"]
        self.assertEqual(list(got), list(one))
        for id in one:
            self.assertEqual(got[id].to_dicts(), one[id].to_dicts())

    def test_batch_tables_equal_the_commands(self):
        n_cells = 0
        for id, table in self.b.tables.items():
            with open(os.path.join(self.out, id + ".csv"), newline="") as f:
                rows = list(csv.reader(f))
            header = [h for h in rows[0] if h != "path"]  # a tree's path: the csv writer's own
            self.assertEqual(table.names, header, id)
            self.assertEqual(len(table), len(rows) - 1, id)
            for col in table.columns:
                k = rows[0].index(col.name)
                for i, row in enumerate(rows[1:]):
                    self.assertTrue(same_cell(col, i, row[k]), (id, col.name, i, row[k], col.cell(i)))
                    n_cells += 1
        self.assertGreater(n_cells, 500)
        k = self.b.tables["kernel_stats"]
        self.assertEqual(sorted(set(k.column("rank").values())), [1, 2, 3])

    def test_jobs_and_lists(self):
        paths = sorted(glob.glob(RANKS))
        two = tracepipe.batch(BATCH_YAML, paths, jobs=2)
        self.assertEqual(two.labels, self.b.labels)
        for id, t in self.b.tables.items():
            self.assertEqual(two.tables[id].to_dicts(), t.to_dicts(), id)

    def test_a_failed_trace_is_reported_not_raised(self):
        with tempfile.TemporaryDirectory() as d:
            bad = os.path.join(d, "notes.json")
            with open(bad, "w") as f:
                f.write("not json")
            b = tracepipe.batch(BATCH_YAML, [DLRM, bad])
        self.assertEqual(b.labels, ["dlrm_worker0_step12", "notes"])
        self.assertEqual(list(b), ["dlrm_worker0_step12"])
        self.assertIn("notes.json", b.errors["notes"])
        with self.assertRaises(tracepipe.Error):
            b["notes"]
        with self.assertRaises(tracepipe.Error):
            tracepipe.batch(BATCH_YAML, [DLRM, DLRM])  # two traces, one label
        with self.assertRaises(tracepipe.Error):
            tracepipe.batch(BATCH_YAML, "no/such/folder")

    def test_a_file_name_that_is_not_utf8(self):
        # a folder listing gives any bytes; `pipeline run --input` takes them, so does batch
        with tempfile.TemporaryDirectory() as d:
            name = os.path.join(os.fsencode(d), b"rank\xe9.json.gz")
            with open(sorted(glob.glob(RANKS))[0], "rb") as src, open(name, "wb") as dst:
                dst.write(src.read())
            b = tracepipe.batch(BATCH_YAML, d)
        label = os.fsdecode(b"rank\xe9")
        self.assertEqual(b.labels, [label])
        self.assertEqual(b.errors, {})
        want = self.b["dlrm_worker1_step12"]
        self.assertEqual(list(b[label]), list(want))
        for id in want:
            self.assertEqual(b[label][id].to_dicts(), want[id].to_dicts(), id)


class Meanings(unittest.TestCase):
    def test_declared_meanings_reach_tables(self):
        t = tracepipe.run(BATCH_YAML, input=DLRM)["kernel_stats"]
        props = tracepipe.describe("kernel_stats")["<id>"]["$defs"]["row"]["properties"]
        want = {name: p["description"] for name, p in props.items() if p.get("description")}
        self.assertEqual(t.meanings, {n: m for n, m in want.items() if n in t.names})
        self.assertEqual(t.column("count").meaning, "activities of that name")


class Misc(unittest.TestCase):
    def test_plugins_and_describe(self):
        names = {(p["kind"], p["name"]) for p in tracepipe.plugins()}
        self.assertIn(("analysis", "kernel_stats"), names)
        self.assertIn(("writer", "csv"), names)
        d = tracepipe.describe("kernel_stats")
        self.assertEqual(d["<id>"]["$defs"]["row"]["properties"]["sum_us"]["x-unit"], "us")
        self.assertIn("<id>.ops", d)

    def test_report_for_a_notebook(self):
        rep = tracepipe.report("dlrm_breakdown", trace=DLRM)
        self.assertIn("<html", rep.html.lower())
        self.assertIn("srcdoc=", rep._repr_html_())
        self.assertIn("host", rep.results)


if __name__ == "__main__":
    unittest.main()
