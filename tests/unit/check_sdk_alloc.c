/* SDK allocator events (tp_sdk_alloc.h): the names PyTorch's profiler
 * gives them and their args, as its traces write them. */
#include "tp_test.h"

#include <string.h>
#include <tracepipe/tp_sdk_alloc.h>

START_TEST(names_are_the_profilers)
{
    ck_assert_int_eq(tp_alloc_kind_of("[memory]"), TP_ALLOC_MEMORY);
    ck_assert_int_eq(tp_alloc_kind_of("[OutOfMemory]"), TP_ALLOC_OOM);
    ck_assert_int_eq(tp_alloc_kind_of("[Memory]"), TP_ALLOC_NONE); /* the whole name, exactly */
    ck_assert_int_eq(tp_alloc_kind_of("[memory] "), TP_ALLOC_NONE);
    ck_assert_int_eq(tp_alloc_kind_of("aten::empty"), TP_ALLOC_NONE);
    ck_assert_int_eq(tp_alloc_kind_of(NULL), TP_ALLOC_NONE);
    ck_assert_str_eq(tp_alloc_kind_name(TP_ALLOC_OOM), "out_of_memory");
    ck_assert_str_eq(tp_alloc_kind_name((tp_alloc_kind)99), "none");
}
END_TEST

static void read_text(const char *args, tp_alloc_event *e)
{
    tp_alloc_event_read(args, strlen(args), e);
}

START_TEST(args_of_a_free_on_cuda)
{
    tp_alloc_event e;
    /* the first free of tests/data/kineto/corpus/tracelens_h100_bert_small */
    read_text("{\"Total Reserved\": 121634816, \"Total Allocated\": 92083712, \"Bytes\": -1024, "
              "\"Addr\": 128180985699328, \"Device Id\": 0, \"Device Type\": 1, \"Ev Idx\": 487}",
              &e);
    ck_assert(e.has_bytes && e.has_total_allocated && e.has_total_reserved && e.has_addr);
    ck_assert_int_eq(e.bytes, -1024);
    ck_assert_int_eq(e.total_allocated, 92083712);
    ck_assert_int_eq(e.total_reserved, 121634816);
    ck_assert_int_eq(e.addr, 128180985699328LL);
    ck_assert_int_eq(e.device_type, 1);
    ck_assert_int_eq(e.device_id, 0);
}
END_TEST

START_TEST(absent_and_real_fields)
{
    tp_alloc_event e;
    read_text("{\"Bytes\": 512.0, \"Device Type\": 0, \"Device Id\": -1}", &e); /* an OOM-like event */
    ck_assert(e.has_bytes && !e.has_total_allocated && !e.has_total_reserved && !e.has_addr);
    ck_assert_int_eq(e.bytes, 512);
    ck_assert_int_eq(e.device_type, 0);
    ck_assert_int_eq(e.device_id, -1);
    read_text("", &e); /* no args at all */
    ck_assert(!e.has_bytes && !e.has_device_type);
    ck_assert_int_eq(e.device_id, -1);
    read_text("{\"Bytes\": \"12\", \"Device Id\": 3}", &e); /* a string is not a number */
    ck_assert(!e.has_bytes);
    ck_assert_int_eq(e.device_id, 3);
}
END_TEST

START_TEST(device_types_are_c10s)
{
    ck_assert_str_eq(tp_alloc_device_type_name(0), "cpu");
    ck_assert_str_eq(tp_alloc_device_type_name(1), "cuda");
    ck_assert_str_eq(tp_alloc_device_type_name(6), "hip");
    ck_assert_str_eq(tp_alloc_device_type_name(12), "xpu");
    ck_assert_str_eq(tp_alloc_device_type_name(13), "mps");
    ck_assert_str_eq(tp_alloc_device_type_name(19), "mtia");
    ck_assert_ptr_null(tp_alloc_device_type_name(-1));
    ck_assert_ptr_null(tp_alloc_device_type_name(1000));
}
END_TEST

static Suite *sdk_alloc_suite(void)
{
    Suite *s = suite_create("sdk_alloc");
    TCase *tc = tcase_create("alloc");
    tcase_add_test(tc, names_are_the_profilers);
    tcase_add_test(tc, args_of_a_free_on_cuda);
    tcase_add_test(tc, absent_and_real_fields);
    tcase_add_test(tc, device_types_are_c10s);
    suite_add_tcase(s, tc);
    return s;
}
TP_TEST_SUITE(sdk_alloc_suite)
