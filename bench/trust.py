"""What reading a trusted project file costs `parsec history` (issue 25 item 5).

    python bench/trust.py [--runs 31]

`parsec history -n 1` end to end (a fresh process each run, on a small SQLite store) in three
directories, interleaved so they share the machine's noise: one without a project file, one with
a trusted `.parsec.toml` (the fast reader checks its owner, mode and SHA-256 against the trust
list), and one with an untrusted file (ignored with one line on stderr). Prints medians and the
ratio to the directory without a file, and `python -c pass` as the floor.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=31)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory(prefix="parsec-bench-trust-") as tmp:
        base = Path(tmp)
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("PARSEC_")},
            "XDG_DATA_HOME": str(base / "data"),
            "XDG_CONFIG_HOME": str(base / "config"),
            "XDG_STATE_HOME": str(base / "state"),
            "XDG_RUNTIME_DIR": str(base / "run"),
            "PYTHONPATH": str(ROOT),
        }
        parsec = [sys.executable, "-m", "parsec.cli.entry"]
        places = {name: base / name for name in ("no file", "trusted file", "untrusted file")}
        for name, place in places.items():
            place.mkdir()
            if name != "no file":
                (place / ".parsec.toml").write_text("[store]\nbusy_timeout_ms = 4000\n[search]\ninline_height = 12\n")
        subprocess.run([*parsec, "trust", str(places["trusted file"])], env=env, check=True, capture_output=True)
        subprocess.run(
            [*parsec, "history", "-n", "1"], env=env, cwd=places["no file"], capture_output=True
        )  # the store
        commands = {name: (place, [*parsec, "history", "-n", "1"]) for name, place in places.items()}
        commands["python -c pass"] = (places["no file"], [sys.executable, "-c", "pass"])
        samples: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(runs):
            for name, (cwd, args) in commands.items():
                started = time.perf_counter()
                subprocess.run(args, env=env, cwd=cwd, capture_output=True, check=True)
                samples[name].append((time.perf_counter() - started) * 1000)
        baseline = statistics.median(samples["no file"])
        print(f"parsec history -n 1, end to end, median of {runs} (interleaved):")
        for name, values in samples.items():
            median = statistics.median(values)
            print(f"  {name:<16} {median:7.1f} ms  ({median / baseline:.2f}x the directory without a file)")


if __name__ == "__main__":
    main()
