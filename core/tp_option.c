/*
 * Option schemas: validate a stage's YAML options against the table the
 * stage declares and fill its config struct.  Every problem is reported
 * (unknown option with a did-you-mean, wrong type, out of range, bad
 * choice, missing required), each with the line and column of the value.
 */
#include "tp_options.h"
#include "tp_yaml.h"
#include "tp_spec.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int tp_parse_bool(const char *s, int *out)
{
    static const char *const yes[] = {"true", "yes", "on", "True", "TRUE", "Yes", "On", NULL};
    static const char *const no[] = {"false", "no", "off", "False", "FALSE", "No", "Off", NULL};
    for (size_t i = 0; yes[i]; i++)
        if (strcmp(s, yes[i]) == 0)
            return *out = 1, 0;
    for (size_t i = 0; no[i]; i++)
        if (strcmp(s, no[i]) == 0)
            return *out = 0, 0;
    return -1;
}

int tp_parse_int(const char *s, int64_t *out)
{
    if (s[0] == '\0')
        return -1;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno != 0 || *end != '\0')
        return -1;
    *out = v;
    return 0;
}

int tp_parse_float(const char *s, double *out)
{
    if (s[0] == '\0')
        return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno != 0 || *end != '\0' || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

size_t tp_edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 64 || lb > 64)
        return la > lb ? la : lb;
    size_t row[65];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            size_t best = diag + cost;
            if (row[j] + 1 < best)
                best = row[j] + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

const char *tp_closest(const char *name, const char *const *names, size_t n)
{
    const char *best = NULL;
    size_t best_d = (size_t)-1;
    size_t len = strlen(name);
    for (size_t i = 0; i < n; i++) /* a typed prefix is a strong hint */
        if (len >= 3 && strncmp(names[i], name, len) == 0)
            return names[i];
    for (size_t i = 0; i < n; i++) {
        size_t dist = tp_edit_distance(name, names[i]);
        if (dist < best_d) {
            best_d = dist;
            best = names[i];
        }
    }
    /* close enough to be a typo: at most a third of the name, at least 1 */
    size_t limit = len / 3 + 1;
    return best_d <= limit ? best : NULL;
}

size_t tp_option_field_size(tp_opt_type type)
{
    switch (type) {
    case TP_OPT_BOOL:
        return sizeof(int);
    case TP_OPT_INT:
        return sizeof(int64_t);
    case TP_OPT_FLOAT:
        return sizeof(double);
    case TP_OPT_STRING:
    case TP_OPT_CHOICE:
        return sizeof(const char *);
    case TP_OPT_LIST:
        return sizeof(tp_strlist);
    case TP_OPT_INT_LIST:
        return sizeof(tp_intlist);
    case TP_OPT_FLOAT_LIST:
        return sizeof(tp_floatlist);
    case TP_OPT_ENUM:
        return sizeof(int);
    case TP_OPT_MAP_LIST:
        return sizeof(tp_maplist);
    }
    return 0;
}

static const char *type_name(tp_opt_type type)
{
    switch (type) {
    case TP_OPT_BOOL:
        return "a boolean (true/false)";
    case TP_OPT_INT:
        return "an integer";
    case TP_OPT_FLOAT:
        return "a number";
    case TP_OPT_STRING:
        return "a string";
    case TP_OPT_CHOICE:
        return "one of the choices";
    case TP_OPT_LIST:
        return "a list of strings";
    case TP_OPT_INT_LIST:
        return "a list of integers";
    case TP_OPT_FLOAT_LIST:
        return "a list of numbers";
    case TP_OPT_ENUM:
        return "one of the choices";
    case TP_OPT_MAP_LIST:
        return "a list of mappings";
    }
    return "?";
}

/* Where a value comes from, for messages: a YAML node or a default. */
typedef struct origin {
    const char *file;
    int line, col;
    const char *who; /* "analysis 'host' (host_breakdown)" */
    tp_diags *d;
} origin;

