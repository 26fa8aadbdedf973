/* Hand-made event tables for the SDK suites (sdk_table.h). */
#include <string.h>

#include "tp_test.h"

#include "sdk_table.h"

static uint32_t track_of(table *t, int64_t pid, int64_t tid)
{
    for (size_t k = 0; k < t->c.n_tracks; k++)
        if (t->tracks[k].pid == pid && t->tracks[k].tid == tid)
            return (uint32_t)k;
    t->tracks[t->c.n_tracks] = (tp_track){.pid = pid, .tid = tid, .device = -1, .stream = -1};
    return (uint32_t)t->c.n_tracks++;
}

void sdk_table_fill(table *t, const spec *s, size_t n)
{
    memset(t, 0, sizeof *t);
    ck_assert_uint_le(n, MAXR);
    tp_host = tp_core_host_api();
    t->c.struct_size = (uint32_t)sizeof t->c;
    t->c.n = n;
    t->c.ts = t->ts;
    t->c.dur = t->dur;
    t->c.name = t->name;
    t->c.cat = t->cat;
    t->c.track = t->track;
    t->c.kind = t->kind;
    t->c.phase = t->phase;
    t->c.ext_id32 = t->ext;
    t->c.corr32 = t->corr;
    t->c.flow_id32 = t->flow;
    t->c.tracks = t->tracks;
    for (size_t i = 0; i < n; i++) {
        t->ts[i] = s[i].ts;
        t->dur[i] = s[i].dur;
        t->name[i] = s[i].name;
        t->cat[i] = s[i].cat;
        t->kind[i] = (uint8_t)s[i].kind;
        t->phase[i] = (uint8_t)s[i].ph;
        t->ext[i] = -1;
        t->corr[i] = s[i].corr;
        t->flow[i] = s[i].flow;
        t->track[i] = track_of(t, s[i].pid, s[i].tid);
    }
}
