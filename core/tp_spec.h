/* Core-internal: the pipeline file, read and parsed once per process
 * (tp_spec.c).  Batch, merge and run ask it what the pipeline declares
 * before (and instead of) reading the file again; tp_pipeline_load_spec
 * validates a copy of it with the variables of one run. */
#ifndef TRACEPIPE_TP_SPEC_H
#define TRACEPIPE_TP_SPEC_H

#include "tp_core.h"
#include "tp_yaml.h"

typedef struct tp_spec tp_spec;

/* The file read (up to 64 MiB) and parsed; NULL with every problem in d. */
tp_spec *tp_spec_read_file(const char *path, tp_diags *d);
/* YAML text named `name` in messages ("<string>" when NULL). */
tp_spec *tp_spec_from_string(const char *yaml, size_t len, const char *name, tp_diags *d);
void tp_spec_free(tp_spec *s);
/* The file name, as given. */
const char *tp_spec_file(const tp_spec *s);
/* The folder of the file, for relative plugin_path: entries; NULL when the
 * name has no '/'. */
const char *tp_spec_base_dir(const tp_spec *s);
/* The document as parsed: no ${var} substituted. */
const tp_ynode *tp_spec_root(const tp_spec *s);
/* Does the pipeline declare `name` under vars:?  1 with its default (the
 * spec's string, NULL when not a scalar) in *value, else 0. */
int tp_spec_var(const tp_spec *s, const char *name, const char **value);
/* The first reader's plugin name as written ("auto" included), or NULL. */
const char *tp_spec_reader(const tp_spec *s);
/* The first reader's input file as written (before ${var} substitution):
 * its option of role TP_OPT_INPUT_FILE (`path:` for `reader: auto`), or
 * NULL when absent, not a scalar, or the reader is not loaded in ctx. */
const char *tp_spec_reader_input(const tp_spec *s, const tp_ctx *ctx);

/* The variables under vars: that the readers' options name (`path:
 * ${trace}`; diff's base and test) and whose default is not data beside
 * the pipeline (`${pipeline_dir}/...`), in stage order, each once (a
 * batch table's reader, `batch: true`, reads the run's output: not one): up to max
 * names into names[]; returns how many. */
size_t tp_spec_reader_vars(const tp_spec *s, const char **names, size_t max);

/* Validates the spec with `sets` overriding its vars: and, when input is
 * not NULL, input as the first reader's input file (`--input`, a batch's
 * trace); as tp_pipeline_load_file otherwise. */
tp_pipeline *tp_pipeline_load_spec(tp_ctx *ctx, const tp_spec *s, const tp_var *sets,
                                   size_t n_sets, const char *input, tp_diags *d);

#endif
