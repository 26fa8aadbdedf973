/*
 * tracepipe plugin SDK: helpers a plugin links in from libtracepipe-sdk.a
 * (`pkg-config --libs tracepipe`).  They are plain functions with no state
 * of the core's: a plugin built against this SDK carries its own copy, so it
 * keeps working with every core of the same ABI major version, and the
 * core's own interface stays the host table of tp_plugin.h.
 *
 * The archive is compiled with hidden visibility: linked into a plugin, its
 * functions are not exported from the plugin's shared object.
 *
 * Include this umbrella header or the tp_sdk_*.h part a plugin needs.  The
 * PCRE2 parts, tp_sdk_regex.h and tp_sdk_markers.h, are not in the
 * umbrella: a plugin using them includes them and links libpcre2-8.
 */
#ifndef TRACEPIPE_TP_SDK_H
#define TRACEPIPE_TP_SDK_H

#include "tp_sdk_intervals.h"
#include "tp_sdk_json.h"
#include "tp_sdk_rows.h"
#include "tp_sdk_memkind.h"
#include "tp_sdk_sort.h"
#include "tp_sdk_stats.h"
#include "tp_sdk_output.h"
#include "tp_sdk_trace.h"
#include "tp_sdk_tree.h"
#include "tp_sdk_hier.h"
#include "tp_sdk_text.h"
#include "tp_sdk_topn.h"
#include "tp_sdk_presets.h"
#include "tp_sdk_gemm.h"
#include "tp_sdk_opmodel.h"
#include "tp_sdk_kname.h"
#include "tp_sdk_calib.h"
#include "tp_sdk_vocab.h"
#include "tp_sdk_serving.h"
#include "tp_sdk_graphs.h"
#include "tp_sdk_alloc.h"
#include "tp_sdk_cupti.h"
#include "tp_sdk_digest.h"
#include "tp_sdk_rows.h"
#include "tp_sdk_memkind.h"
#include "tp_sdk_launch.h"
#include "tp_sdk_ext.h"
#include "tp_sdk_spill.h"

#endif
