"""Recall and look-alike damage per path and per corpus, before and after, in one run.

    python bench/masking_corpora.py                 # this tree only
    python bench/masking_corpora.py --before REV    # also REV's parsec/ (git archive), same corpora

Each path is measured through the function it calls on its way to the store or the model:
hooks (bash, zsh, fish) and the protocol -> the daemon's `PrivacyFilter.mask` with the shell
session's memory, then the store's gate; `parsec import` -> `PrivacyFilter.mask`; `parsec shell`
output -> the daemon's `PrivacyFilter.mask` of the output with the session's memory; model
requests -> the provider gate (`mask_json` of a request body, each string through the gate).
The three shells share the daemon's code after the hook, so they share a row. Corpora (see
tests/privacy/data/SOURCES.md): the first (gitleaks-derived), the second's tuning split by context
group and its frozen split from its totals only, and the look-alikes (damage = changed).
Per-line cost: median microseconds per line over the first corpus and the look-alikes.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
STANDALONE = ("positional", "clipboard", "printf", "json_value")


def _paths():
    from parsec.config import Settings
    from parsec.privacy.filters import PrivacyFilter
    from parsec.privacy.masking import mask, mask_json, store_gate
    from parsec.privacy.memory import SecretValues

    settings = Settings()
    privacy = PrivacyFilter(settings.privacy)

    def gate(text: str) -> str:
        return mask(text)

    def model(text: str) -> str:
        body = {"messages": [{"role": "user", "content": text}]}
        return mask_json(body, gate)["messages"][0]["content"]

    return {
        "hooks bash/zsh/fish, protocol -> store": lambda t: store_gate(privacy.mask(t, SecretValues())),
        "parsec import": privacy.mask,
        "parsec shell output": lambda t: privacy.mask(t, SecretValues()),
        "model requests": model,
    }


def figures() -> dict:
    sys.path.insert(1, str(REPO))
    from tests.privacy.corpora import first_corpus, frozen_totals, lookalikes, second_tuning

    out = {}
    for name, masked in _paths().items():
        row = {}
        first = first_corpus()
        row["first"] = (sum(e["secret"] not in masked(e["text"]) for e in first), len(first))
        groups: dict[str, list[int]] = {}
        for e in second_tuning():
            if e["shape"] != "random":
                continue
            group = "standalone" if e["context"] in STANDALONE else e["context"]
            cell = groups.setdefault(group, [0, 0])
            cell[0] += e["secret"] not in masked(e["text"])
            cell[1] += 1
        for group, cell in groups.items():
            row[f"second {group}"] = tuple(cell)
        frozen = [0, 0]
        for (_, shape), (hit, total) in frozen_totals(lambda e, masked=masked: masked(e["text"])).items():
            if shape == "random":
                frozen[0] += hit
                frozen[1] += total
        row["second frozen"] = tuple(frozen)
        looks = lookalikes()
        row["damage"] = (sum(masked(t) != t for t in looks), len(looks))
        lines = [e["text"] for e in first] + list(looks)
        times = []
        for _ in range(3):
            for line in lines:
                started = time.perf_counter()
                masked(line)
                times.append(time.perf_counter() - started)
        row["us per line"] = statistics.median(times) * 1e6
        out[name] = row
    return out


def _before(rev: str) -> dict:
    archive = subprocess.run(["git", "-C", str(REPO), "archive", rev, "parsec"], check=True, capture_output=True)
    with tempfile.TemporaryDirectory() as tree:
        with tarfile.open(fileobj=BytesIO(archive.stdout)) as tar:
            tar.extractall(tree, filter="data")
        result = subprocess.run(
            [sys.executable, __file__, "--json", "--code", tree], check=True, capture_output=True, text=True
        )
    return json.loads(result.stdout)


def _cell(value) -> str:
    if isinstance(value, float):
        return f"{value:.0f} us"
    hit, total = value
    return f"{hit}/{total} = {hit / total:.1%}" if total else "-"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--before", help="a git revision to measure too")
    parser.add_argument("--code", help=argparse.SUPPRESS)
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    options = parser.parse_args()
    sys.path.insert(0, options.code or str(REPO))
    after = figures()
    if options.json:
        print(json.dumps(after))
        return
    before = _before(options.before) if options.before else None
    for path, row in after.items():
        print(path)
        for key, value in row.items():
            was = f"{_cell(before[path][key])} -> " if before and key in before[path] else ""
            print(f"  {key:20s} {was}{_cell(value)}")


if __name__ == "__main__":
    main()
