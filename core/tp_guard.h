/* Core-internal: process-wide safety nets that signal handlers reach
 * (tp_guard.c). */
#ifndef TRACEPIPE_TP_GUARD_H
#define TRACEPIPE_TP_GUARD_H

#include <stdbool.h>
#include <stddef.h>

typedef struct tp_temp_slot tp_temp_slot;
/* Remembers a temporary output file until unregistered, so that
 * tp_remove_temp_files() can remove it; NULL on ENOMEM or a path too long. */
tp_temp_slot *tp_temp_register(const char *path);
void tp_temp_unregister(tp_temp_slot *slot);
/* Remembers a folder of numbered files, DIR + I + SUFFIX and that with
 * ".tmp" for I < n (DIR ends in '/'; a batch's hand-offs), removed with the
 * folder by tp_remove_temp_files() until unregistered; one per process.
 * 0, or -1 (one registered already, a name too long). */
int tp_temp_register_numbered(const char *dir, size_t n, const char *suffix);
void tp_temp_unregister_numbered(void);
typedef struct tp_map_slot tp_map_slot;
/* Watches a read-only file mapping: a SIGBUS inside it (the file was
 * truncated) maps zero pages over the rest and sets the faulted flag instead
 * of killing the process.  Unguard before munmap. */
tp_map_slot *tp_map_guard(const void *start, size_t len);
void tp_map_unguard(tp_map_slot *slot);
bool tp_map_faulted(tp_map_slot *slot);

#endif
