#!/usr/bin/env python3
"""The set-up model of doc/notes/scaling.md: time and memory per rank of a halo set-up up to 100k ranks.

Reads setup_bench JSON files (benchmarks/setupBench.cpp, one per rank count) and fits, by least
squares over the measured rows:

  memory (heap bytes a set-up keeps, per rank, every rank of every file):
      bytes = a + b * neighbours + c * cells + g * ghosts + e * P
  and, from each file's commDupBytes (the heap one MPI_Comm_dup keeps), MPI's bytes per rank of
  P per communicator (each Communicator duplicates one);
  time (seconds, the slowest rank, from files with at most --cores ranks, so not oversubscribed):
      ghost list: seconds = a + g * ghosts      builder: seconds = a + c * cells

The terms that the runs here cannot measure are assumptions, given as options: the cost of a
message to a neighbour (--overhead, software overhead per message, the messages go out together)
and of a step of a collective (--alpha, one latency across the network). The messages and
collective steps per set-up are counted from the code (doc/notes/scaling.md says where). With
--fit-network both are fitted instead, from runs on several rank counts that are not
oversubscribed (the 16-core runs in doc/data/setup-model/cores16-*.json). Prints the
fitted coefficients and a Markdown table of the predicted set-up per rank for P = 1k, 10k, 100k
at a fixed local size.

  tools/setup-model.py p2.json p4.json p8.json p16.json [--cells 131072] [--neighbours 14]
"""
import argparse
import json
import math
import sys

# Per set-up, counted from the code: messages to each neighbour, and steps of log2(P) latencies
# (an MPI_Ibarrier per sparse exchange; MPI_Comm_idup taken as two allreduces).
PATHS = {
    # GhostList + communicator(): sparse exchange of the ghost requests, the commit's check;
    # 2 Ibarriers + the MPI_Comm_idup
    "ghostList": {
        "messages": 2, "steps": 4, "time": "ghostListSeconds", "bytes": "ghostListBytes",
        "timeTerm": "ghosts",
    },
    # HaloBuilder::build (edges, layer requests, replies) + a Communicator from its maps (commit);
    # 3 Ibarriers + the MPI_Comm_idup
    "builder": {
        "messages": 4, "steps": 5, "time": "builderSeconds", "bytes": "builderBytes",
        "timeTerm": "cells",
    },
}


def solve(rows, values):
    """Least squares: the x minimising |rows x - values| (normal equations, Gauss-Jordan)."""
    n = len(rows[0])
    a = [[sum(r[i] * r[j] for r in rows) for j in range(n)] for i in range(n)]
    y = [sum(r[i] * v for r, v in zip(rows, values)) for i in range(n)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda k: abs(a[k][col]))
        a[col], a[pivot], y[col], y[pivot] = a[pivot], a[col], y[pivot], y[col]
        if a[col][col] == 0.0:
            raise SystemExit("setup-model: the measured rows do not determine the fit")
        for k in range(n):
            if k != col:
                f = a[k][col] / a[col][col]
                a[k] = [p - f * q for p, q in zip(a[k], a[col])]
                y[k] -= f * y[col]
    return [y[i] / a[i][i] for i in range(n)]


