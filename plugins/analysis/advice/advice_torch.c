/* advice: PyTorch's pattern matcher (TorchTidy,
 * torch/profiler/_pattern_matcher.py), its match rules over the host
 * forest hierarchy builds (children in start order) and the ops' recorded
 * "Input Dims" / "Input type" args.  Differences from PyTorch's in-memory
 * event tree: docs/plugins/advice.md. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <tracepipe/tp_sdk_gemm.h>
#include <tracepipe/tp_sdk_json.h>
#include <tracepipe/tp_sdk_kname.h>

#include "advice.h"

#define MAX_TYPES 8

/* The op names the patterns compare, looked up once per run: a row is
 * compared by its name id, never its text. */
enum { OP_TO, OP_TO_COPY, OP_COPY, OP_FILL, OP_ZERO, OP_NORMAL, OP_UNIFORM, OP_SELECT, OP_ZEROS,
       OP_CONV2D, OP_MM, OP_BMM, OP_ADDMM, N_OPS };
static const char *const op_names[N_OPS] = {
    "aten::to",     "aten::_to_copy", "aten::copy_", "aten::fill_", "aten::zero_",
    "aten::normal_", "aten::uniform_", "aten::select", "aten::zeros", "aten::conv2d",
    "aten::mm",     "aten::bmm",      "aten::addmm"};
_Static_assert(N_OPS <= ADV_OP_IDS, "adv.op_ids holds every op name");

static void op_ids(adv *a)
{
    for (size_t k = 0; !a->op_ids_ready && k < N_OPS; k++)
        if (!tp_str_lookup(a->st, op_names[k], strlen(op_names[k]), &a->op_ids[k]))
            a->op_ids[k] = TP_STR_ERROR; /* no row has it */
    a->op_ids_ready = 1;
}

static int named(const adv *a, int32_t row, int op)
{
    return row >= 0 && a->op_ids[op] != TP_STR_ERROR && a->c->name[row] == a->op_ids[op];
}

static int starts(const char *s, const char *prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }

