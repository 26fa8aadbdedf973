/*
 * A batch's hand-off folder (issue 31, docs/batch.md "Each trace read
 * once"): made in TMPDIR with its owner in its name, and the folders of
 * batches that are provably gone removed first (a batch killed by SIGKILL,
 * or by the OOM killer, cannot remove its own).
 *
 * The name is tracepipe-handoff-PID-START-BOOT-HOST-PIDNS-TIMENS-XXXXXX:
 * the batch process's pid, its start time (/proc/PID/stat field 22, clock
 * ticks since boot as its time namespace sees them), the first 8 hex digits
 * of the kernel's boot id, 8 hex digits of a hash of the host's name, the
 * inodes of its pid and time namespaces (0 without time namespaces), then
 * mkdtemp's letters.  A folder's batch is gone when, on this host, its boot
 * is another one and the folder has not changed since before this boot
 * (TMPDIR on a disk kept across a reboot); or, in this boot and these namespaces, when no
 * process has that pid (kill(pid, 0) fails with ESRCH: /proc may hide
 * processes) or /proc/PID holds one that started at another time (the pid
 * reused).  Anything else is not proof and the folder stays: another host
 * (a TMPDIR shared by nodes or by a virtual machine: another boot id says
 * nothing of a batch running there), another pid or time namespace (a
 * container sharing TMPDIR; start times shifted), a /proc that cannot be
 * read or is another pid namespace's, a name of another shape.  Only
 * folders of this user with mode 0700 are touched, never through a
 * symbolic link (lstat, O_NOFOLLOW, then the folder's own descriptor), and
 * in them only the hand-off files (N.trace, N.trace.tmp): a folder holding
 * anything else is left.
 */
#include "tp_batch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#define PREFIX "tracepipe-handoff-"

/* Who made a folder: a process of one boot and pid namespace. */
typedef struct owner {
    long pid;
    unsigned long long start;
    char boot[9];
    char host[9];
    unsigned long long pidns;
    unsigned long long timens;
} owner;

/* Field 22 of /proc/PID/stat (the process's start time), or 0. */
static unsigned long long start_time(long pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t got = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (got <= 0)
        return 0;
    buf[got] = '\0';
    char *p = strrchr(buf, ')'); /* the command's name may hold spaces and parentheses */
    for (int field = 2; p != NULL && field < 22; field++) /* the space before field+1 */
        p = strchr(p + 1, ' ');
    return p ? strtoull(p + 1, NULL, 10) : 0;
}

/* Whether /proc is this process's pid namespace's: /proc/self names its pid
 * (a /proc mounted from another namespace would name another process). */
static bool proc_is_ours(void)
{
    char link[32], want[32];
    ssize_t n = readlink("/proc/self", link, sizeof link - 1);
    if (n <= 0)
        return false;
    link[n] = '\0';
    snprintf(want, sizeof want, "%ld", (long)getpid());
    return strcmp(link, want) == 0;
}

/* 8 hex digits of a hash (FNV-1a) of this host's name, or false. */
static bool host_id(char out[9])
{
    struct utsname u;
    if (uname(&u) != 0)
        return false;
    uint32_t h = 2166136261u;
    for (const char *p = u.nodename; *p; p++)
        h = (h ^ (unsigned char)*p) * 16777619u;
    snprintf(out, 9, "%08x", (unsigned)h);
    return true;
}

/* This kernel's boot time (/proc/stat btime, seconds since the epoch), or 0. */
static long long boot_time(void)
{
    char line[256];
    long long btime = 0;
    FILE *f = fopen("/proc/stat", "re");
    while (f != NULL && btime == 0 && fgets(line, sizeof line, f) != NULL)
        if (strncmp(line, "btime ", 6) == 0)
            btime = strtoll(line + 6, NULL, 10);
    if (f)
        fclose(f);
    return btime;
}

/* This process: false when /proc does not tell (no sweeping then). */
static bool owner_self(owner *o)
{
    char id[64] = "";
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");
    bool read_id = f != NULL && fgets(id, sizeof id, f) != NULL;
    if (f)
        fclose(f);
    struct stat ns, tns;
    o->pid = (long)getpid();
    o->start = start_time(o->pid);
    if (!read_id || strlen(id) < 8 || o->start == 0 || !proc_is_ours() || !host_id(o->host) ||
        stat("/proc/self/ns/pid", &ns) != 0)
        return false;
    memcpy(o->boot, id, 8);
    o->boot[8] = '\0';
    o->pidns = (unsigned long long)ns.st_ino;
    /* a kernel without time namespaces has no such file: 0 on both sides */
    o->timens = stat("/proc/self/ns/time", &tns) == 0 ? (unsigned long long)tns.st_ino : 0;
    return true;
}

