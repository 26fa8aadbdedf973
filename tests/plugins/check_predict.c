/*
 * predict's models (plugins/analysis/predict/predict_models.h) against every
 * vector of ANALYSES.md section 5 that they cover, bit for bit: F1-F9n, S1-S4,
 * A1-A3 (v100_seed), R1, and section 6's GMAE vector M1; the refusals (B > E,
 * a preset without L2 bandwidth); the FC table model on a trace's GEMM ops
 * (shape mapping, fallback to the roofline) and the table as an input result.
 */
#include <stdio.h>
#include <string.h>

#include "tp_internal.h"
#include "tp_test.h"
#include "writers_util.h"

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

/* Input shapes: n inputs of the given ranks. */
typedef struct shp {
    int n, rank[8];
    double dim[8][PM_MAX_RANK];
} shp;

static shp shape(int n, const int *rank, const double dims[][4])
{
    shp s;
    memset(&s, 0, sizeof s);
    s.n = n;
    for (int i = 0; i < n; i++) {
        s.rank[i] = rank[i];
        for (int k = 0; k < rank[i]; k++)
            s.dim[i][k] = dims[i][k];
    }
    return s;
}

static void expect_map(const char *op, shp s, int64_t b, int64_t m, int64_t n, int64_t k)
{
    int64_t q[4] = {0};
    ck_assert_msg(pm_fc_query(op, s.n, s.rank, (const double(*)[PM_MAX_RANK])s.dim, q) == 1, "%s not mapped", op);
    ck_assert_msg(q[0] == b && q[1] == m && q[2] == n && q[3] == k,
                  "%s: (%lld, %lld, %lld, %lld)", op, (long long)q[0], (long long)q[1],
                  (long long)q[2], (long long)q[3]);
}

START_TEST(test_fc_map)
{
    static const int r122[] = {1, 2, 2}, r22[] = {2, 2}, r33[] = {3, 3}, r133[] = {1, 3, 3},
                     r32[] = {3, 2}, r321[] = {3, 2, 1}, r12[] = {1, 2}, r11[] = {1, 1},
                     r44[] = {4, 4};
    static const double addmm[][4] = {{512}, {16, 367}, {367, 512}};
    static const double mm[][4] = {{16, 256}, {256, 512}};
    static const double bmm[][4] = {{16, 27, 16}, {16, 16, 27}};
    static const double baddbmm[][4] = {{8}, {8, 10, 20}, {8, 20, 30}};
    static const double lin3[][4] = {{4, 8, 64}, {32, 64}, {32}};
    static const double mat32[][4] = {{4, 8, 64}, {64, 32}};
    static const double mat12[][4] = {{64}, {64, 32}};
    static const double mat33bad[][4] = {{2, 8, 64}, {1, 64, 32}};
    expect_map("aten::addmm", shape(3, r122, addmm), 1, 16, 512, 367);
    expect_map("aten::mm", shape(2, r22, mm), 1, 16, 512, 256);
    expect_map("aten::bmm", shape(2, r33, bmm), 16, 27, 27, 16);
    expect_map("aten::baddbmm", shape(3, r133, baddbmm), 8, 10, 30, 20);
    expect_map("aten::linear", shape(3, r321, lin3), 1, 32, 32, 64);
    expect_map("aten::linear", shape(2, r22, (const double[][4]){{16, 64}, {32, 64}}), 1, 16, 32,
               64);
    expect_map("aten::matmul", shape(2, r22, mm), 1, 16, 512, 256);
    expect_map("aten::matmul", shape(2, r33, bmm), 16, 27, 27, 16);
    expect_map("aten::matmul", shape(2, r32, mat32), 1, 32, 32, 64);
    expect_map("aten::matmul", shape(2, r12, mat12), 1, 1, 32, 64);
    int64_t q[4];
    shp s = shape(2, r33, mat33bad); /* broadcast batch: no single (b, M, N, K) */
    ck_assert_int_eq(pm_fc_query("aten::matmul", s.n, s.rank, (const double(*)[PM_MAX_RANK])s.dim, q), 0);
    s = shape(2, r11, mat12); /* a dot product */
    ck_assert_int_eq(pm_fc_query("aten::matmul", s.n, s.rank, (const double(*)[PM_MAX_RANK])s.dim, q), 0);
    s = shape(2, r44, mat12);
    ck_assert_int_eq(pm_fc_query("aten::matmul", s.n, s.rank, (const double(*)[PM_MAX_RANK])s.dim, q), 0);
    s = shape(2, r22, mm); /* addmm needs three inputs */
    ck_assert_int_eq(pm_fc_query("aten::addmm", s.n, s.rank, (const double(*)[PM_MAX_RANK])s.dim, q), 0);
    ck_assert_int_eq(pm_fc_query("aten::conv2d", s.n, s.rank, (const double(*)[PM_MAX_RANK])s.dim, q), 0);
    static const double zero[][4] = {{0, 256}, {256, 512}};
    s = shape(2, r22, zero); /* an empty product */
    ck_assert_int_eq(pm_fc_query("aten::mm", s.n, s.rank, (const double(*)[PM_MAX_RANK])s.dim, q), 0);
}
END_TEST

