#!/usr/bin/env bash
# Draws the time per iteration of poisson_bench runs (their printed output, one file per size)
# against cells per rank as a PNG with gnuplot: fieldsync's CG and pipelined CG, PETSc's KSPCG
# and KSPPIPECG (assembled AIJ and matrix-free shell), log-log, and fieldsync over PETSc's faster
# form beside it.
#   tools/plot-poisson.sh PLOT.png RUN.txt [RUN.txt ...]
set -euo pipefail
if (($# < 2)); then
    echo "usage: $0 PLOT.png RUN.txt [RUN.txt ...]" >&2
    exit 2
fi
command -v gnuplot >/dev/null || {
    echo "plot-poisson: gnuplot is missing (apt-get install gnuplot-nox)" >&2
    exit 1
}
out=$1
shift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$work" "$@" <<'PY'
import re, sys
work, paths = sys.argv[1], sys.argv[2:]
names = ["fieldsync CG", "fieldsync pipelined CG", "PETSc CG, AIJ", "PETSc PIPECG, AIJ",
         "PETSc CG, shell", "PETSc PIPECG, shell"]
rows = []
for path in paths:
    text = open(path).read()
    m = re.search(r"(\d+) cells .*?, (\d+) ranks", text)
    if not m:
        sys.exit(f"plot-poisson: no 'N cells ..., R ranks' header in {path}")
    cells = int(m.group(1)) / int(m.group(2))
    us = {}
    for name in names:
        t = re.search(re.escape(name) + r"\s+([0-9.]+)", text)
        if not t:
            sys.exit(f"plot-poisson: no '{name}' row in {path}")
        us[name] = float(t.group(1))
    rows.append((cells, [us[n] for n in names]))
rows.sort()
with open(f"{work}/t.dat", "w") as f:
    for cells, v in rows:
        cg = v[0] / min(v[2], v[4])
        pipe = v[1] / min(v[3], v[5])
        f.write(f"{cells} {' '.join(map(str, v))} {cg} {pipe}\n")
PY
gnuplot <<EOF
set terminal pngcairo size 1200,500
set output '$out'
set multiplot layout 1,2
set logscale xy
set grid
set key top left
set xrange [500:2000000]
set xlabel 'cells per rank'
set ylabel 'us per iteration (median)'
set title 'time per iteration'
plot '$work/t.dat' using 1:2 with linespoints lw 2 title 'fieldsync CG', \
     '' using 1:3 with linespoints lw 2 title 'fieldsync pipelined CG', \
     '' using 1:4 with linespoints dt 2 title 'PETSc CG (AIJ)', \
     '' using 1:5 with linespoints dt 2 title 'PETSc PIPECG (AIJ)', \
     '' using 1:6 with linespoints dt 3 title 'PETSc CG (shell)', \
     '' using 1:7 with linespoints dt 3 title 'PETSc PIPECG (shell)'
unset logscale y
set ylabel 'fieldsync / PETSc (faster form)'
set title 'ratio (below 1: fieldsync faster)'
set yrange [0.5:1.2]
plot '$work/t.dat' using 1:8 with linespoints lw 2 title 'CG / KSPCG', \
     '' using 1:9 with linespoints lw 2 title 'pipelined CG / KSPPIPECG', \
     1.0 with lines lc rgb 'black' notitle
unset multiplot
EOF
echo "wrote $out"
