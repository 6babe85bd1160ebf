"""Regenerate the risk check's table of programs that run commands or write files, from GTFOBins.

GTFOBins (https://gtfobins.github.io, GPL-3.0) lists, per program, how it can be made to run a
shell or a command, write a file, download, and so on, each with example command lines. Parsec's
risk check reads which options of a program run a command (tar --checkpoint-action, rsync -e,
dhclient -sf), which take code in the program's own language (R -e, gnuplot -e, emacs --eval),
which operands start a command (nice CMD, chrt 1 CMD), and which options name a file it writes
(curl -o, pandoc -o). To update the table:

    git clone https://github.com/GTFOBins/GTFOBins.github.io gtfobins
    python scripts/gen_gtfobins.py gtfobins            # a checkout or a bare git directory

It writes parsec/workflow/risk/data/gtfobins.json (the table, with the GTFOBins commit it came
from) and tests/workflow/data/gtfobins_forms.json (each single-line example with its payload
replaced by a command the check must rate high). Only these two are committed, not GTFOBins itself.
The examples are YAML (`_gtfobins/NAME`, older versions `_gtfobins/NAME.md` with front matter).
"""

from __future__ import annotations

import argparse
import json
import pathlib
import re
import subprocess
import sys
from typing import Any, NamedTuple

import bashlex
import yaml

ROOT = pathlib.Path(__file__).resolve().parent.parent
TABLE = ROOT / "parsec" / "workflow" / "risk" / "data" / "gtfobins.json"
FORMS = ROOT / "tests" / "workflow" / "data" / "gtfobins_forms.json"

RUNS = ("shell", "command", "reverse-shell", "bind-shell", "library-load", "privilege-escalation")
WRITES = ("file-write", "download")
COMMAND_PAYLOADS = ("/bin/sh", "/path/to/command")
OUTPUT_FILE = "/path/to/output-file"
# Substituted for a payload in the test forms: one word, so it fits any quoting, and high on its own.
DESTRUCTIVE = "poweroff"
_FED = re.compile(r"""echo\s+(['"]?)(.*)\1\s*\|\s*(\S+)""")  # echo 'CODE' | PROGRAM
_CODE_AROUND = re.compile(r"""[(){}"'`\s]""")  # a value with these around the payload is code


def read_entries(source: pathlib.Path) -> tuple[str, dict[str, dict[str, Any]]]:
    """The GTFOBins commit and {program: its YAML entry} from a checkout or a bare git directory."""
    git = ["git", "--git-dir", str(source if (source / "HEAD").is_file() else source / ".git")]
    commit = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    names = subprocess.run(
        [*git, "ls-tree", "--name-only", "HEAD", "_gtfobins/"], capture_output=True, text=True, check=True
    ).stdout.split()
    entries = {}
    for path in names:
        text = subprocess.run([*git, "show", f"HEAD:{path}"], capture_output=True, text=True, check=True).stdout
        document = next(d for d in yaml.safe_load_all(text) if d is not None)
        entries[pathlib.PurePath(path).name.removesuffix(".md")] = document
    return commit, entries


class Invocation(NamedTuple):
    name: str  # as the example runs it (octave-cli for octave)
    words: list[str]  # the words after it
    assignments: list[str]  # VAR=value before it


def invocation(code: str, program: str) -> Invocation | None:
    """How a one-line example runs `program` (None if it does not, or cannot be parsed)."""
    try:
        trees = bashlex.parse(code)
    except Exception:
        return None
    for tree in trees:
        for node in _commands(tree):
            words = [p.word for p in node.parts if p.kind == "word"]
            assignments = [p.word for p in node.parts if p.kind == "assignment"]
            for i, word in enumerate(words):
                name = word.rsplit("/", 1)[-1]
                if name == program or name.startswith(program + "-"):
                    return Invocation(name, words[i + 1 :], assignments + [w for w in words[:i] if "=" in w])
    return None


def _commands(node: Any):
    if getattr(node, "kind", "") == "command":
        yield node
    for child in (getattr(node, "parts", None) or []) + (getattr(node, "list", None) or []):
        yield from _commands(child)


def _payload_in(word: str, payloads: tuple[str, ...]) -> str | None:
    return next((p for p in payloads if p in word), None)


