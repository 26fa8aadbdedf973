"""Independent check of the sqlite writer's database (issue 33): results equal
the csv writer's files cell for cell with types and nulls, the event table
equals the raw trace, and docs/plugins/sqlite.md's example queries give what
the raw JSON gives."""
import collections, csv, gzip, json, os, re, sqlite3, sys

OUT = sys.argv[1]
TRACE = "tests/data/dlrm_worker0_step12.pt.trace.json.gz"
raw = json.load(gzip.open(TRACE))["traceEvents"]
db = sqlite3.connect(os.path.join(OUT, "trace.db"))
q = lambda sql, *a: db.execute(sql, a).fetchall()


def ns(us):
    return round(us * 1000)


# --- results: typed tables equal to the CSV files, with their metadata ---
TRIGGERS = "=+-@\t\r"
results = q("SELECT id, table_name, n_rows FROM results ORDER BY id")
assert sorted(r[0] for r in results) == sorted(f[:-4] for f in os.listdir(OUT) if f.endswith(".csv")), results
for rid, table, n_rows in results:
    cols = q("SELECT column, type FROM columns WHERE result = ? ORDER BY position", rid)
    with open(os.path.join(OUT, rid + ".csv"), newline="") as f:
        rows = list(csv.reader(f))
    assert rows[0] == [c for c, _ in cols], (rid, rows[0], cols)
    names = ", ".join('"%s"' % c for c, _ in cols)
    got = q('SELECT %s FROM "%s" ORDER BY rowid' % (names, table))
    typed = q('SELECT %s FROM "%s" ORDER BY rowid' % (", ".join('typeof("%s")' % c for c, _ in cols), table))
    assert len(got) == len(rows) - 1 == n_rows, (rid, len(got), len(rows))
    for want, have, types in zip(rows[1:], got, typed):
        for (col, sqltype), w, h, t in zip(cols, want, have, types):
            if w == "":
                assert h is None or (sqltype == "TEXT" and h == ""), (rid, col, w, h)
                continue
            assert t == {"INTEGER": "integer", "REAL": "real", "TEXT": "text"}[sqltype], (rid, col, t)
            if sqltype == "INTEGER":
                assert h == int(w), (rid, col, w, h)
            elif sqltype == "REAL":
                assert h == float(w), (rid, col, w, h)
            else:
                assert h == (w[1:] if w[:1] == "'" and w[1:2] in TRIGGERS else w), (rid, col, w, h)
assert q("SELECT unit FROM columns WHERE result = 'device.streams' AND column = 'active_us'") == [("us",)]
# meanings: every column of these declared results carries its stage's one line
assert q("SELECT COUNT(*) FROM columns WHERE meaning IS NULL OR meaning = ''") == [(0,)]
assert q("SELECT meaning FROM columns WHERE result = 'kernels' AND column = 'count'") == [
    ("activities of that name",)]

# --- DuckDB's sqlite extension reads a column by its declared type and refuses
# a value of another: every cell of every table is of its column's type or NULL
WANT = {"INTEGER": "integer", "REAL": "real", "TEXT": "text"}
for (table,) in q("SELECT name FROM sqlite_master WHERE type = 'table'"):
    for _, col, decl, *_ in q('PRAGMA table_info("%s")' % table.replace('"', '""')):
        assert decl in WANT, (table, col, decl)
        bad = q("""SELECT COUNT(*) FROM "%s" WHERE typeof("%s") NOT IN (?, 'null')"""
                % (table.replace('"', '""'), col.replace('"', '""')), WANT[decl])
        assert bad == [(0,)], (table, col, decl, bad)

