/* --shard auto (issue 34): the shard index and count from a scheduler's
 * environment, given here as a fixed list instead of the process's. */
#include "tp_cli.h"
#include "tp_test.h"

#include <string.h>

static const char *const *fake_env; /* NAME, VALUE, ..., NULL */

static char *fake_getenv(const char *name)
{
    for (size_t k = 0; fake_env[k] != NULL; k += 2)
        if (strcmp(fake_env[k], name) == 0)
            return (char *)fake_env[k + 1];
    return NULL;
}

typedef struct {
    int rc;
    long i, n;
    char err[512];
} shard_result;

static shard_result run(const char *count, const char *const *env)
{
    shard_result r = {0, -1, -1, ""};
    fake_env = env;
    r.rc = tp_cli_shard_auto(count, fake_getenv, &r.i, &r.n, r.err, sizeof r.err);
    return r;
}

#define ASSERT_SHARD(r, I, N)                                                                      \
    do {                                                                                           \
        ck_assert_msg((r).rc == 0, "refused: %s", (r).err);                                        \
        ck_assert_int_eq((r).i, I);                                                                \
        ck_assert_int_eq((r).n, N);                                                                \
    } while (0)
#define ASSERT_REFUSED(r, text)                                                                    \
    do {                                                                                           \
        ck_assert_int_eq((r).rc, -1);                                                              \
        ck_assert_msg(strstr((r).err, text) != NULL, "'%s' lacks '%s'", (r).err, text);           \
        ck_assert_ptr_null(strchr((r).err, '\n'));                                                 \
    } while (0)

START_TEST(slurm_array_from_zero)
{
    /* sbatch --array=0-3, task 2: I = (2 - 0) / 1 = 2, N = 4 */
    const char *env[] = {"SLURM_ARRAY_TASK_ID", "2", "SLURM_ARRAY_TASK_MIN", "0",
                         "SLURM_ARRAY_TASK_MAX", "3", "SLURM_ARRAY_TASK_STEP", "1",
                         "SLURM_ARRAY_TASK_COUNT", "4", NULL};
    ASSERT_SHARD(run(NULL, env), 2, 4);
    ASSERT_SHARD(run("4", env), 2, 4);
    ASSERT_REFUSED(run("5", env), "--shard auto/5, but the Slurm array makes 4 shards");
}
END_TEST

START_TEST(slurm_array_with_step_and_offset)
{
    /* --array=1-9:2 (1 3 5 7 9), task 7: I = (7 - 1) / 2 = 3, N = 5 */
    const char *env[] = {"SLURM_ARRAY_TASK_ID", "7", "SLURM_ARRAY_TASK_MIN", "1",
                         "SLURM_ARRAY_TASK_MAX", "9", "SLURM_ARRAY_TASK_STEP", "2",
                         "SLURM_ARRAY_TASK_COUNT", "5", NULL};
    ASSERT_SHARD(run(NULL, env), 3, 5);
    /* without COUNT: (9 - 1) / 2 + 1 = 5 */
    const char *nocount[] = {"SLURM_ARRAY_TASK_ID", "7", "SLURM_ARRAY_TASK_MIN", "1",
                             "SLURM_ARRAY_TASK_MAX", "9", "SLURM_ARRAY_TASK_STEP", "2", NULL};
    ASSERT_SHARD(run(NULL, nocount), 3, 5);
    /* without COUNT and STEP (step 1): --array=10-13, task 12: I = 2, N = 4 */
    const char *nostep[] = {"SLURM_ARRAY_TASK_ID", "12", "SLURM_ARRAY_TASK_MIN", "10",
                            "SLURM_ARRAY_TASK_MAX", "13", NULL};
    ASSERT_SHARD(run(NULL, nostep), 2, 4);
}
END_TEST

