/* SDK: the vocabulary of trace names (tp_sdk_vocab.h).  The built-in tables
 * are documented rule by rule in docs/vocabulary.md; keep the two together. */
#include <ctype.h>
#include <fnmatch.h>
#include <string.h>
#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk_vocab.h>

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

/* ------------------------------------------------------------ launch APIs */

#define K TP_LAUNCHES_KERNEL
#define C TP_LAUNCHES_MEMCPY
#define S TP_LAUNCHES_MEMSET
#define G TP_LAUNCHES_GRAPH
#define Y TP_LAUNCHES_SYNC
#define H TP_LAUNCHES_HOST_FUNC
static const tp_vocab_rule launch_apis[] = {
    /* CUDA runtime */
    {"cudaLaunchKernel", K}, {"cudaLaunchKernelExC", K}, {"cudaLaunchKernelEx", K},
    {"cudaLaunchCooperativeKernel", K}, {"cudaLaunchCooperativeKernelMultiDevice", K},
    {"cudaLaunch", K}, {"cudaGraphLaunch", G}, {"cudaLaunchHostFunc", H},
    {"cudaStreamAddCallback", H}, {"cudaMemcpy*", C}, {"cudaMemset*", S},
    {"cudaDeviceSynchronize", Y}, {"cudaStreamSynchronize", Y}, {"cudaEventSynchronize", Y},
    {"cudaStreamWaitEvent", Y}, {"cudaThreadSynchronize", Y},
    /* CUDA driver */
    {"cuLaunchKernel", K}, {"cuLaunchKernelEx", K}, {"cuLaunchCooperativeKernel", K},
    {"cuLaunchCooperativeKernelMultiDevice", K}, {"cuLaunchGrid", K}, {"cuLaunchGridAsync", K},
    {"cuLaunch", K}, {"cuGraphLaunch", G}, {"cuLaunchHostFunc", H}, {"cuStreamAddCallback", H},
    {"cuMemcpy*", C}, {"cuMemset*", S}, {"cuCtxSynchronize", Y}, {"cuStreamSynchronize", Y},
    {"cuEventSynchronize", Y}, {"cuStreamWaitEvent", Y},
    /* HIP */
    {"hipLaunchKernel", K}, {"hipLaunchKernelExC", K}, {"hipExtLaunchKernel", K},
    {"hipModuleLaunchKernel", K}, {"hipExtModuleLaunchKernel", K},
    {"hipHccModuleLaunchKernel", K}, {"hipModuleLaunchKernelEx", K},
    {"hipLaunchCooperativeKernel", K}, {"hipLaunchCooperativeKernelMultiDevice", K},
    {"hipModuleLaunchCooperativeKernel", K}, {"hipModuleLaunchCooperativeKernelMultiDevice", K},
    {"hipExtLaunchMultiKernelMultiDevice", K}, {"hipLaunchByPtr", K}, {"hipGraphLaunch", G}, {"hipGraphLaunch_spt", G},
    {"hipLaunchHostFunc", H}, {"hipStreamAddCallback", H}, {"hipMemcpy*", C},
    {"hipMemset*", S}, {"hipDeviceSynchronize", Y}, {"hipStreamSynchronize", Y},
    {"hipEventSynchronize", Y}, {"hipStreamWaitEvent", Y},
};
#undef K
#undef C
#undef S
#undef G
#undef Y
#undef H

/* ------------------------------------------------------------ collectives */

