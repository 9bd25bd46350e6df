#!/bin/sh
# Stop 21 h1's measurement run, base (/tmp/base-h1) beside branch (/work/wt-h1), outputs under /tmp/h1/final.
N=/work/wt-h1/bench/notes/s21-h1
O=/tmp/h1/final; mkdir -p $O
$N/ab.sh $O/claros 2 claros-15000 1000 10 after:auto,remat:auto
$N/ab.sh $O/dagr 1 dag-r 1000 5 after:auto,remat:auto
for i in 1 2; do for t in base:/tmp/base-h1 branch:/work/wt-h1; do
  echo "${t%%:*}" >> $O/lubm.txt; PYTHONPATH=${t#*:}/src python ${t#*:}/bench/maint_events.py lubm 1000 dred >> $O/lubm.txt 2>&1
done; done
for i in 1 2 3; do for t in base:/tmp/base-h1 branch:/work/wt-h1; do
  TREE=${t#*:} PYTHONPATH=${t#*:}/src python $N/mat.py claros-15000 >> $O/mat.txt 2>&1
done; done
for kind in delete add remat delete add remat; do for t in base:/tmp/base-h1 branch:/work/wt-h1; do
  echo -n "${t%%:*} " >> $O/store.txt
  TREE=${t#*:} PYTHONPATH=${t#*:}/src python $N/store_cli.py update claros-15000 /tmp/h1/store-claros-${t%%:*} 1000 0 $kind >> $O/store.txt 2>&1
done; done
echo done > $O/done
