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


# Four threads ask for bashlex at once, as `parsec ask`'s warm-up thread and its risk check can.
RACE = """
import threading
from parsec.bashlex_tables import load_bashlex
failures = []
start = threading.Barrier(4)
def parse():
    start.wait()
    try:
        load_bashlex().parse("ls -l | wc -l")
    except Exception as err:
        failures.append(repr(err))
threads = [threading.Thread(target=parse) for _ in range(4)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
print(failures)
"""


@pytest.mark.parametrize("cache", ["cold", "warm"])
def test_threads_asking_at_once_all_get_the_parser(tmp_path: Path, cache: str) -> None:
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path), "PYTHONPATH": str(ROOT)}
    if cache == "warm":
        _run("cached", tmp_path, _one_line(tmp_path, "true"))
    for _ in range(10):  # without the lock, 2 runs in 20 failed (cold)
        done = subprocess.run([sys.executable, "-c", RACE], env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0 and done.stdout.strip() == "[]", done.stdout + done.stderr
        if cache == "cold":
            for table_file in (tmp_path / "parsec").glob("bashlex-tables-*.json"):
                table_file.unlink()


def test_a_file_others_could_have_written_is_not_read(tmp_path: Path) -> None:
    corpus = _one_line(tmp_path, "ls -l | grep x")
    _run("cached", tmp_path / "cache", corpus)
    table_file = _table_file(tmp_path / "cache")
    tables = json.loads(table_file.read_bytes().partition(b"\n")[2])
    tables["action"]["0"] = {}  # planted: the start state accepts nothing
    body = json.dumps(tables).encode()
    table_file.write_bytes(hashlib.sha256(body).hexdigest().encode() + b"\n" + body)
    table_file.chmod(0o666)  # as another local user could have left it
    assert _run("cached", tmp_path / "cache", corpus) != ["ParsingError"]
    assert (_table_file(tmp_path / "cache").stat().st_mode & 0o022) == 0  # replaced by a good one


def test_another_bashlex_s_tables_are_removed_when_new_ones_are_written(tmp_path: Path) -> None:
    stale = tmp_path / "cache" / "parsec" / "bashlex-tables-0123456789abcdef0123.json"
    stale.parent.mkdir(parents=True)
    stale.write_text("from an earlier bashlex\n")
    _run("cached", tmp_path / "cache", _one_line(tmp_path, "true"))
    assert not stale.exists()
    assert _table_file(tmp_path / "cache").name != stale.name
