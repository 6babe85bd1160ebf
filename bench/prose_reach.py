"""How much public prose typed at a prompt reaches Parsec, per shell, through the real hooks.

Every prose line of the evaluation corpora (tests/data/eval_tuning.jsonl and eval_frozen.jsonl,
label "prompt") is put on the command line of a real interactive bash, zsh and fish (through a
pseudo-terminal) with Parsec's hook loaded by `parsec init`, and routed by the hook's own Enter
code against a real daemon (its classifier). Nothing runs: a key bound for the bench loads the
next line into the line editor, calls the hook's routing (bash `__parsec_route`, zsh
`__parsec_route`, fish `__parsec_enter`) and then reports and clears the line instead of
accepting it. Outcomes: routed to `parsec ask`, the one-key question (answered "edit"), or left
to the shell (which then runs it, reports a syntax error, or continues it).

    python bench/prose_reach.py [--before-tree /path/to/older/checkout] [--shells bash,zsh,fish] [--limit N]
                                [--corpus tests/data/classifier_corpus.jsonl ...] [--show N]

`--before-tree`: the shells of a first pass load the hook of that checkout (PYTHONPATH), so an
older hook and this one are measured in the same run, against the same daemon.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import pexpect

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from parsec.routing import Classifier  # noqa: E402
from tests.hooks.harness import Daemon, Sandbox, _load_line, write_rc_file  # noqa: E402

CORPORA = ("tests/data/eval_tuning.jsonl", "tests/data/eval_frozen.jsonl")
QUESTION = r"\[e\] edit"  # the legend: keys count from then on (typed earlier they are type-ahead)

# Ctrl-T: load the next corpus line, route it with the hook's Enter code, report, clear.
BENCH_KEYS = {
    "bash": r"""
exec {__bench_fd}<"$BENCH_LINES"
__bench_next() { IFS= builtin read -r -u "$__bench_fd" READLINE_LINE; READLINE_POINT=${#READLINE_LINE}; }
__bench_after() {
    local out=shell
    [[ $READLINE_LINE == "$PARSEC_ASK_COMMAND "* ]] && out=parsec
    builtin printf '\nOUT<%s>\n' "$out" >/dev/tty
    READLINE_LINE= READLINE_POINT=0
    builtin unset __parsec_lines
}
bind -x '"\C-x\C-]n": __bench_next'
bind -x '"\C-x\C-]t": __bench_after'
bind '"\C-t": "\C-x\C-]n\C-x\C-]\C-r\C-x\C-]t"'
""",
    "zsh": r"""
exec {__bench_fd}<"$BENCH_LINES"
__bench_route() {
    local line
    IFS= read -r -u $__bench_fd line
    BUFFER=$line CURSOR=${#line}
    local out=shell
    __parsec_route
    [[ $BUFFER == "$PARSEC_ASK_COMMAND "* ]] && out=parsec
    print -r -- $'\n'"OUT<$out>" >/dev/tty
    BUFFER= CURSOR=0
}
zle -N __bench_route
bindkey '^T' __bench_route
""",
    "fish": r"""
set -g __bench_lines (command cat $BENCH_LINES)
set -g __bench_i 0
function __bench_next
    set -g __bench_i (math $__bench_i + 1)
    commandline -r -- $__bench_lines[$__bench_i]
end
function __bench_after
    set -l out shell
    string match -q -- "$PARSEC_ASK_COMMAND *" (commandline); and set out parsec
    printf '\nOUT<%s>\n' $out >/dev/tty
    commandline -r ''
end
function fish_user_key_bindings
    bind \ct '__bench_next; __parsec_enter; __bench_after'
end
""",
}


def prose_lines(corpora: list[str], limit: int | None) -> list[str]:
    lines = []
    for name in corpora:
        for raw in (REPO / name).read_text().splitlines():
            row = json.loads(raw) if raw.strip() else None
            if row and row["label"] == "prompt" and "\n" not in row["text"]:
                lines.append(row["text"])
    return lines[:limit] if limit else lines


def route_all(kind: str, sandbox: Sandbox, lines_file: Path, count: int, tree: Path | None) -> dict[str, list[int]]:
    env = dict(sandbox.env, BENCH_LINES=str(lines_file), PARSEC_HOOK_TIMEOUT="10")
    if tree is not None:
        env["PYTHONPATH"] = str(tree)
    body = f"{_load_line(kind)}\n{BENCH_KEYS[kind]}"
    cmd = write_rc_file(kind, sandbox.root, body, env)
    child = pexpect.spawn(
        cmd[0], cmd[1:], env=env, cwd=str(sandbox.work), encoding="utf-8", timeout=60, dimensions=(40, 300)
    )
    child.delaybeforesend = None
    child.expect("T> ")
    outcomes: dict[str, list[int]] = {"parsec": [], "question": [], "shell": []}
    for i in range(count):
        child.send("\x14")
        asked = child.expect([r"OUT<(\w+)>", QUESTION]) == 1
        if asked:
            child.send("e")
            child.expect(r"OUT<(\w+)>")
            outcomes["question"].append(i)
        else:
            outcomes[child.match.group(1)].append(i)
    child.sendcontrol("d")
    child.close(force=True)
    return outcomes


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--before-tree", type=Path)
    parser.add_argument("--shells", default="bash,zsh,fish")
    parser.add_argument("--limit", type=int)
    parser.add_argument(
        "--corpus", action="append", help="a JSONL corpus (text, label); default: the evaluation corpora"
    )
    parser.add_argument("--show", type=int, default=0, help="print this many prose lines the shell's parser kept")
    args = parser.parse_args()
    corpora = args.corpus or list(CORPORA)
    lines = prose_lines(corpora, args.limit)
    print(f"load average {os.getloadavg()[0]:.1f}; {len(lines)} prose lines from {', '.join(corpora)}")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        sandbox = Sandbox.create(root / "sandbox")
        lines_file = root / "lines.txt"
        lines_file.write_text("".join(line + "\n" for line in lines))
        daemon = Daemon(sandbox).start()
        classifier = Classifier()
        try:
            variants = ([("before", args.before_tree)] if args.before_tree else []) + [("after", None)]
            for kind in args.shells.split(","):
                for label, tree in variants:
                    start = time.monotonic()
                    got = route_all(kind, sandbox, lines_file, len(lines), tree)
                    n = len(lines)
                    reached = len(got["parsec"]) + len(got["question"])
                    print(
                        f"{kind:5} {label:6} reaches Parsec {reached / n:7.2%} (routed {len(got['parsec']) / n:.2%},"
                        f" asked {len(got['question']) / n:.2%}), left to the shell {len(got['shell']) / n:.2%}"
                        f"  [{time.monotonic() - start:.0f} s]"
                    )
                    blocked = [
                        i for i in got["shell"] if classifier.classify(lines[i], shell=kind).decision == "prompt"
                    ]
                    print(f"      left to the shell though the classifier says prompt: {len(blocked) / n:.2%}")
                    for i in blocked[: args.show]:
                        print(f"    shell: {lines[i]}")
        finally:
            daemon.stop()
        print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
