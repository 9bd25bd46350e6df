"""nocompact.py with the compaction rule dead >= 2 * live (3 * dead >= 2 * rows); argv: dataset k n."""
import sys, os
import deltalog.algorithms.maintain as mt
def compact_if_worthwhile(update):
    backend, scratch, checked = update.backend, set(update.workspace), update.reasoning.compaction_checked
    for relation in backend.relations():
        if relation in scratch:
            continue
        dead = backend.deleted_rows(relation=relation)
        if not dead or 3 * dead < 2 * checked.get(relation, 0):
            continue
        rows = backend.count(relation=relation, visible=-1)
        if 3 * dead >= 2 * rows:
            backend.compact(relation=relation)
            checked.pop(relation, None)
        else:
            checked[relation] = rows
mt.compact_if_worthwhile = compact_if_worthwhile
sys.argv.append("on")
exec(open("/tmp/h1/nocompact.py").read())
