/*
 * tracepipe SDK: safe text.  UTF-8 validation for writers that must not
 * pass invalid bytes through (json, text, svg, html_report; the core's
 * diagnostics use the same function).
 */
#ifndef TRACEPIPE_TP_SDK_TEXT_H
#define TRACEPIPE_TP_SDK_TEXT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Length of the valid UTF-8 sequence starting at s (1 for ASCII), or 0 if
 * the bytes there are not valid UTF-8 (overlong forms, surrogates and code
 * points above U+10FFFF are invalid).  Stops at a NUL. */
size_t tp_utf8_len(const unsigned char *s);

#ifdef __cplusplus
}
#endif

#endif
