#!/bin/sh
# Outputs of this tree and a base tree on the wall_ab cases, compared as sorted lines (row order follows ids).
#   sh bench/notes/s23-h1/same_outputs.sh /tmp/base-h1/src
BASE=$1; HERE=$(cd "$(dirname "$0")/../../.." && pwd)
for c in wl-reach-tiny wl-pipeline wl-reach-1m wl-sg-small dag-s-linear pc chain-linear rs1-200 wl-sg-forest; do
  D=$HERE/bench/data/$c
  for t in branch base; do
    rm -rf /tmp/same_out_$t; src=$HERE/src; [ $t = base ] && src=$BASE
    (cd /tmp && PYTHONPATH=$src python -m deltalog run $D/program.dl --facts $D/facts --out /tmp/same_out_$t --quiet)
  done
  ok=same
  for f in /tmp/same_out_base/*; do
    cmp -s "$f" "/tmp/same_out_branch/$(basename "$f")" && continue
    if [ "$(sort "$f" | md5sum)" = "$(sort "/tmp/same_out_branch/$(basename "$f")" | md5sum)" ]; then ok="same sorted"; else ok=DIFFERENT; fi
  done
  [ "$(ls /tmp/same_out_base)" = "$(ls /tmp/same_out_branch)" ] || ok="DIFFERENT FILES"
  echo "$c: $ok"
done
