/* Helpers of the writer suites; see writers_util.h. */
#include "writers_util.h"

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char wu_dir[256];

void wu_setup(void)
{
    char so[512];

    snprintf(so, sizeof so, "%s/testplugins/tp_fixture_results.so", tp_test_build_dir());
    ck_assert_msg(access(so, R_OK) == 0, "%s is missing: make %s", so, so);
    snprintf(wu_dir, sizeof wu_dir, "/tmp/tp_writers_XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(wu_dir));
}

static int wu_remove(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

void wu_teardown(void)
{
    if (wu_dir[0])
        nftw(wu_dir, wu_remove, 8, FTW_DEPTH | FTW_PHYS);
    wu_dir[0] = '\0';
}

const char *wu_yaml(const char *stages)
{
    static char yaml[8192];
    int n = snprintf(yaml, sizeof yaml,
                     "name: writer-test\n"
                     "plugin_path: %s/testplugins\n"
                     "vars: { out: %s }\n"
                     "stages:\n%s",
                     tp_test_build_dir(), wu_dir, stages);
    ck_assert_int_lt(n, (int)sizeof yaml);
    return yaml;
}

void wu_run(const char *stages)
{
    tp_run_free(tp_test_run_yaml(wu_yaml(stages)));
}

const char *wu_run_fails(const char *stages)
{
    static char msg[1024];

    msg[0] = '\0';
    ck_assert_int_eq(tp_test_run_yaml_fails(wu_yaml(stages), msg, sizeof msg), TP_EXIT_FAIL);
    return msg;
}

char *wu_run_stdout(const char *stages)
{
    char path[300];
    int fd, saved;
    char *text;

    snprintf(path, sizeof path, "%s/.stdout", wu_dir);
    fflush(stdout);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ck_assert_int_ge(fd, 0);
    saved = dup(STDOUT_FILENO);
    ck_assert_int_ge(saved, 0);
    dup2(fd, STDOUT_FILENO);
    close(fd);
    wu_run(stages);
    fflush(stdout);
    dup2(saved, STDOUT_FILENO);
    close(saved);
    text = tp_test_slurp(path, NULL);
    ck_assert_ptr_nonnull(text);
    remove(path);
    return text;
}

void wu_expect_file(const char *name, const char *expected)
{
    char path[300];
    size_t len = 0;
    char *text;

    snprintf(path, sizeof path, "%s/%s", wu_dir, name);
    text = tp_test_slurp(path, &len);
    ck_assert_msg(text != NULL, "%s was not written", path);
    ck_assert_msg(strcmp(text, expected) == 0 && len == strlen(expected),
                  "%s holds:\n%s\n--- expected:\n%s", name, text, expected);
    free(text);
}

void wu_write(const char *name, const char *text, size_t len)
{
    char path[300];
    FILE *f;

    snprintf(path, sizeof path, "%s/%s", wu_dir, name);
    f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(text, 1, len, f), len);
    ck_assert_int_eq(fclose(f), 0);
}

int wu_dir_entries(void)
{
    DIR *d = opendir(wu_dir);
    struct dirent *e;
    int n = 0;

    ck_assert_ptr_nonnull(d);
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            n++;
    closedir(d);
    return n;
}