/* A rule without a type (0) takes it from the kernel's name. */
static const tp_vocab_rule collectives[] = {
    /* NCCL: ncclKernel_AllReduce_RING_LL_Sum_float, ncclAllReduceRingLLKernel_sum_f32,
     * ncclDevKernel_AllGather_RING_LL (Kineto writes "void ncclDevKernel_..."),
     * RCCL's ncclDevKernel forms and rcclGenericKernel */
    {"nccl*", 0}, {"void nccl*", 0}, {"*ncclKernel*", 0}, {"*ncclDevKernel*", 0},
    {"rccl*", 0}, {"void rccl*", 0}, {"*::rccl*Kernel*", 0},
    {"msccl*", 0}, {"void msccl*", 0}, {"*mscclpp::*", 0},
    /* custom all-reduce: vLLM / SGLang (cross_device_reduce_1stage/2stage),
     * TensorRT-LLM (oneShot/twoShot), PyTorch symmetric memory */
    {"*cross_device_reduce*", TP_COLL_ALL_REDUCE}, {"*custom_all_reduce*", TP_COLL_ALL_REDUCE},
    {"*oneShotAllReduceKernel*", TP_COLL_ALL_REDUCE},
    {"*twoShotAllReduceKernel*", TP_COLL_ALL_REDUCE},
    {"*c10d::symmetric_memory::*", 0},
    /* DeepEP's expert-parallel dispatch and combine (NVSHMEM and NVLink) */
    {"*deep_ep::*dispatch*", TP_COLL_ALL_TO_ALL}, {"*deep_ep::*combine*", TP_COLL_ALL_TO_ALL},
    {"*deep_ep::*", TP_COLL_OTHER},
    /* NVSHMEM, oneCCL, HCCL */
    {"nvshmem*", 0}, {"void nvshmem*", 0}, {"*nvshmemi_*", 0},
    {"oneccl*", 0}, {"*oneccl::*", 0}, {"*ccl::*kernel*", 0},
    {"hccl*", 0}, {"Hccl*", 0},
};

/* --------------------------------------------------------------- memory */

/* A rule without a type (0): memset when the name says "set". */
static const tp_vocab_rule memory[] = {
    /* Kineto, HTA: "Memcpy HtoD (Pageable -> Device)", "Memset (Device)", MTIA dma */
    {"Memcpy*", TP_MEM_MEMCPY}, {"Memset*", TP_MEM_MEMSET}, {"dma*", TP_MEM_MEMCPY},
    /* TensorFlow / XLA: MEMCPYHtoD, MEMCPYDtoH, MEMCPYDtoD, MEMCPYP2P */
    {"MEMCPY*", TP_MEM_MEMCPY}, {"MEMSET*", TP_MEM_MEMSET},
    /* Nsight Systems: "[CUDA memcpy Host-to-Device]", "[CUDA memset]" */
    {"[[]CUDA memcpy*", TP_MEM_MEMCPY}, {"[[]CUDA memset*", TP_MEM_MEMSET},
    {"CUDA memcpy*", TP_MEM_MEMCPY}, {"CUDA memset*", TP_MEM_MEMSET},
    /* ROCm (roctracer activities; copies named by their API) */
    {"hipMemcpy*", TP_MEM_MEMCPY}, {"hipMemset*", TP_MEM_MEMSET},
    {"CopyHostToDevice", TP_MEM_MEMCPY}, {"CopyDeviceToHost", TP_MEM_MEMCPY},
    {"CopyDeviceToDevice", TP_MEM_MEMCPY}, {"CopyHostToHost", TP_MEM_MEMCPY},
    {"FillBuffer", TP_MEM_MEMSET},
    /* OpenCL commands */
    {"clEnqueueReadBuffer*", TP_MEM_MEMCPY}, {"clEnqueueWriteBuffer*", TP_MEM_MEMCPY},
    {"clEnqueueCopyBuffer*", TP_MEM_MEMCPY}, {"clEnqueueReadImage", TP_MEM_MEMCPY},
    {"clEnqueueWriteImage", TP_MEM_MEMCPY}, {"clEnqueueCopyImage*", TP_MEM_MEMCPY},
    {"clEnqueueMapBuffer", TP_MEM_MEMCPY}, {"clEnqueueMapImage", TP_MEM_MEMCPY},
    {"clEnqueueUnmapMemObject", TP_MEM_MEMCPY}, {"clEnqueueFillBuffer", TP_MEM_MEMSET},
    {"clEnqueueFillImage", TP_MEM_MEMSET}, {"clEnqueueSVMMemcpy", TP_MEM_MEMCPY},
    {"clEnqueueSVMMemFill", TP_MEM_MEMSET},
};

/* --------------------------------------------------------- graph captures */

/* Stream capture calls: 1 opens the capture of a graph, 2 closes it (the
 * `_ToGraph` and per-thread forms too).  Built in only: no `vocabulary:`
 * table adds to it. */