# --- events: one row per raw event, per category and kind ---
assert q("SELECT COUNT(*) FROM events") == [(len(raw),)]
by_cat = collections.Counter(e.get("cat") for e in raw)
got_cat = dict(q("SELECT n.name, COUNT(*) FROM events e LEFT JOIN names n ON n.id = e.cat_id GROUP BY e.cat_id"))
got_cat[None] = got_cat.pop(None, 0) + got_cat.pop("", 0)
assert got_cat == dict(by_cat), (got_cat, by_cat)
KIND = {"cpu_op": "cpu_op", "user_annotation": "annotation", "cuda_runtime": "runtime",
        "kernel": "kernel", "gpu_memcpy": "memcpy", "ac2g": "flow", "Trace": "trace"}
want_kind = collections.Counter(KIND.get(e.get("cat")) or {"M": "metadata", "i": "instant"}[e["ph"]] for e in raw)
assert dict(q("SELECT kind, COUNT(*) FROM events GROUP BY kind")) == dict(want_kind)
kernels = [e for e in raw if e.get("cat") == "kernel"]
assert q("SELECT SUM(dur_ns) FROM events WHERE kind = 'kernel'") == [(sum(ns(e["dur"]) for e in kernels),)]
assert sum(ns(e["dur"]) for e in kernels) == 6832000

# launches: every GPU activity to a runtime call of its correlation id
gpu = [e for e in raw if e.get("cat") in ("kernel", "gpu_memcpy")]
links = q("""SELECT a.correlation, l.kind, l.correlation, a.start_ns >= l.start_ns FROM events a
             JOIN events l ON l.id = a.launch_id""")
assert len(links) == len(gpu) == 261, len(links)
assert all(k == "runtime" and c1 == c2 and after for c1, k, c2, after in links), links[:3]
# parents: around their child in its process (hierarchy's clamp: 1000 ns; a
# step annotation adopts the ops of the process's other threads)
bad = q("""SELECT c.id FROM events c JOIN events p ON p.id = c.parent_id
           WHERE p.pid IS NOT c.pid OR c.start_ns < p.start_ns
              OR c.start_ns + c.dur_ns > p.start_ns + p.dur_ns + 1000""")
assert bad == [], bad

# --- the documented example queries, each run ---
doc = open("docs/plugins/sqlite.md").read()
examples = re.findall(r"```sql\n(.*?)```", doc, re.S)[1:]  # the first block is the schema
assert len(examples) == 5, len(examples)
top, streams, step_ops, launches, units = (q(sql) for sql in examples)

per_name = collections.defaultdict(int)
for e in kernels:
    per_name[e["name"]] += ns(e["dur"])
want_top = sorted(per_name.items(), key=lambda kv: (-kv[1], kv[0]))[:10]
assert [(n, t) for n, _, t in top] == want_top, (top, want_top)

busy = collections.defaultdict(int)
for e in gpu:
    busy[(e["args"]["device"], e["args"]["stream"])] += ns(e["dur"])
assert [(d, s, b) for d, s, _, b in streams] == sorted((d, s, b) for (d, s), b in busy.items()), streams

step = next(e for e in raw if e.get("name") == "ProfilerStep#10")
inside = [e for e in raw if e.get("cat") == "cpu_op" and e["pid"] == step["pid"]
          and e["ts"] >= step["ts"] and e["ts"] + e["dur"] <= step["ts"] + step["dur"]]
assert len(step_ops) == len(inside) > 0, (len(step_ops), len(inside))
assert sorted(n for _, _, n, _, _ in step_ops) == sorted(e["name"] for e in inside)
assert sum(d for *_, d in step_ops) == sum(ns(e["dur"]) for e in inside)

assert len(launches) == len(kernels) and all(d >= 0 for *_, d in launches), launches[:3]
assert units[:3] == [("device", "INTEGER", None), ("stream", "INTEGER", None), ("window_us", "REAL", "us")], units

print("sqlite_dlrm: %d results equal their CSV; %d events; %d launches; %d ops in ProfilerStep#10; "
      "top kernel %s %d ns" % (len(results), len(raw), len(links), len(inside), top[0][0][:40], top[0][2]))
