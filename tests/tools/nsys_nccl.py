"""What the hand-made NCCL exports (make_nsys_nccl.py: jsonText; make_nsys_nccl_binary.py:
extended payloads) and their cases' check.py share: the three NCCL calls added to the saxpy
export, each an NVTX range around a cudaLaunchKernel whose kernel runs on stream 13, and the
check of collectives' calls against the payloads read back."""

US = 1000
# (API, kernel, kernel duration in us): the calls both exports add, in this order
CALLS = [("ncclAllReduce", "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 100),
         ("ncclAllGather", "ncclDevKernel_AllGather_RING_LL", 50),
         ("ncclAllReduce", "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 40)]


class Export:
    """The saxpy export's launching thread and templates for new rows."""

    def __init__(self, db):
        self.db = db
        self.sid = db.execute("SELECT max(id) FROM StringIds").fetchone()[0] + 1
        self.kcols = [r[1] for r in db.execute("PRAGMA table_info(CUPTI_ACTIVITY_KIND_KERNEL)")]
        self.rcols = [r[1] for r in db.execute("PRAGMA table_info(CUPTI_ACTIVITY_KIND_RUNTIME)")]
        self.kt = dict(zip(self.kcols, db.execute("SELECT * FROM CUPTI_ACTIVITY_KIND_KERNEL LIMIT 1").fetchone()))
        self.rt = dict(zip(self.rcols, db.execute(
            "SELECT r.* FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s ON s.id = r.nameId "
            "WHERE s.value = 'cudaLaunchKernel_v7000' AND r.eventClass = 0 LIMIT 1").fetchone()))
        self.tid = self.rt["globalTid"]
        self.corr = db.execute("SELECT max(correlationId) FROM CUPTI_ACTIVITY_KIND_RUNTIME").fetchone()[0] + 1
        self.t = max(db.execute("SELECT max(end) FROM %s" % tb).fetchone()[0]
                     for tb in ("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_RUNTIME",
                                "NVTX_EVENTS")) + 1000000
        self.names = {}

    def string(self, value):
        self.db.execute("INSERT INTO StringIds (id, value) VALUES (?, ?)", (self.sid, value))
        self.sid += 1
        return self.sid - 1

    def insert(self, table, cols, row):
        self.db.execute("INSERT INTO %s (%s) VALUES (%s)" % (table, ",".join(cols), ",".join("?" * len(cols))),
                        [row.get(c) for c in cols])

    def launch(self, kernel, dur_us):
        """A cudaLaunchKernel inside the range starting at self.t, its kernel on stream 13;
        then the next range's start."""
        t = self.t
        self.insert("CUPTI_ACTIVITY_KIND_RUNTIME", self.rcols,
                    dict(self.rt, start=t + 2 * US, end=t + 8 * US, correlationId=self.corr))
        if kernel not in self.names:
            self.names[kernel] = self.string(kernel)
        n = self.names[kernel]
        self.insert("CUPTI_ACTIVITY_KIND_KERNEL", self.kcols,
                    dict(self.kt, start=t + 20 * US, end=t + (20 + dur_us) * US, correlationId=self.corr,
                         streamId=13, shortName=n, demangledName=n, mangledName=n))
        self.corr += 1
        self.t += 1000 * US


def nccl_kernels(db):
    """(kernel start, end, launch start, end) of each NCCL kernel, in time order."""
    return db.execute(
        "SELECT k.start, k.end, r.start, r.end FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN "
        "CUPTI_ACTIVITY_KIND_RUNTIME r ON r.correlationId = k.correlationId AND r.eventClass = 0 "
        "JOIN StringIds s ON s.id = k.shortName WHERE s.value LIKE 'ncclDevKernel%' ORDER BY k.start").fetchall()


def check_calls(rows, kernels, ranges, link_gbps=300):
    """collectives' calls (coll.calls.csv rows) against the payloads: ranges are (start, end,
    API, payload dict or None); nccl-tests' size and bus bandwidth factors."""
    nranks = {p["NCCL communicator ID"]: p["No. of ranks"] for _, _, n, p in ranges if n == "ncclCommInitRank"}
    assert len(rows) == len(kernels) == 3
    for row, (ks, ke, rs, re_) in zip(rows, kernels):
        (_, _, api, p), = [r for r in ranges if r[0] <= rs and re_ <= r[1]]
        if p is None:
            assert row["size_bytes"] == "" and row["busbw_gbps"] == "" and row["op"] == "", row
            continue
        n = nranks[p["NCCL communicator ID"]]
        per_rank = row["type"] in ("all_gather", "reduce_scatter")
        size = p["Message size [bytes]"] * (n if per_rank else 1)
        algbw = size / (ke - ks)
        factor = 2 * (n - 1) / n if row["type"] == "all_reduce" else (n - 1) / n
        assert row["op"] == api and int(row["group_size"]) == n, row
        assert row["process_group"] == str(p["NCCL communicator ID"]), row
        assert int(row["size_bytes"]) == size, (row, size)
        assert abs(float(row["algbw_gbps"]) - algbw) < 1e-9, row
        assert abs(float(row["busbw_gbps"]) - algbw * factor) < 1e-9, row
        assert abs(float(row["link_percent"]) - algbw * factor / link_gbps * 100) < 1e-9, row
