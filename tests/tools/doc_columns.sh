#!/bin/sh
# The columns tables of the plugin pages against the declarations: for every
# stage that declares its result columns, docs/plugins/<stage>.md holds the
# output of `pipeline describe --markdown <stage>` between the lines
# "<!-- columns: begin (pipeline describe --markdown) -->" and
# "<!-- columns: end -->".
#   doc_columns.sh BUILD          check (exit 1 naming each page that differs)
#   doc_columns.sh BUILD --write  rewrite the blocks from the declarations
#                                 (a page without a block gets one appended
#                                 under "## Columns")
set -u
BUILD=${1:?usage: doc_columns.sh BUILD [--write]}
WRITE=${2:-}
PIPELINE="$BUILD/pipeline"
BEGIN='<!-- columns: begin (pipeline describe --markdown) -->'
END='<!-- columns: end -->'
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad=0 checked=0
for stage in $(TRACEPIPE_PLUGIN_PATH= "$PIPELINE" plugins 2>/dev/null | awk 'NR > 1 { print $2 }'); do
    TRACEPIPE_PLUGIN_PATH= "$PIPELINE" describe --markdown "$stage" >"$tmp/want" 2>/dev/null || continue
    doc="docs/plugins/$stage.md"
    checked=$((checked + 1))
    awk -v b="$BEGIN" -v e="$END" '$0 == e { on = 0 } on { print } $0 == b { on = 1 }' "$doc" \
        >"$tmp/have" 2>/dev/null
    if cmp -s "$tmp/want" "$tmp/have"; then continue; fi
    if [ "$WRITE" = "--write" ]; then
        if grep -qxF "$BEGIN" "$doc"; then
            awk -v b="$BEGIN" -v e="$END" -v f="$tmp/want" \
                '$0 == b { print; while ((getline l < f) > 0) print l; skip = 1; next }
                 $0 == e { skip = 0 } !skip { print }' "$doc" >"$tmp/new"
        else
            { cat "$doc"; printf '\n## Columns\n\nWhat `pipeline describe %s` prints (the declaration is the contract;\n`pipeline describe --json %s` gives a JSON Schema of each result).\n\n%s\n' \
                "$stage" "$stage" "$BEGIN"; cat "$tmp/want"; printf '%s\n' "$END"; } >"$tmp/new"
        fi
        cp "$tmp/new" "$doc"
        echo "doc_columns: wrote $doc"
    else
        echo "FAIL: docs: $doc: its columns tables differ from 'pipeline describe --markdown $stage'"
        diff "$tmp/want" "$tmp/have" | head -10
        bad=$((bad + 1))
    fi
done
echo "doc_columns: $checked pages with declared columns, $bad differ"
[ "$bad" = 0 ]
