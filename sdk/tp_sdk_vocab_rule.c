/* SDK: the vocabulary's names and its rule syntax (tp_sdk_vocab.h).  Apart
 * from tp_sdk_vocab.c because the core links it too, to validate the
 * pipeline's `vocabulary:` with the very parser the SDK reads it with. */
#include <string.h>
#include <tracepipe/tp_sdk_vocab.h>

static const char *const launch_names[] = {"none", "kernel", "memcpy", "memset",
                                           "graph", "sync", "host_func"};
static const char *const coll_names[] = {"none", "all_reduce", "all_gather", "reduce_scatter",
                                         "all_to_all", "broadcast", "reduce", "send_recv",
                                         "other"};
static const char *const mem_names[] = {"none", "memcpy", "memset"};
static const char *const side_names[] = {"none", "host", "gpu"};
static const char *const table_names[] = {"launch_apis", "collectives", "memory", "annotations",
                                          "modules"};

const char *tp_launch_what_name(tp_launch_what w)
{
    return (unsigned)w < TP_LAUNCHES__COUNT ? launch_names[w] : "none";
}
const char *tp_coll_type_name(tp_coll_type t)
{
    return (unsigned)t < TP_COLL__COUNT ? coll_names[t] : "none";
}
const char *tp_mem_what_name(tp_mem_what w)
{
    return (unsigned)w < TP_MEM__COUNT ? mem_names[w] : "none";
}
const char *tp_annot_side_name(tp_annot_side s)
{
    return (unsigned)s < TP_ANNOT__COUNT ? side_names[s] : "none";
}
const char *tp_vocab_table_name(tp_vocab_table t)
{
    return (unsigned)t < TP_VOCAB__COUNT ? table_names[t] : "";
}

/* The index of the n bytes at s in names[1..count), or 0. */
static int what_of(const char *const *names, int count, const char *s, size_t n)
{
    for (int i = 1; i < count; i++)
        if (strlen(names[i]) == n && memcmp(names[i], s, n) == 0)
            return i;
    return 0;
}

const char *tp_vocab_parse_rule(tp_vocab_table t, const char *item, tp_vocab_rule *rule)
{
    static const struct {
        const char *const *names;
        int count, bare_ok;
    } tables[] = {{launch_names, TP_LAUNCHES__COUNT, 0}, {coll_names, TP_COLL__COUNT, 1},
                  {mem_names, TP_MEM__COUNT, 1},         {side_names, TP_ANNOT__COUNT, 0},
                  {NULL, 0, 1}};
    if (item == NULL || item[0] == '\0')
        return "an empty name";
    rule->match = item;
    rule->what = 0;
    if ((unsigned)t >= TP_VOCAB__COUNT || tables[t].names == NULL)
        return NULL;
    const char *eq = strchr(item, '=');
    if (eq == NULL)
        return tables[t].bare_ok ? NULL : "needs WHAT=PATTERN";
    rule->what = what_of(tables[t].names, tables[t].count, item, (size_t)(eq - item));
    rule->match = eq + 1;
    if (rule->what == 0)
        return "unknown WHAT before '='";
    return rule->match[0] ? NULL : "an empty pattern after '='";
}

