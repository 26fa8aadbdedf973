/* SDK op models (tp_sdk_opmodel.h): categories of real op names, and FLOPs
 * and bytes of the issue-27 models on hand-computed vectors (the same as
 * golden predict_models and tests/tools/tracelens_agreement.py). */
#include <string.h>

#include "tp_internal.h"
#include "tp_test.h"

#include <tracepipe/tp_sdk_opmodel.h>
#include <tracepipe/tp_sdk_vocab.h>

START_TEST(categories)
{
    static const struct {
        const char *name;
        tp_op_category cat;
    } cases[] = {
        {"aten::mm", TP_OPCAT_GEMM},
        {"aten::addmm", TP_OPCAT_GEMM},
        {"aten::linear", TP_OPCAT_GEMM},
        {"aten::_scaled_mm", TP_OPCAT_GEMM},
        {"autograd::engine::evaluate_function: MmBackward0", TP_OPCAT_GEMM},
        {"aten::_flash_attention_forward", TP_OPCAT_ATTENTION},
        {"aten::_scaled_dot_product_efficient_attention_backward", TP_OPCAT_ATTENTION},
        {"vllm::unified_attention_with_output", TP_OPCAT_ATTENTION},
        {"vllm::moe_forward", TP_OPCAT_MOE},
        {"aten::_grouped_mm", TP_OPCAT_MOE},
        {"aten::native_layer_norm_backward", TP_OPCAT_NORM},
        {"aten::cudnn_batch_norm", TP_OPCAT_NORM},
        {"vllm::fused_add_rms_norm", TP_OPCAT_NORM},
        {"aten::normal_", TP_OPCAT_OTHER}, /* random init, not a norm */
        {"aten::cudnn_convolution", TP_OPCAT_CONV},
        {"aten::convolution_backward", TP_OPCAT_CONV},
        {"aten::copy_", TP_OPCAT_ELEMENTWISE},
        {"aten::add_", TP_OPCAT_ELEMENTWISE},
        {"aten::cat", TP_OPCAT_ELEMENTWISE},
        {"autograd::engine::evaluate_function: ReluBackward0", TP_OPCAT_ELEMENTWISE},
        {"aten::threshold_backward", TP_OPCAT_ELEMENTWISE},
        /* by name only what the collectives' vocabulary matches; predict makes an op
         * owning a collective kernel (record_param_comms, c10d::allreduce_) communication */
        {"record_param_comms", TP_OPCAT_OTHER},
        {"nccl:all_reduce", TP_OPCAT_COMMUNICATION},
        {"vllm::outplace_fused_experts", TP_OPCAT_MOE},
        {"aten::_scaled_grouped_mm", TP_OPCAT_MOE},
        {"fbgemm::split_embedding_codegen_lookup_rowwise_adagrad_function", TP_OPCAT_OTHER},
        {"torch::autograd::CppNode<SplitLookupFunction_rowwise_adagrad_Op>", TP_OPCAT_OTHER},
        {"aten::upsample_bilinear2d", TP_OPCAT_OTHER},
        {"aten::index_select", TP_OPCAT_OTHER},
        {"", TP_OPCAT_OTHER},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        ck_assert_msg(tp_op_category_of(cases[i].name) == cases[i].cat, "%s: %s", cases[i].name,
                      tp_op_category_name(tp_op_category_of(cases[i].name)));
    /* a pipeline's `vocabulary: collectives` addition reaches the categories */
    static const tp_vocab_rule mine[] = {{"my_ar_*", TP_COLL_ALL_REDUCE}};
    tp_vocab v = *tp_vocab_builtin();
    v.collectives = mine;
    v.n_collectives = 1;
    ck_assert_int_eq(tp_op_category_in(&v, "my_ar_op"), TP_OPCAT_COMMUNICATION);
    ck_assert_int_eq(tp_op_category_of("my_ar_op"), TP_OPCAT_OTHER);
    ck_assert_str_eq(tp_op_category_name(TP_OPCAT_ELEMENTWISE), "elementwise");
    ck_assert_str_eq(tp_op_category_name(TP_OPCAT_N), "other");
}
END_TEST

static void cost(const char *name, const char *args, const char *model, double flops,
                 double bytes, int matrix)
{
    tp_op_cost c;
    ck_assert_msg(tp_op_cost_of(name, args, strlen(args), &c) == 1, "%s", name);
    ck_assert_str_eq(c.model, model);
    ck_assert_msg(c.flops == flops && c.bytes == bytes, "%s: %.17g %.17g", name, c.flops,
                  c.bytes);
    ck_assert_int_eq(c.matrix, matrix);
}

START_TEST(vectors)
{
    cost("aten::_flash_attention_forward",
         "{\"Input Dims\": [[2, 1024, 32, 128], [2, 1024, 8, 128], [2, 1024, 8, 128], [], [], [], "
         "[], [], []], \"Input type\": [\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\"], "
         "\"Concrete Inputs\": [\"\", \"\", \"\", \"\", \"\", \"1024\", \"1024\", \"0.\", \"True\"]}",
         "attention_fwd", 17179869184.0, 41943040, 1);
    cost("aten::_flash_attention_backward",
         "{\"Input Dims\": [[2, 1024, 32, 128], [2, 1024, 32, 128], [2, 1024, 8, 128], "
         "[2, 1024, 8, 128]], \"Input type\": [\"c10::BFloat16\", \"c10::BFloat16\", "
         "\"c10::BFloat16\", \"c10::BFloat16\"], \"Concrete Inputs\": [\"\", \"\", \"\", \"\", \"\", "
         "\"\", \"\", \"\", \"\", \"\", \"\", \"True\"]}",
         "attention_bwd", 42950459392.0, 67108864, 1);
    cost("aten::cudnn_convolution",
         "{\"Input Dims\": [[32, 64, 56, 56], [128, 64, 3, 3]], \"Input type\": [\"c10::BFloat16\", "
         "\"c10::BFloat16\"], \"Concrete Inputs\": [\"\", \"\", \"[1, 1]\", \"[2, 2]\", \"[1, 1]\", \"1\"]}",
         "conv_fwd", 3699376128.0, 19415040, 1);
    cost("aten::native_layer_norm",
         "{\"Input Dims\": [[8, 1024, 4096], [], [4096], [4096], []], \"Input type\": "
         "[\"c10::BFloat16\"], \"Concrete Inputs\": [\"\", \"[4096]\"]}",
         "norm_fwd", 167796736, 134266880, 0);
    cost("aten::native_layer_norm_backward",
         "{\"Input Dims\": [[1024, 4864], [1024, 4864], [], [1024, 1], [1024, 1], [4864], [4864], []], "
         "\"Input type\": [\"float\", \"float\"]}",
         "norm_bwd", 44826624, 59846656, 0);
    cost("aten::native_group_norm_backward",
         "{\"Input Dims\": [[8, 256, 32, 32], [8, 256, 32, 32], [8, 32], [8, 32], [256]], "
         "\"Input type\": [\"float\", \"float\"], \"Concrete Inputs\": [\"\", \"\", \"\", \"\", "
         "\"\", \"8\", \"256\", \"1024\", \"32\", \"[True, True, True]\"]}",
         "norm_bwd", 18874368, 25165952, 0);
    cost("aten::_fused_rms_norm_backward",
         "{\"Input Dims\": [[4, 2048, 4096], [4, 2048, 4096], [], [4, 2048, 1], [4096]], "
         "\"Input type\": [\"c10::BFloat16\", \"c10::BFloat16\"], \"Concrete Inputs\": [\"\", "
         "\"\", \"[4096]\", \"\", \"\", \"[True, True]\"]}",
         "norm_bwd", 335544320, 201342976, 0);
    cost("aten::fill_", "{\"Input Dims\": [[45310188], []], \"Input type\": [\"float\", \"Scalar\"]}",
         "elementwise_bytes", 0, 181240752, 0);
    cost("aten::add_", "{\"Input Dims\": [[1024], [1024], []], \"Input type\": [\"float\", \"float\"]}",
         "elementwise_bytes", 1024, 12288, 0);
    cost("aten::index_select",
         "{\"Input Dims\": [[30522, 512], [], [141]], \"Input type\": [\"c10::BFloat16\", \"Scalar\", "
         "\"long int\"], \"Concrete Inputs\": [\"\", \"0\", \"\"]}",
         "gather_bytes", 0, 289896, 0);
    /* issue 27 item 1 (golden predict_models_gemm's vectors) */
    cost("aten::_scaled_mm",
         "{\"Input Dims\": [[2048, 4096], [4096, 2048], [2048, 256], [2048, 256], [], [], [], []], "
         "\"Input type\": [\"c10::Float4_e2m1fn_x2\", \"c10::Float4_e2m1fn_x2\", "
         "\"c10::Float8_e8m0fnu\", \"c10::Float8_e8m0fnu\", \"\", \"\", \"Scalar\", \"Scalar\"], "
         "\"Concrete Inputs\": [\"\", \"\", \"\", \"\", \"\", \"\", \"15\", \"False\"]}",
         "scaled_gemm", 68719476736.0, 26214400, 1);
    cost("aten::_grouped_mm",
         "{\"Input Dims\": [[8192, 2048], [8, 2048, 1408], [8], [], []], \"Input type\": "
         "[\"c10::BFloat16\", \"c10::BFloat16\", \"int\", \"\", \"\"]}",
         "grouped_gemm", 47244640256.0, 102760480, 1);
    cost("flash_attn::_flash_attn_varlen_forward",
         "{\"Input Dims\": [[4096, 32, 128], [4096, 8, 128], [4096, 8, 128], [5], [5]], "
         "\"Input type\": [\"c10::BFloat16\"], \"Concrete Inputs\": [\"\", \"\", \"\", \"\", "
         "\"\", \"1024\", \"1024\", \"0.\", \"0.088\", \"True\"]}",
         "attention_fwd", 34359738368.0, 83886080, 1);
    tp_op_cost c;
    /* varlen of unequal lengths (3000 tokens, 3 sequences, max 1024): not recorded */
    const char *varlen = "{\"Input Dims\": [[3000, 32, 128], [3000, 8, 128], [3000, 8, 128], [4], "
                         "[4]], \"Concrete Inputs\": [\"\", \"\", \"\", \"\", \"\", \"1024\", "
                         "\"1024\", \"0.\", \"0.088\", \"True\"]}";
    ck_assert_int_eq(tp_op_cost_of("flash_attn::_flash_attn_varlen_forward", varlen,
                                   strlen(varlen), &c), 0);
    /* causal with N_q != N_kv, a tensor list, a name of no model, no dims */
    const char *unequal = "{\"Input Dims\": [[1, 128, 8, 64], [1, 512, 8, 64], [1, 512, 8, 64]], "
                          "\"Concrete Inputs\": [\"\", \"\", \"\", \"\", \"\", \"128\", \"512\", "
                          "\"0.\", \"True\"]}";
    ck_assert_int_eq(tp_op_cost_of("aten::_flash_attention_forward", unequal, strlen(unequal), &c), 0);
    const char *list = "{\"Input Dims\": [[], []], \"Input type\": [\"TensorList\", \"Scalar\"]}";
    ck_assert_int_eq(tp_op_cost_of("aten::cat", list, strlen(list), &c), 0);
    const char *one = "{\"Input Dims\": [[4]]}";
    ck_assert_int_eq(tp_op_cost_of("aten::nonzero", one, strlen(one), &c), 0);
    ck_assert_int_eq(tp_op_cost_of("aten::copy_", "{}", 2, &c), 0);
}
END_TEST

static Suite *sdk_opmodel_suite(void)
{
    Suite *s = suite_create("sdk_opmodel");
    TCase *tc = tcase_create("opmodel");
    tcase_add_test(tc, categories);
    tcase_add_test(tc, vectors);
    suite_add_tcase(s, tc);
    return s;
}
TP_TEST_SUITE(sdk_opmodel_suite)
