#!/usr/bin/env python3
"""Writes a synthetic, DLRM-like PyTorch profiler (Kineto) trace.

    python3 tests/tools/gen_trace.py --size 100M -o build/bench/t100m.json
    python3 tests/tools/gen_trace.py --iterations 2 --seed 7 -o t.json

The trace looks like real Kineto output (pretty-printed like
tests/data/dlrm_worker0_step12.pt.trace.json.gz, ~300 bytes per event):
ProfilerStep#N annotations on the main thread; nested cpu_op trees (linear,
addmm, relu, embedding bags, bmm, the optimizer step) on the main thread and
the backward pass on an autograd thread; cudaLaunchKernel / cudaMemcpyAsync /
cudaMemsetAsync calls with their kernels, memcpys and memsets on several
streams, linked by correlation ids, External ids and ac2g flows; the usual
top-level metadata.  Output is deterministic for a given seed and size.

With --world-size N --rank R it is rank R of a data-parallel job (issue 31):
distributedInfo says so, each step ends its backward pass with an NCCL
all-reduce (a `nccl:all_reduce` op launching ncclDevKernel_AllReduce_... on
stream 24) that ends at the same true moment on every rank (its ProfilerStep's
slot in a fixed schedule, --period-ns apart), so a rank that arrives late waits
less and the others wait for it; rank R's clock is off by a few microseconds
(--skew-ns), and the --straggler rank's host pauses --delay-ns before each
all-reduce.  tests/tools/gen_ranks.py writes a whole job.

Besides the trace it writes <out>.expected.json with the numbers the
breakdown analyses must find (computed here, independently of tracepipe):
host runtime, iterations, the span and per-stream active time, the GPU time
launched per step, and event counts.  Python standard library only.
"""
import argparse
import json
import random
import sys

PID, MAIN_TID, BWD_TID = 4242, 4242, 4318
DEVICE = 0
S_COMPUTE, S_EMB, S_COPY = 7, 20, 22
S_NCCL = 24
NCCL_ALLREDUCE = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)"
BASE_NS = 5_561_332_968_385_000  # Kineto-style relative ts (us) with 3 decimals

GEMM = ("void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>"
        "(cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4::Params)")
GEMV = ("void gemmSN_TN_kernel<float, 128, 16, 2, 4, 8, 9, false, cublasGemvTensorStridedBatched"
        "<float const>, cublasGemvTensorStridedBatched<float> >(cublasGemmSmallNParams<"
        "cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float>, float>)")
ELTWISE = ("void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)"
           "::launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, at::native"
           "::detail::ClampLimits)::{lambda()#1}::operator()() const::{lambda(float)#1}, "
           "at::detail::Array<char*, 2> >(int, at::detail::Array<char*, 2>)")
ADD = ("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
       "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, "
       "at::detail::Array<char*, 3>)")
EMB_FWD = ("void at::native::(anonymous namespace)::embedding_bag_nbits_rowwise_offsets_kernel"
           "<float, int, 4>(at::PackedTensorAccessor64<float, 2>, int const*, int const*, float*)")
EMB_BWD = ("void at::native::(anonymous namespace)::compute_grad_weight_bags<float, long>"
           "(at::PackedTensorAccessor64<long, 1>, float const*, long const*, long, float*)")
SORT = ("void at_cuda_detail::cub::DeviceRadixSortOnesweepKernel<at_cuda_detail::cub::"
        "DeviceRadixSortPolicy<long, long, int>::Policy800, false, long, long, int, int>"
        "(int*, int*, long const*, long*, long const*, long*, int, int, int)")
BMM = ("void cutlass::Kernel<cutlass_80_simt_sgemm_64x64_8x5_tn_align1>"
       "(cutlass_80_simt_sgemm_64x64_8x5_tn_align1::Params)")
SPLITK = ("void cublasLt::splitKreduce_kernel<32, 16, int, float, float, float, float, false, "
          "false, false>(cublasLt::cublasSplitKParams<float>, float const*, float const*, float*, "
          "float const*, float const*, float const*, float const*, float*, void*, long, float*, int*)")
CAT = ("void at::native::(anonymous namespace)::CatArrayBatchedCopy<float, unsigned int, 2, 64, 64>"
       "(float*, at::native::(anonymous namespace)::CatArrInputTensorMetadata<float, unsigned int, "
       "64, 64>, at::native::(anonymous namespace)::TensorSizeStride<unsigned int, 4u>, int, unsigned int)")
