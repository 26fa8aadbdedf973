/* Core-internal: declared result schemas (tp_stage_desc.results): the
 * results a configured stage makes, creating a result from its declaration,
 * and describing them (`pipeline describe`, JSON Schema). */
#ifndef TRACEPIPE_TP_SCHEMA_H
#define TRACEPIPE_TP_SCHEMA_H

#include "tp_run.h"

#include <stdio.h>

/* The declarations in force for a stage with this config (results_for when
 * the stage has it and config is not NULL, else results); NULL when the
 * stage declares none. */
const tp_result_decl *tp_schema_of(const tp_stage_desc *d, const void *config);

/* The declaration named name ("" or NULL: the stage's main result). */
const tp_result_decl *tp_schema_find(const tp_result_decl *decls, const char *name);

/* The unit a column name implies by CONVENTIONS (NULL: none). */
const char *tp_schema_unit_from_name(const char *name);

/* host_api.result_declared */
tp_result *tp_host_result_declared(tp_stage *st, const char *name);

/* `pipeline describe`: the results and their columns as text, as the
 * markdown tables plugin pages hold (`--markdown`), or as one JSON Schema
 * per result (`--json`).  stage_id names results ("<id>", "<id>.NAME"). */
void tp_schema_print_text(FILE *f, const tp_result_decl *decls, const char *stage_id);
void tp_schema_print_markdown(FILE *f, const tp_result_decl *decls);
int tp_schema_print_json(FILE *f, const tp_stage_desc *d, const tp_result_decl *decls);

/* `pipeline describe NAME` in one of these forms; an exit code. */
enum { TP_DESCRIBE_TEXT = 0, TP_DESCRIBE_JSON = 1, TP_DESCRIBE_MARKDOWN = 2 };
/* `describe --json` of the stage `name` on out (tp_describe.c): TP_OK, or
 * an error code with the reason in why (no such stage, no columns). */
int tp_describe_json_to(tp_ctx *ctx, const char *name, FILE *out, char *why, size_t why_size);
int tp_cli_describe(tp_ctx *ctx, const char *name, int format);

#endif