static const tp_vocab_rule graph_captures[] = {
    {"cudaStreamBeginCapture*", 1}, {"cuStreamBeginCapture*", 1}, {"hipStreamBeginCapture*", 1},
    {"cudaStreamEndCapture*", 2},   {"cuStreamEndCapture*", 2},   {"hipStreamEndCapture*", 2},
};

/* ---------------------------------------------------- annotations, modules */

static const tp_vocab_rule annotations[] = {
    {"user_annotation", TP_ANNOT_HOST}, {"gpu_user_annotation", TP_ANNOT_GPU},
};

/* The seeds' module marks (DLRM's model and DDP wrappers, TorchScript's
 * "##" names) and Kineto's python_function modules. */
static const char *const modules[] = {"##", "__", "module::", "DLRM ", "DistributedDataParallel",
                                      "nn.Module: "};

static const tp_vocab builtin = {
    launch_apis, collectives, memory, annotations,
    N_OF(launch_apis), N_OF(collectives), N_OF(memory), N_OF(annotations),
    modules, N_OF(modules), NULL,
};

const tp_vocab *tp_vocab_builtin(void) { return &builtin; }

/* ------------------------------------------------------- merged tables */

typedef struct vocab_own {
    tp_vocab_rule *rules[4];
    const char **modules;
} vocab_own;

/* The pipeline's items of one table, parsed, then the built-ins. */
static tp_vocab_rule *merge(tp_vocab_table t, const tp_strlist *add, const tp_vocab_rule *base,
                            size_t nbase, size_t *n)
{
    tp_vocab_rule *r = tp_malloc((add->n + nbase + 1) * sizeof *r);
    if (r == NULL)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < add->n; i++)
        if (tp_vocab_parse_rule(t, add->items[i], &r[k]) == NULL)
            k++; /* the core refused any other at load */
    memcpy(r + k, base, nbase * sizeof *r);
    *n = k + nbase;
    return r;
}

int tp_vocab_get(tp_stage *st, tp_vocab *v)
{
    *v = builtin;
    const tp_vocab_settings *s = tp_host && tp_host->vocabulary ? tp_vocabulary_settings(st) : NULL;
    if (s == NULL || !s->from_pipeline)
        return TP_OK;
    vocab_own *own = tp_calloc(1, sizeof *own);
    if (own == NULL)
        return TP_ENOMEM;
    v->own = own;
    const tp_strlist *add[] = {&s->launch_apis, &s->collectives, &s->memory, &s->annotations};
    const tp_vocab_rule *base[] = {launch_apis, collectives, memory, annotations};
    const size_t nbase[] = {N_OF(launch_apis), N_OF(collectives), N_OF(memory),
                            N_OF(annotations)};
    size_t *n[] = {&v->n_launch_apis, &v->n_collectives, &v->n_memory, &v->n_annotations};
    const tp_vocab_rule **out[] = {&v->launch_apis, &v->collectives, &v->memory, &v->annotations};
    for (int t = 0; t < 4; t++) {
        own->rules[t] = merge((tp_vocab_table)t, add[t], base[t], nbase[t], n[t]);
        if (own->rules[t] == NULL) {
            tp_vocab_free(v);
            return TP_ENOMEM;
        }
        *out[t] = own->rules[t];
    }
    own->modules = tp_malloc((s->modules.n + N_OF(modules)) * sizeof *own->modules);
    if (own->modules == NULL) {
        tp_vocab_free(v);
        return TP_ENOMEM;
    }
    for (size_t i = 0; i < s->modules.n; i++)
        own->modules[i] = s->modules.items[i];
    memcpy(own->modules + s->modules.n, modules, sizeof modules);
    v->modules = own->modules;
    v->n_modules = s->modules.n + N_OF(modules);
    return TP_OK;
}

void tp_vocab_free(tp_vocab *v)
{
    vocab_own *own = v->own;
    if (own) {
        for (int t = 0; t < 4; t++)
            tp_free(own->rules[t]);
        tp_free(own->modules);
        tp_free(own);
    }
    *v = builtin;
}

/* ------------------------------------------------------------- matching */

