/*
 * Declarative stage options.  A stage lists its options in a table; the core
 * validates the YAML pipeline against it before anything runs, fills a
 * zeroed config struct of config_size bytes at the given offsets, and hands
 * it to the stage as const.  The core owns every value in it (strings
 * included) until the pipeline is freed.
 */
#ifndef TRACEPIPE_TP_OPTION_H
#define TRACEPIPE_TP_OPTION_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tp_opt_type {
    TP_OPT_BOOL = 1,   /* field: int (0 or 1); YAML true/false/yes/no/on/off */
    TP_OPT_INT = 2,    /* field: int64_t */
    TP_OPT_FLOAT = 3,  /* field: double */
    TP_OPT_STRING = 4, /* field: const char * (NULL when absent without default) */
    TP_OPT_CHOICE = 5, /* field: const char *, one of `choices` */
    TP_OPT_LIST = 6,   /* field: tp_strlist; a YAML sequence of scalars or one scalar */
    /* --- since 3.0 --- */
    TP_OPT_INT_LIST = 7,   /* field: tp_intlist; integers, each checked against min/max */
    TP_OPT_FLOAT_LIST = 8, /* field: tp_floatlist; numbers, each checked against min/max */
    TP_OPT_ENUM = 9,       /* field: int, the index in `choices` of the value given */
    TP_OPT_MAP_LIST = 10   /* field: tp_maplist; a YAML sequence of mappings (below) */
} tp_opt_type;

/* A list of strings, as TP_OPT_LIST fields hold it. */
typedef struct tp_strlist {
    size_t n;
    const char *const *items;
} tp_strlist;

/* Lists of numbers, as TP_OPT_INT_LIST and TP_OPT_FLOAT_LIST fields hold them. */
typedef struct tp_intlist {
    size_t n;
    const int64_t *items;
} tp_intlist;
typedef struct tp_floatlist {
    size_t n;
    const double *items;
} tp_floatlist;

/* A list of mappings, as TP_OPT_MAP_LIST fields hold it (critical_path's
 * `what_if`).  The option's `choices` declares the keys a mapping may hold,
 * each "NAME[!][:TYPE[|WORD...]]": `!` marks a required key; TYPE is string
 * (the default), int, float or bool, and a value is checked as the scalar
 * option of that type would be (with TP_OPT_RANGE, min/max apply to every
 * number); WORDs are texts allowed besides the type
 * ("communication:float|overlapped").  Values are kept as written (strings);
 * tp_optmap_get reads one. */
typedef struct tp_optmap {
    size_t n;
    const char *const *keys;
    const char *const *values;
} tp_optmap;
typedef struct tp_maplist {
    size_t n;
    const tp_optmap *items;
} tp_maplist;

/* The value of key in m, or NULL when the mapping does not give it. */
static inline const char *tp_optmap_get(const tp_optmap *m, const char *key)
{
    for (size_t i = 0; i < m->n; i++) {
        const char *a = m->keys[i], *b = key;
        while (*a && *a == *b)
            a++, b++;
        if (*a == *b)
            return m->values[i];
    }
    return NULL;
}

enum {
    TP_OPT_REQUIRED = 1u << 0, /* the pipeline must give it */
    TP_OPT_RANGE = 1u << 1,    /* min/max apply (INT and FLOAT) */
    /* --- roles of file options (TP_OPT_STRING), since 3.4 --- */
    /* A file the stage reads.  A reader's input file is its trace (or
     * table): `--input` and a batch's traces replace it, the run never lets
     * an output overwrite it, `reader: auto` probes it. */
    TP_OPT_INPUT_FILE = 1u << 2,
    /* A file the stage writes.  A writer's output file is checked before
     * anything runs (its folder must be writable; {id} when one file per
     * result is written). */
    TP_OPT_OUTPUT_FILE = 1u << 3
};
/* A plugin built before 3.4 has no roles in its options: the core then
 * takes a reader's or writer's string option named "path" as its input or
 * output file, as it always did. */

typedef struct tp_option {
    const char *name;
    tp_opt_type type;
    unsigned flags;            /* TP_OPT_REQUIRED, TP_OPT_RANGE, a role (TP_OPT_*_FILE) */
    size_t offset;             /* offsetof(config struct, field) */
    const char *def;           /* default as YAML text, parsed like user input; NULL = none */
    double min, max;           /* inclusive range when TP_OPT_RANGE is set */
    const char *const *choices; /* NULL-terminated, for TP_OPT_CHOICE and TP_OPT_ENUM */
    const char *help;          /* one line */
    const void *reserved[2];   /* NULL; room for fields appended in 3.x */
} tp_option;

/* The part of tp_option every 3.x plugin has; the core reads a plugin's
 * option table with the stride the plugin declares (tp_stage_desc.option_size)
 * and treats fields past it as zero. */
