/* SDK vocabulary: each built-in family's class and type (names as real
 * traces write them), the rule syntax of `vocabulary:`, and the API name
 * suffixes. */
#include "tp_test.h"

#include <tracepipe/tp_sdk_vocab.h>

START_TEST(launch_apis_and_what_they_launch)
{
    const tp_vocab *v = tp_vocab_builtin();
    static const struct {
        const char *name;
        tp_launch_what what;
    } cases[] = {
        {"cudaLaunchKernel", TP_LAUNCHES_KERNEL}, {"cudaLaunchKernelExC", TP_LAUNCHES_KERNEL},
        {"cudaLaunchKernel_ptsz", TP_LAUNCHES_KERNEL}, {"cuLaunchKernel", TP_LAUNCHES_KERNEL},
        {"cuLaunchKernelEx", TP_LAUNCHES_KERNEL},
        {"cudaLaunchCooperativeKernelMultiDevice", TP_LAUNCHES_KERNEL},
        {"hipExtModuleLaunchKernel", TP_LAUNCHES_KERNEL},
        {"hipModuleLaunchKernel", TP_LAUNCHES_KERNEL}, {"cudaGraphLaunch", TP_LAUNCHES_GRAPH},
        {"hipGraphLaunch", TP_LAUNCHES_GRAPH}, {"cudaLaunchHostFunc", TP_LAUNCHES_HOST_FUNC},
        {"cudaMemcpyAsync", TP_LAUNCHES_MEMCPY}, {"cuMemcpyHtoDAsync_v2", TP_LAUNCHES_MEMCPY},
        {"hipMemcpyWithStream", TP_LAUNCHES_MEMCPY}, {"cudaMemsetAsync", TP_LAUNCHES_MEMSET},
        {"cuMemsetD32Async", TP_LAUNCHES_MEMSET}, {"cudaStreamWaitEvent", TP_LAUNCHES_SYNC},
        {"hipDeviceSynchronize", TP_LAUNCHES_SYNC}, {"cudaEventRecord", TP_LAUNCHES_NOTHING},
        {"cudaStreamGetCaptureInfo_v2", TP_LAUNCHES_NOTHING}, {"", TP_LAUNCHES_NOTHING},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        ck_assert_msg(tp_vocab_launch_api(v, cases[i].name) == cases[i].what, "%s",
                      cases[i].name);
    ck_assert_uint_eq(tp_launch_api_base("cuMemcpyHtoDAsync_v2"), 17);
    ck_assert_uint_eq(tp_launch_api_base("cudaMemcpyAsync_ptsz"), 15);
    ck_assert_str_eq(tp_launch_what_name(TP_LAUNCHES_HOST_FUNC), "host_func");
}
END_TEST

/* Which launch APIs keep the host waiting (advice's sync_memcpy and sync_api). */
START_TEST(launch_apis_that_block)
{
    const tp_vocab *v = tp_vocab_builtin();
    static const struct {
        const char *name;
        int blocks;
    } cases[] = {
        {"cudaMemcpy", 1}, {"cudaMemcpy_v3020", 1}, {"cuMemcpyHtoD_v2", 1}, {"hipMemset", 1},
        {"cudaMemcpy2D", 1}, {"cudaMemcpyAsync", 0}, {"cuMemcpyHtoDAsync_v2", 0},
        {"cudaMemsetAsync_ptsz", 0}, {"cudaDeviceSynchronize", 1},
        {"cudaStreamSynchronize_v3020", 1}, {"cudaEventSynchronize", 1}, {"cuCtxSynchronize", 1},
        {"hipDeviceSynchronize", 1}, {"cudaStreamWaitEvent", 0}, {"cudaLaunchKernel", 0},
        {"cudaEventRecord", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        ck_assert_msg(tp_launch_api_blocks(cases[i].name, tp_vocab_launch_api(v, cases[i].name)) ==
                          cases[i].blocks,
                      "%s", cases[i].name);
    ck_assert_int_eq(tp_launch_api_blocks(NULL, TP_LAUNCHES_MEMCPY), 0);
}
END_TEST

START_TEST(collectives_and_their_types)
{
    const tp_vocab *v = tp_vocab_builtin();
    static const struct {
        const char *name;
        tp_coll_type type;
    } cases[] = {
        {"ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)",
         TP_COLL_ALL_REDUCE},
        {"ncclAllReduceRingLLKernel_sum_f32(ncclColl)", TP_COLL_ALL_REDUCE},
        {"void ncclDevKernel_AllGather_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
         TP_COLL_ALL_GATHER},
        {"ncclDevKernel_ReduceScatter_Sum_f32_RING_LL(ncclDevComm*)", TP_COLL_REDUCE_SCATTER},
        {"ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclWorkElem)", TP_COLL_SEND_RECV},
        {"ncclKernel_Broadcast_RING_LL_Sum_int8_t(ncclDevComm*)", TP_COLL_BROADCAST},
        {"ncclDevKernel_Reduce_Sum_f32_RING_LL(ncclDevComm*)", TP_COLL_REDUCE},
        {"rcclGenericKernel<1, false>(ncclDevComm*, unsigned long, ncclWork*)", TP_COLL_OTHER},
        {"void vllm::cross_device_reduce_1stage<float, 8>(vllm::RankData*)", TP_COLL_ALL_REDUCE},
        {"void vllm::cross_device_reduce_2stage<__nv_bfloat16, 4>(int)", TP_COLL_ALL_REDUCE},
        {"void deep_ep::intranode::dispatch<8, 768, 8192>(int4*)", TP_COLL_ALL_TO_ALL},
        {"void deep_ep::internode_ll::combine<false, 8>(void*)", TP_COLL_ALL_TO_ALL},
        {"hcclAllReduce_kernel", TP_COLL_ALL_REDUCE},
        {"void at::native::reduce_kernel<512, 1>(float*)", TP_COLL_NONE},
        {"volta_sgemm_128x64_nn", TP_COLL_NONE},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        ck_assert_msg(tp_vocab_collective(v, cases[i].name) == cases[i].type, "%s -> %s",
                      cases[i].name, tp_coll_type_name(tp_vocab_collective(v, cases[i].name)));
}
END_TEST

START_TEST(memory_names_and_classes)
{
    const tp_vocab *v = tp_vocab_builtin();
    ck_assert_int_eq(tp_vocab_memory(v, "Memcpy HtoD (Pageable -> Device)"), TP_MEM_MEMCPY);
    ck_assert_int_eq(tp_vocab_memory(v, "Memset (Device)"), TP_MEM_MEMSET);
    ck_assert_int_eq(tp_vocab_memory(v, "MEMCPYDtoH"), TP_MEM_MEMCPY);
    ck_assert_int_eq(tp_vocab_memory(v, "[CUDA memcpy Host-to-Device]"), TP_MEM_MEMCPY);
    ck_assert_int_eq(tp_vocab_memory(v, "[CUDA memset]"), TP_MEM_MEMSET);
    ck_assert_int_eq(tp_vocab_memory(v, "clEnqueueFillBuffer"), TP_MEM_MEMSET);
    ck_assert_int_eq(tp_vocab_memory(v, "volta_sgemm_128x64_nn"), TP_MEM_NONE);
    /* classes: HTA's types over the vocabulary; a memcpy row is memory by kind */
    ck_assert_int_eq(tp_kernel_class_of("void ncclDevKernel_SendRecv(ncclDevComm*)"),
                     TP_KCLASS_COMMUNICATION);
    ck_assert_int_eq(tp_kernel_class_of("MEMCPYDtoH"), TP_KCLASS_MEMORY);
    ck_assert_int_eq(tp_kernel_class_of("cudaLaunchKernel"), TP_KCLASS_OTHER);
    ck_assert_int_eq(tp_kernel_class_of("volta_sgemm_128x64_nn"), TP_KCLASS_COMPUTATION);
    ck_assert_int_eq(tp_vocab_kernel_class(v, TP_KIND_MEMCPY, "copy"), TP_KCLASS_MEMORY);
    ck_assert_int_eq(tp_annotation_side_of(TP_KIND_ANNOTATION), TP_ANNOT_HOST);
    ck_assert_int_eq(tp_annotation_side_of(TP_KIND_GPU_ANNOTATION), TP_ANNOT_GPU);
    ck_assert_int_eq(tp_annotation_side_of(TP_KIND_KERNEL), TP_ANNOT_NONE);
    ck_assert_int_eq(tp_vocab_annotation(v, "gpu_user_annotation"), TP_ANNOT_GPU);
    ck_assert(tp_vocab_is_module(v, "## forward ##"));
    ck_assert(!tp_vocab_is_module(v, "aten::mm"));
}
END_TEST

START_TEST(graph_capture_calls)
{
    static const struct {
        const char *name;
        int what;
    } cases[] = {
        {"cudaStreamBeginCapture", 1}, {"cudaStreamBeginCapture_v2", 1},
        {"cudaStreamBeginCaptureToGraph", 1}, {"cuStreamBeginCapture_ptsz", 1},
        {"hipStreamBeginCapture", 1}, {"cudaStreamEndCapture", 2}, {"cuStreamEndCapture", 2},
        {"hipStreamEndCapture_spt", 2}, {"cudaStreamGetCaptureInfo_v2", 0},
        {"cudaStreamIsCapturing", 0}, {"cudaGraphLaunch", 0}, {"StreamBeginCapture", 0},
        {"", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        ck_assert_msg(tp_vocab_graph_capture(cases[i].name) == cases[i].what, "%s", cases[i].name);
    ck_assert_int_eq(tp_vocab_graph_capture(NULL), 0);
}
END_TEST

START_TEST(rule_syntax)
{
    tp_vocab_rule r;
    ck_assert_ptr_null(tp_vocab_parse_rule(TP_VOCAB_LAUNCH_APIS, "kernel=myLaunch*", &r));
    ck_assert_int_eq(r.what, TP_LAUNCHES_KERNEL);
    ck_assert_str_eq(r.match, "myLaunch*");
    ck_assert_ptr_nonnull(tp_vocab_parse_rule(TP_VOCAB_LAUNCH_APIS, "myLaunch", &r));
    ck_assert_ptr_nonnull(tp_vocab_parse_rule(TP_VOCAB_LAUNCH_APIS, "kernal=x", &r));
    ck_assert_ptr_nonnull(tp_vocab_parse_rule(TP_VOCAB_MEMORY, "memcpy=", &r));
    ck_assert_ptr_null(tp_vocab_parse_rule(TP_VOCAB_COLLECTIVES, "*myccl*", &r));
    ck_assert_int_eq(r.what, TP_COLL_NONE); /* the type from the name */
    ck_assert_ptr_null(tp_vocab_parse_rule(TP_VOCAB_MODULES, "MyModel.", &r));
    ck_assert_ptr_nonnull(tp_vocab_parse_rule(TP_VOCAB_MODULES, "", &r));
}
END_TEST

static Suite *sdk_vocab_suite(void)
{
    Suite *s = suite_create("sdk_vocab");
    TCase *tc = tcase_create("vocab");
    tcase_add_test(tc, launch_apis_and_what_they_launch);
    tcase_add_test(tc, launch_apis_that_block);
    tcase_add_test(tc, collectives_and_their_types);
    tcase_add_test(tc, graph_capture_calls);
    tcase_add_test(tc, memory_names_and_classes);
    tcase_add_test(tc, rule_syntax);
    suite_add_tcase(s, tc);
    return s;
}
TP_TEST_SUITE(sdk_vocab_suite)
