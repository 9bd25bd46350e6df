#!/bin/sh
# Alternating rounds, base then branch, of a bench/maint_closure_cpu.py run: ab.sh OUTDIR ROUNDS ARGS...
out=$1; rounds=$2; shift 2
mkdir -p $out
for i in $(seq 1 $rounds); do
  for t in base:/tmp/base-h3 branch:/work/wt-h3; do
    name=${t%%:*}; tree=${t#*:}
    PYTHONPATH=$tree/src PYTHONDONTWRITEBYTECODE=1 python $tree/bench/maint_closure_cpu.py "$@" > $out/$name-$i.txt 2>&1
  done
done
