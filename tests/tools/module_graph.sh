#!/usr/bin/env bash
# module_graph.sh SRCDIR: the module graph drawn in docs/HACKING.md is the one the code has.
# Each module's line lists the modules its files include ("../query/query.h" makes an edge to
# query); the block after HACKING.md's "module graph" marker must list exactly those edges, so
# the drawing cannot drift from the code (and a new edge is a visible change to the docs).
set -u
cd "$1" || exit 2
modules="core ingest import schema query report fleet cli"
actual=$(for m in $modules; do
  deps=$(grep -ho '#include "\.\./[a-z]*/' "$m"/*.[ch] 2>/dev/null | sed 's|#include "\.\./||; s|/||' |
    grep -vx "$m" | sort -u | tr '\n' ' ' | sed 's/ $//')
  printf '%-6s -> %s\n' "$m" "$deps" | sed 's/ *$//'
done)
drawn=$(awk '/<!-- module graph/ {on = 1; next} on && /^```$/ {if (inside) exit; inside = 1; next}
             inside {print}' docs/HACKING.md | sed 's/ *$//')
if [ "$actual" = "$drawn" ]; then
  echo "module_graph: 1 passed, 0 failed"
  exit 0
fi
echo "module_graph: docs/HACKING.md draws (left) a graph the code does not have (right):"
diff <(echo "$drawn") <(echo "$actual")
echo "module_graph: 0 passed, 1 failed"
exit 1
