"""first.py (bench/notes/s21-h1) with the CPU of Int64HashMap.taking_over printed.
Usage: TREE=<tree> PYTHONPATH=<tree>/src python take_timed.py DATASET MODE [samples]"""
import os, sys, time, runpy
from deltalog.storage.hashmap import Int64HashMap
orig = Int64HashMap.taking_over.__func__
def taking_over(cls, held, keys, values):
    c = time.process_time(); out = orig(cls, held, keys, values)
    if values.size > 1_000_000:
        print(f"  taking_over {values.size} keys: {time.process_time() - c:.3f}", flush=True)
    return out
Int64HashMap.taking_over = classmethod(taking_over)
sys.argv = [os.environ["TREE"] + "/bench/notes/s21-h1/first.py"] + sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
