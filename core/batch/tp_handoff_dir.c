/*
 * A batch's hand-off folder (issue 31, docs/batch.md "Each trace read
 * once"): made in TMPDIR with its owner in its name, and the folders of
 * batches that are provably gone removed first (a batch killed by SIGKILL,
 * or by the OOM killer, cannot remove its own).
 *
 * The name is tracepipe-handoff-PID-START-BOOT-PIDNS-XXXXXX: the batch
 * process's pid, its start time (/proc/PID/stat field 22, clock ticks since
 * boot), the first 8 hex digits of the kernel's boot id, the inode of its
 * pid namespace, then mkdtemp's letters.  A folder's batch is gone when the
 * boot differs (every process of that boot is), or, in the same boot and
 * pid namespace, when /proc/PID does not exist or holds a process that
 * started at another time (the pid reused).  Anything else — another pid
 * namespace (a container sharing TMPDIR), a /proc that cannot be read or
 * is another pid namespace's, a name of another shape (an older
 * version's) — is not proof: the folder stays.  Only folders of this user with mode 0700 are touched, never
 * through a symbolic link (lstat, O_NOFOLLOW, then the folder's own
 * descriptor), and in them only the hand-off files (N.trace, N.trace.tmp):
 * a folder holding anything else is left.
 */
#include "tp_batch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PREFIX "tracepipe-handoff-"

/* Who made a folder: a process of one boot and pid namespace. */
typedef struct owner {
    long pid;
    unsigned long long start;
    char boot[9];
    unsigned long long pidns;
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

/* This process: false when /proc does not tell (no sweeping then). */
static bool owner_self(owner *o)
{
    char id[64] = "";
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");
    bool read_id = f != NULL && fgets(id, sizeof id, f) != NULL;
    if (f)
        fclose(f);
    struct stat ns;
    o->pid = (long)getpid();
    o->start = start_time(o->pid);
    if (!read_id || strlen(id) < 8 || o->start == 0 || !proc_is_ours() ||
        stat("/proc/self/ns/pid", &ns) != 0)
        return false;
    memcpy(o->boot, id, 8);
    o->boot[8] = '\0';
    o->pidns = (unsigned long long)ns.st_ino;
    return true;
}

/* A folder name of our exact pattern, its owner read from it. */
static bool owner_of(const char *name, owner *o)
{
    int used = 0;
    if (strncmp(name, PREFIX, strlen(PREFIX)) != 0 ||
        sscanf(name + strlen(PREFIX), "%ld-%llu-%8[0-9a-f]-%llu-%n", &o->pid, &o->start, o->boot,
               &o->pidns, &used) != 4 ||
        used == 0 || o->pid <= 0 || strlen(o->boot) != 8)
        return false;
    const char *rest = name + strlen(PREFIX) + used;
    char canonical[256]; /* no leading zeros, signs or spaces: the writer's digits only */
    snprintf(canonical, sizeof canonical, "%ld-%llu-%s-%llu-", o->pid, o->start, o->boot, o->pidns);
    if (strncmp(canonical, name + strlen(PREFIX), (size_t)used) != 0 || strlen(rest) != 6)
        return false;
    for (const char *p = rest; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
            return false;
    return true;
}

/* Whether folder owner o is provably gone, seen from process me. */
static bool owner_gone(const owner *o, const owner *me)
{
    if (strcmp(o->boot, me->boot) != 0)
        return true; /* another boot: all its processes are */
    if (o->pidns != me->pidns)
        return false; /* another pid namespace: its pids mean nothing here */
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld", o->pid);
    struct stat sb;
    if (stat(path, &sb) != 0)
        return errno == ENOENT;
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
        if (!owner_of(e->d_name, &o) || !owner_gone(&o, me) || !remove_stale(dirfd, e->d_name))
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
        n = snprintf(buf, size, "%s/" PREFIX "%ld-%llu-%s-%llu-XXXXXX", tmp, me.pid, me.start,
                     me.boot, me.pidns);
    } else { /* no owner to record: a folder no later batch can prove stale */
        n = snprintf(buf, size, "%s/" PREFIX "XXXXXX", tmp);
    }
    if (n < 0 || (size_t)n >= size || mkdtemp(buf) == NULL)
        return -1;
    return 0;
}
