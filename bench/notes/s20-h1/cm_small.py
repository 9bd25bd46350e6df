import sys
sys.path.insert(0, sys.argv[1] + "/bench")
import compaction_micro as cm
from deltalog.storage.relation import Relation
from deltalog.backends.local.memory import small_pages
orig = Relation.compact
def compact(self):
    with small_pages():
        orig(self)
Relation.compact = compact
cm.main()