/* A folder name of our exact pattern, its owner read from it. */
static bool owner_of(const char *name, owner *o)
{
    int used = 0;
    if (strncmp(name, PREFIX, strlen(PREFIX)) != 0 ||
        sscanf(name + strlen(PREFIX), "%ld-%llu-%8[0-9a-f]-%8[0-9a-f]-%llu-%llu-%n", &o->pid,
               &o->start, o->boot, o->host, &o->pidns, &o->timens, &used) != 6 ||
        used == 0 || o->pid <= 0 || strlen(o->boot) != 8 || strlen(o->host) != 8)
        return false;
    const char *rest = name + strlen(PREFIX) + used;
    char canonical[256]; /* no leading zeros, signs or spaces: the writer's digits only */
    snprintf(canonical, sizeof canonical, "%ld-%llu-%s-%s-%llu-%llu-", o->pid, o->start, o->boot,
             o->host, o->pidns, o->timens);
    if (strncmp(canonical, name + strlen(PREFIX), (size_t)used) != 0 || strlen(rest) != 6)
        return false;
    for (const char *p = rest; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
            return false;
    return true;
}

/* Whether the owner o of a folder last modified at mtime is provably gone,
 * seen from process me. */
static bool owner_gone(const owner *o, time_t mtime, const owner *me)
{
    if (strcmp(o->host, me->host) != 0)
        return false; /* another host's boot ids and pids mean nothing here */
    if (strcmp(o->boot, me->boot) != 0) { /* an earlier boot of this host's, if older than ours */
        long long btime = boot_time();
        return btime > 0 && (long long)mtime < btime;
    }
    if (o->pidns != me->pidns || o->timens != me->timens)
        return false; /* its pids, or its start times, mean nothing here */
    if (kill((pid_t)o->pid, 0) != 0 && errno == ESRCH)
        return true;
    unsigned long long start = start_time(o->pid);
    return start != 0 && start != o->start; /* the pid reused by another process */
}

/* A hand-off file's name: N.trace or N.trace.tmp. */
static bool handoff_file(const char *name)
{
    size_t digits = strspn(name, "0123456789");
    return digits > 0 && (strcmp(name + digits, ".trace") == 0 ||
                          strcmp(name + digits, ".trace.tmp") == 0);
}

/* Folder name of TMPDIR (dirfd) emptied of hand-off files and removed, if
 * it is this user's, mode 0700, not a link. */
static bool remove_stale(int dirfd, const char *name)
{
    struct stat a, b;
    if (fstatat(dirfd, name, &a, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(a.st_mode) ||
        a.st_uid != geteuid() || (a.st_mode & 07777) != 0700)
        return false;
    int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return false;
    DIR *d = fstat(fd, &b) == 0 && b.st_dev == a.st_dev && b.st_ino == a.st_ino ? fdopendir(fd)
                                                                               : NULL;
    if (d == NULL) {
        close(fd);
        return false;
    }
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (handoff_file(e->d_name))
            unlinkat(fd, e->d_name, 0); /* never follows a link: removes the link itself */
    closedir(d);
    return unlinkat(dirfd, name, AT_REMOVEDIR) == 0; /* fails if anything else is there */
}

/* The folders in tmp of batches that are gone, removed; -v names each. */
static void sweep(const char *tmp, const owner *me, int verbosity)
{
    int dirfd = open(tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = dirfd >= 0 ? fdopendir(dirfd) : NULL;
    if (d == NULL) {
        if (dirfd >= 0)
            close(dirfd);
        return;
    }
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        owner o;
        struct stat st;
        if (!owner_of(e->d_name, &o) || fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
            !owner_gone(&o, st.st_mtime, me) || !remove_stale(dirfd, e->d_name))
            continue;
        if (verbosity > 0)
            tp_print_line(stderr, "pipeline: batch: removed %s/%s, the hand-off folder of a batch "
                          "that is gone (pid %ld, started at %llu)", tmp, e->d_name, o.pid, o.start);
    }
    closedir(d);
}

int tp_handoff_dir_make(char *buf, size_t size, int verbosity)
{
    const char *env = getenv("TMPDIR");
    const char *tmp = env && env[0] ? env : "/tmp";
    owner me;
    int n;
    if (owner_self(&me)) {
        sweep(tmp, &me, verbosity);
        n = snprintf(buf, size, "%s/" PREFIX "%ld-%llu-%s-%s-%llu-%llu-XXXXXX", tmp, me.pid,
                     me.start, me.boot, me.host, me.pidns, me.timens);
    } else { /* no owner to record: a folder no later batch can prove stale */
        n = snprintf(buf, size, "%s/" PREFIX "XXXXXX", tmp);
    }
    if (n < 0 || (size_t)n >= size || mkdtemp(buf) == NULL)
        return -1;
    return 0;
}