/* The first rule matching the text, or NULL. */
static const tp_vocab_rule *first_match(const tp_vocab_rule *r, size_t n, const char *text)
{
    for (size_t i = 0; i < n; i++)
        if (fnmatch(r[i].match, text, 0) == 0)
            return &r[i];
    return NULL;
}

static int ends_with(const char *s, size_t n, const char *suffix)
{
    size_t k = strlen(suffix);
    return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

size_t tp_launch_api_base(const char *name)
{
    size_t n = strlen(name);
    for (int again = 1; again;) {
        again = 0;
        if (ends_with(name, n, "_ptsz") || ends_with(name, n, "_ptds")) {
            n -= 5;
            again = 1;
        }
        size_t d = n;
        while (d > 0 && isdigit((unsigned char)name[d - 1]))
            d--;
        if (d < n && d >= 2 && name[d - 1] == 'v' && name[d - 2] == '_') {
            n = d - 2;
            again = 1;
        }
    }
    return n;
}

tp_launch_what tp_vocab_launch_api(const tp_vocab *v, const char *name)
{
    if (name == NULL || name[0] == '\0')
        return TP_LAUNCHES_NOTHING;
    char buf[256];
    size_t n = tp_launch_api_base(name);
    if (n >= sizeof buf)
        return TP_LAUNCHES_NOTHING; /* no API name is that long */
    memcpy(buf, name, n);
    buf[n] = '\0';
    const tp_vocab_rule *r = first_match(v->launch_apis, v->n_launch_apis, buf);
    return r ? (tp_launch_what)r->what : TP_LAUNCHES_NOTHING;
}

int tp_launch_api_blocks(const char *name, tp_launch_what what)
{
    size_t n = name ? tp_launch_api_base(name) : 0;
    if (what == TP_LAUNCHES_MEMCPY || what == TP_LAUNCHES_MEMSET) {
        for (size_t i = 0; i + 5 <= n; i++)
            if (memcmp(name + i, "Async", 5) == 0)
                return 0;
        return n > 0;
    }
    return what == TP_LAUNCHES_SYNC && ends_with(name, n, "Synchronize");
}

/* Does the lower-cased, '_'-less text hold the word? */
static int has_word(const char *flat, const char *word) { return strstr(flat, word) != NULL; }

/* The type a collective kernel's name says: the name before its arguments
 * or template parameters, lower case, without '_'. */
static tp_coll_type type_from_name(const char *name)
{
    char flat[256];
    size_t k = 0;
    for (const char *p = name; *p && *p != '(' && *p != '<' && k + 1 < sizeof flat; p++)
        if (*p != '_')
            flat[k++] = (char)tolower((unsigned char)*p);
    flat[k] = '\0';
    static const struct {
        const char *word;
        tp_coll_type type;
    } words[] = {{"allreduce", TP_COLL_ALL_REDUCE}, {"reducescatter", TP_COLL_REDUCE_SCATTER},
                 {"allgather", TP_COLL_ALL_GATHER}, {"alltoall", TP_COLL_ALL_TO_ALL},
                 {"broadcast", TP_COLL_BROADCAST},  {"sendrecv", TP_COLL_SEND_RECV},
                 {"send", TP_COLL_SEND_RECV},       {"recv", TP_COLL_SEND_RECV},
                 {"reduce", TP_COLL_REDUCE}};
    for (size_t i = 0; i < N_OF(words); i++)
        if (has_word(flat, words[i].word))
            return words[i].type;
    return TP_COLL_OTHER;
}

tp_coll_type tp_coll_type_of_name(const char *name)
{
    return name && *name ? type_from_name(name) : TP_COLL_NONE;
}

tp_coll_type tp_vocab_collective(const tp_vocab *v, const char *kernel)
{
    if (kernel == NULL)
        return TP_COLL_NONE;
    const tp_vocab_rule *r = first_match(v->collectives, v->n_collectives, kernel);
    if (r == NULL)
        return TP_COLL_NONE;
    return r->what ? (tp_coll_type)r->what : type_from_name(kernel);
}

int tp_coll_memo_init(tp_coll_memo *m, tp_stage *st, const tp_vocab *v)
{
    size_t n = tp_str_count(st);
    *m = (tp_coll_memo){st, v, tp_calloc(n ? n : 1, 1), n};
    return m->type_of ? TP_OK : TP_ENOMEM;
}

tp_coll_type tp_coll_memo_type(tp_coll_memo *m, tp_str s)
{
    if (s < m->n && m->type_of[s] != 0)
        return (tp_coll_type)(m->type_of[s] - 1);
    tp_coll_type t = tp_vocab_collective(m->vocab, tp_str_text(m->st, s));
    if (s < m->n)
        m->type_of[s] = (uint8_t)(t + 1);
    return t;
}

void tp_coll_memo_free(tp_coll_memo *m)
{
    tp_free(m->type_of);
    m->type_of = NULL;
    m->n = 0;
}

/* "set" in any case: Memset, MEMSET, memset, FillBuffer is given a type. */
static int says_set(const char *s)
{
    for (; s[0] && s[1] && s[2]; s++)
        if (tolower((unsigned char)s[0]) == 's' && tolower((unsigned char)s[1]) == 'e' &&
            tolower((unsigned char)s[2]) == 't')
            return 1;
    return 0;
}

tp_mem_what tp_vocab_memory(const tp_vocab *v, const char *name)
{
    if (name == NULL)
        return TP_MEM_NONE;
    const tp_vocab_rule *r = first_match(v->memory, v->n_memory, name);
    if (r == NULL)
        return TP_MEM_NONE;
    return r->what ? (tp_mem_what)r->what : says_set(name) ? TP_MEM_MEMSET : TP_MEM_MEMCPY;
}

tp_annot_side tp_vocab_annotation(const tp_vocab *v, const char *category)
{
    const tp_vocab_rule *r =
        category ? first_match(v->annotations, v->n_annotations, category) : NULL;
    return r ? (tp_annot_side)r->what : TP_ANNOT_NONE;
}

int tp_vocab_graph_capture(const char *name)
{
    const tp_vocab_rule *r =
        name ? first_match(graph_captures, N_OF(graph_captures), name) : NULL;
    return r ? r->what : 0;
}

tp_annot_side tp_annotation_side_of(tp_kind kind)
{
    return kind == TP_KIND_ANNOTATION       ? TP_ANNOT_HOST
           : kind == TP_KIND_GPU_ANNOTATION ? TP_ANNOT_GPU
                                            : TP_ANNOT_NONE;
}

int tp_vocab_is_module(const tp_vocab *v, const char *name)
{
    for (size_t i = 0; name && i < v->n_modules; i++)
        if (v->modules[i][0] && strncmp(name, v->modules[i], strlen(v->modules[i])) == 0)
            return 1;
    return 0;
}

static int starts(const char *s, const char *p) { return strncmp(s, p, strlen(p)) == 0; }

/* HTA's names of GPU rows that are neither computation nor, by the
 * vocabulary, communication or memory: waits, launches seen on the device,
 * MTIA's job and packet rows. */
static int not_computation(const char *s)
{
    static const char *const prefixes[] = {"Stream Wait Event", "runFunction", "hip", "job_exe",
                                           "packet", "pe_exe", "cpum_exe_subgraph",
                                           "collective_subgraph_execution"};
    static const char *const inside[] = {"Memcpy", "Memset", "dma", "Sync"};
    for (size_t i = 0; i < N_OF(prefixes); i++)
        if (starts(s, prefixes[i]))
            return 1;
    for (size_t i = 0; i < N_OF(inside); i++)
        if (strstr(s, inside[i]))
            return 1;
    return starts(s, "cuda") && strstr(s + 4, "LaunchKernel") != NULL; /* cuda.*LaunchKernel */
}

tp_kernel_class tp_vocab_kernel_class(const tp_vocab *v, tp_kind kind, const char *name)
{
    if (name == NULL)
        return TP_KCLASS_OTHER;
    if (tp_vocab_collective(v, name) != TP_COLL_NONE)
        return TP_KCLASS_COMMUNICATION;
    if (kind == TP_KIND_MEMCPY || kind == TP_KIND_MEMSET || tp_vocab_memory(v, name) != TP_MEM_NONE)
        return TP_KCLASS_MEMORY;
    return not_computation(name) ? TP_KCLASS_OTHER : TP_KCLASS_COMPUTATION;
}
