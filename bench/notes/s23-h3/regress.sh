#!/bin/sh
# Regression rounds, base then branch: LUBM-like events, LUBM-like and DAG-R CPU. regress.sh OUTDIR ROUNDS
out=$1; rounds=$2
mkdir -p $out
for i in $(seq 1 $rounds); do
  for t in base:/tmp/base-h3 branch:/work/wt-h3; do
    name=${t%%:*}; tree=${t#*:}
    PYTHONPATH=$tree/src python $tree/bench/maint_events.py lubm 1000 dred > $out/events-$name-$i.txt 2>&1
    PYTHONPATH=$tree/src python $tree/bench/maint_closure_cpu.py lubm 1000 7 after:auto,remat:auto > $out/lubm-$name-$i.txt 2>&1
    PYTHONPATH=$tree/src python $tree/bench/maint_closure_cpu.py dag-r 1000 3 after:auto,remat:auto > $out/dagr-$name-$i.txt 2>&1
  done
done
