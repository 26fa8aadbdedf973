/*
 * Test plugin: `sabotage_probe` changes the current trace's source file on
 * disk in the middle of a run, as another process could, so tests/bad can
 * check that the core fails cleanly instead of crashing (SIGBUS) or reading
 * args from different bytes.  Actions:
 *   truncate         truncate the file to 0 bytes (before anyone read args)
 *   truncate_mapped  read every args text (the file gets mapped), truncate
 *                    the file, read them all again: pages past the new end
 *                    fault
 *   shift            rewrite it in place shifted by one byte (same size),
 *                    with a later mtime
 *   delete           unlink it
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <tracepipe/tp_plugin.h>

typedef struct sabotage_cfg {
    const char *action;
} sabotage_cfg;

static const char *const actions[] = {"truncate", "truncate_mapped", "shift", "delete", NULL};

static const tp_option sabotage_options[] = {
    TP_OPTION_CHOICE("action", sabotage_cfg, action, "truncate", actions, "what to do to it"),
    TP_OPTION_END};

/* Reads every byte of every args text; returns their sum. */
static unsigned read_all_args(const tp_trace *t)
{
    unsigned sum = 0;
    const tp_cols *c = tp_trace_cols(t);
    for (size_t i = 0; i < c->n; i++) {
        size_t len = 0;
        const char *a = tp_trace_args(t, i, &len);
        for (size_t k = 0; a && k < len; k++)
            sum += (unsigned char)a[k];
    }
    return sum;
}

static int shift_one_byte(tp_stage *st, const char *path)
{
    int fd = open(path, O_RDWR);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) != 0)
        return tp_fail(st, TP_EIO, "%s: cannot open", path);
    size_t size = (size_t)sb.st_size;
    char *text = malloc(size + 1);
    int ok = text && pread(fd, text + 1, size, 0) == (ssize_t)size;
    if (ok) {
        text[0] = ' ';
        ok = pwrite(fd, text, size, 0) == (ssize_t)size;
    }
    struct timespec times[2] = {{0, UTIME_OMIT}, sb.st_mtim};
    times[1].tv_sec += 1; /* modified, whatever the clock's resolution */
    ok = ok && futimens(fd, times) == 0;
    free(text);
    close(fd);
    return ok ? TP_OK : tp_fail(st, TP_EIO, "%s: cannot rewrite", path);
}

static int sabotage_run(tp_stage *st, const void *config, void *state)
{
    const sabotage_cfg *cfg = config;
    const tp_trace *t = tp_stage_trace(st);
    (void)state;
    if (t == NULL)
        return tp_fail(st, TP_EINVAL, "no trace");
    const char *path = tp_trace_source(t);
    if (strcmp(cfg->action, "truncate_mapped") == 0) {
        unsigned before = read_all_args(t);
        if (truncate(path, 0) != 0)
            return tp_fail(st, TP_EIO, "%s: cannot truncate", path);
        unsigned after = read_all_args(t);
        tp_log(st, TP_LOG_DEBUG, "args sum %u, then %u", before, after);
        return TP_OK;
    }
    if (strcmp(cfg->action, "truncate") == 0)
        return truncate(path, 0) == 0 ? TP_OK : tp_fail(st, TP_EIO, "%s: cannot truncate", path);
    if (strcmp(cfg->action, "delete") == 0)
        return unlink(path) == 0 ? TP_OK : tp_fail(st, TP_EIO, "%s: cannot delete", path);
    return shift_one_byte(st, path);
}

static const tp_stage_desc stages[] = {
    TP_STAGE(TP_STAGE_ANALYSIS, "sabotage_probe", "changes the trace file on disk (tests)",
             sabotage_options, sabotage_cfg, NULL, sabotage_run, NULL),
    TP_STAGE_END};

TP_PLUGIN_DEFINE("tp_sabotage", "1.0", stages);
