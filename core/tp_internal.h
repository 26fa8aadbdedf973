/*
 * Core-internal declarations: a thin umbrella over the core modules'
 * headers, for the test suites.  Core sources include the headers of the
 * modules they use.  Never installed, never included by plugins.
 */
#ifndef TRACEPIPE_TP_INTERNAL_H
#define TRACEPIPE_TP_INTERNAL_H

#include "tp_core.h"
#include "tp_guard.h"
#include "tp_host.h"
#include "tp_loader.h"
#include "tp_options.h"
#include "tp_result.h"
#include "tp_run.h"
#include "tp_strpool.h"
#include "tp_trace.h"
#include "tp_yaml.h"
#include "batch/tp_batch.h"

#include <tracepipe/tp_sdk_json.h> /* tp_json_get: sdk/tp_sdk_json.c, linked into the core too */

#endif
