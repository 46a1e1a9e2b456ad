#!/bin/sh
# Renders the PNG plots of a cudavision-tune report directory:
#   tools/tune/plot.sh DIR
# DIR holds plot.gp and data/*.dat, written by cudavision-tune --report DIR
# (the GPU machine may have no gnuplot: copy DIR here and run this).
set -eu
if [ $# -ne 1 ] || [ ! -f "$1/plot.gp" ]; then
  echo "usage: $0 DIR   (DIR from cudavision-tune --report DIR, with plot.gp in it)" >&2
  exit 2
fi
if ! command -v gnuplot >/dev/null 2>&1; then
  echo "$0: gnuplot is not installed (Debian: apt-get install gnuplot-nox)" >&2
  exit 1
fi
cd "$1"
gnuplot plot.gp
n=$(ls -1 *.png 2>/dev/null | wc -l)
echo "$n plots in $1"
