#!/bin/bash
# usage: ab.sh OUTDIR ROUNDS DATASET K SAMPLES
out=$1; rounds=$2; shift 2
mkdir -p $out
for r in $(seq 1 $rounds); do
  for t in base branch; do
    src=/tmp/base-h1; [ $t = branch ] && src=/work/wt-h1
    (cd $src && PYTHONPATH=$src/src PYTHONDONTWRITEBYTECODE=1 python bench/maint_closure_cpu.py "$@" after:auto,remat:auto > $out/$t-$r.txt 2>&1)
  done
done
