/*
 * tp_json_find_key: find one key at the top level of a JSON object text
 * and return its raw value, without building a DOM.  Plugins use it (via
 * the host table) to read a single arg of an event.  It skips nested values
 * by bracket depth, honouring strings and escapes; it does not validate.
 */
#include "tp_internal.h"

#include <string.h>

static size_t skip_ws(const char *s, size_t i, size_t len)
{
    while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
        i++;
    return i;
}

/* s[i] == '"': returns the index just past the closing quote, or len. */
static size_t skip_string(const char *s, size_t i, size_t len)
{
    for (i++; i < len; i++) {
        if (s[i] == '\\')
            i++;
        else if (s[i] == '"')
            return i + 1;
    }
    return len;
}

/* Returns the index just past the value starting at i. */
static size_t skip_value(const char *s, size_t i, size_t len)
{
    if (i < len && s[i] == '"')
        return skip_string(s, i, len);
    int depth = 0;
    for (; i < len; i++) {
        char c = s[i];
        if (c == '"') {
            i = skip_string(s, i, len) - 1;
        } else if (c == '{' || c == '[') {
            depth++;
        } else if (c == '}' || c == ']') {
            if (depth == 0)
                return i;
            if (--depth == 0)
                return i + 1;
        } else if (c == ',' && depth == 0) {
            return i;
        }
    }
    return len;
}

static size_t trim_end(const char *s, size_t start, size_t end)
{
    while (end > start && (s[end - 1] == ' ' || s[end - 1] == '\t' || s[end - 1] == '\n' ||
                           s[end - 1] == '\r'))
        end--;
    return end;
}

const char *tp_json_find_key(const char *json, size_t len, const char *key, size_t *vlen)
{
    if (json == NULL || key == NULL)
        return NULL;
    size_t klen = strlen(key);
    const char *found = NULL;
    size_t found_len = 0;
    size_t i = skip_ws(json, 0, len);
    if (i >= len || json[i] != '{')
        return NULL;
    i++;
    for (;;) {
        i = skip_ws(json, i, len);
        if (i >= len || json[i] != '"')
            break;
        size_t kstart = i + 1, kend = skip_string(json, i, len);
        if (kend >= len)
            break;
        bool match = kend - 1 - kstart == klen && memcmp(json + kstart, key, klen) == 0;
        i = skip_ws(json, kend, len);
        if (i >= len || json[i] != ':')
            break;
        i = skip_ws(json, i + 1, len);
        size_t vend = skip_value(json, i, len);
        if (match) { /* a later duplicate replaces it */
            found = json + i;
            found_len = trim_end(json, i, vend) - i;
        }
        i = skip_ws(json, vend, len);
        if (i >= len || json[i] != ',')
            break;
        i++;
    }
    if (found && vlen)
        *vlen = found_len;
    return found;
}