#define REPORT(o, ...) tp_diags_add((o)->d, (o)->file, (o)->line, (o)->col, __VA_ARGS__)

static void list_choices(const char *const *choices, char *buf, size_t size)
{
    buf[0] = '\0';
    for (size_t i = 0; choices && choices[i]; i++) {
        size_t used = strlen(buf);
        snprintf(buf + used, size - used, "%s%s", i ? ", " : "", choices[i]);
    }
}

/* The index of text among the option's choices, or -1 (reported). */
static int find_choice(const tp_option *opt, const char *text, const origin *o)
{
    size_t n = 0;
    while (opt->choices && opt->choices[n])
        n++;
    for (size_t i = 0; i < n; i++)
        if (strcmp(opt->choices[i], text) == 0)
            return (int)i;
    char all[512];
    const char *near = tp_closest(text, opt->choices, n);
    list_choices(opt->choices, all, sizeof all);
    REPORT(o, "error: %s: option '%s' = '%s' is not one of: %s%s%s%s", o->who, opt->name, text,
           all, near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "");
    return -1;
}

static int set_scalar(const tp_option *opt, void *field, const char *text, bool quoted,
                      const origin *o)
{
    switch (opt->type) {
    case TP_OPT_BOOL: {
        int v;
        if (quoted || tp_parse_bool(text, &v) != 0) {
            REPORT(o, "error: %s: option '%s' must be %s, not '%s'", o->who, opt->name,
                   type_name(opt->type), text);
            return -1;
        }
        *(int *)field = v;
        return 0;
    }
    case TP_OPT_INT: {
        int64_t v;
        if (quoted || tp_parse_int(text, &v) != 0) {
            REPORT(o, "error: %s: option '%s' must be %s, not '%s'", o->who, opt->name,
                   type_name(opt->type), text);
            return -1;
        }
        if ((opt->flags & TP_OPT_RANGE) && ((double)v < opt->min || (double)v > opt->max)) {
            REPORT(o, "error: %s: option '%s' = %s is out of range [%.15g, %.15g]", o->who,
                   opt->name, text, opt->min, opt->max);
            return -1;
        }
        *(int64_t *)field = v;
        return 0;
    }
    case TP_OPT_FLOAT: {
        double v;
        if (quoted || tp_parse_float(text, &v) != 0) {
            REPORT(o, "error: %s: option '%s' must be %s, not '%s'", o->who, opt->name,
                   type_name(opt->type), text);
            return -1;
        }
        if ((opt->flags & TP_OPT_RANGE) && (v < opt->min || v > opt->max)) {
            REPORT(o, "error: %s: option '%s' = %s is out of range [%.15g, %.15g]", o->who,
                   opt->name, text, opt->min, opt->max);
            return -1;
        }
        *(double *)field = v;
        return 0;
    }
    case TP_OPT_STRING: {
        char *s = strdup(text);
        if (s == NULL)
            return -1;
        free(*(char **)field);
        *(char **)field = s;
        return 0;
    }
    case TP_OPT_CHOICE:
    case TP_OPT_ENUM: {
        int i = find_choice(opt, text, o);
        if (i < 0)
            return -1;
        if (opt->type == TP_OPT_ENUM)
            *(int *)field = i;
        else
            *(const char **)field = opt->choices[i];
        return 0;
    }
    case TP_OPT_LIST:
    case TP_OPT_INT_LIST:
    case TP_OPT_FLOAT_LIST:
    case TP_OPT_MAP_LIST:
        break;
    }
    return -1;
}

static void free_list(tp_strlist *l)
{
    for (size_t i = 0; i < l->n; i++)
        free((char *)l->items[i]);
    free((void *)l->items);
    l->n = 0;
    l->items = NULL;
}

