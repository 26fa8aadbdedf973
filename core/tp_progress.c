/*
 * Progress display on stderr for long work: a bar with bytes done of total,
 * rate and ETA, redrawn at most ten times a second, and only when enabled
 * (a terminal, not -q).
 */
#include "tp_internal.h"

#include <time.h>

static double mono_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void tp_progress_update(tp_run *run, const char *label, uint64_t done, uint64_t total)
{
    if (!run->opts.progress)
        return;
    double now = mono_now();
    if (run->progress_label != label) {
        run->progress_label = label;
        run->progress_start = now;
        run->progress_last = 0;
    }
    if (now - run->progress_last < 0.1 && done < total)
        return;
    run->progress_last = now;
    double elapsed = now - run->progress_start;
    double frac = total ? (double)done / (double)total : 0;
    if (frac > 1)
        frac = 1;
    double rate = elapsed > 0 ? (double)done / elapsed / 1e6 : 0;
    double eta = frac > 0 ? elapsed * (1 - frac) / frac : 0;
    char bar[31];
    int fill = (int)(frac * 30);
    for (int i = 0; i < 30; i++)
        bar[i] = i < fill ? '#' : '.';
    bar[30] = '\0';
    fprintf(stderr, "\r%-16.16s [%s] %5.1f%% %8.1f MB of %.1f MB  %6.1f MB/s  ETA %4.0fs ",
            label, bar, frac * 100, (double)done / 1e6, (double)total / 1e6, rate, eta);
    fflush(stderr);
}

void tp_progress_done(tp_run *run)
{
    if (run->progress_label == NULL)
        return;
    fprintf(stderr, "\r%100s\r", "");
    fflush(stderr);
    run->progress_label = NULL;
}
