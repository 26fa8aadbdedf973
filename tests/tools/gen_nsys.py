#!/usr/bin/env python3
"""A big Nsight Systems SQLite export for `make bench` (issue 14, item 7):
the corpus saxpy export (its schema, strings and rows) with N kernel
launches appended: a runtime row (cudaLaunchKernel, class 0) and a kernel row
each, 48 kernel names, 4 streams, back to back, correlation ids unique.

usage: gen_nsys.py SRC.sqlite OUT.sqlite --launches N [--seed S]
Deterministic for a seed. Writes OUT.tmp then renames."""
import argparse, os, random, shutil, sqlite3

ap = argparse.ArgumentParser()
ap.add_argument("src")
ap.add_argument("out")
ap.add_argument("--launches", type=int, default=1000000)
ap.add_argument("--seed", type=int, default=1)
a = ap.parse_args()
rnd = random.Random(a.seed)
tmp = a.out + ".tmp"
shutil.copyfile(a.src, tmp)
db = sqlite3.connect(tmp)
db.execute("PRAGMA journal_mode=OFF")
db.execute("PRAGMA synchronous=OFF")
kcols = [r[1] for r in db.execute("PRAGMA table_info(CUPTI_ACTIVITY_KIND_KERNEL)")]
rcols = [r[1] for r in db.execute("PRAGMA table_info(CUPTI_ACTIVITY_KIND_RUNTIME)")]
kt = dict(zip(kcols, db.execute("SELECT * FROM CUPTI_ACTIVITY_KIND_KERNEL LIMIT 1").fetchone()))
launch = db.execute("SELECT nameId FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE eventClass = 0 AND "
                    "correlationId = ?", (kt["correlationId"],)).fetchone()[0]
rt = dict(zip(rcols, db.execute("SELECT * FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE nameId = ? "
                                "AND eventClass = 0 LIMIT 1", (launch,)).fetchone()))
next_id = db.execute("SELECT max(id) FROM StringIds").fetchone()[0] + 1
names = []
for i in range(48):
    db.execute("INSERT INTO StringIds (id, value) VALUES (?, ?)", (next_id, "bench_kernel_%02d" % i))
    names.append(next_id)
    next_id += 1
corr = db.execute("SELECT max(correlationId) FROM CUPTI_ACTIVITY_KIND_RUNTIME").fetchone()[0] + 1
t = db.execute("SELECT max(end) FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchone()[0] + 1000
kq = "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (%s) VALUES (%s)" % (",".join(kcols), ",".join("?" * len(kcols)))
rq = "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME (%s) VALUES (%s)" % (",".join(rcols), ",".join("?" * len(rcols)))
krows, rrows = [], []
for i in range(a.launches):
    call = rnd.randint(2000, 6000)
    r = dict(rt, start=t, end=t + call, correlationId=corr)
    k = dict(kt, start=t + call + 500, end=t + call + 500 + rnd.randint(1000, 90000),
             correlationId=corr, shortName=names[rnd.randrange(48)], streamId=7 + (i % 4))
    k["demangledName"] = k["mangledName"] = k["shortName"]
    rrows.append([r[c] for c in rcols])
    krows.append([k[c] for c in kcols])
    t += call + 200
    corr += 1
    if len(krows) == 100000:
        db.executemany(rq, rrows)
        db.executemany(kq, krows)
        krows, rrows = [], []
db.executemany(rq, rrows)
db.executemany(kq, krows)
db.commit()
db.close()
os.rename(tmp, a.out)
