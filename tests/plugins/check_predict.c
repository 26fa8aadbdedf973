/*
 * predict's models (plugins/analysis/predict/predict_models.h) against every
 * vector of ANALYSES.md section 5 that they cover, bit for bit: F1-F9n, S1-S4,
 * A1-A3 (v100_seed), R1, and section 6's GMAE vector M1; the refusals (B > E,
 * a preset without L2 bandwidth).
 */
#include <string.h>

#include "tp_test.h"

#include "../../plugins/analysis/predict/predict_embedding.h"
#include "../../plugins/analysis/predict/predict_models.h"

typedef struct emb_vector {
    const char *id;
    char kind; /* f, s, a */
    pm_emb x;
    double want;
} emb_vector;

static const emb_vector vectors[] = {
    {"F1", 'f', {4096, 500000, 197, 32, 32, 128, 1}, 4340.7676440049445},
    {"F2", 'f', {4096, 500000, 197, 32, 32, 128, 0}, 4340.7676440049445},
    {"F3", 'f', {512, 10000, 8, 20, 64, 32, 1}, 27.097394313967865},
    {"F4", 'f', {64, 1000, 16, 8, 64, 4, 0}, 5.269450838071694},
    {"F4s", 'f', {64, 1000, 16, 8, 64, 4, 1}, 5.4275797280593325},
    {"F5", 'f', {2048, 200000, 64, 40, 128, 32, 0}, 3426.9900420271942},
    {"F6", 'f', {2048, 10000000, 10, 100, 256, 8, 1}, 2628.730778739184},
    {"F7", 'f', {128, 5000, 4, 1, 16, 64, 1}, 1.6429567367119902},
    {"F9", 'f', {16384, 50000, 4, 64, 16, 32, 1}, 89.96875346260389},
    {"F9n", 'f', {16384, 50000, 4, 64, 16, 32, 0}, 293.17602860685605},
    {"S1", 's', {2048, 200000, 128, 128, 128, 32, 0}, 86291.71294932015},
    {"S2", 's', {2048, 200000, 128, 128, 128, 32, 1}, 42824.414140914705},
    {"S3", 's', {256, 1000, 8, 4, 16, 32, 1}, 1.7011817058096415},
    {"S4", 's', {1024, 50000, 26, 7, 30, 8, 0}, 127.42661063040792},
    {"A1", 'a', {2048, 200000, 128, 128, 128, 32, 0}, 64226.252103831896},
    {"A2", 'a', {512, 50000, 26, 1, 64, 32, 0}, 18.956024721878865},
    {"A3", 'a', {1024, 50000, 26, 7, 30, 8, 0}, 96.88634857849196},
};

START_TEST(test_embedding_vectors)
{
    const tp_preset *p = tp_preset_find("v100_seed");
    ck_assert_ptr_nonnull(p);
    for (size_t i = 0; i < sizeof vectors / sizeof *vectors; i++) {
        const emb_vector *v = &vectors[i];
        double us = -1;
        char err[128] = "";
        int rc = v->kind == 'f'   ? pm_emb_forward(&v->x, p, p->l2_gbps, &us, err, sizeof err)
                 : v->kind == 's' ? pm_emb_sgd(&v->x, p, &us)
                                  : pm_emb_adagrad(&v->x, p, &us);
        ck_assert_msg(rc == 0 && us == v->want, "%s: %.17g, want %.17g (%s)", v->id, us, v->want,
                      err);
    }
}
END_TEST

START_TEST(test_refusals)
{
    const tp_preset *v100 = tp_preset_find("v100_seed"), *a100 = tp_preset_find("a100_sxm4_80gb");
    pm_emb f8 = {2048, 1000, 8, 10, 64, 32, 1};
    double us;
    char err[128];
    ck_assert_int_eq(pm_emb_forward(&f8, v100, v100->l2_gbps, &us, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "exceeds"));
    pm_emb f1 = {4096, 500000, 197, 32, 32, 128, 1};
    ck_assert_int_eq(pm_emb_forward(&f1, a100, a100->l2_gbps, &us, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "peak_l2_bw"));
    /* with an L2 bandwidth given (ml_perf_model measured 2270.919 GB/s on A100) */
    ck_assert_int_eq(pm_emb_forward(&f1, a100, 2270.919, &us, err, sizeof err), 0);
    ck_assert(us > 0);
}
END_TEST

