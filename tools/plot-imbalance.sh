#!/usr/bin/env bash
# Draws the compute imbalance per interval of a fieldsync-heat run with a moving load (its
# printed output, with --load-extra or --rebalance) as a PNG with gnuplot, one marker per rebalance.
#   tools/plot-imbalance.sh OUTPUT.txt PLOT.png [TITLE]
# Several runs: pass "label=file" pairs separated by commas as OUTPUT.txt, e.g.
#   tools/plot-imbalance.sh "no rebalancing=a.txt,rebalancing=b.txt" plot.png
set -euo pipefail
if (($# < 2)); then
    echo "usage: $0 OUTPUT.txt[,label=file...] PLOT.png [TITLE]" >&2
    exit 2
fi
command -v gnuplot >/dev/null || {
    echo "plot-imbalance: gnuplot is missing (apt-get install gnuplot-nox)" >&2
    exit 1
}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$1" "$work" <<'PY'
import re, sys
runs, work = sys.argv[1], sys.argv[2]
pairs = [p.split("=", 1) if "=" in p else ("imbalance", p) for p in runs.split(",")]
script = []
for n, (label, path) in enumerate(pairs):
    rows, marks = [], []
    for line in open(path):
        m = re.search(r"steps (\d+)-(\d+): compute imbalance ([0-9.]+)", line)
        if m:
            rows.append((int(m.group(2)), float(m.group(3))))
        elif "rebalance (" in line and rows:
            marks.append(rows[-1])
    if not rows:
        sys.exit(f"plot-imbalance: no 'steps a-b: compute imbalance' lines in {path}")
    with open(f"{work}/run{n}.dat", "w") as f:
        f.writelines(f"{s} {v}\n" for s, v in rows)
    with open(f"{work}/marks{n}.dat", "w") as f:
        f.writelines(f"{s} {v}\n" for s, v in marks)
    script.append(f"'{work}/run{n}.dat' with linespoints lw 2 title '{label}'")
    if marks:
        script.append(f"'{work}/marks{n}.dat' with points pt 7 ps 1.5 title '{label}: rebalance'")
open(f"{work}/plot.gp", "w").write("plot " + ", ".join(script) + "\n")
PY
gnuplot <<EOF
set terminal pngcairo size 900,500
set output '$2'
set title '${3:-compute imbalance per interval (max / mean over ranks)}'
set xlabel 'time step'
set ylabel 'max / mean compute time'
set grid
set key top left
set yrange [0.95:*]
load '$work/plot.gp'
EOF
echo "wrote $2"
