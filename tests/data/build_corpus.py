"""Rebuild tests/data/classifier_corpus.jsonl from the sources listed in tests/data/SOURCES.md.

    python tests/data/build_corpus.py            # needs the man pages under /usr/share/man

Three sources, each line tagged with where it came from:
- man pages installed on this machine (man1, man8): command lines from their EXAMPLES sections,
  and the prose around them (the descriptions of what each example does, "To X, run:" turned
  into the task "X", and the NAME line's one-line summary);
- tests/data/handwritten.txt: hand-written hard cases in both directions;
- tests/data/generated.py: command and prose lines generated from templates (seeded).

The output is deterministic for a given set of installed man pages.
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

from generated import generated_lines  # noqa: E402

MAN_ROOT = Path("/usr/share/man")
PER_PAGE_COMMANDS = 10
PER_PAGE_PROSE = 5
MAX_PAGES_PER_FAMILY = 250  # gcloud alone ships ~12,000 pages with EXAMPLES; keep the mix varied
SCRIPT_DIRS = ["/usr/bin", "/usr/sbin", "/usr/lib/git-core", "/etc", "/usr/share/doc", "/usr/lib"]
PER_SCRIPT_COMMANDS = 6
_KEYWORDS = {
    "if",
    "then",
    "else",
    "elif",
    "fi",
    "for",
    "while",
    "until",
    "do",
    "done",
    "case",
    "esac",
    "function",
    "return",
    "local",
    "exit",
    "shift",
    "break",
    "continue",
    "{",
    "}",
    "[[",
    "!",
}

_ESCAPES = [
    (r"\(aq", "'"),
    (r"\[aq]", "'"),
    (r"\(dq", '"'),
    (r"\[dq]", '"'),
    (r"\(lq", '"'),
    (r"\(rq", '"'),
    (r"\(oq", "'"),
    (r"\(cq", "'"),
    (r"\(em", "-"),
    (r"\(en", "-"),
    (r"\[em]", "-"),
    (r"\[en]", "-"),
    (r"\(ti", "~"),
    (r"\[ti]", "~"),
    (r"\(ha", "^"),
    (r"\[ha]", "^"),
    (r"\(bu", ""),
    (r"\[bu]", ""),
    (r"\(rs", "\\"),
    (r"\[rs]", "\\"),
    (r"\(at", "@"),
    (r"\(ga", "`"),
    (r"\[ga]", "`"),
    (r"\(pl", "+"),
    (r"\-", "-"),
    (r"\&", ""),
    (r"\e", "\\"),
    (r"\ ", " "),
    (r"\~", " "),
    (r"\|", ""),
    (r"\^", ""),
    (r"\:", ""),
    (r"\/", ""),
    (r"\,", ""),
    (r"\%", ""),
    (r"\0", " "),
]
_FONT = re.compile(r"\\f(\[[^\]]*\]|\(..|.)")
_STRING = re.compile(r"\\\*(\[[^\]]*\]|\(..|.)")
_SIZE = re.compile(r"\\s[-+]?\d")
_OTHER = re.compile(r"\\[a-zA-Z]")
_BREAKS = {".PP", ".P", ".LP", ".IP", ".TP", ".RS", ".RE", ".SS", ".sp", ".br", ".HP", ".TQ", ".in"}
_LITERAL_START = {".nf", ".EX", ".Vb", ".Bd", ".DS"}
_LITERAL_END = {".fi", ".EE", ".Ve", ".Ed", ".DE"}
_PROMPT = re.compile(r"^\s*(?:[$#%>]|\w+[$#]|\[[^\]]*\][$#])\s+")
_TO_RUN = re.compile(
    r"^To (.+?),? (?:you (?:can|could|would|might|may|should) )?(?:run|use|type|do|say|enter|execute|"
    r"issue|try|invoke|call|write|specify|give|add|pass)\b.*$"
)


def unescape(text: str) -> str:
    text = _FONT.sub("", text)
    text = _STRING.sub("", text)
    text = _SIZE.sub("", text)
    for escape, plain in _ESCAPES:
        text = text.replace(escape, plain)
    text = _OTHER.sub("", text)
    return text.replace("\\\\", "\\")


def request_text(line: str) -> str | None:
    """The text a font request carries (`.B x y`, `.BR a (2)`), or None for other requests."""
    name, _, rest = line.partition(" ")
    if name in {".B", ".I", ".SM", ".SB"}:
        return unescape(rest.strip().strip('"'))
    if name in {".BR", ".RB", ".IR", ".RI", ".BI", ".IB"}:
        parts = re.findall(r'"[^"]*"|\S+', rest)
        return unescape("".join(p.strip('"') for p in parts))
    if name == ".Dl":
        return None
    return None


def examples_and_name(raw: str) -> tuple[list[list[tuple[str, bool]]], str]:
    """The EXAMPLES section as blocks of (text, literal) lines, and the NAME summary."""
    section = ""
    blocks: list[list[tuple[str, bool]]] = [[]]
    name_text: list[str] = []
    literal = False
    for line in raw.splitlines():
        head = line.split(" ", 1)[0]
        if head in {".SH", ".Sh"}:
            section = line[len(head) :].strip().strip('"').upper()
            literal = False
            blocks.append([])
            continue
        if section == "NAME":
            if not line.startswith((".", "'")):
                name_text.append(unescape(line))
            continue
        if section not in {"EXAMPLES", "EXAMPLE", "USAGE EXAMPLES"}:
            continue
        if head in _LITERAL_START:
            literal = True
            blocks.append([])
            continue
        if head in _LITERAL_END:
            literal = False
            blocks.append([])
            continue
        if head in _BREAKS:
            blocks.append([])
            continue
        if head == ".Dl":
            blocks.append([(unescape(line[4:]), True)])
            blocks.append([])
            continue
        if line.startswith((".", "'")):
            text = request_text(line)
            if text is None:
                continue
            blocks[-1].append((text, literal or bool(_PROMPT.match(text))))
            continue
        whole_bold = line.startswith("\\fB") and line.rstrip().endswith(("\\fR", "\\fP"))
        blocks[-1].append((unescape(line), literal or whole_bold))
    summary = " ".join(name_text)
    summary = summary.split(" - ", 1)[1] if " - " in summary else ""
    return [b for b in blocks if b], summary.strip()


def join_continuations(lines: list[str]) -> list[str]:
    out: list[str] = []
    pending = ""
    for line in lines:
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1].rstrip() + " "
            continue
        out.append((pending + line.strip()).strip())
        pending = ""
    if pending:
        out.append(pending.strip())
    return out


def extraction_noise(line: str) -> bool:
    """Literal blocks and scripts also hold wrapped prose, heredoc text and output; this drops
    the lines that are plainly not command lines (a labelling clean-up, not a classifier)."""
    words = line.split()
    if line.endswith((".", ",", " and", " or")) and not line.endswith((" .", "..")):
        return True
    if words[0] == "which" and len(words) > 3:
        return True
    if words[0].endswith("/") or (words[0] == "[" and words[-1] != "]" and "]" not in line):
        return True
    return words[0] == "[" and not any(w.startswith("-") or "$" in w for w in words)


def command_lines(block: list[tuple[str, bool]], known: set[str]) -> list[str]:
    literal = [text for text, is_literal in block if is_literal]
    found = []
    for line in join_continuations(literal):
        line = _PROMPT.sub("", line, count=1).strip()
        words = line.split()
        if not words or len(line) > 220 or len(words) < 1:
            continue
        first = words[1] if words[0] == "sudo" and len(words) > 1 else words[0]
        if (first in known or first.startswith(("./", "/"))) and not extraction_noise(line):
            found.append(line)
    return found


def prose_sentences(block: list[tuple[str, bool]]) -> list[str]:
    text = " ".join(t.strip() for t, is_literal in block if not is_literal)
    text = re.sub(r"\s+", " ", text).strip()
    out = []
    for sentence in re.split(r"(?<=[.:;])\s+(?=[A-Z])", text):
        sentence = sentence.strip()
        words = sentence.split()
        if not 3 <= len(words) <= 30 or not sentence[:1].isupper():
            continue
        if any(ch in sentence for ch in "\\{}`=$") or "  " in sentence or ".RS" in sentence:
            continue
        if sum(w.strip(",.:;()").isalpha() for w in words) < 0.7 * len(words):
            continue  # tables and output, not prose
        if ":" in sentence and any(w.startswith("-") and len(w) > 1 for w in words):
            continue  # "To get security info: ps -eo ..." is prose and a command in one line
        task = _TO_RUN.match(sentence)
        if task:
            out.append(task.group(1))
        out.append(sentence.rstrip(":"))
    return out


def command_names() -> set[str]:
    names = set()
    for section in ("man1", "man8"):
        for entry in os.listdir(MAN_ROOT / section):
            names.add(entry.split(".")[0])
    for directory in os.environ.get("PATH", "").split(":"):
        try:
            names.update(os.listdir(directory))
        except OSError:
            pass
    return names


def man_lines(rng: random.Random) -> list[dict]:
    known = command_names()
    pages: list[Path] = []
    for section in ("man1", "man8"):
        pages.extend(sorted((MAN_ROOT / section).glob("*.gz")))
    families: dict[str, int] = {}
    rows: list[dict] = []
    for page in pages:
        name = page.name.split(".")[0]
        family = re.split(r"[_-]", name)[0]
        try:
            with gzip.open(page, "rt", errors="replace") as handle:
                raw = handle.read()
        except (OSError, EOFError):
            continue
        if ".SH EXAMPLE" not in raw and '.SH "EXAMPLE' not in raw and ".Sh EXAMPLES" not in raw:
            blocks, summary = [], examples_and_name(raw[:4000])[1]
        else:
            if families.get(family, 0) >= MAX_PAGES_PER_FAMILY:
                continue
            families[family] = families.get(family, 0) + 1
            blocks, summary = examples_and_name(raw)
        source = f"man:{name}({page.parent.name[3:]})"
        commands, prose = [], []
        for block in blocks:
            commands.extend(command_lines(block, known))
            prose.extend(prose_sentences(block))
        rng.shuffle(commands)
        rng.shuffle(prose)
        for line in commands[:PER_PAGE_COMMANDS]:
            rows.append({"text": line, "label": "command", "source": source})
        for line in prose[:PER_PAGE_PROSE]:
            rows.append({"text": line, "label": "prompt", "source": source})
            if rng.random() < 0.4:  # people type prompts in lower case too
                rows.append({"text": line[0].lower() + line[1:], "label": "prompt", "source": source})
        if len(summary.split()) >= 3 and family != "gcloud" and rng.random() < 0.3:
            rows.append({"text": summary, "label": "prompt", "source": source + " NAME"})
    return rows


def script_lines(rng: random.Random, known: set[str]) -> list[dict]:
    """Simple command lines from the shell scripts shipped in Debian packages on this machine."""
    rows: list[dict] = []
    scripts: list[str] = []
    for top in SCRIPT_DIRS:
        for dirpath, _dirs, files in os.walk(top):
            for name in files:
                path = os.path.join(dirpath, name)
                try:
                    if os.path.islink(path) or os.path.getsize(path) > 200_000:
                        continue
                    with open(path, "rb") as fh:
                        head = fh.read(40)
                except OSError:
                    continue
                if re.match(rb"#!\s*/(usr/)?bin/(env )?(ba|da)?sh\b", head):
                    scripts.append(path)
    for path in sorted(set(scripts)):
        try:
            lines = Path(path).read_text(errors="replace").splitlines()
        except OSError:
            continue
        picked = []
        for line in lines:
            line = line.strip()
            words = line.split()
            if not 5 <= len(line) <= 160 or not words or line.endswith(("\\", "{", "(", ")", "|", "&&", ";;")):
                continue
            if words[0] in _KEYWORDS or words[0] not in known or line.count('"') % 2 or line.count("'") % 2:
                continue
            if "$" in words[0] or line.startswith("#") or extraction_noise(line):
                continue
            picked.append(line)
        rng.shuffle(picked)
        echoes = [line for line in picked if line.split()[0] in {"echo", "printf"}][:1]
        others = [line for line in picked if line.split()[0] not in {"echo", "printf"}]
        for line in (echoes + others)[:PER_SCRIPT_COMMANDS]:
            rows.append({"text": line, "label": "command", "source": f"script:{path}"})
    return rows


def handwritten_lines() -> list[dict]:
    rows = []
    for raw in (HERE / "handwritten.txt").read_text().splitlines():
        if not raw.strip() or raw.startswith("#"):
            continue
        label, _, text = raw.partition("\t")
        rows.append({"text": text, "label": {"C": "command", "P": "prompt"}[label], "source": "handwritten"})
    return rows


def mark_hard(row: dict, known: set[str]) -> dict:
    words = row["text"].split()
    first = words[0] if words else ""
    if row["label"] == "prompt":
        hard = first in known  # prose whose first word is a command name
    else:
        hard = bool(re.search(r"[\"'][A-Za-z]+ [a-z]+ [a-z]+", row["text"])) or first in {"echo", "printf"}
    return {**row, "hard": hard}


def main() -> None:
    rng = random.Random(20261122)
    known = command_names()
    rows = man_lines(rng) + script_lines(rng, known) + handwritten_lines() + generated_lines(rng)
    seen: dict[str, dict] = {}
    for row in rows:
        text = row["text"].strip()
        if text and text not in seen:
            seen[text] = mark_hard({**row, "text": text}, known)
    out = HERE / "classifier_corpus.jsonl"
    with out.open("w") as fh:
        for row in seen.values():
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    counts: dict[str, int] = {}
    for row in seen.values():
        key = row["label"] + (" hard" if row["hard"] else "")
        counts[key] = counts.get(key, 0) + 1
    print(out, len(seen), counts)


if __name__ == "__main__":
    main()