START_TEST(slurm_array_refused)
{
    const char *nomin[] = {"SLURM_ARRAY_TASK_ID", "2", "SLURM_ARRAY_TASK_COUNT", "4", NULL};
    ASSERT_REFUSED(run(NULL, nomin), "not SLURM_ARRAY_TASK_MIN");
    const char *nocount[] = {"SLURM_ARRAY_TASK_ID", "2", "SLURM_ARRAY_TASK_MIN", "0", NULL};
    ASSERT_REFUSED(run(NULL, nocount), "neither SLURM_ARRAY_TASK_COUNT nor SLURM_ARRAY_TASK_MAX");
    const char *text[] = {"SLURM_ARRAY_TASK_ID", "two", "SLURM_ARRAY_TASK_MIN", "0", NULL};
    ASSERT_REFUSED(run(NULL, text), "SLURM_ARRAY_TASK_ID is 'two', not a whole number");
    const char *neg[] = {"SLURM_ARRAY_TASK_ID", "2", "SLURM_ARRAY_TASK_MIN", "-1", NULL};
    ASSERT_REFUSED(run(NULL, neg), "SLURM_ARRAY_TASK_MIN is '-1'");
    const char *offstep[] = {"SLURM_ARRAY_TASK_ID", "4", "SLURM_ARRAY_TASK_MIN", "1",
                             "SLURM_ARRAY_TASK_STEP", "2", "SLURM_ARRAY_TASK_COUNT", "5", NULL};
    ASSERT_REFUSED(run(NULL, offstep), "plus a multiple of SLURM_ARRAY_TASK_STEP");
    /* a task past the count (I = 4 >= N = 4) */
    const char *past[] = {"SLURM_ARRAY_TASK_ID", "4", "SLURM_ARRAY_TASK_MIN", "0",
                          "SLURM_ARRAY_TASK_COUNT", "4", NULL};
    ASSERT_REFUSED(run(NULL, past), "gives shard 4 of 4");
    const char *huge[] = {"SLURM_ARRAY_TASK_ID", "0", "SLURM_ARRAY_TASK_MIN", "0",
                          "SLURM_ARRAY_TASK_COUNT", "100000", NULL};
    ASSERT_REFUSED(run(NULL, huge), "not 0 <= I < N <= 65536");
}
END_TEST

START_TEST(kubernetes_indexed_job)
{
    const char *with_count[] = {"JOB_COMPLETION_INDEX", "3", "TRACEPIPE_SHARD_COUNT", "8", NULL};
    ASSERT_SHARD(run(NULL, with_count), 3, 8);
    ASSERT_SHARD(run("8", with_count), 3, 8);
    ASSERT_REFUSED(run("4", with_count), "--shard auto/4, but TRACEPIPE_SHARD_COUNT makes 8");
    const char *index_only[] = {"JOB_COMPLETION_INDEX", "3", NULL};
    ASSERT_SHARD(run("4", index_only), 3, 4);
    ASSERT_REFUSED(run(NULL, index_only), "give --shard auto/N or TRACEPIPE_SHARD_COUNT=N");
    ASSERT_REFUSED(run("3", index_only), "JOB_COMPLETION_INDEX gives shard 3 of 3");
    const char *bad[] = {"JOB_COMPLETION_INDEX", "3x", NULL};
    ASSERT_REFUSED(run("4", bad), "JOB_COMPLETION_INDEX is '3x'");
}
END_TEST

START_TEST(generic_variable_first)
{
    /* TRACEPIPE_SHARD wins over a scheduler's variables */
    const char *env[] = {"TRACEPIPE_SHARD", "1/3", "SLURM_ARRAY_TASK_ID", "0",
                         "SLURM_ARRAY_TASK_MIN", "0", "SLURM_ARRAY_TASK_COUNT", "2",
                         "JOB_COMPLETION_INDEX", "0", NULL};
    ASSERT_SHARD(run(NULL, env), 1, 3);
    ASSERT_REFUSED(run("2", env), "but TRACEPIPE_SHARD makes 3 shards");
    const char *bad[] = {"TRACEPIPE_SHARD", "3/3", NULL};
    ASSERT_REFUSED(run(NULL, bad), "TRACEPIPE_SHARD is '3/3', not I/N");
    const char *empty[] = {"TRACEPIPE_SHARD", "", "JOB_COMPLETION_INDEX", "1", NULL};
    ASSERT_SHARD(run("2", empty), 1, 2);
}
END_TEST

START_TEST(nothing_in_the_environment)
{
    const char *env[] = {"HOME", "/root", NULL};
    shard_result r = run(NULL, env);
    ASSERT_REFUSED(r, "no shard in the environment");
    ASSERT_REFUSED(r, "SLURM_ARRAY_TASK_ID");
    ASSERT_REFUSED(r, "JOB_COMPLETION_INDEX");
    ASSERT_REFUSED(r, "TRACEPIPE_SHARD");
    ASSERT_REFUSED(run("0", env), "--shard auto/N needs N from 1 to 65536, got '0'");
    ASSERT_REFUSED(run("x", env), "got 'x'");
}
END_TEST

static Suite *shard_auto_suite(void)
{
    Suite *s = suite_create("shard_auto");
    TCase *tc = tcase_create("environment");
    tcase_add_test(tc, slurm_array_from_zero);
    tcase_add_test(tc, slurm_array_with_step_and_offset);
    tcase_add_test(tc, slurm_array_refused);
    tcase_add_test(tc, kubernetes_indexed_job);
    tcase_add_test(tc, generic_variable_first);
    tcase_add_test(tc, nothing_in_the_environment);
    suite_add_tcase(s, tc);
    return s;
}
TP_TEST_SUITE(shard_auto_suite)
