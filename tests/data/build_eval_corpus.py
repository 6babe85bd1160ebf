"""Build the classifier's evaluation corpus: a TUNING part and a FROZEN part from different sources.

    python tests/data/build_eval_corpus.py

Neither part comes from the classifier's word lists (man-page prose, man page names) nor from
NL2Bash or tldr-pages. Sources (see SOURCES.md):

TUNING (`eval_tuning.jsonl`), the only part weights may be adjusted on:
- fish completions (/usr/share/fish/completions): `prog subcommand` / `prog --option` lines made
  from `complete -c` specs (commands), and their `-d` descriptions (prose), as written and with
  the first letter lower-cased (people type requests in lower case);
- the EXAMPLES sections of man pages in sections 1 and 8 (commands only, via build_corpus.py);
- tests/data/prose_tuning.txt, prose written for Parsec in many registers, plus a lower-cased
  copy of the capitalised lines.

FROZEN (`eval_frozen.jsonl`), measured and reported, never tuned on:
- zsh completions (/usr/share/zsh/functions/Completion): `'sub:description'` pairs and
  `--option[description]` specs give `prog sub` / `prog --option` (commands) and the descriptions
  (prose);
- command lines shown after a `$ ` prompt in /usr/share/doc (READMEs, NEWS, examples);
- tests/data/prose_frozen.txt, written separately from the tuning prose, plus lower-cased copies.

Deterministic for a given machine (seeded sampling, sorted file lists).
"""

from __future__ import annotations

import gzip
import json
import os
import random
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from build_corpus import command_names, man_lines  # noqa: E402

FISH = Path("/usr/share/fish/completions")
ZSH = Path("/usr/share/zsh/functions/Completion")
DOC = Path("/usr/share/doc")
PER_FILE = 4  # commands and descriptions taken from one completion file, so no tool dominates
SEED = 20261127

_FISH_OPT = re.compile(r"""(?:^|\s)(-[a-zA-Z]|--[a-z-]+)\s+('[^']*'|"[^"]*"|\S+)""")
_ZSH_SUB = re.compile(r"""['"]([a-z][a-z0-9-]{1,24}):([A-Za-z][^:'"\[\]$]{6,80})['"]""")
_ZSH_OPT = re.compile(r"""(--[a-z][a-z0-9-]{1,24})=?\[([A-Za-z][^\]\[$]{6,80})\]""")
_DOC_PROMPT = re.compile(r"^\s*\$ (\S.*)$")


def clean_description(text: str) -> str | None:
    """A completion description as a person might type it, or None when it is not prose."""
    text = text.strip().strip("'\"").strip()
    words = text.split()
    if not 2 <= len(words) <= 16 or not text[:1].isalpha() or text.isupper():
        return None
    if any(ch in text for ch in "$%(){}\\|<>=") or text.count("'") % 2:
        return None
    return text.rstrip(".:")


def fish_rows(rng: random.Random) -> list[dict]:
    rows: list[dict] = []
    for path in sorted(FISH.glob("*.fish")):
        prog = path.stem
        commands, prose = [], []
        try:
            lines = path.read_text(errors="replace").splitlines()
        except OSError:
            continue
        for line in lines:
            line = line.strip()
            if not line.startswith("complete ") or f"-c {prog}" not in line and f"--command {prog}" not in line:
                continue
            opts = dict()
            for flag, value in _FISH_OPT.findall(line):
                opts.setdefault(flag, value.strip("'\""))
            desc = opts.get("-d") or opts.get("--description")
            if desc and (text := clean_description(desc)):
                prose.append(text)
            sub = re.search(r"__fish_seen_subcommand_from ([a-z][a-z0-9-]+)['\"]", line)
            prefix = f"{prog} {sub.group(1)}" if sub else prog
            arg = opts.get("-a") or opts.get("--arguments")
            if arg and re.fullmatch(r"[a-z][a-z0-9-]{1,20}", arg):
                commands.append(f"{prog} {arg}")
            if (long := opts.get("-l") or opts.get("--long-option")) and re.fullmatch(r"[a-z][a-z0-9-]+", long):
                commands.append(f"{prefix} --{long}")
            elif (short := opts.get("-s") or opts.get("--short-option")) and re.fullmatch(r"[a-zA-Z0-9]", short):
                commands.append(f"{prefix} -{short}")
        rows += sample(rng, commands, "command", f"fish:{prog}")
        described = sample(rng, prose, "prompt", f"fish:{prog}")
        lowered = [{**row, "text": row["text"][0].lower() + row["text"][1:]} for row in described]
        rows += described + lowered  # people type requests in lower case too
    return rows