static int set_list(const tp_option *opt, void *field, const tp_ynode *v, const origin *o)
{
    tp_strlist *l = field;
    free_list(l);
    size_t n = v->type == TP_YNODE_SEQ ? v->n : 1;
    char **items = calloc(n ? n : 1, sizeof *items);
    if (items == NULL)
        return -1;
    l->items = (const char *const *)items;
    for (size_t i = 0; i < n; i++) {
        const tp_ynode *it = v->type == TP_YNODE_SEQ ? v->items[i] : v;
        if (it->type != TP_YNODE_SCALAR) {
            tp_diags_add(o->d, o->file, it->line, it->col,
                         "error: %s: option '%s' must be %s", o->who, opt->name,
                         type_name(opt->type));
            return -1;
        }
        if ((items[i] = strdup(it->text)) == NULL)
            return -1;
        l->n = i + 1;
    }
    return 0;
}

static void free_numbers(void *field)
{
    tp_intlist *l = field; /* tp_floatlist has the same shape */
    free((void *)l->items);
    l->n = 0;
    l->items = NULL;
}

/* A list of integers or numbers: each item is parsed and range-checked as
 * the scalar option of the element type would be. */
static int set_numbers(const tp_option *opt, void *field, const tp_ynode *v, const origin *o)
{
    bool ints = opt->type == TP_OPT_INT_LIST;
    size_t elem = ints ? sizeof(int64_t) : sizeof(double);
    free_numbers(field);
    size_t n = v->type == TP_YNODE_SEQ ? v->n : 1;
    char *items = calloc(n ? n : 1, elem);
    if (items == NULL)
        return -1;
    tp_option one = *opt;
    one.type = ints ? TP_OPT_INT : TP_OPT_FLOAT;
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        const tp_ynode *it = v->type == TP_YNODE_SEQ ? v->items[i] : v;
        origin oi = *o;
        if (it->line > 0) {
            oi.line = it->line;
            oi.col = it->col;
        }
        if (it->type != TP_YNODE_SCALAR) {
            REPORT(&oi, "error: %s: option '%s' must be %s", o->who, opt->name,
                   type_name(opt->type));
            rc = -1;
        } else {
            rc = set_scalar(&one, items + i * elem, it->text, it->quoted, &oi);
        }
    }
    tp_intlist *l = field;
    l->items = (const int64_t *)(void *)items;
    l->n = rc == 0 ? n : 0;
    return rc;
}

/* ------------------------------------------------- lists of mappings */

/* One key a TP_OPT_MAP_LIST option allows, from its declaration in
 * `choices`: "NAME[!][:TYPE[|WORD...]]" (tp_option.h). */
typedef struct map_key {
    char name[64];
    bool required;
    tp_opt_type type;  /* TP_OPT_STRING, _INT, _FLOAT or _BOOL */
    const char *words; /* "w1|w2": words allowed besides the type, or NULL */
} map_key;

static void map_key_parse(const char *decl, map_key *k)
{
    const char *colon = strchr(decl, ':');
    size_t n = colon ? (size_t)(colon - decl) : strlen(decl);
    k->required = n > 0 && decl[n - 1] == '!';
    n -= k->required;
    n = n < sizeof k->name ? n : sizeof k->name - 1;
    memcpy(k->name, decl, n);
    k->name[n] = '\0';
    k->type = TP_OPT_STRING;
    k->words = NULL;
    if (colon == NULL)
        return;
    const char *t = colon + 1, *bar = strchr(t, '|');
    size_t tl = bar ? (size_t)(bar - t) : strlen(t);
    if (tl == 3 && strncmp(t, "int", 3) == 0)
        k->type = TP_OPT_INT;
    else if (tl == 5 && strncmp(t, "float", 5) == 0)
        k->type = TP_OPT_FLOAT;
    else if (tl == 4 && strncmp(t, "bool", 4) == 0)
        k->type = TP_OPT_BOOL;
    k->words = bar ? bar + 1 : NULL;
}

static bool map_word(const char *words, const char *text)
{
    size_t n = strlen(text);
    for (const char *w = words; w && *w;) {
        const char *end = strchr(w, '|');
        size_t l = end ? (size_t)(end - w) : strlen(w);
        if (l == n && strncmp(w, text, n) == 0)
            return true;
        w = end ? end + 1 : NULL;
    }
    return false;
}

