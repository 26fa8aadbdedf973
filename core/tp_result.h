/* Core-internal: result tables (tp_result.c). */
#ifndef TRACEPIPE_TP_RESULT_H
#define TRACEPIPE_TP_RESULT_H

#include "tp_core.h"

tp_result *tp_result_create(const char *id);
void tp_result_destroy(tp_result *r);
int tp_result_col_add(tp_result *r, const char *name, tp_coltype type);
int tp_result_row_add(tp_result *r, size_t *row);
int tp_result_put_str(tp_result *r, size_t row, int col, const char *s);
int tp_result_put_i64(tp_result *r, size_t row, int col, int64_t v);
int tp_result_put_f64(tp_result *r, size_t row, int col, double v);
int tp_result_meta_put(tp_result *r, const char *key, const char *value);
const char *tp_result_get_id(const tp_result *r);
size_t tp_result_nrows(const tp_result *r);
size_t tp_result_ncols(const tp_result *r);
const char *tp_result_colname(const tp_result *r, int col);
tp_coltype tp_result_coltype(const tp_result *r, int col);
int tp_result_colfind(const tp_result *r, const char *name);
int tp_result_null(const tp_result *r, size_t row, int col);
const char *tp_result_str(const tp_result *r, size_t row, int col);
int64_t tp_result_i64(const tp_result *r, size_t row, int col);
double tp_result_f64(const tp_result *r, size_t row, int col);
const char *tp_result_meta_get(const tp_result *r, const char *key);
size_t tp_result_meta_n(const tp_result *r);
const char *tp_result_meta_key_at(const tp_result *r, size_t i);
/* A column's meaning: its declaration's one line (tp_col_decl.doc), or NULL. */
int tp_result_col_set_meaning(tp_result *r, int col, const char *meaning);
const char *tp_result_colmeaning(const tp_result *r, int col);

#endif