def zsh_rows(rng: random.Random) -> list[dict]:
    rows: list[dict] = []
    for path in sorted(p for p in ZSH.rglob("_*") if p.is_file() and not p.name.endswith(".zwc")):
        try:
            text = path.read_text(errors="replace")
        except OSError:
            continue
        first = text.split("\n", 1)[0]
        if not first.startswith("#compdef "):
            continue
        progs = [w for w in first.split()[1:] if re.fullmatch(r"[a-z][a-z0-9._-]*", w)]
        if not progs:
            continue
        prog = progs[0]
        commands, prose = [], []
        for sub, desc in _ZSH_SUB.findall(text):
            commands.append(f"{prog} {sub}")
            if cleaned := clean_description(desc):
                prose.append(cleaned)
        for opt, desc in _ZSH_OPT.findall(text):
            commands.append(f"{prog} {opt}")
            if cleaned := clean_description(desc):
                prose.append(cleaned)
        rows += sample(rng, commands, "command", f"zsh:{prog}") + sample(rng, prose, "prompt", f"zsh:{prog}")
    return rows


def doc_rows(known: set[str]) -> list[dict]:
    """Command lines shown after a `$ ` prompt in the documentation packages install."""
    rows, seen = [], set()
    for dirpath, _dirs, files in sorted(os.walk(DOC)):
        for name in sorted(files):
            path = os.path.join(dirpath, name)
            if os.path.islink(path) or os.path.getsize(path) > 400_000:
                continue
            try:
                opener = gzip.open if name.endswith(".gz") else open
                with opener(path, "rt", errors="replace") as fh:
                    lines = fh.read().splitlines()
            except (OSError, EOFError, UnicodeError):
                continue
            for line in lines:
                match = _DOC_PROMPT.match(line)
                if not match:
                    continue
                command = match.group(1).strip()
                words = command.split()
                first = words[1] if words[0] == "sudo" and len(words) > 1 else words[0]
                if command.endswith("\\") or len(command) > 200 or command.count('"') % 2 or command.count("'") % 2:
                    continue
                if (first in known or first.startswith(("./", "/"))) and command not in seen:
                    seen.add(command)
                    package = os.path.relpath(path, DOC).split(os.sep)[0]
                    rows.append({"text": command, "label": "command", "source": f"doc:{package}"})
    return rows


def handwritten_rows(name: str) -> list[dict]:
    rows = []
    for raw in (HERE / name).read_text().splitlines():
        text = raw.strip()
        if not text or text.startswith("#"):
            continue
        rows.append({"text": text, "label": "prompt", "source": f"written:{name}"})
        lowered = text[0].lower() + text[1:]
        if lowered != text:  # people type requests in lower case, without the full stop
            rows.append({"text": lowered.rstrip("."), "label": "prompt", "source": f"written:{name}"})
    return rows


def sample(rng: random.Random, lines: list[str], label: str, source: str) -> list[dict]:
    unique = sorted(set(lines))
    rng.shuffle(unique)
    return [{"text": text, "label": label, "source": source} for text in unique[:PER_FILE]]


def write(name: str, rows: list[dict]) -> None:
    seen: dict[str, dict] = {}
    for row in rows:
        text = row["text"].strip()
        if text and text not in seen:
            seen[text] = {**row, "text": text}
    with (HERE / name).open("w") as fh:
        for row in seen.values():
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    counts: dict[str, int] = {}
    for row in seen.values():
        counts[row["label"]] = counts.get(row["label"], 0) + 1
    print(name, len(seen), counts)


def main() -> None:
    rng = random.Random(SEED)
    known = command_names()
    man_commands = [row for row in man_lines(random.Random(SEED)) if row["label"] == "command"]
    tuning = fish_rows(rng) + man_commands + handwritten_rows("prose_tuning.txt")
    frozen = zsh_rows(rng) + doc_rows(known) + handwritten_rows("prose_frozen.txt")
    tuning_texts = {row["text"] for row in tuning}
    write("eval_tuning.jsonl", tuning)
    write("eval_frozen.jsonl", [row for row in frozen if row["text"] not in tuning_texts])


if __name__ == "__main__":
    main()