static void free_maps(tp_maplist *l)
{
    for (size_t i = 0; i < l->n; i++) {
        const tp_optmap *m = &l->items[i];
        for (size_t j = 0; j < m->n; j++) {
            free((char *)m->keys[j]);
            free((char *)m->values[j]);
        }
        free((void *)m->keys);
        free((void *)m->values);
    }
    free((void *)l->items);
    l->n = 0;
    l->items = NULL;
}

/* The declared key named text, or NULL (reported, with a did-you-mean). */
static const char *map_find_key(const tp_option *opt, const tp_ynode *key, map_key *k,
                                const origin *o)
{
    const char *names[64];
    size_t n = 0;
    char all[512] = "";
    for (size_t i = 0; opt->choices && opt->choices[i] && n < 64; i++) {
        map_key_parse(opt->choices[i], k);
        if (strcmp(k->name, key->text) == 0)
            return opt->choices[i];
        names[n++] = opt->choices[i];
        size_t used = strlen(all);
        snprintf(all + used, sizeof all - used, "%s%s", i ? ", " : "", k->name);
    }
    map_key near_key;
    const char *near = tp_closest(key->text, names, n);
    if (near)
        map_key_parse(near, &near_key);
    tp_diags_add(o->d, o->file, key->line, key->col,
                 "error: %s: option '%s': unknown key '%s'%s%s%s; valid keys: %s", o->who,
                 opt->name, key->text, near ? " (did you mean '" : "", near ? near_key.name : "",
                 near ? "'?)" : "", all);
    return NULL;
}

/* One value of a mapping, checked against its key's type. */
static int map_value(const tp_option *opt, size_t idx, const map_key *k, const tp_ynode *v,
                     const origin *o)
{
    char name[160];
    snprintf(name, sizeof name, "%s[%zu].%s", opt->name, idx, k->name);
    origin ov = *o;
    ov.line = v->line;
    ov.col = v->col;
    if (v->type != TP_YNODE_SCALAR) {
        REPORT(&ov, "error: %s: option '%s' must be %s, not a %s", o->who, name,
               type_name(k->type), v->type == TP_YNODE_MAP ? "mapping" : "list");
        return -1;
    }
    if (k->type == TP_OPT_STRING || (k->words && map_word(k->words, v->text)))
        return 0;
    tp_option one = {.name = name, .type = k->type, .flags = opt->flags & TP_OPT_RANGE,
                     .min = opt->min, .max = opt->max};
    union {
        int b;
        int64_t i;
        double f;
    } scratch;
    if (k->words == NULL)
        return set_scalar(&one, &scratch, v->text, v->quoted, &ov);
    origin quiet = ov;
    tp_diags none = {0};
    quiet.d = &none;
    int rc = set_scalar(&one, &scratch, v->text, v->quoted, &quiet);
    tp_diags_free(&none);
    if (rc != 0)
        REPORT(&ov, "error: %s: option '%s' must be %s or one of: %s, not '%s'", o->who, name,
               type_name(k->type), k->words, v->text);
    return rc;
}

/* One mapping of the list: its keys declared, its values typed, its
 * required keys given; copied into *m. */