#define TP_OPTION_MIN_SIZE offsetof(tp_option, reserved)

#define TP_OPTION_BOOL(NAME, T, FIELD, DEF, HELP) \
    { NAME, TP_OPT_BOOL, 0, offsetof(T, FIELD), DEF, 0, 0, NULL, HELP, {NULL, NULL} }
#define TP_OPTION_INT(NAME, T, FIELD, DEF, MIN, MAX, HELP) \
    { NAME, TP_OPT_INT, TP_OPT_RANGE, offsetof(T, FIELD), DEF, MIN, MAX, NULL, HELP, {NULL, NULL} }
#define TP_OPTION_FLOAT(NAME, T, FIELD, DEF, MIN, MAX, HELP) \
    { NAME, TP_OPT_FLOAT, TP_OPT_RANGE, offsetof(T, FIELD), DEF, MIN, MAX, NULL, HELP, {NULL, NULL} }
#define TP_OPTION_STRING(NAME, T, FIELD, DEF, HELP) \
    { NAME, TP_OPT_STRING, 0, offsetof(T, FIELD), DEF, 0, 0, NULL, HELP, {NULL, NULL} }
#define TP_OPTION_REQUIRED_STRING(NAME, T, FIELD, HELP) \
    { NAME, TP_OPT_STRING, TP_OPT_REQUIRED, offsetof(T, FIELD), NULL, 0, 0, NULL, HELP, {NULL, NULL} }
/* File options with their role (since 3.4): a string naming a file read
 * (INPUT) or written (OUTPUT). */
#define TP_OPTION_INPUT_FILE(NAME, T, FIELD, DEF, HELP) \
    { NAME, TP_OPT_STRING, TP_OPT_INPUT_FILE, offsetof(T, FIELD), DEF, 0, 0, NULL, HELP, {NULL, NULL} }
#define TP_OPTION_REQUIRED_INPUT_FILE(NAME, T, FIELD, HELP) \
    { NAME, TP_OPT_STRING, TP_OPT_REQUIRED | TP_OPT_INPUT_FILE, offsetof(T, FIELD), NULL, 0, 0, \
      NULL, HELP, {NULL, NULL} }
#define TP_OPTION_OUTPUT_FILE(NAME, T, FIELD, DEF, HELP) \
    { NAME, TP_OPT_STRING, TP_OPT_OUTPUT_FILE, offsetof(T, FIELD), DEF, 0, 0, NULL, HELP, {NULL, NULL} }
#define TP_OPTION_REQUIRED_OUTPUT_FILE(NAME, T, FIELD, HELP) \
    { NAME, TP_OPT_STRING, TP_OPT_REQUIRED | TP_OPT_OUTPUT_FILE, offsetof(T, FIELD), NULL, 0, 0, \
      NULL, HELP, {NULL, NULL} }
#define TP_OPTION_CHOICE(NAME, T, FIELD, DEF, CHOICES, HELP) \
    { NAME, TP_OPT_CHOICE, 0, offsetof(T, FIELD), DEF, 0, 0, CHOICES, HELP, {NULL, NULL} }
#define TP_OPTION_LIST(NAME, T, FIELD, HELP) \
    { NAME, TP_OPT_LIST, 0, offsetof(T, FIELD), NULL, 0, 0, NULL, HELP, {NULL, NULL} }
#define TP_OPTION_INT_LIST(NAME, T, FIELD, MIN, MAX, HELP) \
    { NAME, TP_OPT_INT_LIST, TP_OPT_RANGE, offsetof(T, FIELD), NULL, MIN, MAX, NULL, HELP, {NULL, NULL} }
#define TP_OPTION_FLOAT_LIST(NAME, T, FIELD, MIN, MAX, HELP) \
    { NAME, TP_OPT_FLOAT_LIST, TP_OPT_RANGE, offsetof(T, FIELD), NULL, MIN, MAX, NULL, HELP, {NULL, NULL} }
#define TP_OPTION_ENUM(NAME, T, FIELD, DEF, CHOICES, HELP) \
    { NAME, TP_OPT_ENUM, 0, offsetof(T, FIELD), DEF, 0, 0, CHOICES, HELP, {NULL, NULL} }
/* A list of mappings: KEYS declares the keys (tp_maplist above); numbers in [MIN, MAX]. */
#define TP_OPTION_MAP_LIST(NAME, T, FIELD, KEYS, MIN, MAX, HELP) \
    { NAME, TP_OPT_MAP_LIST, TP_OPT_RANGE, offsetof(T, FIELD), NULL, MIN, MAX, KEYS, HELP, {NULL, NULL} }
#define TP_OPTION_END { NULL, (tp_opt_type)0, 0, 0, NULL, 0, 0, NULL, NULL, {NULL, NULL} }

#ifdef __cplusplus
}
#endif
#endif