static int ends(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

static int32_t last_child(const adv *a, int32_t x)
{
    int32_t k = x >= 0 ? a->hv.first_child[x] : -1;
    while (k >= 0 && a->hv.next_sibling[k] >= 0)
        k = a->hv.next_sibling[k];
    return k;
}

/* The sibling before x (roots: the root before it on its thread), or -1. */
static int32_t prev_sibling(const adv *a, int32_t x)
{
    int32_t p = a->hv.parent[x], prev = -1;
    if (p >= 0) {
        for (int32_t k = a->hv.first_child[p]; k >= 0 && k != x; k = a->hv.next_sibling[k])
            prev = k;
        return prev;
    }
    const tp_cols *c = a->c;
    for (size_t i = 0; i < a->hv.nroots && a->hv.roots[i] != x; i++) {
        int32_t r = a->hv.roots[i];
        if (tp_ev_pid(c, (size_t)r) == tp_ev_pid(c, (size_t)x) &&
            tp_ev_tid(c, (size_t)r) == tp_ev_tid(c, (size_t)x))
            prev = r;
    }
    return prev;
}

/* The "Input type" strings of row (non-tensors ""), at most MAX_TYPES;
 * -1 when the row records none. */
static int input_types(const adv *a, int32_t row, char types[][32])
{
    size_t len, vlen;
    const char *args = tp_trace_args(a->t, (size_t)row, &len);
    const char *v = args ? tp_json_get(args, len, "Input type", &vlen) : NULL;
    tp_json_iter it;
    if (v == NULL || tp_json_array(v, vlen, &it) != TP_OK)
        return -1;
    const char *e;
    size_t elen;
    int n = 0;
    while (n < MAX_TYPES && tp_json_next(&it, &e, &elen) == 1)
        if (tp_json_str(e, elen, types[n], 32) >= 0)
            n++;
    return n;
}

/* Does any cpu op record its inputs (record_shapes)?  Asked once per run. */
static int has_shapes(adv *a)
{
    char types[MAX_TYPES][32];
    for (size_t i = 0; a->shapes < 0 && i < a->c->n; i++)
        if (a->c->kind[i] == TP_KIND_CPU_OP && input_types(a, (int32_t)i, types) >= 0)
            a->shapes = 1;
    if (a->shapes < 0)
        a->shapes = 0;
    return a->shapes;
}

/* Did hierarchy nest the Python frames (python_frames: true)? */
static int python_in_tree(const adv *a)
{
    for (size_t i = 0; i < a->c->n; i++)
        if (a->c->kind[i] == TP_KIND_PYTHON && a->hv.depth[i] >= 0)
            return 1;
    return 0;
}

static int has_kind(const adv *a, tp_kind kind)
{
    for (size_t i = 0; i < a->c->n; i++)
        if (a->c->kind[i] == kind)
            return 1;
    return 0;
}

/* A rule's matches: how many, the first one's row, their total time. */
typedef struct matches {
    int64_t count, sum;
    int32_t first;
} matches;

static void add_match(const adv *a, matches *m, int32_t row)
{
    if (m->count++ == 0 || a->c->ts[row] < a->c->ts[m->first])
        m->first = row;
    m->sum += a->c->dur[row];
}

static int report(adv *a, const matches *m, const char *finding, const char *what)
{
    if (m->count == 0)
        return TP_OK;
    const tp_cols *c = a->c;
    int32_t f = m->first;
    char where[400];
    snprintf(where, sizeof where, "%.240s at %.1f us", adv_name(a, (uint32_t)f),
             adv_rel_us(a, c->ts[f]));
    adv_add_iteration(a, c->ts[f], where, sizeof where);
    return adv_emit(a, ADV_FIGS(m->count, adv_us(m->sum), NAN, adv_rel_us(a, c->ts[f]),
                                adv_rel_us(a, c->ts[f] + c->dur[f])),
                    where, finding, "%lld %s, %.1f us in all; the first named in where",
                    (long long)m->count, what, adv_us(m->sum));
}

/* The usual preconditions: ops, recorded shapes, Python events. */
enum { NEED_OPS = 1, NEED_SHAPES = 2, NEED_PYTHON = 4, NEED_PYTHON_TREE = 8 };

/* Sets *skipped (and says why, once) when the trace lacks what the rule
 * needs. */
static int check_needs(adv *a, unsigned need, int *skipped)
{
    const char *why = NULL;
    if ((need & NEED_OPS) && !has_kind(a, TP_KIND_CPU_OP))
        why = "no framework ops (cpu_op events) in the trace";
    else if ((need & (NEED_PYTHON | NEED_PYTHON_TREE)) && !has_kind(a, TP_KIND_PYTHON))
        why = "no Python function events (profile with with_stack=True)";
    else if ((need & NEED_PYTHON_TREE) && !python_in_tree(a))
        why = "hierarchy left the Python frames out of the host tree (set python_frames: true "
              "on the hierarchy stage)";
    else if ((need & NEED_SHAPES) && !has_shapes(a))
        why = "no op records its input types and shapes (profile with record_shapes=True)";
    *skipped = why != NULL;
    return why ? adv_skip(a, why) : TP_OK;
}

#define PRECONDITIONS(a, need)                                                                 \
    do {                                                                                       \
        int skipped_ = 0, rc_ = check_needs(a, need, &skipped_);                               \
        op_ids(a);                                                                             \
        if (rc_ != TP_OK || skipped_)                                                          \
            return rc_;                                                                        \
    } while (0)

/* ----------------------------------------------------- extra_cuda_copy */

static int is_init_op(const adv *a, int32_t x)
{
    static const int init[] = {OP_FILL, OP_ZERO, OP_NORMAL, OP_UNIFORM};
    for (size_t i = 0; i < sizeof init / sizeof init[0]; i++)
        if (named(a, x, init[i]))
            return 1;
    return 0;
}

static int extra_copy_at(const adv *a, int32_t to)
{
    char types[MAX_TYPES][32];
    int32_t x = last_child(a, to);
    if (!named(a, x, OP_TO_COPY) || !named(a, x = last_child(a, x), OP_COPY))
        return 0;
    if (input_types(a, x, types) < 2 || types[0][0] == '\0' || strcmp(types[0], types[1]) != 0)
        return 0;
    int32_t p = a->hv.parent[to];
    x = p >= 0 ? prev_sibling(a, p) : -1;
    if (x < 0)
        return 0;
    if (a->hv.first_child[x] < 0)
        return is_init_op(a, x);
    while ((x = last_child(a, x)) >= 0)
        if (is_init_op(a, x))
            return 1;
    return 0;
}

int adv_extra_cuda_copy(adv *a)
{
    PRECONDITIONS(a, NEED_OPS | NEED_SHAPES | NEED_PYTHON_TREE);
    matches m = {0, 0, -1};
    for (size_t i = 0; i < a->c->n; i++)
        if (named(a, (int32_t)i, OP_TO) && extra_copy_at(a, (int32_t)i))
            add_match(a, &m, (int32_t)i);
    return report(a, &m, "a tensor filled on the CPU is copied to the GPU right away",
                  "aten::to copies of a tensor just filled (fill_, zero_, normal_, uniform_)");
}

/* --------------------------------------------------- for_loop_indexing */

/* PyTorch's match over one sibling list kids[0, n): from each aten::select
 * not yet visited, the ops up to the next aten::select form a sequence;
 * it matches when that sequence repeats back to back loop_repeats times
 * or more. */
static void loops_in(adv *a, const int32_t *kids, size_t n, uint8_t *visited, matches *m)
{
    for (size_t i = 0; i < n; i++) {
        if (visited[i] || !named(a, kids[i], OP_SELECT) || n - i - 1 <= 1)
            continue;
        size_t next = i + 1;
        while (next < n && !named(a, kids[next], OP_SELECT))
            next++;
        if (next == n)
            continue;
        size_t len = next - i, repeats = 1;
        for (size_t s = next; s + len <= n; s += len) {
            size_t k = 0;
            while (k < len && a->c->name[kids[s + k]] == a->c->name[kids[i + k]])
                k++;
            if (k < len)
                break;
            repeats++;
            visited[s] = 1;
        }
        if (repeats >= (size_t)a->cfg->loop_repeats)
            add_match(a, m, kids[i]);
    }
}

int adv_for_loop_indexing(adv *a)
{
    PRECONDITIONS(a, NEED_OPS);
    const tp_cols *c = a->c;
    int32_t *kids = tp_malloc((c->n ? c->n : 1) * sizeof *kids);
    uint8_t *visited = tp_malloc(c->n ? c->n : 1);
    matches m = {0, 0, -1};
    for (size_t p = 0; kids && visited && p < c->n; p++) {
        size_t n = 0;
        for (int32_t k = a->hv.first_child[p]; k >= 0; k = a->hv.next_sibling[k])
            kids[n++] = k;
        if (n < 3)
            continue;
        memset(visited, 0, n);
        loops_in(a, kids, n, visited, &m);
    }
    int rc = kids && visited ? TP_OK : TP_ENOMEM;
    tp_free(kids);
    tp_free(visited);
    return rc ? rc
              : report(a, &m, "a Python loop indexes a tensor one element at a time",
                       "loops of aten::select sequences repeated back to back");
}

/* -------------------------------------------------------- fp32_matmul */

/* The products TF32 speeds up, by family: cuBLAS matmuls (allow_tf32 of
 * torch.backends.cuda.matmul) and cuDNN convolutions (of
 * torch.backends.cudnn), each with its own switch. */
enum { FAM_NONE = 1, FAM_MATMUL, FAM_CONV, N_FAMS = 2 };
static const char *const matmul_ops[] = {"aten::mm",      "aten::bmm",    "aten::addmm",
                                         "aten::baddbmm", "aten::addbmm", "aten::matmul",
                                         "aten::linear",  NULL};
static const char *const conv_ops[] = {
    "aten::conv1d",           "aten::conv2d",           "aten::conv3d",
    "aten::convolution",      "aten::_convolution",     "aten::cudnn_convolution",
    "aten::conv_transpose1d", "aten::conv_transpose2d", "aten::conv_transpose3d",
    "aten::convolution_backward", "aten::cudnn_convolution_backward", NULL};

static int in_list(const char *name, const char *const *list)
{
    for (; *list; list++)
        if (strcmp(name, *list) == 0)
            return 1;
    return 0;
}

/* One device's float32 products of a family: the FP32 kernels they ran
 * (count, time, the longest and its op), and how many ran TF32. */
typedef struct fp32_fam {
    int64_t fp32, tf32, sum;
    int32_t longest, op;
} fp32_fam;

typedef struct fp32_memo {
    uint8_t *family; /* per name id: FAM_* (0: not yet) */
    uint8_t *dtype;  /* per name id: 1 other, 2 fp32, 3 tf32 (0: not yet) */
} fp32_memo;

static int op_family(adv *a, fp32_memo *m, int32_t x)
{
    tp_str id = a->c->name[x];
    if (id >= a->nnames)
        return FAM_NONE;
    if (m->family[id] == 0) {
        const char *name = adv_name(a, (uint32_t)x);
        m->family[id] = in_list(name, matmul_ops) ? FAM_MATMUL
                        : in_list(name, conv_ops) ? FAM_CONV
                                                  : FAM_NONE;
    }
    return m->family[id];
}

static int kernel_dtype(adv *a, fp32_memo *m, uint32_t row)
{
    tp_str id = a->c->name[row];
    if (m->dtype[id] == 0) {
        tp_gemm_kname k;
        int gemm = tp_gemm_kernel_decode(adv_name(a, row), &k);
        m->dtype[id] = !gemm ? 1 : strcmp(k.dtype, "fp32") == 0 ? 2 : strcmp(k.dtype, "tf32") == 0 ? 3 : 1;
    }
    return m->dtype[id];
}

/* The product kernel `row` computes: the innermost matmul or convolution op
 * at or above its launching op that records its input types; its family
 * when its first input is float32, else 0 (*op set). */
static int float32_product(adv *a, fp32_memo *m, uint32_t row, int32_t *op)
{
    char types[MAX_TYPES][32];
    for (int32_t x = tp_hier_launching_op(a->c, &a->hv, row); x >= 0; x = a->hv.parent[x]) {
        int fam = op_family(a, m, x);
        if (fam == FAM_NONE || input_types(a, x, types) < 1)
            continue;
        *op = x;
        return strcmp(types[0], "float") == 0 ? fam : 0;
    }
    return 0;
}

/* Kernel time on device d, and its float32 products by family. */
static int64_t scan_products(adv *a, fp32_memo *m, const adv_device *d, fp32_fam fam[N_FAMS])
{
    const tp_cols *c = a->c;
    int64_t all = 0;
    for (size_t k = 0; k < d->n; k++) {
        uint32_t row = d->rows[k];
        if (c->kind[row] != TP_KIND_KERNEL || c->name[row] >= a->nnames)
            continue;
        all += c->dur[row] > 0 ? c->dur[row] : 0;
        int dt = kernel_dtype(a, m, row), f;
        int32_t op = -1;
        if (dt == 1 || (f = float32_product(a, m, row, &op)) == 0)
            continue;
        fp32_fam *p = &fam[f - FAM_MATMUL];
        if (dt == 3) {
            p->tf32++;
            continue;
        }
        if (p->fp32++ == 0 || c->dur[row] > c->dur[p->longest])
            p->longest = (int32_t)row, p->op = op;
        p->sum += c->dur[row];
    }
    return all;
}

static int report_fp32(adv *a, const adv_device *d, const char *cc, int f, const fp32_fam *p,
                       int64_t all)
{
    const tp_cols *c = a->c;
    int32_t k = p->longest;
    char where[480];
    snprintf(where, sizeof where, "device %lld; the longest: %.200s under %.80s at %.1f us",
             (long long)d->device, adv_name(a, (uint32_t)k), adv_name(a, (uint32_t)p->op),
             adv_rel_us(a, c->ts[k]));
    adv_add_iteration(a, c->ts[k], where, sizeof where);
    double share = all > 0 ? 100.0 * (double)p->sum / (double)all : NAN;
    const char *what = f == FAM_MATMUL ? "matmuls" : "convolutions";
    return adv_emit(a, ADV_FIGS(p->fp32, adv_us(p->sum), share, adv_rel_us(a, c->ts[k]),
                                adv_rel_us(a, c->ts[k] + c->dur[k])),
                    where, f == FAM_MATMUL ? "float32 matmuls run FP32 kernels, not TF32"
                                           : "float32 convolutions run FP32 kernels, not TF32",
                    "%lld FP32 kernels of float32 %s, %.1f us = %.1f %% of the device's kernel "
                    "time; none ran a TF32 kernel (compute capability %s)",
                    (long long)p->fp32, what, adv_us(p->sum), share, cc);
}

/* The device's compute capability when it runs TF32 (NULL otherwise);
 * *known set when the trace records one. */
static const char *tf32_device(const adv *a, const adv_device *d, int *known)
{
    char key[64];
    snprintf(key, sizeof key, "device.%lld.compute_capability", (long long)d->device);
    const char *cc = tp_trace_info_str(a->t, key);
    snprintf(key, sizeof key, "device.%lld.name", (long long)d->device);
    *known |= cc != NULL;
    return tp_device_runs_tf32(tp_trace_info_str(a->t, key), cc) ? cc : NULL;
}

static int fp32_devices(adv *a, fp32_memo *m, int *known, int *tf32)
{
    int rc = TP_OK;
    for (size_t i = 0; rc == TP_OK && i < a->ndev; i++) {
        const char *cc = tf32_device(a, &a->dev[i], known);
        if (cc == NULL)
            continue;
        *tf32 = 1;
        fp32_fam fam[N_FAMS];
        memset(fam, 0, sizeof fam);
        int64_t all = scan_products(a, m, &a->dev[i], fam);
        for (int f = 0; rc == TP_OK && f < N_FAMS; f++)
            if (fam[f].fp32 > 0 && fam[f].tf32 == 0)
                rc = report_fp32(a, &a->dev[i], cc, f + FAM_MATMUL, &fam[f], all);
    }
    return rc;
}

int adv_fp32_matmul(adv *a)
{
    PRECONDITIONS(a, NEED_OPS | NEED_SHAPES);
    if (a->ndev == 0)
        return adv_skip(a, "no GPU activity in the trace");
    fp32_memo m = {tp_calloc(a->nnames ? a->nnames : 1, 1), tp_calloc(a->nnames ? a->nnames : 1, 1)};
    int known = 0, tf32 = 0;
    int rc = m.family && m.dtype ? fp32_devices(a, &m, &known, &tf32) : TP_ENOMEM;
    tp_free(m.family);
    tp_free(m.dtype);
    if (rc == TP_OK && !known)
        rc = adv_skip(a, "the trace does not record its GPUs' compute capability (Kineto "
                         "deviceProperties)");
    else if (rc == TP_OK && !tf32)
        rc = adv_skip(a, "no GPU of the trace runs TF32 (NVIDIA compute capability 8.0 or "
                         "later)");
    return rc;
}

/* -------------------------------------------- optimizer_single_tensor */

/* Does name end with "_single_tensor_<optimizer>" for one of the
 * optimizers (PyTorch's list when the option is empty)? */
static int single_tensor_name(const adv *a, const char *name)
{
    static const char *const builtin[] = {"adam", "sgd", "adamw"};
    static const char infix[] = "_single_tensor_";
    const tp_strlist *opt = &a->cfg->optimizers;
    size_t n = opt->n ? opt->n : sizeof builtin / sizeof builtin[0], len = strlen(name);
    for (size_t k = 0; k < n; k++) {
        const char *o = opt->n ? opt->items[k] : builtin[k];
        size_t ol = strlen(o), il = sizeof infix - 1;
        if (len >= il + ol && strcmp(name + len - ol, o) == 0 &&
            strncmp(name + len - ol - il, infix, il) == 0)
            return 1;
    }
    return 0;
}

int adv_optimizer_single_tensor(adv *a)
{
    PRECONDITIONS(a, NEED_PYTHON);
    matches m = {0, 0, -1};
    uint8_t *memo = tp_calloc(a->nnames ? a->nnames : 1, 1); /* per name id: 1 no, 2 yes */
    if (memo == NULL)
        return TP_ENOMEM;
    for (size_t i = 0; i < a->c->n; i++) {
        tp_str id = a->c->name[i];
        if (!tp_ev_is_host(a->c, i) || id >= a->nnames)
            continue;
        if (memo[id] == 0)
            memo[id] = single_tensor_name(a, adv_name(a, (uint32_t)i)) ? 2 : 1;
        if (memo[id] == 2)
            add_match(a, &m, (int32_t)i);
    }
    tp_free(memo);
    return report(a, &m, "the optimizer runs its single-tensor implementation",
                  "single-tensor optimizer steps");
}

/* ------------------------------------------------------ sync_dataloader */

static int dataloader_fn(const adv *a, int32_t x, const char *fn)
{
    if (x < 0)
        return 0;
    const char *name = adv_name(a, (uint32_t)x);
    return starts(name, "torch/utils/data/dataloader.py") && ends(name, fn);
}

int adv_sync_dataloader(adv *a)
{
    PRECONDITIONS(a, NEED_PYTHON_TREE);
    matches m = {0, 0, -1};
    for (size_t i = 0; i < a->c->n; i++) {
        if (!dataloader_fn(a, (int32_t)i, "__iter__"))
            continue;
        int32_t x = a->hv.first_child[i];
        if (!dataloader_fn(a, x, "_get_iterator") || (x = a->hv.first_child[x]) < 0)
            continue;
        if (!dataloader_fn(a, x, "check_worker_number_rationality"))
            add_match(a, &m, (int32_t)i);
    }
    return report(a, &m, "the DataLoader loads data in the training process",
                  "DataLoader iterators without worker processes");
}

/* ------------------------------------------------------- grad_not_none */

/* Is there an aten::zero_ below x whose parent is not aten::zeros? */
static int zeroes_below(const adv *a, int32_t x)
{
    for (int32_t k = a->hv.first_child[x]; k >= 0;) { /* pre-order, within x */
        if (named(a, k, OP_ZERO) && !named(a, a->hv.parent[k], OP_ZEROS))
            return 1;
        if (a->hv.first_child[k] >= 0) {
            k = a->hv.first_child[k];
            continue;
        }
        while (k != x && a->hv.next_sibling[k] < 0)
            k = a->hv.parent[k];
        k = k == x ? -1 : a->hv.next_sibling[k];
    }
    return 0;
}

int adv_grad_not_none(adv *a)
{
    PRECONDITIONS(a, NEED_PYTHON_TREE);
    matches m = {0, 0, -1};
    for (size_t i = 0; i < a->c->n; i++)
        if (ends(adv_name(a, (uint32_t)i), ": zero_grad") && zeroes_below(a, (int32_t)i))
            add_match(a, &m, (int32_t)i);
    return report(a, &m, "zero_grad fills gradients with zeros instead of dropping them",
                  "zero_grad calls running aten::zero_");
}

/* -------------------------------------------------------- conv_bias_bn */

static int conv_with_bias(const adv *a, int32_t x)
{
    char types[MAX_TYPES][32];
    return named(a, x, OP_CONV2D) && input_types(a, x, types) >= 3 && types[2][0] != '\0';
}

int adv_conv_bias_bn(adv *a)
{
    PRECONDITIONS(a, NEED_OPS | NEED_SHAPES | NEED_PYTHON_TREE);
    matches m = {0, 0, -1};
    for (size_t i = 0; i < a->c->n; i++) {
        if (!conv_with_bias(a, (int32_t)i))
            continue;
        int32_t x = (int32_t)i;
        while (x >= 0 && !starts(adv_name(a, (uint32_t)x), "nn.Module: Conv2d"))
            x = a->hv.parent[x];
        x = x >= 0 ? a->hv.next_sibling[x] : -1;
        if (x >= 0 && starts(adv_name(a, (uint32_t)x), "nn.Module: BatchNorm2d"))
            add_match(a, &m, (int32_t)i);
    }
    return report(a, &m, "a Conv2d with a bias feeds a BatchNorm2d",
                  "aten::conv2d calls with a bias right before a BatchNorm2d");
}

/* ---------------------------------------------------- matmul_fp16_dims */

static int half_type(const char *t)
{
    return tp_contains_nocase(t, "half") || tp_contains_nocase(t, "bfloat16");
}

static int unaligned(const adv *a, int32_t x)
{
    size_t len, vlen;
    const char *args = tp_trace_args(a->t, (size_t)x, &len);
    const char *v = args ? tp_json_get(args, len, "Input Dims", &vlen) : NULL;
    tp_gemm_shape s;
    if (v == NULL || !tp_gemm_parse_dims(v, vlen, &s))
        return 0;
    for (int k = 0; k < s.n; k++)
        for (int d = s.rank[k] >= 2 ? s.rank[k] - 2 : 0; d < s.rank[k]; d++)
            if (fmod(s.dim[k][d], 8.0) != 0.0)
                return 1;
    return 0;
}

int adv_matmul_fp16_dims(adv *a)
{
    PRECONDITIONS(a, NEED_OPS | NEED_SHAPES);
    matches m = {0, 0, -1};
    char types[MAX_TYPES][32];
    for (size_t i = 0; i < a->c->n; i++) {
        int32_t x = (int32_t)i;
        if (!named(a, x, OP_MM) && !named(a, x, OP_BMM) && !named(a, x, OP_ADDMM))
            continue;
        if (input_types(a, x, types) >= 1 && half_type(types[0]) && unaligned(a, x))
            add_match(a, &m, x);
    }
    return report(a, &m, "half-precision products with dimensions not multiples of 8",
                  "aten::mm / bmm / addmm calls in fp16 or bf16 with a last-two dimension not a "
                  "multiple of 8");
}