static int set_map(const tp_option *opt, size_t idx, tp_optmap *m, const tp_ynode *v,
                   const origin *o)
{
    if (v->type != TP_YNODE_MAP) {
        tp_diags_add(o->d, o->file, v->line, v->col, "error: %s: option '%s' must be %s",
                     o->who, opt->name, type_name(opt->type));
        return -1;
    }
    char **keys = calloc(v->n ? v->n : 1, sizeof *keys), **values = calloc(v->n ? v->n : 1, sizeof *values);
    m->keys = (const char *const *)keys;
    m->values = (const char *const *)values;
    if (keys == NULL || values == NULL)
        return -1;
    int rc = 0;
    for (size_t j = 0; j < v->n; j++) {
        map_key k;
        if (map_find_key(opt, v->keys[j], &k, o) == NULL || map_value(opt, idx, &k, v->items[j], o) != 0) {
            rc = -1;
            continue;
        }
        keys[m->n] = strdup(k.name);
        values[m->n] = strdup(v->items[j]->text);
        if (keys[m->n] == NULL || values[m->n] == NULL)
            return -1;
        m->n++;
    }
    for (size_t i = 0; opt->choices && opt->choices[i]; i++) {
        map_key k;
        map_key_parse(opt->choices[i], &k);
        if (k.required && tp_ymap_get(v, k.name) == NULL) {
            tp_diags_add(o->d, o->file, v->line, v->col,
                         "error: %s: option '%s': item %zu lacks the required key '%s'", o->who,
                         opt->name, idx, k.name);
            rc = -1;
        }
    }
    return rc;
}

static int set_maps(const tp_option *opt, void *field, const tp_ynode *v, const origin *o)
{
    tp_maplist *l = field;
    free_maps(l);
    if (v->type != TP_YNODE_SEQ) {
        REPORT(o, "error: %s: option '%s' must be %s", o->who, opt->name, type_name(opt->type));
        return -1;
    }
    tp_optmap *items = calloc(v->n ? v->n : 1, sizeof *items);
    if (items == NULL)
        return -1;
    l->items = items;
    l->n = v->n;
    int rc = 0;
    for (size_t i = 0; i < v->n; i++)
        rc |= set_map(opt, i, &items[i], v->items[i], o);
    return rc;
}

static int clone_maps(tp_maplist *to, const tp_maplist *from)
{
    tp_optmap *items = calloc(from->n ? from->n : 1, sizeof *items);
    to->items = items;
    to->n = 0;
    if (items == NULL)
        return 0;
    for (size_t i = 0; i < from->n; i++) {
        const tp_optmap *f = &from->items[i];
        char **keys = calloc(f->n ? f->n : 1, sizeof *keys), **values = calloc(f->n ? f->n : 1, sizeof *values);
        items[i].keys = (const char *const *)keys;
        items[i].values = (const char *const *)values;
        to->n = i + 1;
        if (keys == NULL || values == NULL)
            return 0;
        for (size_t j = 0; j < f->n; j++) {
            keys[j] = strdup(f->keys[j]);
            values[j] = strdup(f->values[j]);
            items[i].n = j + 1;
            if (keys[j] == NULL || values[j] == NULL)
                return 0;
        }
    }
    return 1;
}

static int set_from_node(const tp_option *opt, void *field, const tp_ynode *v, const origin *o)
{
    if (opt->type == TP_OPT_MAP_LIST)
        return set_maps(opt, field, v, o);
    if (opt->type == TP_OPT_LIST)
        return set_list(opt, field, v, o);
    if (opt->type == TP_OPT_INT_LIST || opt->type == TP_OPT_FLOAT_LIST)
        return set_numbers(opt, field, v, o);
    if (v->type != TP_YNODE_SCALAR) {
        REPORT(o, "error: %s: option '%s' must be %s, not a %s", o->who, opt->name,
               type_name(opt->type), v->type == TP_YNODE_MAP ? "mapping" : "list");
        return -1;
    }
    return set_scalar(opt, field, v->text, v->quoted, o);
}

static int apply_default(const tp_option *opt, void *field, const origin *o)
{
    if (opt->def == NULL || opt->type == TP_OPT_MAP_LIST) /* a list of mappings has no default */
        return 0;
    origin od = *o;
    od.line = od.col = 0;
    if (opt->type == TP_OPT_LIST || opt->type == TP_OPT_INT_LIST ||
        opt->type == TP_OPT_FLOAT_LIST) {
        tp_ynode scalar = {.type = TP_YNODE_SCALAR, .text = (char *)opt->def};
        return set_from_node(opt, field, &scalar, &od);
    }
    return set_scalar(opt, field, opt->def, false, &od);
}

