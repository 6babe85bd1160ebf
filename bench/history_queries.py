"""bench/history.py's queries alone, on one store, for several source trees run alternately.

    python bench/history_queries.py STORE CWD [--tree PATH ...] [--rounds 3] [--runs 15]

STORE is a `bench/history.py --keep DIR` directory (its store, after that run's prune: about
half of --rows) or a sqlite:/// URL; CWD the directory that run printed. Each round runs every
tree once, in its own process with that tree's `parsec` first on sys.path, so a change and its
base (e.g. `git worktree add /tmp/base BASE`) are timed on the same data under the same load.
Prints, per tree and query, the median ms of each round: raw sqlite3 fast path / through the store.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def child(tree: str, url: str, cwd: str, runs: int) -> None:
    sys.path.insert(0, str(HERE))
    import history  # bench/history.py: its queries and their timing

    sys.path.insert(0, tree)  # this tree's parsec, not the one bench/history.py put first
    import parsec

    assert parsec.__file__ and parsec.__file__.startswith(tree), parsec.__file__
    print(json.dumps(history.time_queries(url, cwd, runs)))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("store", help="a bench/history.py --keep directory, or a sqlite:/// URL")
    parser.add_argument("cwd", help="the directory bench/history.py printed")
    parser.add_argument("--tree", action="append", help="a source tree (default: this one); repeat to compare")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    url = (
        args.store
        if args.store.startswith("sqlite:")
        else f"sqlite:///{Path(args.store).resolve()}/data/parsec/parsec.db"
    )
    if args.child:
        return child(args.child, url, args.cwd, args.runs)
    trees = [str(Path(tree).resolve()) for tree in (args.tree or [HERE.parent])]
    rounds: dict[str, list[dict[str, list[float]]]] = {tree: [] for tree in trees}
    for _ in range(args.rounds):
        for tree in trees:
            command = [sys.executable, __file__, args.store, args.cwd, "--runs", str(args.runs), "--child", tree]
            rounds[tree].append(json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout))
    for tree, results in rounds.items():
        print(tree)
        for name in results[0]:
            figures = "  ".join(f"{fast:6.2f} / {slow:6.2f}" for fast, slow in (r[name] for r in results))
            print(f"  {name:36s} sqlite3 / store ms, each round: {figures}")


if __name__ == "__main__":
    main()
