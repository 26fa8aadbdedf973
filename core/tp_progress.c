/*
 * Progress display on stderr for long work: a bar with bytes done of total,
 * rate and ETA, labelled with the current stage, redrawn at most ten times
 * a second, and only when enabled (a terminal, not -q).
 *
 * The line is fitted to the terminal's width (the bar shrinks, then the
 * line is cut): a line that wraps cannot be redrawn with '\r' and would
 * leave one copy per update on the screen.
 */
#include "tp_run.h"

#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#define BAR_MAX 30
#define BAR_MIN 10

static double mono_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Columns of the terminal on stderr (80 when unknown), capped to a line. */
static int term_width(void)
{
    struct winsize ws;
    int w = 80;
    if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        w = ws.ws_col;
    return w > 200 ? 200 : w;
}

static void fmt_eta(char *buf, size_t n, double s)
{
    if (s >= 3600)
        snprintf(buf, n, "%dh%02dm", (int)(s / 3600), (int)(s / 60) % 60);
    else if (s >= 60)
        snprintf(buf, n, "%dm%02ds", (int)(s / 60), (int)s % 60);
    else
        snprintf(buf, n, "%ds", (int)(s + 0.5));
}

void tp_progress_update(tp_run *run, const char *label, tp_progress_clock *clock, uint64_t done,
                        uint64_t total)
{
    if (!run->opts.progress)
        return;
    double now = mono_now();
    if (run->progress_label != label) {
        run->progress_label = label;
        run->progress_start = now;
        run->progress_last = 0;
    }
    if (clock != NULL && (clock->start == 0 || done < clock->done))
        clock->start = now;
    if (clock != NULL)
        clock->done = done;
    if (now - run->progress_last < 0.1 && done < total)
        return;
    run->progress_last = now;
    double elapsed = now - (clock != NULL ? clock->start : run->progress_start);
    double frac = total ? (double)done / (double)total : 0;
    if (frac > 1)
        frac = 1;
    double rate = elapsed > 0 ? (double)done / elapsed / 1e6 : 0;
    char eta[16], tail[96], line[256], bar[BAR_MAX + 1], shown[128];
    tp_escape_text(label, shown, sizeof shown); /* a stage id may hold control characters */
    label = shown;
    fmt_eta(eta, sizeof eta, frac > 0 ? elapsed * (1 - frac) / frac : 0);
    snprintf(tail, sizeof tail, " %5.1f%%  %.1f of %.1f MB  %.1f MB/s  ETA %s", frac * 100,
             (double)done / 1e6, (double)total / 1e6, rate, eta);
    int width = term_width() - 1; /* never touch the last column: some terminals wrap */
    int room = width - (int)strlen(label) - 4 - (int)strlen(tail);
    int bar_len = room > BAR_MAX ? BAR_MAX : room < BAR_MIN ? BAR_MIN : room;
    int fill = (int)(frac * bar_len);
    for (int i = 0; i < bar_len; i++)
        bar[i] = i < fill ? '#' : '.';
    bar[bar_len] = '\0';
    int len = snprintf(line, sizeof line, "%s [%s]%s", label, bar, tail);
    if (len > width)
        len = width;
    if (len < 0)
        len = 0;
    /* pad to the width so a shorter line covers the previous one */
    fprintf(stderr, "\r%-*.*s", width, len, line);
    fflush(stderr);
}

void tp_progress_done(tp_run *run)
{
    if (run->progress_label == NULL)
        return;
    fprintf(stderr, "\r%*s\r", term_width() - 1, "");
    fflush(stderr);
    run->progress_label = NULL;
}