static bool is_reserved(const char *key, const char *const *reserved)
{
    for (size_t i = 0; reserved && reserved[i]; i++)
        if (strcmp(key, reserved[i]) == 0)
            return true;
    return false;
}

static const tp_option *find_option(const tp_option *schema, const char *name)
{
    for (const tp_option *opt = schema; opt && opt->name; opt++)
        if (strcmp(opt->name, name) == 0)
            return opt;
    return NULL;
}

static void report_unknown(const tp_option *schema, const tp_ynode *key, const origin *o)
{
    const char *names[256] = {0};
    size_t n = 0;
    char all[1024] = "";
    for (const tp_option *opt = schema; opt && opt->name && n < 256; opt++) {
        names[n++] = opt->name;
        size_t used = strlen(all);
        snprintf(all + used, sizeof all - used, "%s%s", n > 1 ? ", " : "", opt->name);
    }
    const char *near = tp_closest(key->text, names, n);
    tp_diags_add(o->d, o->file, key->line, key->col,
                 "error: %s: unknown option '%s'%s%s%s; valid options: %s", o->who, key->text,
                 near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "",
                 n ? all : "(none)");
}

void *tp_options_build(const tp_option *schema, size_t config_size, const tp_ynode *stage,
                       const char *const *reserved, const char *file, const char *who,
                       tp_diags *d)
{
    return tp_options_build_given(schema, config_size, stage, reserved, file, who, d, NULL, NULL);
}

void *tp_options_build_given(const tp_option *schema, size_t config_size, const tp_ynode *stage,
                             const char *const *reserved, const char *file, const char *who,
                             tp_diags *d, const char *given, const char *value)
{
    size_t errors = d->n;
    origin o = {file, stage ? stage->line : 0, stage ? stage->col : 0, who, d};
    void *config = calloc(1, config_size ? config_size : 1);
    if (config == NULL)
        return NULL;
    for (const tp_option *opt = schema; opt && opt->name; opt++) {
        size_t fs = tp_option_field_size(opt->type);
        if (fs == 0 || opt->offset + fs > config_size) {
            REPORT(&o, "error: %s: plugin bug: option '%s' lies outside its config struct", who,
                   opt->name);
            continue;
        }
        if (apply_default(opt, (char *)config + opt->offset, &o) != 0)
            REPORT(&o, "error: %s: plugin bug: bad default '%s' for option '%s'", who, opt->def,
                   opt->name);
    }
    for (size_t i = 0; stage && i < stage->n; i++) {
        const tp_ynode *key = stage->keys[i];
        if (is_reserved(key->text, reserved))
            continue;
        const tp_option *opt = find_option(schema, key->text);
        if (opt == NULL) {
            report_unknown(schema, key, &o);
            continue;
        }
        origin ov = o;
        ov.line = stage->items[i]->line;
        ov.col = stage->items[i]->col;
        if (opt->offset + tp_option_field_size(opt->type) <= config_size)
            set_from_node(opt, (char *)config + opt->offset, stage->items[i], &ov);
    }
    const tp_option *g = given ? find_option(schema, given) : NULL;
    if (g && g->type == TP_OPT_STRING && g->offset + sizeof(char *) <= config_size) {
        char **field = (char **)(void *)((char *)config + g->offset), *copy = strdup(value);
        if (copy == NULL)
            REPORT(&o, "error: out of memory");
        free(*field);
        *field = copy;
    }
    for (const tp_option *opt = schema; opt && opt->name; opt++)
        if ((opt->flags & TP_OPT_REQUIRED) && opt != g && tp_ymap_get(stage, opt->name) == NULL)
            REPORT(&o, "error: %s: missing required option '%s' (%s)", who, opt->name,
                   opt->help ? opt->help : type_name(opt->type));
    if (d->n > errors) {
        tp_options_free(schema, config);
        return NULL;
    }
    return config;
}

