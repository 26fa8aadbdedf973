/* SDK serving presets (tp_sdk_serving.h): every pattern and marker compiles
 * as Python would read it, markers have no capture group (a step number
 * would come from it), and each preset's marker names exactly the steps its
 * patterns read, on the annotation forms the engines write; phase words. */
#include <string.h>

#include "tp_test.h"

#include <tracepipe/tp_sdk_regex.h>
#include <tracepipe/tp_sdk_serving.h>

static pcre2_code *compiled(const char *pattern)
{
    tp_host = tp_core_host_api(); /* the translation's buffer comes from the host */
    int err;
    PCRE2_SIZE off;
    pcre2_code *re = tp_pyre_compile(pattern, 0, &err, &off);
    ck_assert_msg(re != NULL, "%s: error %d at %zu", pattern, err, (size_t)off);
    return re;
}

static int matches(const char *pattern, const char *text)
{
    pcre2_code *re = compiled(pattern);
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
    int rc = tp_pyre_search(re, text, strlen(text), md);
    pcre2_match_data_free(md);
    pcre2_code_free(re);
    return rc;
}

/* Does any pattern of preset p match text? */
static int preset_reads(const tp_serving_preset *p, const char *text)
{
    for (const char *const *q = p->patterns; *q; q++)
        if (matches(*q, text) == 1)
            return 1;
    return 0;
}

START_TEST(presets_compile_and_markers_capture_nothing)
{
    size_t n = 0;
    for (const tp_serving_preset *p; (p = tp_serving_preset_at(n)) != NULL; n++) {
        ck_assert_ptr_eq(tp_serving_preset_find(p->name), p);
        pcre2_code *re = compiled(p->marker);
        uint32_t groups = 99;
        pcre2_pattern_info(re, PCRE2_INFO_CAPTURECOUNT, &groups);
        ck_assert_uint_eq(groups, 0);
        pcre2_code_free(re);
        for (const char *const *q = p->patterns; *q; q++)
            pcre2_code_free(compiled(*q));
    }
    ck_assert_uint_eq(n, 3);
    ck_assert_ptr_null(tp_serving_preset_find("tensorrt"));
    ck_assert_ptr_null(tp_serving_preset_find(NULL));
}
END_TEST

START_TEST(markers_name_what_the_patterns_read)
{
    static const struct {
        const char *name, *preset; /* preset NULL: no preset's step */
    } cases[] = {
        {"execute_context_2(14721)_generation_0(0)", "vllm"},
        {"execute_context_0(0)_generation_64(64)", "vllm"},
        {"execute_8192_context_9(sq8155sk8430sqsq7475785sqsk7671310)_generation_37("
         "sq37sk34489sqsq37sqsk34489)", "vllm"},
        {"execute_new_2_cached_3", NULL},
        {"execute_model", NULL},
        {"step[EXTEND bs=15 toks=15360]", "sglang"},
        {"step[DECODE bs=64 g_sq=128 g_sqsq=256]", "sglang"},
        {"step[MIXED bs=2 c=1 g=1]", "sglang"},
        {"step[IDLE bs=0]", NULL},
        {"prefill[bs=2 tok=14721 ctx=[7803, 6918]]", "phases"},
        {"decode[bs=117/128 tok=117 d=117]", "phases"},
        {"capture_32_FULL", "phases"},
        {"capture_256_mixed_prefill", "phases"},
        {"ProfilerStep#3", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        for (size_t k = 0; tp_serving_preset_at(k); k++) {
            const tp_serving_preset *p = tp_serving_preset_at(k);
            int want = cases[i].preset && strcmp(cases[i].preset, p->name) == 0;
            ck_assert_msg(matches(p->marker, cases[i].name) == want, "%s marker on %s", p->name,
                          cases[i].name);
            ck_assert_msg(preset_reads(p, cases[i].name) == want, "%s patterns on %s", p->name,
                          cases[i].name);
        }
}
END_TEST

START_TEST(phase_words)
{
    ck_assert_int_eq(tp_serving_phase_of("EXTEND", 6), TP_SERVING_PREFILL);
    ck_assert_int_eq(tp_serving_phase_of("context", 7), TP_SERVING_PREFILL);
    ck_assert_int_eq(tp_serving_phase_of("Decode", 6), TP_SERVING_DECODE);
    ck_assert_int_eq(tp_serving_phase_of("generation", 10), TP_SERVING_DECODE);
    ck_assert_int_eq(tp_serving_phase_of("MIXED", 5), TP_SERVING_MIXED);
    ck_assert_int_eq(tp_serving_phase_of("FULL", 4), TP_SERVING_NONE);
    ck_assert_int_eq(tp_serving_phase_of("decoder", 7), TP_SERVING_NONE);
    ck_assert_str_eq(tp_serving_phase_name(TP_SERVING_MIXED), "mixed");
    ck_assert_ptr_null(tp_serving_phase_name(TP_SERVING_NONE));
    ck_assert_int_eq(tp_serving_phase_from_counts(9, 37), TP_SERVING_MIXED);
    ck_assert_int_eq(tp_serving_phase_from_counts(2, 0), TP_SERVING_PREFILL);
    ck_assert_int_eq(tp_serving_phase_from_counts(-1, 4), TP_SERVING_DECODE);
    ck_assert_int_eq(tp_serving_phase_from_counts(0, 0), TP_SERVING_NONE);
}
END_TEST

static Suite *sdk_serving_suite(void)
{
    Suite *s = suite_create("sdk_serving");
    TCase *tc = tcase_create("serving");
    tcase_add_test(tc, presets_compile_and_markers_capture_nothing);
    tcase_add_test(tc, markers_name_what_the_patterns_read);
    tcase_add_test(tc, phase_words);
    suite_add_tcase(s, tc);
    return s;
}
TP_TEST_SUITE(sdk_serving_suite)
