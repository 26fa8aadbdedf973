/* Core-internal: stage options, validated against their declarations
 * (tp_option.c; the declarations are include/tracepipe/tp_option.h). */
#ifndef TRACEPIPE_TP_OPTIONS_H
#define TRACEPIPE_TP_OPTIONS_H

#include "tp_core.h"
#include "tp_yaml.h"

/* Validates the option nodes of one stage (every map pair of `stage` whose
 * key is not in `reserved`) against the schema and fills a new config
 * block.  Every problem goes to d; returns NULL if there were any. */
void *tp_options_build(const tp_option *schema, size_t config_size, const tp_ynode *stage,
                       const char *const *reserved, const char *file, const char *who,
                       tp_diags *d);
/* The same, with the string option named `given` set to value whatever the
 * stage says (`--input` on a reader's input file): given counts as present. */
void *tp_options_build_given(const tp_option *schema, size_t config_size, const tp_ynode *stage,
                             const char *const *reserved, const char *file, const char *who,
                             tp_diags *d, const char *given, const char *value);
void tp_options_free(const tp_option *schema, void *config);
/* A deep copy of config (strings and lists copied); the string option
 * named `replace` (when not NULL) set to value instead.  NULL: no memory. */
void *tp_options_clone(const tp_option *schema, size_t config_size, const void *config,
                       const char *replace, const char *value);
/* The string option of the stage with that role (TP_OPT_INPUT_FILE or
 * TP_OPT_OUTPUT_FILE), the first declared; NULL when none.  For a plugin
 * built before roles (no option has one), a reader's input and a writer's
 * output are its string option "path" (the only place the core knows that
 * name, besides `reader: auto`'s own path). */
const tp_option *tp_option_with_role(const tp_stage_desc *desc, unsigned role);
/* Bytes of the config field an option of this type fills (0: unknown type). */
size_t tp_option_field_size(tp_opt_type type);
/* Parses a scalar per type; for use by option building and tests. */
int tp_parse_bool(const char *s, int *out);
int tp_parse_int(const char *s, int64_t *out);
int tp_parse_float(const char *s, double *out);
/* Edit distance, for did-you-mean hints. */
size_t tp_edit_distance(const char *a, const char *b);
/* The closest name in a NULL-terminated list (or NULL if none is close). */
const char *tp_closest(const char *name, const char *const *names, size_t n);

#endif