START_TEST(test_elementwise_r1_and_gmae_m1)
{
    const tp_preset *p = tp_preset_find("v100_seed");
    const pm_elementwise *relu = pm_elementwise_find("relu");
    ck_assert_ptr_nonnull(relu);
    ck_assert(pm_elementwise_us(relu, 2097152, p) == 20.738215080346105);
    ck_assert_ptr_null(pm_elementwise_find("conv2d"));
    double pred[] = {110, 45, 300}, actual[] = {100, 50, 320}, mean;
    ck_assert(pm_gmae(pred, actual, 3, 0, &mean) == 0.08549879733383489);
    ck_assert(mean == 0.08750000000000001);
    ck_assert(pm_gmae(pred, actual, 3, 4e-4, &mean) == 0.08590913713207554);
}
END_TEST

/* ANALYSES.md 5.5's table FC1 and queries Q1-Q9 (v100_seed). */
static const pm_fc_row fc1[] = {
    {{1, 128, 128, 256}, 5.86},    {{1, 128, 128, 1024}, 9.16},   {{1, 128, 1024, 256}, 12.91},
    {{1, 128, 1024, 1024}, 40.20}, {{1, 512, 128, 256}, 8.86},    {{1, 512, 128, 1024}, 20.32},
    {{1, 512, 1024, 256}, 37.68},  {{1, 512, 1024, 1024}, 120.41}, {{1, 2048, 128, 256}, 23.39},
    {{1, 2048, 128, 1024}, 71.06}, {{1, 2048, 1024, 256}, 121.63}, {{4, 128, 128, 256}, 9.46},
    {{4, 128, 128, 1024}, 22.57},  {{4, 128, 1024, 1024}, 139.47}, {{4, 512, 128, 256}, 21.44},
    {{4, 512, 128, 1024}, 75.52},  {{4, 512, 1024, 256}, 129.94}, {{4, 512, 1024, 1024}, 442.39},
    {{4, 2048, 1024, 256}, 515.61}, {{4, 2048, 1024, 1024}, 1786.78},
};

START_TEST(test_fc_table_q1_q9)
{
    const tp_preset *p = tp_preset_find("v100_seed");
    static const struct {
        const char *id;
        int64_t q[4];
        double want;
    } qs[] = {
        {"Q1", {4, 512, 1024, 256}, 129.94},
        {"Q2", {1, 300, 128, 1024}, 14.873678827139448},
        {"Q3", {1, 512, 1024, 64}, 34.091428571428565},
        {"Q4", {4, 2048, 4096, 1024}, 4040.5409338799136},
        {"Q7", {2, 512, 1024, 1024}, 227.37134562166088},
        {"Q5", {4, 1000, 128, 600}, 37.95226886702465},
        {"Q6", {1, 64, 2048, 256}, 11.421962584187883},
        {"Q8", {2, 1000, 600, 600}, 185.7607371768877},
    };
    size_t n = sizeof fc1 / sizeof *fc1;
    for (size_t i = 0; i < sizeof qs / sizeof *qs; i++) {
        double us = -1, ef, eb;
        char err[128] = "";
        int rc = pm_fc_predict(fc1, n, qs[i].q, p, &us, &ef, &eb, err, sizeof err);
        ck_assert_msg(rc == 0 && us == qs[i].want, "%s: %.17g, want %.17g (%s)", qs[i].id, us,
                      qs[i].want, err);
        if (strcmp(qs[i].id, "Q2") == 0)
            ck_assert(ef == 2643.703716948045 && eb == 132.82459168586462);
        if (strcmp(qs[i].id, "Q4") == 0)
            ck_assert(ef == 8503.747129473131 && eb == 427.97409306126104);
    }
    int64_t q9[4] = {1, 2048, 1024, 1024};
    double us, ef, eb;
    char err[128];
    ck_assert_int_eq(pm_fc_predict(fc1, n, q9, p, &us, &ef, &eb, err, sizeof err), -1);
}
END_TEST

/* Section 6's vector E1: T1 5; T2 linear 10, relu 4; T3 linear 6, relu 3;
 * T4 cudaLaunchKernel 4; T5 linear 7, relu 0, view 2; launches linear
 * [LK, LK], relu [LK]; ops linear t = [20, 3], view, relu t = [50]. */
START_TEST(test_e2e_e1)
{
    static const double lk2[] = {4, 4}, lk1[] = {4}, tl[] = {20, 3}, tr[] = {50};
    pm_e2e_op ops[] = {
        {1, 2, lk2, 1, 2, tl, 10, 6, 7, 0},
        {0, 0, NULL, 0, 0, NULL, 0, 0, 2, 0},
        {1, 1, lk1, 1, 1, tr, 4, 3, 0, 0},
    };
    pm_e2e_result r;
    pm_e2e(ops, 3, 5, 0, &r);
    ck_assert(r.e2e == 106 && r.cpu == 59 && r.gpu_active == 73);
    pm_e2e(ops, 3, 5, 4, &r);
    ck_assert(r.e2e == 110 && r.cpu == 59 && r.gpu_active == 85);
    ops[0].supported = 0; /* linear unsupported */
    pm_e2e(ops, 3, 5, 0, &r);
    ck_assert(r.e2e == 106 && r.gpu_active == 50);
}
END_TEST