BCE = ("void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps"
       "<float, float, float, float>, unsigned int, float, 4> >(at::native::ReduceOp<float, "
       "at::native::MeanOps<float, float, float, float>, unsigned int, float, 4>)")

CBID = {"cudaLaunchKernel": 211, "cudaMemcpyAsync": 41, "cudaMemsetAsync": 51,
        "cudaStreamSynchronize": 131, "cudaDeviceSynchronize": 165}


def fmt_us(ns):
    return "%d.%03d" % divmod(ns, 1000)


class Gen:
    """Builds one iteration at a time; events are written sorted by start."""

    def __init__(self, seed, batch, dist=None):
        self.rnd = random.Random(seed)
        self.batch = batch
        self.dist = dist      # a rank of a job: rank, world, straggler, t0, period_ns, ...
        self.ext = 0          # External id counter
        self.corr = 0         # correlation id counter
        self.ev_idx = 0
        self.seqno = 0
        self.stream_free = {S_COMPUTE: 0, S_EMB: 0, S_COPY: 0}
        self.events = []      # (ts, order, text) of the current iteration
        self.order = 0
        # expected values
        self.host_lo = self.host_hi = None
        self.all_lo = self.all_hi = None
        self.active = {S_COMPUTE: 0, S_EMB: 0, S_COPY: 0}
        self.last_end = {S_COMPUTE: 0, S_EMB: 0, S_COPY: 0}
        self.counts = {}
        self.gpu_ns = 0
        self.gpu_n = 0
        self.step_gpu_ns = 0
        self.steps = []
        self.compute_ns = 0   # kernels of kernel(): HTA's computation class
        self.comm = []        # (start, end) of each all-reduce kernel
        if dist:
            for d in (self.stream_free, self.active, self.last_end):
                d[S_NCCL] = 0

    # ---- helpers
    def r(self, lo, hi):
        return self.rnd.randint(lo, hi)

    def emit(self, ts, text, cat):
        self.events.append((ts, self.order, text))
        self.order += 1
        self.counts[cat] = self.counts.get(cat, 0) + 1

    def complete(self, ts, dur, host):
        end = ts + dur
        if host:
            self.host_lo = ts if self.host_lo is None else min(self.host_lo, ts)
            self.host_hi = end if self.host_hi is None else max(self.host_hi, end)
        self.all_lo = ts if self.all_lo is None else min(self.all_lo, ts)
        self.all_hi = end if self.all_hi is None else max(self.all_hi, end)

    def op(self, cat, name, tid, t, body=None, args_extra=""):
        """An op starting at t whose children body(t) lays out; returns its end."""
        start = t
        t += self.r(300, 1500)
        ext = self.ext + 1
        self.ext += 1  # reserve the op's External id before its children
        if body:
            t = body(t, ext)
        end = t + self.r(300, 1500)
        self.ev_idx += 1
        text = ('  {\n    "ph": "X", "cat": "%s", "name": "%s", "pid": %d, "tid": %d,\n'
                '    "ts": %s, "dur": %s,\n    "args": {\n'
                '      "External id": %d,"Record function id": 0, "Ev Idx": %d%s%s\n    }\n  }'
                % (cat, name, PID, tid, fmt_us(start), fmt_us(end - start), ext, self.ev_idx,
                   args_extra, self.seq(cat, tid)))
        self.emit(start, text, cat)
        self.complete(start, end - start, True)
        return end

    def seq(self, cat, tid):
        """Autograd bookkeeping Kineto adds to most ops."""
        if cat != "cpu_op":
            return ""
        self.seqno += 1
        return ', "Sequence number": %d, "Fwd thread id": %d' % (self.seqno, 0 if tid == MAIN_TID
                                                                 else 1)

    def launch(self, tid, t, ext, rt, gpu_cat, gpu_name, stream, dur, gpu_args, end_at=None):
        """A runtime call at t launching one GPU activity; returns the call's end.
        With end_at, the activity ends then (a collective waiting for the others)."""
        self.corr += 1
        corr = self.corr
        rdur = self.r(2500, 9000)
        self.emit(t, ('  {\n    "ph": "X", "cat": "cuda_runtime", "name": "%s", "pid": %d, '
                      '"tid": %d,\n    "ts": %s, "dur": %s,\n    "args": {\n'
                      '      "External id": %d,\n      "cbid": %d, "correlation": %d\n    }\n  }'
                      % (rt, PID, tid, fmt_us(t), fmt_us(rdur), ext, CBID[rt], corr)),
                  "cuda_runtime")
        self.complete(t, rdur, True)
        gs = max(t + self.r(4000, 12000), self.stream_free[stream])
        if end_at is not None:
            dur = end_at - gs
            if dur < 20000:
                sys.exit("gen_trace: rank %d step %d arrives too late for its all-reduce: "
                         "raise --period-ns" % (self.dist["rank"], len(self.steps)))
            self.comm.append((gs, end_at))
        self.stream_free[stream] = gs + dur
        self.emit(gs, ('  {\n    "ph": "X", "cat": "%s", "name": "%s", "pid": %d, "tid": %d,\n'
                       '    "ts": %s, "dur": %s,\n    "args": {\n      "External id": %d,\n'
                       '      "queued": 0, "device": %d, "context": 1,\n'
                       '      "stream": %d, "correlation": %d,\n%s\n    }\n  }'
                       % (gpu_cat, gpu_name, DEVICE, stream, fmt_us(gs), fmt_us(dur), ext,
                          DEVICE, stream, corr, gpu_args)), gpu_cat)
        self.complete(gs, dur, False)
        # per-stream union (activities of a stream never overlap here, but
        # merge anyway so the expectation is the union by definition)
        lo = max(gs, self.last_end[stream])
        if gs + dur > lo:
            self.active[stream] += gs + dur - lo
        self.last_end[stream] = max(self.last_end[stream], gs + dur)
        self.gpu_ns += dur
        self.gpu_n += 1
        self.step_gpu_ns += dur
        self.emit(t, ('  {\n    "ph": "s", "id": %d, "pid": %d, "tid": %d, "ts": %s,\n'
                      '    "cat": "ac2g", "name": "ac2g"\n  }' % (corr, PID, tid, fmt_us(t))),
                  "ac2g")
        self.emit(gs, ('  {\n    "ph": "f", "id": %d, "pid": %d, "tid": %d, "ts": %s,\n'
                       '    "cat": "ac2g", "name": "ac2g", "bp": "e"\n  }'
                       % (corr, DEVICE, stream, fmt_us(gs))), "ac2g")
        return t + rdur

    def kernel(self, tid, t, ext, name, stream, lo, hi, grid):
        dur = self.r(lo, hi)
        self.compute_ns += dur
        args = ('      "registers per thread": %d,\n      "shared memory": %d,\n'
                '      "blocks per SM": %.1f,\n      "warps per SM": %.1f,\n'
                '      "grid": [%d, %d, 1],\n      "block": [128, 1, 1],\n'
                '      "est. achieved occupancy %%": %d'
                % (self.r(16, 128), self.r(0, 8) * 4096, grid[0] / 80, grid[0] * 4 / 80,
                   grid[0], grid[1], self.r(1, 100)))
        return self.launch(tid, t, ext, "cudaLaunchKernel", "kernel", name, stream, dur, args)

    # ---- layers
    def dims(self, *shapes):
        def strides(s):
            out, acc = [], 1
            for x in reversed(s):
                out.append(acc)
                acc *= x
            return out[::-1]
        d = ", ".join("[" + ", ".join(str(x) for x in s) + "]" for s in shapes)
        st = ", ".join("[" + ", ".join(str(x) for x in strides(s)) + "]" for s in shapes)
        types = ", ".join('"float"' if s else '"Scalar"' for s in shapes)
        conc = ", ".join('""' if s else '"1"' for s in shapes)
        return (', "Input Dims": [%s], "Input Strides": [%s], "Input type": [%s], '
                '"Concrete Inputs": [%s]' % (d, st, types, conc))

    def linear(self, tid, t, n_in, n_out):
        b = self.batch

        def t_body(t, ext):
            return self.op("cpu_op", "aten::transpose", tid, t,
                           lambda t, e: self.op("cpu_op", "aten::as_strided", tid, t,
                                                args_extra=self.dims([n_out, n_in], [], [])),
                           self.dims([n_out, n_in], [], []))

        def addmm_body(t, ext):
            t = self.kernel(tid, t, ext, GEMM, S_COMPUTE, 8000, 60000, (n_out // 64 + 1, 16))
            return self.kernel(tid, t + self.r(100, 400), ext, SPLITK, S_COMPUTE, 1000, 4000,
                               (n_out // 32 + 1, 1))

        def body(t, ext):
            t = self.op("cpu_op", "aten::t", tid, t, t_body, self.dims([n_out, n_in]))
            return self.op("cpu_op", "aten::addmm", tid, t, addmm_body,
                           self.dims([n_out], [b, n_in], [n_in, n_out], [], []))
        return self.op("cpu_op", "aten::linear", tid, t, body,
                       self.dims([b, n_in], [n_out, n_in], [n_out]))

    def relu(self, tid, t, n):
        def clamp(t, ext):
            return self.kernel(tid, t, ext, ELTWISE, S_COMPUTE, 2000, 9000, (n // 16 + 1, 1))
        return self.op("cpu_op", "aten::relu", tid, t,
                       lambda t, e: self.op("cpu_op", "aten::clamp_min", tid, t, clamp,
                                            self.dims([self.batch, n], [])),
                       self.dims([self.batch, n]))

    def mlp(self, tid, t, sizes):
        for a, b in zip(sizes, sizes[1:]):
            t = self.linear(tid, t, a, b) + self.r(200, 900)
            t = self.relu(tid, t, b) + self.r(200, 900)
        return t

    def embedding_bag(self, tid, t, rows):
        def inner(t, ext):
            t = self.kernel(tid, t, ext, SORT, S_EMB, 3000, 12000, (64, 1)) + self.r(100, 500)
            return self.kernel(tid, t, ext, EMB_FWD, S_EMB, 10000, 80000, (rows // 4096 + 1, 1))
        return self.op("cpu_op", "aten::embedding_bag", tid, t,
                       lambda t, e: self.op("cpu_op", "aten::_embedding_bag", tid, t, inner,
                                            self.dims([rows, 64], [self.batch * 20],
                                                      [self.batch])),
                       self.dims([rows, 64], [self.batch * 20], [self.batch]))

    def simple(self, tid, t, name, kname, stream, lo, hi, shapes):
        return self.op("cpu_op", name, tid, t,
                       lambda t, ext: self.kernel(tid, t, ext, kname, stream, lo, hi, (32, 2)),
                       self.dims(*shapes))

    def memcpy(self, tid, t, nbytes):
        def copy(t, ext):
            args = ('      "bytes": %d, "memory bandwidth (GB/s)": %.13f'
                    % (nbytes, nbytes / 1e9 / 1e-5))
            return self.launch(tid, t, ext, "cudaMemcpyAsync", "gpu_memcpy",
                               "Memcpy HtoD (Pinned -> Device)", S_COPY, self.r(2000, 30000),
                               args)
        return self.op("cpu_op", "aten::to", tid, t,
                       lambda t, e: self.op("cpu_op", "aten::_to_copy", tid, t,
                                            lambda t, e: self.op("cpu_op", "aten::copy_", tid,
                                                                 t, copy)))

    def memset(self, tid, t, nbytes):
        def fill(t, ext):
            args = ('      "bytes": %d, "memory bandwidth (GB/s)": %.13f'
                    % (nbytes, nbytes / 1e9 / 1e-5))
            return self.launch(tid, t, ext, "cudaMemsetAsync", "gpu_memset", "Memset (Device)",
                               S_COMPUTE, self.r(1000, 4000), args)
        return self.op("cpu_op", "aten::zero_", tid, t,
                       lambda t, e: self.op("cpu_op", "aten::fill_", tid, t, fill,
                                            self.dims([nbytes // 4], [])))

    def annot(self, name, tid, t, body):
        return self.op("user_annotation", name, tid, t, body)

    def allreduce(self, k, tid, t):
        """DDP's gradient all-reduce of step k: it ends at the step's slot of the
        job's schedule (the same true moment on every rank, in this rank's clock)."""
        d = self.dist
        if d["rank"] == d["straggler"]:
            t += d["delay_ns"]  # the straggler's host pauses (a GC, a slow loader)
        end = d["t0"] + (k + 1) * d["period_ns"]
        ranks = "[" + ", ".join(str(r) for r in range(d["world"])) + "]"
        args = ('      "Collective name": "allreduce", "In msg nelems": 1048576, '
                '"Out msg nelems": 1048576, "Group size": %d,\n      "dtype": "Float", '
                '"Process Group Name": "0", "Process Group Description": "default_pg", '
                '"Process Group Ranks": "%s"' % (d["world"], ranks))

        def body(t, ext):
            return self.launch(tid, t, ext, "cudaLaunchKernel", "kernel", NCCL_ALLREDUCE,
                               S_NCCL, 0, args, end_at=end)
        return self.op("cpu_op", "nccl:all_reduce", tid, t, body)

    # ---- one training step
    def forward(self, t, ext):
        tid = MAIN_TID

        def dlrm(t, ext):
            t = self.mlp(tid, t, [13, 512, 256, 64])
            for i in range(8):
                t = self.embedding_bag(tid, t, 100000 + 50000 * i) + self.r(200, 800)
            t = self.simple(tid, t, "aten::bmm", BMM, S_COMPUTE, 5000, 20000,
                            [[self.batch, 9, 64], [self.batch, 64, 9]]) + self.r(200, 800)
            t = self.simple(tid, t, "aten::cat", CAT, S_COMPUTE, 3000, 9000,
                            [[self.batch, 64], [self.batch, 36]]) + self.r(200, 800)
            t = self.mlp(tid, t, [100, 512, 256, 1])
            return self.simple(tid, t, "aten::binary_cross_entropy_with_logits", BCE, S_COMPUTE,
                               3000, 8000, [[self.batch, 1], [self.batch, 1]])
        return self.annot("DistributedDataParallel.forward", tid, t, dlrm)

    def backward_thread(self, t):
        tid = BWD_TID

        def grad(name, inner_name, kname, stream, n_kernels):
            def inner(t, ext):
                for _ in range(n_kernels):
                    t = self.kernel(tid, t, ext, kname, stream, 5000, 40000, (64, 4)) + 300
                return t

            def fn(t, ext):
                return self.op("cpu_op", name, tid, t,
                               lambda t, e: self.op("cpu_op", inner_name, tid, t, inner,
                                                    self.dims([self.batch, 256], [256, 512])))
            return fn

        layers = ([("AddmmBackward0", "aten::mm", GEMM, S_COMPUTE, 2),
                   ("ReluBackward0", "aten::threshold_backward", ELTWISE, S_COMPUTE, 1)] * 3 +
                  [("BmmBackward0", "aten::bmm", BMM, S_COMPUTE, 2)] +
                  [("EmbeddingBagBackward0", "aten::_embedding_bag_backward", EMB_BWD, S_EMB, 2)]
                  * 8 +
                  [("AddmmBackward0", "aten::mm", GEMM, S_COMPUTE, 2),
                   ("ReluBackward0", "aten::threshold_backward", ELTWISE, S_COMPUTE, 1)] * 3)
        for name, inner_name, kname, stream, nk in layers:
            t = self.op("cpu_op", "autograd::engine::evaluate_function: " + name, tid, t,
                        grad(name, inner_name, kname, stream, nk)) + self.r(300, 2000)
        return t

    def step(self, k, t):
        tid = MAIN_TID
        self.step_gpu_ns = 0

        def body(t, ext):
            t = self.annot("## zero_grad ##", tid, t,
                           lambda t, e: self.chain(t, [lambda t: self.memset(tid, t, 1 << 20)] * 6))
            t = self.annot("## copy_batch_to_gpu ##", tid, t + 500,
                           lambda t, e: self.chain(t, [lambda t: self.memcpy(
                               tid, t, self.batch * 52)] * 3))
            t = self.annot("## forward ##", tid, t + 500, self.forward)
            t = self.annot("## backward ##", tid, t + 500,
                           lambda t, e: self.backward_thread(t + 2000) + 2000)
            if self.dist:
                t = self.allreduce(k, tid, t + 500)
            t = self.annot("## optimizer ##", tid, t + 500, lambda t, e: self.annot(
                "Optimizer.step#SGD.step", tid, t, lambda t, e: self.chain(
                    t, [lambda t: self.simple(tid, t, "aten::add_", ADD, S_COMPUTE, 1000, 6000,
                                              [[512, 256], [512, 256], []])] * 20)))
            # wait for the device, as loss.item() does
            sync = max(t + 3000, max(self.stream_free.values()) + 2000) - t
            self.corr += 1
            self.emit(t, ('  {\n    "ph": "X", "cat": "cuda_runtime", "name": '
                          '"cudaStreamSynchronize", "pid": %d, "tid": %d,\n    "ts": %s, '
                          '"dur": %s,\n    "args": {\n      "External id": %d,\n'
                          '      "cbid": %d, "correlation": %d\n    }\n  }'
                          % (PID, tid, fmt_us(t), fmt_us(sync), ext,
                             CBID["cudaStreamSynchronize"], self.corr)), "cuda_runtime")
            self.complete(t, sync, True)
            return t + sync
        start = t
        end = self.annot("ProfilerStep#%d" % k, tid, t, body)
        self.steps.append({"name": "ProfilerStep#%d" % k, "dur_ns": end - start,
                           "gpu_ns": self.step_gpu_ns})
        return end

    def chain(self, t, fns):
        for f in fns:
            t = f(t) + self.r(200, 1000)
        return t

    def flush(self, out, first):
        self.events.sort(key=lambda e: (e[0], e[1]))
        text = ",\n".join(e[2] for e in self.events)
        n = 0
        if text:
            if not first:
                out.write(",\n")
            n = out.write(text)
        self.events = []
        return n


def header(dist=None):
    props = []
    for i in range(8):
        props.append(
            '    {\n      "id": %d, "name": "NVIDIA A100-SXM4-80GB", "totalGlobalMem": 85031714816,\n'
            '      "computeMajor": 8, "computeMinor": 0,\n'
            '      "maxThreadsPerBlock": 1024, "maxThreadsPerMultiprocessor": 2048,\n'
            '      "regsPerBlock": 65536, "regsPerMultiprocessor": 65536, "warpSize": 32,\n'
            '      "sharedMemPerBlock": 49152, "sharedMemPerMultiprocessor": 167936,\n'
            '      "numSms": 108, "sharedMemPerBlockOptin": 166912\n    }' % i)
    rank, world = (dist["rank"], dist["world"]) if dist else (0, 8)
    return ('{\n  "schemaVersion": 1,\n  "deviceProperties": [\n' + ",\n".join(props) +
            '\n  ],\n  "distributedInfo": {"backend": "nccl", "rank": %d, "world_size": %d, '
            '"pg_count": 1, "pg_config": [{"pg_name": "0", "backend_config": "cuda:nccl", '
            '"pg_desc": "default_pg", "pg_size": %d, "ranks": [%s]}], '
            '"nccl_version": "2.19.3"},\n  "record_shapes": 1,\n  "with_stack": 0,\n'
            '  "traceEvents": [\n'
            % (rank, world, world, ", ".join(str(r) for r in range(world))))


def trailer(g, first_ts, last_ns):
    ev = []
    meta = [("process_name", PID, 0, '"name": "python3"'),
            ("process_labels", DEVICE, 0, '"labels": "GPU %d"' % DEVICE),
            ("process_name", DEVICE, 0, '"name": "python3"')]
    for tid in (MAIN_TID, BWD_TID):
        meta.append(("thread_name", PID, tid, '"name": "thread %d (python3)"' % tid))
    for s in sorted(g.stream_free):
        meta.append(("thread_name", DEVICE, s, '"name": "stream %d "' % s))
        meta.append(("thread_sort_index", DEVICE, s, '"sort_index": %d' % s))
    for name, pid, tid, args in meta:
        ev.append('  {\n    "name": "%s", "ph": "M", "ts": %s, "pid": %d, "tid": %d,\n'
                  '    "args": {\n      %s\n    }\n  }' % (name, fmt_us(first_ts), pid, tid, args))
        g.counts["M"] = g.counts.get("M", 0) + 1
    # the profiler's own span: excluded from every window
    ev.append('  {\n    "ph": "X", "cat": "Trace", "ts": %s, "dur": %s,\n'
              '    "pid": "Spans", "tid": "PyTorch Profiler",\n'
              '    "name": "PyTorch Profiler (0)",\n    "args": {\n      "Op count": 0\n    }\n  }'
              % (fmt_us(first_ts - 50000), fmt_us(last_ns - first_ts + 100000)))
    ev.append('  {\n    "name": "Record Window End", "ph": "i", "s": "g",\n'
              '    "pid": "", "tid": "", "ts": %s\n  }' % fmt_us(last_ns + 60000))
    g.counts["Trace"] = 1
    g.counts["i"] = 1
    return ",\n".join(ev) + ('\n  ],\n  "traceName": "./log/worker0.pt.trace.json",\n'
                             '  "baseTimeNanoseconds": 1700000000000000000\n}\n')


def parse_size(s):
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    s = s.strip().upper().rstrip("B")
    if s and s[-1] in mult:
        return int(float(s[:-1]) * mult[s[-1]])
    return int(s)


def rank_offset_ns(rank, skew_ns):
    """Rank's clock minus the true time: a few microseconds, either way."""
    return skew_ns * ((rank * 7919) % 97 - 48)


def write_trace(path, limit=None, iterations=None, seed=1, batch=2048, dist=None):
    """Writes one trace (and path.expected.json); returns the expectations."""
    g = Gen(seed, batch, dist)
    t = BASE_NS + 1_000_000 + (dist["t0"] - BASE_NS - 1_000_000 if dist else 0)
    first_ts = t
    with open(path, "w", encoding="ascii", newline="\n") as out:
        written = out.write(header(dist))
        k = 0
        while True:
            if iterations is not None and k >= iterations:
                break
            if limit is not None and written >= limit - 2048:
                break
            t = g.step(k, t) + g.r(20000, 80000)
            if dist:  # the next step starts after this one's slot, as the job's ranks do
                t = max(t, dist["t0"] + (k + 1) * dist["period_ns"] + g.r(20000, 80000))
            written += g.flush(out, k == 0)
            k += 1
        out.write(",\n" if k else "")
        out.write(trailer(g, first_ts, max(g.all_hi or t, t)))
    # the final cudaDeviceSynchronize-free layout: host forest = every host event
    exp = {
        "iterations": k,
        "events": sum(g.counts.values()),
        "counts": g.counts,
        "host_runtime_ns": (g.host_hi - g.host_lo) if k else 0,
        "span_ns": (g.all_hi - g.all_lo) if k else 0,
        "streams": [{"device": DEVICE, "stream": s, "active_ns": g.active[s]}
                    for s in sorted(g.active)],
        "gpu_ns": g.gpu_ns,
        "gpu_count": g.gpu_n,
        "steps": g.steps,
    }
    if dist:
        exp.update({"rank": dist["rank"], "world_size": dist["world"],
                    "offset_ns": dist["t0"] - BASE_NS - 1_000_000,
                    "compute_ns": g.compute_ns, "comm": g.comm})
    with open(path + ".expected.json", "w") as f:
        json.dump(exp, f, indent=1)
        f.write("\n")
    return exp


def job_rank(rank, world, straggler=-1, skew_ns=1000, delay_ns=150000, period_ns=1_600_000):
    """The dist settings of one rank of a job (write_trace's dist)."""
    return {"rank": rank, "world": world, "straggler": straggler, "delay_ns": delay_ns,
            "period_ns": period_ns,
            "t0": BASE_NS + 1_000_000 + rank_offset_ns(rank, skew_ns)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-o", "--out", required=True, help="output trace (.json)")
    ap.add_argument("--size", help="approximate size, e.g. 100M, 1G (stop when reached)")
    ap.add_argument("--iterations", type=int, help="number of ProfilerStep iterations")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--batch", type=int, default=2048)
    ap.add_argument("--world-size", type=int, help="a rank of a job of this many ranks")
    ap.add_argument("--rank", type=int, default=0)
    ap.add_argument("--straggler", type=int, default=-1, help="the rank that arrives late")
    ap.add_argument("--skew-ns", type=int, default=1000, help="clock offsets' unit")
    ap.add_argument("--delay-ns", type=int, default=150000, help="the straggler's pause")
    ap.add_argument("--period-ns", type=int, default=1_600_000, help="the all-reduces' schedule")
    a = ap.parse_args()
    if not a.size and not a.iterations:
        ap.error("give --size or --iterations")
    dist = (job_rank(a.rank, a.world_size, a.straggler, a.skew_ns, a.delay_ns, a.period_ns)
            if a.world_size else None)
    write_trace(a.out, parse_size(a.size) if a.size else None, a.iterations, a.seed, a.batch,
                dist)
    return 0


if __name__ == "__main__":
    sys.exit(main())