static void write_file(const char *name, const char *text) { wu_write(name, text, strlen(text)); }

#define DLRM "tests/data/dlrm_worker0_step12.pt.trace.json.gz"

/* Every value of (1, 16, 512, 512) is in this table, not the combination:
 * the DLRM step's addmm [16, 512] x [512, 512] falls back to the roofline. */
START_TEST(test_fc_trace_fallback)
{
    write_file("t.csv", "batch_size,M,N,K,kernel_name,kernel_runtime\n"
                        "1,16,128,512,volta_a,5\n"
                        "1,64,512,512,volta_a,10\n"
                        "1,16,512,256,volta_a,6\n"
                        "1,16,512,1,other,1\n");
    tp_run *run = tp_test_run_yaml(wu_yaml(
        "  - {reader: kineto, path: " DLRM "}\n"
        "  - {reader: csv_table, id: tab, path: '${out}/t.csv'}\n"
        "  - analysis: hierarchy\n"
        "  - {analysis: predict, id: pred, preset: v100_seed, input: tab,\n"
        "     fc_table_input: tab, kernel_prefix: volta}\n"));
    const tp_result *fc = tp_test_result(run, "pred.fc_table");
    const tp_result *ops = tp_test_result(run, "pred");
    ck_assert_str_eq(tp_result_meta_get(fc, "table_rows"), "3");
    ck_assert_str_eq(tp_result_meta_get(fc, "gemm_ops"), "23");
    ck_assert_str_eq(tp_result_meta_get(fc, "unmapped_ops"), "0");
    long row = -1;
    size_t fallback = 0;
    for (size_t i = 0; i < tp_result_nrows(fc); i++) {
        const char *dims = tp_test_str(fc, i, "input_dims");
        int fell = strcmp(tp_test_str(fc, i, "model"), "roofline") == 0;
        const char *why = tp_test_str(fc, i, "fallback_reason");
        ck_assert_msg(fell == (why != NULL), "row %zu: model and reason disagree", i);
        fallback += fell ? (size_t)tp_test_i64(fc, i, "count") : 0;
        if (strcmp(tp_test_str(fc, i, "name"), "aten::addmm") == 0 &&
            strcmp(dims, "[[512], [16, 512], [512, 512], [], []]") == 0)
            row = (long)i;
    }
    ck_assert_int_ge(row, 0);
    ck_assert_str_eq(tp_test_str(fc, (size_t)row, "model"), "roofline");
    ck_assert_ptr_nonnull(strstr(tp_test_str(fc, (size_t)row, "fallback_reason"),
                                 "not this combination"));
    /* the roofline's own value (predict_dlrm's golden) */
    ck_assert(tp_test_f64(fc, (size_t)row, "predicted_us") == 1.3796786155747836);
    char n[32];
    snprintf(n, sizeof n, "%zu", fallback);
    ck_assert_str_eq(tp_result_meta_get(fc, "fallback_ops"), n);
    ck_assert_int_gt((long)fallback, 0);
    ck_assert_int_lt((long)fallback, 23); /* some the table did answer */
    size_t fc_rows = 0;
    for (size_t i = 0; i < tp_result_nrows(ops); i++)
        fc_rows += strcmp(tp_test_str(ops, i, "model"), "fc_table") == 0;
    ck_assert_int_gt((long)fc_rows, 0);
    tp_run_free(run);
}
END_TEST

