"""bashlex with cached parse tables (parsec/bashlex_tables.py) parses exactly as bashlex's own
import does, reads the file it wrote, and ignores a damaged one. Each case is a fresh Python
process: bashlex builds its tables at import, once per process."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CORPORA = [ROOT / "tests/data/classifier_corpus.jsonl", ROOT / "tests/data/eval_frozen.jsonl"]

# Parses every line of the corpora given on the command line; prints one JSON list of results.
PARSE_ALL = """
import json, sys
if sys.argv[1] == "plain":
    import bashlex
else:
    from parsec.bashlex_tables import load_bashlex
    bashlex = load_bashlex()
out = []
for path in sys.argv[2:]:
    for line in open(path):
        text = json.loads(line)["text"]
        try:
            out.append([node.dump() for node in bashlex.parse(text)])
        except Exception as err:
            out.append(type(err).__name__)
print(json.dumps(out))
"""


def _run(how: str, cache: Path, *paths: Path) -> object:
    env = {**os.environ, "XDG_CACHE_HOME": str(cache), "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", PARSE_ALL, how, *map(str, paths)], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _table_file(cache: Path) -> Path:
    files = list((cache / "parsec").glob("bashlex-tables-*.json"))
    assert len(files) == 1, files
    return files[0]


def test_cached_tables_parse_exactly_as_bashlex_builds_them(tmp_path: Path) -> None:
    plain = _run("plain", tmp_path / "unused", *CORPORA)
    first = _run("cached", tmp_path / "cache", *CORPORA)  # builds, then writes the file
    table_file = _table_file(tmp_path / "cache")
    written = table_file.read_bytes()
    second = _run("cached", tmp_path / "cache", *CORPORA)  # reads it
    assert isinstance(plain, list) and len(plain) > 10_000
    assert sum(isinstance(result, list) for result in plain) > 5_000  # most lines parse
    assert first == plain
    assert second == plain
    assert table_file.read_bytes() == written  # read, not rebuilt
    assert (table_file.stat().st_mode & 0o077) == 0


def _one_line(tmp_path: Path, text: str) -> Path:
    corpus = tmp_path / "one.jsonl"
    corpus.write_text(json.dumps({"text": text}) + "\n")
    return corpus


def test_a_file_with_a_matching_hash_is_what_the_parser_uses(tmp_path: Path) -> None:
    corpus = _one_line(tmp_path, "ls -l | grep x")
    assert _run("cached", tmp_path / "cache", corpus) != ["ParsingError"]
    table_file = _table_file(tmp_path / "cache")
    tables = json.loads(table_file.read_bytes().partition(b"\n")[2])
    tables["action"]["0"] = {}  # the start state accepts nothing
    body = json.dumps(tables).encode()
    table_file.write_bytes(hashlib.sha256(body).hexdigest().encode() + b"\n" + body)
    assert _run("cached", tmp_path / "cache", corpus) == ["ParsingError"]


@pytest.mark.parametrize("damage", ["flipped byte", "truncated", "empty", "not json"])
def test_a_damaged_file_is_ignored_and_replaced(tmp_path: Path, damage: str) -> None:
    corpus = _one_line(tmp_path, 'for f in *.txt; do wc -l "$f"; done > counts')
    expected = _run("plain", tmp_path / "unused", corpus)
    assert _run("cached", tmp_path / "cache", corpus) == expected
    table_file = _table_file(tmp_path / "cache")
    good = table_file.read_bytes()
    damaged = {
        "flipped byte": good[:-40] + bytes([good[-40] ^ 1]) + good[-39:],
        "truncated": good[: len(good) // 2],
        "empty": b"",
        "not json": b"x\n{",
    }[damage]
    table_file.write_bytes(damaged)
    assert _run("cached", tmp_path / "cache", corpus) == expected
    assert table_file.read_bytes() == good


def test_an_unwritable_cache_only_costs_the_build(tmp_path: Path) -> None:
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the cache directory would be\n")
    corpus = _one_line(tmp_path, "echo $(date) && cat <<EOF\nhi\nEOF")
    assert _run("cached", blocked, corpus) == _run("plain", tmp_path / "unused", corpus)
