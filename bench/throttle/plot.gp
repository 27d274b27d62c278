# SPDX-License-Identifier: GPL-2.0
# Resync throttle bench (tests/vm/bench-throttle): T3 timeline, in-tree md
# beside this stack.  gnuplot -e "datafile='...'; outfile='...';
# plottitle='...'" plot.gp.  Data: summary.py's t3-CONFIG-SYNC.dat (its
# first line carries the title), block 0 in-tree, block 1 fork; columns
# t_s, foreground IOPS, sync MiB/s.
set terminal pngcairo size 900,600 font ",10"
set output outfile
set multiplot layout 2,1 title plottitle
set grid
set key top right
set xlabel "s since the sync started"
set ylabel "foreground IOPS"
plot datafile index 0 using 1:2 with lines lw 2 title "in-tree", \
     datafile index 1 using 1:2 with lines lw 2 title "fork"
set ylabel "sync MiB/s"
plot datafile index 0 using 1:3 with lines lw 2 title "in-tree", \
     datafile index 1 using 1:3 with lines lw 2 title "fork"
unset multiplot