void tp_options_free(const tp_option *schema, void *config)
{
    if (config == NULL)
        return;
    for (const tp_option *opt = schema; opt && opt->name; opt++) {
        void *field = (char *)config + opt->offset;
        if (opt->type == TP_OPT_STRING)
            free(*(char **)field);
        else if (opt->type == TP_OPT_LIST)
            free_list(field);
        else if (opt->type == TP_OPT_INT_LIST || opt->type == TP_OPT_FLOAT_LIST)
            free_numbers(field);
        else if (opt->type == TP_OPT_MAP_LIST)
            free_maps(field);
    }
    free(config);
}

void *tp_options_clone(const tp_option *schema, size_t config_size, const void *config,
                       const char *replace, const char *value)
{
    char *c = malloc(config_size ? config_size : 1);
    if (c == NULL)
        return NULL;
    memcpy(c, config, config_size);
    int ok = 1;
    for (const tp_option *opt = schema; opt && opt->name; opt++) { /* own copies, or NULL */
        void *field = c + opt->offset;
        if (opt->type == TP_OPT_STRING)
            *(char **)field = NULL;
        else if (opt->type == TP_OPT_LIST || opt->type == TP_OPT_INT_LIST ||
                 opt->type == TP_OPT_FLOAT_LIST || opt->type == TP_OPT_MAP_LIST)
            memset(field, 0, sizeof(tp_strlist));
    }
    for (const tp_option *opt = schema; ok && opt && opt->name; opt++) {
        const void *from = (const char *)config + opt->offset;
        void *field = c + opt->offset;
        if (opt->type == TP_OPT_STRING) {
            const char *s = replace && strcmp(opt->name, replace) == 0 ? value
                                                                       : *(char *const *)from;
            ok = s == NULL || (*(char **)field = strdup(s)) != NULL;
        } else if (opt->type == TP_OPT_LIST) {
            const tp_strlist *l = from;
            char **items = calloc(l->n ? l->n : 1, sizeof *items);
            ok = items != NULL;
            ((tp_strlist *)field)->items = (const char *const *)items;
            for (size_t i = 0; ok && i < l->n; i++) {
                ok = (items[i] = strdup(l->items[i])) != NULL;
                ((tp_strlist *)field)->n = i + 1;
            }
        } else if (opt->type == TP_OPT_INT_LIST || opt->type == TP_OPT_FLOAT_LIST) {
            const tp_intlist *l = from; /* tp_floatlist has the same shape and cell size */
            void *items = malloc((l->n ? l->n : 1) * sizeof(int64_t));
            ok = items != NULL;
            if (ok && l->n)
                memcpy(items, l->items, l->n * sizeof(int64_t));
            ((tp_intlist *)field)->items = items;
            ((tp_intlist *)field)->n = ok ? l->n : 0;
        } else if (opt->type == TP_OPT_MAP_LIST) {
            ok = clone_maps(field, from);
        }
    }
    if (!ok) {
        tp_options_free(schema, c);
        return NULL;
    }
    return c;
}

const tp_option *tp_option_with_role(const tp_stage_desc *desc, unsigned role)
{
    const unsigned roles = TP_OPT_INPUT_FILE | TP_OPT_OUTPUT_FILE;
    bool any_role = false;
    for (const tp_option *o = desc->options; o && o->name; o++) {
        if (o->type == TP_OPT_STRING && (o->flags & role))
            return o;
        any_role |= (o->flags & roles) != 0;
    }
    /* a plugin built before roles (ABI < 3.4): a reader reads, a writer
     * writes, the string option named "path" */
    tp_stage_kind kind = role == TP_OPT_INPUT_FILE ? TP_STAGE_READER : TP_STAGE_WRITER;
    if (any_role || desc->kind != kind)
        return NULL;
    for (const tp_option *o = desc->options; o && o->name; o++)
        if (o->type == TP_OPT_STRING && strcmp(o->name, "path") == 0)
            return o;
    return NULL;
}