/* Inputs as Kineto records them: rank, first extents, type. */
#define IN1(n, t) {1, n, 0, n, t}
#define IN0(t) {0, 0, 0, 1, t}

START_TEST(test_embedding_shapes)
{
    /* fbgemm::split_embedding_codegen_lookup_adagrad_function of the bundled
     * DLRM step (its first 13 inputs): T 3 from D_offsets [4], B 128 from
     * offsets [385], L 2 from indices [768], weights 640649648 */
    const pe_input split[] = {
        IN1(0, "float"),    IN1(640649648, "float"), IN1(0, "float"), {2, 0, 0, 0, "float"},
        IN1(3, "int"),      IN1(3, "long int"),      IN1(4, "int"),   IN0("Scalar"),
        IN0("Scalar"),      IN1(4, "long int"),      IN0("Scalar"),   IN1(768, "long int"),
        IN1(385, "long int"), IN0("Scalar")};
    pe_shape s;
    ck_assert(pe_forward_shape(split, 14, &s));
    ck_assert(s.T == 3 && s.B == 128 && s.L == 2 && s.weights == 640649648);
    /* dense_embedding_codegen_lookup_function: T 2, B 16, L 1, weights 112 */
    const pe_input dense[] = {IN1(112, "float"), IN1(2, "long int"), IN1(3, "int"),
                              IN0("Scalar"),     IN0("Scalar"),      IN1(3, "long int"),
                              IN0("Scalar"),     IN1(32, "long int"), IN1(33, "long int")};
    ck_assert(pe_forward_shape(dense, 9, &s));
    ck_assert(s.T == 2 && s.B == 16 && s.L == 1 && s.weights == 112);
    /* int32 indices and offsets; L rounded to the nearest: 10 / (2*2) -> 3 */
    const pe_input i32[] = {IN1(64, "float"), IN1(3, "int"), IN0("Scalar"), IN1(10, "int"),
                            IN1(5, "int")};
    ck_assert(pe_forward_shape(i32, 5, &s));
    ck_assert(s.T == 2 && s.B == 2 && s.L == 3);
    /* refused: offsets not T*B+1, no D_offsets, no weights */
    const pe_input odd[] = {IN1(64, "float"), IN1(3, "int"), IN0("Scalar"), IN1(10, "int"),
                            IN1(6, "int")};
    ck_assert(!pe_forward_shape(odd, 5, &s));
    ck_assert(!pe_forward_shape(dense + 3, 6, &s));
    ck_assert(!pe_forward_shape(i32 + 1, 4, &s));
    char o[48];
    ck_assert(pe_optimizer_of("fbgemm::split_embedding_codegen_lookup_adagrad_function", o, sizeof o) &&
              strcmp(o, "adagrad") == 0);
    ck_assert(pe_optimizer_of("fbgemm::split_embedding_codegen_lookup_rowwise_adagrad_function_pt2",
                              o, sizeof o) && strcmp(o, "rowwise_adagrad") == 0);
    ck_assert(pe_optimizer_of("torch::autograd::CppNode<SplitLookupFunction_adagrad_Op>", o, sizeof o) &&
              strcmp(o, "adagrad") == 0);
    ck_assert(pe_optimizer_of("fbgemm::dense_embedding_codegen_lookup_function", o, sizeof o) &&
              strcmp(o, "dense") == 0);
    ck_assert(pe_optimizer_of("torch::autograd::CppNode<SplitLookupFunction_Dense_Op>", o, sizeof o) &&
              strcmp(o, "dense") == 0);
    ck_assert(pe_optimizer_of("CppNode<SplitLookupFunction_sgd_Op>", o, sizeof o) &&
              strcmp(o, "sgd") == 0);
    ck_assert(!pe_optimizer_of("aten::embedding_bag", o, sizeof o));
}
END_TEST

static Suite *predict_suite(void)
{
    Suite *s = suite_create("predict");
    TCase *tc = tcase_create("models");
    tcase_add_test(tc, test_embedding_vectors);
    tcase_add_test(tc, test_refusals);
    tcase_add_test(tc, test_elementwise_r1_and_gmae_m1);
    tcase_add_test(tc, test_fc_table_q1_q9);
    tcase_add_test(tc, test_e2e_e1);
    tcase_add_test(tc, test_embedding_shapes);
    suite_add_tcase(s, tc);
    return s;
}

TP_TEST_SUITE(predict_suite)
