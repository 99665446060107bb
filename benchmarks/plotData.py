#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The benchmarks' JSON (as benchmarks/run_all writes it) -> gnuplot data and script.

    python3 benchmarks/plotData.py DIR

reads DIR/<bench>.json for halo_bench, setup_bench, peer_bench, pack_bench, collectives_bench,
backend_bench, algorithms_bench and hierarchy_bench (those present; where DIR holds several runs
of one benchmark instead, DIR/<bench>.1.json, DIR/<bench>.2.json, ..., of the same rows, each
number is their median), and writes DIR/plots/*.dat
(one block per series, blocks separated by two blank lines) and DIR/plots/plots.gp, which draws
one PNG per plot: times in microseconds against size (log-log), ratios against size (log x, a
dashed line at 1). Run `gnuplot plots.gp` inside DIR/plots.
"""
import json
import pathlib
import statistics
import sys

US = 1e6  # seconds -> microseconds


class Plots:
    """The plots collected so far: name -> (title, x label, y label, ratio?, series)."""

    def __init__(self):
        self.items = []

    def add(self, name, title, xlabel, series, ratio=False):
        """series: list of (label, [(x, y), ...]); points with x or y <= 0 are dropped."""
        kept = []
        for label, points in series:
            points = sorted((x, y) for x, y in points if x > 0 and y > 0)
            if points:
                kept.append((label, points))
        if kept:
            ylabel = "ratio" if ratio else "time per call (us)"
            self.items.append((name, title, xlabel, ylabel, ratio, kept))

    def write(self, folder):
        folder.mkdir(parents=True, exist_ok=True)
        script = []
        for name, title, xlabel, ylabel, ratio, series in self.items:
            with open(folder / (name + ".dat"), "w") as data:
                for label, points in series:
                    data.write("# " + label + "\n")
                    data.writelines("%g %g\n" % p for p in points)
                    data.write("\n\n")
            script += [
                "set terminal pngcairo size 960,600 noenhanced",
                "set output '%s.png'" % name,
                "set title '%s'" % title,
                "set xlabel '%s'" % xlabel,
                "set ylabel '%s'" % ylabel,
                "set logscale x 2",
                "unset logscale y" if ratio else "set logscale y 10",
                "set format x '%.0b%BB'" if "bytes" in xlabel else "set format x '%g'",
                "set grid",
                "set key outside right top",
            ]
            parts = [
                "'%s.dat' index %d with linespoints title '%s'" % (name, i, label)
                for i, (label, _) in enumerate(series)
            ]
            if ratio:
                parts.append("1 with lines dt 2 lc rgb 'gray' notitle")
            script.append("plot " + ", \\\n     ".join(parts))
            script.append("unset output")
        (folder / "plots.gp").write_text("\n".join(script) + "\n")
        return [item[0] for item in self.items]


def column(rows, x, y, scale=1.0):
    return [(r[x], r[y] * scale) for r in rows]


def ratio(rows, x, top, bottom):
    return [(r[x], r[top] / r[bottom]) for r in rows if r[bottom] > 0]


def groups(rows, *keys):
    """rows grouped by the values of keys, in first-seen order."""
    out = {}
    for r in rows:
        out.setdefault(tuple(r[k] for k in keys), []).append(r)
    return out


def medianOf(runs):
    """Several runs' JSON of the same rows -> one, each number the median over the runs."""
    first = runs[0]
    if isinstance(first, dict):
        return {k: medianOf([r[k] for r in runs]) for k in first}
    if isinstance(first, list):
        return [medianOf([r[i] for r in runs]) for i in range(len(first))]
    if isinstance(first, (int, float)) and not isinstance(first, bool):
        return statistics.median(runs)
    return first


def peer(d, plots):
    methods = [("fieldsync", "fieldsyncSeconds"), ("persist", "persistentSeconds"),
               ("nbrA2av", "neighbourSeconds"), ("petscSF", "petscSeconds"),
               ("tpetra", "tpetraSeconds"), ("fsLeft", "fieldsyncLeftSeconds"),
               ("persistLeft", "persistentLeftSeconds")]
    exchange = groups(d["exchange"], "mesh")
    for (mesh,), rows in exchange.items():
        series = []
        for (nc,), part in groups(rows, "components").items():
            series += [("%s %dc" % (m, nc), column(part, "ghostBytes", k, US))
                       for m, k in methods if k in part[0]]
        plots.add("peer_exchange_" + mesh, "peer_bench: one exchange, " + mesh,
                  "ghost bytes per rank", series)
    for key, what, name in (("fieldsyncOverBestPeer", "fieldsync / min(peers)", "best"),
                            ("fieldsyncOverPetsc", "fieldsync / PetscSF", "petsc"),
                            ("fieldsyncLeftOverPersistentLeft", "fsLeft / persistLeft", "left")):
        if key not in d["exchange"][0]:
            continue
        plots.add("peer_ratio_" + name,
                  "peer_bench: %s per exchange" % what, "ghost bytes per rank",
                  [("%s %dc" % k, column(rows, "ghostBytes", key))
                   for k, rows in groups(d["exchange"], "mesh", "components").items()], True)
    setup = groups(d["setUp"], "mesh")
    for (mesh,), rows in setup.items():
        names = ["fieldsync", "persist", "nbrGraph", "petscSF"]
        plots.add("peer_setup_" + mesh, "peer_bench: set-up, " + mesh, "ghosts per rank",
                  [(n, column(rows, "ghostsPerRank", k, US)) for n, (_, k) in zip(names, methods)])
    plots.add("peer_setup_ratio", "peer_bench: set-up, fieldsync / peer", "ghosts per rank",
              [("%s / %s" % (mesh, what), column(rows, "ghostsPerRank", key))
               for (mesh,), rows in setup.items()
               for key, what in (("fieldsyncOverBestPeer", "min"), ("fieldsyncOverPetsc", "sf"))],
              True)


def halo(d, plots):
    rows = d["exchange"]
    names = [("raw MPI", "raw_s"), ("comm", "communicator_contiguous_s"),
             ("isend", "communicator_isend_s"), ("persist", "communicator_persistent_s"),
             ("scatter", "communicator_scattered_s")]
    x = "bytes_per_neighbour"
    plots.add("halo_exchange", "halo_bench: exchange with 2 neighbours", "bytes per neighbour",
              [(n, column(rows, x, k, US)) for n, k in names])
    plots.add("halo_ratio", "halo_bench: fieldsync / raw MPI", "bytes per neighbour",
              [(n, ratio(rows, x, k, "raw_s")) for n, k in names[1:]], True)
    pack = d["pack"]
    plots.add("halo_pack", "halo_bench: pack against memcpy", "bytes",
              [(n, column(pack, "bytes", k, US))
               for n, k in (("memcpy", "memcpy_s"), ("pack", "pack_s"), ("indexed", "indexed_s"))])
    plots.add("halo_pack_speed", "halo_bench: pack speed / memcpy speed", "bytes",
              [("pack", column(pack, "bytes", "pack_over_memcpy_speed")),
               ("indexed", column(pack, "bytes", "indexed_over_memcpy_speed"))], True)


def setup(d, plots):
    rows = d["rows"]
    x = "ghostsPerRank"
    series = [("ghostList", "ghostListSeconds"), ("petscSF", "petscSetUpSeconds"),
              ("builder", "builderSeconds")]
    if rows and "floorSeconds" in rows[0]:  # one pass over the builder's input (newer runs)
        series.append(("floor", "floorSeconds"))
    plots.add("setup_time", "setup_bench: set-up of a halo pattern", "ghosts per rank",
              [(n, column(rows, x, k, US)) for n, k in series])
    plots.add("setup_ratio", "setup_bench: set-up / PetscSF set-up", "ghosts per rank",
              [("ghostList", column(rows, x, "ghostListOverPetsc")),
               ("builder", column(rows, x, "builderOverPetsc"))], True)


def collectives(d, plots):
    by_op = groups(d["collectives"], "operation")
    for (op,), rows in by_op.items():
        safe = op.replace("(", "").replace(")", "").replace("&", "Ref")
        series = []
        for (form,), part in groups(rows, "form").items():
            series += [("native " + form, column(part, "bytes", "native_us")),
                       ("fieldsync " + form, column(part, "bytes", "fieldsync_us"))]
        plots.add("collectives_" + safe, "collectives_bench: " + op, "bytes per block", series)
    for (form,), rows in groups(d["collectives"], "form").items():
        plots.add("collectives_ratio_" + form, "collectives_bench: fieldsync / native, " + form,
                  "bytes per block",
                  [(op, column(part, "bytes", "ratio")) for (op,), part in
                   groups(rows, "operation").items()], True)
    fused = d.get("fused", [])
    plots.add("collectives_fused", "collectives_bench: ReductionBatch of k scalars", "k",
              [(n, column(fused, "k", k)) for n, k in (
                  ("one allreduce", "native_us"), ("batch", "batch_us"),
                  ("i-allreduce", "inative_us"), ("i-batch", "ibatch_us"),
                  ("separate", "separate_us"))])
    plots.add("collectives_fused_ratio", "collectives_bench: ReductionBatch / one allreduce", "k",
              [(n, column(fused, "k", k)) for n, k in (
                  ("batch", "ratio"), ("i-batch", "iratio"), ("separate", "separate_ratio"))],
              True)


def backend(d, plots):
    for (nc,), rows in groups(d, "components").items():
        names = (("p2p", "p2p_s"), ("neighbour", "neighbour_s"), ("auto", "auto_s"))
        if any(r.get("persistent_s", 0) > 0 for r in rows):  # where MPI has it
            names += (("persistent", "persistent_s"),)
        plots.add("backend_%dc" % nc, "backend_bench: back ends, %d components" % nc,
                  "ghost bytes per rank", [(n, column(rows, "ghost_bytes", k, US)) for n, k in names])
        plots.add("backend_ratio_%dc" % nc, "backend_bench: / p2p, %d components" % nc,
                  "ghost bytes per rank",
                  [(n, ratio(rows, "ghost_bytes", k, "p2p_s")) for n, k in names[1:]], True)


def algorithms(d, plots):
    for (coll,), rows in groups(d["rows"], "collective").items():
        series = [("native", column(rows, "bytes", "native_s", US))]
        series += [(alg, column(part, "bytes", "algorithm_s", US))
                   for (alg,), part in groups(rows, "algorithm").items()]
        plots.add("algorithms_" + coll, "algorithms_bench: " + coll, "bytes", series)
        plots.add("algorithms_ratio_" + coll, "algorithms_bench: %s, algorithm / native" % coll,
                  "bytes", [(alg, ratio(part, "bytes", "algorithm_s", "native_s"))
                            for (alg,), part in groups(rows, "algorithm").items()], True)


def hierarchy(d, plots):
    rows = d["rows"]
    keys = [k for k in rows[0] if k.endswith("_s")] if rows else []
    plots.add("hierarchy", "hierarchy_bench: allreduce", "bytes",
              [(k[:-2], column(rows, "bytes", k, US)) for k in keys])
    plots.add("hierarchy_ratio", "hierarchy_bench: / Native", "bytes",
              [(k[:-2], ratio(rows, "bytes", k, "Native_s")) for k in keys if k != "Native_s"],
              True)


def pack(d, plots):
    """pack_bench: speed / memcpy speed of the pack by runs and by the gather on the METIS send
    lists, one line per form and component count, against the packed bytes."""
    rows = [r for r in d["rows"] if r["list"].startswith("metis3d") and r["list"].endswith("send")]
    series = []
    for (nc,), part in groups(rows, "components").items():
        series += [("%s %dc" % (name, nc), ratio(part, "bytes", "memcpy_s", key))
                   for name, key in (("runs", "runs_s"), ("gather", "gather_s"))]
    plots.add("pack_speed", "pack_bench: pack speed / memcpy speed, METIS send lists", "bytes",
              series, True)


READERS = {"peer_bench": peer, "pack_bench": pack, "halo_bench": halo, "setup_bench": setup,
           "collectives_bench": collectives, "backend_bench": backend,
           "algorithms_bench": algorithms, "hierarchy_bench": hierarchy}


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: plotData.py DIR (the folder of the benchmarks' JSON files)")
    folder = pathlib.Path(sys.argv[1])
    plots = Plots()
    for name, read in READERS.items():
        path = folder / (name + ".json")
        runs = sorted(folder.glob(name + ".*.json"))
        if path.exists():
            read(json.loads(path.read_text()), plots)
        elif runs:
            read(medianOf([json.loads(run.read_text()) for run in runs]), plots)
    names = plots.write(folder / "plots")
    print("plotData: %d plots described in %s" % (len(names), folder / "plots" / "plots.gp"))


if __name__ == "__main__":
    main()
