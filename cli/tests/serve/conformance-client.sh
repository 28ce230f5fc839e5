#!/bin/sh
# The client the conformance suite's SEP-2640 client scenarios drive: the
# suite appends its server's URL. Like an agent, it lists the skills, then
# (except in the no-prefetch scenario) loads pdf-processing; what happened
# is written to $OUT for the test to check.
set -u
remote="c=mcp+$1"
"$SKILLHOST" catalog --no-bundled --remote "$remote" --json > "$OUT/catalog.json" 2> "$OUT/catalog.err" || exit 1
[ "$MCP_CONFORMANCE_SCENARIO" = sep-2640-client-no-prefetch ] && exit 0
if "$SKILLHOST" load c:pdf-processing --no-bundled --remote "$remote" > "$OUT/load.out" 2> "$OUT/load.err"; then
    echo loaded > "$OUT/outcome"
else
    echo refused > "$OUT/outcome"
fi
