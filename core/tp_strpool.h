/* Core-internal: the string pool of a run (tp_strpool.c). */
#ifndef TRACEPIPE_TP_STRPOOL_H
#define TRACEPIPE_TP_STRPOOL_H

#include "tp_core.h"

#include <stdbool.h>

typedef struct tp_strpool tp_strpool;
tp_strpool *tp_strpool_new(void);
void tp_strpool_free(tp_strpool *p);
/* Returns the id of the text, adding it if new; 0 for "", UINT32_MAX on ENOMEM. */
tp_str tp_strpool_intern(tp_strpool *p, const char *s, size_t len);
bool tp_strpool_lookup(const tp_strpool *p, const char *s, size_t len, tp_str *out);
const char *tp_strpool_text(const tp_strpool *p, tp_str id);
size_t tp_strpool_len(const tp_strpool *p, tp_str id);
size_t tp_strpool_count(const tp_strpool *p);
#define TP_STR_NOMEM TP_STR_ERROR

#endif
