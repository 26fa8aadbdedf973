/* ranges: the name normaliser (option `normalize`: Python re.sub rules,
 * pattern and replacement pairs applied in order; tp_sdk_regex.h). */
#ifndef TP_RANGES_NAMES_H
#define TP_RANGES_NAMES_H

#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk_markers.h>

typedef struct rg_norm {
    size_t n;         /* rules */
    tp_markers *re;   /* n patterns */
    char **repl;      /* n replacements in PCRE2's syntax */
} rg_norm;

/* Compiles the rules of `normalize` (pattern, replacement, ...); TP_OK, or
 * the error reported.  Close either way. */
int rg_norm_open(tp_stage *st, rg_norm *nm, const tp_strlist *pairs);
void rg_norm_close(rg_norm *nm);

/* *out = the normalised name of event row's name (interned; the name itself
 * without rules); TP_OK or the error reported. */
int rg_norm_name(tp_stage *st, const rg_norm *nm, const tp_cols *c, size_t row, tp_str *out);

#endif