def learn(program: str, entry: dict[str, Any], aliases: dict[str, str]) -> dict[str, Any]:
    """What the check needs about `program` (see parsec/workflow/risk/rules/catalogue.py): options,
    variables and operands that run a command, code it reads from stdin (the call that marks it) ([prefix, end]: the command follows the prefix and
    ends at `end`), options and variables that take code (the call that marks it), the operand a
    launched command starts at, and options or operands naming a file it writes."""
    out: dict[str, Any] = {"functions": sorted((entry.get("functions") or {}).keys())}
    found: dict[str, Any] = {"runs": {}, "code": {}, "env": {}, "env_code": {}, "operand_runs": {}, "writes": set()}
    triggers: set[str] = set()
    for function, examples in (entry.get("functions") or {}).items():
        payloads = COMMAND_PAYLOADS if function in RUNS else (OUTPUT_FILE,) if function in WRITES else ()
        for example in examples or []:
            text = (example.get("code") or "").strip()
            if not payloads or "\n" in text:
                continue
            fed = _FED.match(text)  # echo 'esyscmd(CMD)' | m4: code read from stdin
            fed_payload = _payload_in(fed.group(2), payloads) if fed and function in RUNS else None
            if fed and fed_payload and fed.group(3).rsplit("/", 1)[-1] == program:
                prefix = fed.group(2)[: fed.group(2).index(fed_payload)]
                if prefix and _trigger(prefix) not in out.setdefault("stdin_code", []):
                    out["stdin_code"].append(_trigger(prefix))
            call = invocation(text, program)
            if call is None:
                continue
            if call.name != program:
                aliases.setdefault(call.name, program)
            for assignment in call.assignments:
                variable, _, value = assignment.partition("=")
                _learn_value(found, "env", variable, value, payloads, function)
            words, operand_index, skip = call.words, 0, -1
            for i, word in enumerate(words):
                if i == skip:  # the value of the option before it
                    continue
                option, value = _option_value(words, i)
                if option and i + 1 < len(words) and value == words[i + 1] and "=" not in word:
                    skip = i + 1
                payload = _payload_in(value if option else word, payloads)
                if option and payload:
                    _learn_value(found, "runs", option, value, payloads, function)
                elif not word.startswith("-"):
                    if payload and function in WRITES:
                        prefix = word[: word.index(payload)]
                        if prefix and not _CODE_AROUND.search(prefix):
                            found["operand_writes"] = {prefix: _end(word, payload)}
                        elif not prefix and i == len(words) - 1:
                            out["writes_last"] = True
                    elif payload:
                        prefix = word[: word.index(payload)]
                        if prefix and _CODE_AROUND.search(prefix):
                            triggers.add(_trigger(prefix))
                        elif prefix:
                            found["operand_runs"][prefix] = _end(word, payload)
                        else:
                            out.setdefault("launches", operand_index)
                    operand_index += 1
    for key in ("runs", "code", "env", "env_code", "operand_runs"):
        if found[key]:
            out[key] = dict(sorted(found[key].items()))
    if found.get("operand_writes"):
        out["operand_writes"] = found["operand_writes"]
    if triggers - {""}:
        out["code_operand"] = sorted(triggers - {""})
    if found["writes"]:
        out["writes"] = sorted(found["writes"])
    return out


def _learn_value(
    found: dict[str, Any], kind: str, key: str, value: str, payloads: tuple[str, ...], function: str
) -> None:
    """An option's (or variable's) value holding the payload: a written file, a command or code."""
    payload = _payload_in(value, payloads)
    if payload is None:
        return
    prefix = value[: value.index(payload)]
    if function in WRITES:
        if not prefix and kind == "runs":
            found["writes"].add(key)
    elif _CODE_AROUND.search(prefix):
        found["code" if kind == "runs" else "env_code"][key] = _trigger(prefix)
    else:
        found[kind].setdefault(key, [])
        if [prefix, _end(value, payload)] not in found[kind][key]:
            found[kind][key].append([prefix, _end(value, payload)])


def _end(text: str, payload: str) -> str:
    """What ends the command after the payload in the example: a comma (socat, busctl, gcc), else nothing."""
    after = text[text.index(payload) + len(payload) :]
    return "," if after.startswith(",") else ""


def _option_value(words: list[str], i: int) -> tuple[str, str]:
    """(option, its value) when words[i] is an option with a value here (`--x=v`, `-xv`, `-x v`)."""
    word = words[i]
    if not word.startswith("-") or word == "-":
        return "", ""
    name, equals, attached = word.partition("=")
    if equals and not name.startswith("-" + "-") and len(name) == 2 and "=" in attached:
        return word[:2], word[2:]  # -oKEY=VALUE style (ssh -oProxyCommand=…)
    if equals:
        return name, attached
    if not word.startswith("--") and len(word) > 2 and "/" in word[2:]:  # man '-H/bin/sh #'
        return word[:2], word[2:]
    if i + 1 < len(words) and not words[i + 1].startswith("-"):
        return word, words[i + 1]
    return "", ""


def _trigger(prefix: str) -> str:
    """The call before the payload in code (`system("` -> `system(`): what marks it at run time."""
    text = prefix.rstrip("\"'` ")
    match = re.search(r"[\w.:%\\!$-]*[(\[{]*$", text)
    return (match.group(0) if match and match.group(0) else text[-3:]).strip()


def forms(entries: dict[str, dict[str, Any]]) -> list[dict[str, str]]:
    """Each one-line example that runs a command or writes a file, its payload made destructive."""
    out = []
    for program, entry in sorted(entries.items()):
        for function, examples in sorted((entry.get("functions") or {}).items()):
            for example in examples or []:
                text = (example.get("code") or "").strip()
                if "\n" in text:
                    continue
                if function in RUNS and _payload_in(text, COMMAND_PAYLOADS):
                    form = text
                    for payload in COMMAND_PAYLOADS:
                        form = form.replace(payload, DESTRUCTIVE)
                    out.append({"program": program, "function": function, "form": form})
                elif function in WRITES and OUTPUT_FILE in text:
                    out.append(
                        {"program": program, "function": function, "form": text.replace(OUTPUT_FILE, "~/.bashrc")}
                    )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", type=pathlib.Path, help="a GTFOBins checkout or bare git directory")
    args = parser.parse_args(argv)
    commit, entries = read_entries(args.source)
    aliases = {name: entry["alias"] for name, entry in entries.items() if "alias" in entry}
    programs = {name: learn(name, entry, aliases) for name, entry in sorted(entries.items()) if "alias" not in entry}
    table = {
        "source": "https://github.com/GTFOBins/GTFOBins.github.io _gtfobins/",
        "commit": commit,
        "licence": "GPL-3.0 (GTFOBins); this table is derived from it",
        "aliases": dict(sorted(aliases.items())),
        "programs": programs,
    }
    TABLE.parent.mkdir(parents=True, exist_ok=True)
    TABLE.write_text(json.dumps(table, indent=1, sort_keys=False) + "\n")
    FORMS.parent.mkdir(parents=True, exist_ok=True)
    FORMS.write_text(json.dumps({"commit": commit, "forms": forms(entries)}, indent=1) + "\n")
    print(f"{len(programs)} programs, {len(aliases)} aliases at {commit} -> {TABLE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