/* The table as an input result: the checks of the file form, by name. */
START_TEST(test_fc_table_input_errors)
{
    write_file("ok.csv", "batch_size,M,N,K,kernel_name,kernel_runtime\n1,128,128,256,volta,5.86\n");
    write_file("nocol.csv", "batch_size,M,N,kernel_name,kernel_runtime\n1,128,128,volta,5.86\n");
    write_file("real.csv", "batch_size,M,N,K,kernel_name,kernel_runtime\n1,128.5,128,256,v,5\n");
    write_file("neg.csv", "batch_size,M,N,K,kernel_name,kernel_runtime\n1,128,128,256,v,5\n"
                          "1,128,128,512,v,-1\n");
    static const struct {
        const char *csv, *opts, *want;
    } cases[] = {
        {"ok.csv", "fc_table_input: tab", "no such result among this stage's input"},
        {"nocol.csv", "input: tab, fc_table_input: tab", "fc_table_input 'tab': no column 'K'"},
        {"real.csv", "input: tab, fc_table_input: tab",
         "column 'M' holds other values than whole numbers"},
        {"neg.csv", "input: tab, fc_table_input: tab",
         "fc_table_input 'tab': row 2: kernel_runtime -1 is not a positive number"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char stages[512], msg[1024] = "";
        snprintf(stages, sizeof stages,
                 "  - {reader: csv_table, id: tab, path: '${out}/%s'}\n"
                 "  - {analysis: predict, %s, cases: ['Q: fc B=1 M=128 N=128 K=256']}\n",
                 cases[i].csv, cases[i].opts);
        ck_assert_int_eq(tp_test_run_yaml_fails(wu_yaml(stages), msg, sizeof msg), TP_EXIT_FAIL);
        ck_assert_msg(strstr(msg, cases[i].want) != NULL, "%s: %s", cases[i].csv, msg);
    }
    char msg[1024] = "";
    ck_assert_int_eq(tp_test_run_yaml_fails(
                         wu_yaml("  - {reader: csv_table, id: tab, path: '${out}/ok.csv'}\n"
                                 "  - {analysis: predict, input: tab, fc_table_input: tab,\n"
                                 "     fc_table: '${out}/ok.csv', cases: ['Q: fc B=1 M=1 N=1 K=1']}\n"),
                         msg, sizeof msg),
                     TP_EXIT_USAGE);
    ck_assert_ptr_nonnull(strstr(msg, "give fc_table or fc_table_input, not both"));
    /* the same table both ways: the same prediction */
    tp_run *run = tp_test_run_yaml(
        wu_yaml("  - {reader: csv_table, id: tab, path: '${out}/ok.csv'}\n"
                "  - {analysis: predict, id: a, input: tab, fc_table_input: tab,\n"
                "     cases: ['Q: fc B=1 M=128 N=128 K=256']}\n"
                "  - {analysis: predict, id: b, fc_table: '${out}/ok.csv',\n"
                "     cases: ['Q: fc B=1 M=128 N=128 K=256']}\n"));
    ck_assert(tp_test_f64(tp_test_result(run, "a"), 0, "predicted_us") == 5.86);
    ck_assert(tp_test_f64(tp_test_result(run, "b"), 0, "predicted_us") == 5.86);
    tp_run_free(run);
}
END_TEST

/* The SDK's device presets (tp_sdk_presets.o) reach the host through the
 * plugin's tp_host (their file errors): here, the core's table. */
const tp_host_api *tp_host;

static Suite *predict_suite(void)
{
    tp_host = tp_core_host_api();
    Suite *s = suite_create("predict");
    TCase *tc = tcase_create("models");
    tcase_add_test(tc, test_embedding_vectors);
    tcase_add_test(tc, test_refusals);
    tcase_add_test(tc, test_elementwise_r1_and_gmae_m1);
    tcase_add_test(tc, test_fc_table_q1_q9);
    tcase_add_test(tc, test_e2e_e1);
    tcase_add_test(tc, test_embedding_shapes);
    tcase_add_test(tc, test_fc_map);
    suite_add_tcase(s, tc);
    tc = tcase_create("fc_table");
    tcase_add_checked_fixture(tc, wu_setup, wu_teardown);
    tcase_add_test(tc, test_fc_trace_fallback);
    tcase_add_test(tc, test_fc_table_input_errors);
    suite_add_tcase(s, tc);
    return s;
}

TP_TEST_SUITE(predict_suite)