def worst(rows, values, x):
    """The largest relative residual of the fit."""
    return max(
        abs(sum(c * r for c, r in zip(x, row)) - v) / max(abs(v), 1e-30)
        for row, v in zip(rows, values)
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("json", nargs="+", help="setup_bench --json files")
    parser.add_argument("--cores", type=int, default=2, help="cores of the measuring machine")
    parser.add_argument("--cells", type=float, default=131072, help="owned cells per rank")
    parser.add_argument(
        "--ghosts", type=float, default=0, help="ghosts per rank (default: 6 cells^(2/3))"
    )
    parser.add_argument("--neighbours", type=float, default=14, help="neighbour ranks per rank")
    parser.add_argument("--overhead", type=float, default=1e-6, help="seconds per message")
    parser.add_argument("--alpha", type=float, default=2e-6, help="seconds per collective step")
    parser.add_argument(
        "--fit-network",
        action="store_true",
        help="fit the seconds per message and per collective step from the runs on at most "
        "--cores ranks (they must span several rank counts) instead of assuming them",
    )
    args = parser.parse_args()
    runs = [json.load(open(path)) for path in args.json]
    ghosts = args.ghosts or 6 * args.cells ** (2 / 3)

    print("inputs: " + ", ".join(str(r["ranks"]) + " ranks" for r in runs))
    dup = solve([[1.0, r["ranks"]] for r in runs], [r["commDupBytes"] for r in runs])
    print(
        f"MPI_Comm_dup keeps {dup[0]:.0f} + {dup[1]:.1f} * P bytes "
        "(" + ", ".join("%.0f on %d" % (r["commDupBytes"], r["ranks"]) for r in runs) + ")"
    )
    fits = {}
    for name, path in PATHS.items():
        rows, values = [], []
        for run in runs:
            for row in run["rows"]:
                for rank in row["perRank"]:
                    rows.append(
                        [1.0, rank["neighbours"], rank["cells"], rank["ghosts"], run["ranks"]]
                    )
                    values.append(rank[path["bytes"]])
        memory = solve(rows, values)
        timed = [
            (row["cellsPerRank"] if path["timeTerm"] == "cells" else row["ghostsPerRank"],
             row[path["time"]],
             max(rank["neighbours"] for rank in row["perRank"]),
             run["ranks"])
            for run in runs
            if run["ranks"] <= args.cores
            for row in run["rows"]
        ]
        if len(timed) < 3:
            sys.exit(f"setup-model: need a run on at most {args.cores} ranks with 3 sizes or more")
        t_values = [t for _, t, _, _ in timed]
        overhead, alpha = args.overhead, args.alpha
        if args.fit_network:
            # time = a + b * term + overhead * (messages * neighbours) + alpha * (steps * log2 P)
            t_rows = [
                [1.0, n, path["messages"] * k, path["steps"] * math.log2(p)]
                for n, _, k, p in timed
            ]
            time = solve(t_rows, t_values)
            overhead, alpha = time[2], time[3]
        else:
            t_rows = [[1.0, n] for n, _, _, _ in timed]
            time = solve(t_rows, t_values)
        fits[name] = (memory, time[:2], overhead, alpha)
        print(
            f"{name}: memory bytes = {memory[0]:.0f} + {memory[1]:.0f} * neighbours + "
            f"{memory[2]:.2f} * cells + {memory[3]:.2f} * ghosts + {memory[4]:.1f} * P "
            f"(worst residual {100 * worst(rows, values, memory):.1f}%, {len(values)} rank samples)"
        )
        print(
            f"{name}: time s = {time[0]:.3g} + {time[1]:.3g} * {path['timeTerm']} "
            f"(worst residual {100 * worst(t_rows, t_values, time):.0f}%, {len(timed)} sizes); "
            f"{'fitted' if args.fit_network else 'assumed'}: + {path['messages']} * "
            f"{overhead:.3g} s * neighbours + {path['steps']} * {alpha:.3g} s * log2(P)"
        )

    print()
    print(
        f"Predicted set-up per rank at {args.cells:.0f} cells, {ghosts:.0f} ghosts, "
        f"{args.neighbours:.0f} neighbours per rank:"
    )
    print()
    print("| P | ghost list: time | ghost list: memory | builder + Communicator: time "
          "| builder + Communicator: memory | of the builder's time, log2(P) steps |")
    print("|---|---|---|---|---|---|")
    for p in (1000, 10000, 100000):
        cells = []
        for name, path in PATHS.items():
            memory, time, overhead, alpha = fits[name]
            local = time[0] + time[1] * (args.cells if path["timeTerm"] == "cells" else ghosts)
            neighbour = path["messages"] * overhead * args.neighbours
            steps = path["steps"] * alpha * math.log2(p)
            kept = memory[0] + memory[1] * args.neighbours + memory[2] * args.cells
            kept += memory[3] * ghosts + memory[4] * p
            cells += [f"{1e3 * (local + neighbour + steps):.2f} ms", f"{kept / 2**20:.2f} MiB"]
            share = steps / (local + neighbour + steps)
        print(f"| {p:,} | " + " | ".join(cells) + f" | {100 * share:.1f}% |")


if __name__ == "__main__":
    main()
