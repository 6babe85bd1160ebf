"""Types the same keys into a bare shell and into one with the Parsec hook, and snapshots the state.

A group of cases shares one rc file (what the user loaded before and after the hook) and runs in
one shell process per side, case after case: each case starts in its own fresh directory, its
keys are sent step by step (waiting for the next prompt, continuation prompt or end of output
between steps, as a person would), and then a probe line (starting with a space, so neither
Parsec nor the history keeps it) prints `$?`, the directory, the options and the chosen
variables. What the terminal shows is rendered by a terminal emulator (pyte), so readline or zle
redrawing the same line differently is not a difference; the files the case made are read back
from its directory.
"""

from __future__ import annotations

import os
import re
import shutil
import termios
import time
from dataclasses import dataclass, field
from pathlib import Path

import pexpect
import pyte

from ..harness import write_rc_file

ROWS, COLS = 50, 200
WAIT = 20  # seconds: generous, the machine is shared; a case only waits this long when it fails

# A fresh prompt comes with bracketed paste being switched on, once per line editor call (bash,
# zsh and fish all do it); a redraw of the line being edited does not do that. bash and fish
# switch it on before the prompt, zsh after.
# fish runs other tools' prompt events after that (direnv's "direnv: ..." lines): skipped too.
FRESH = r"\x1b\[\?2004h(?:\x1b\[[0-9;]*m|\x1b\(B|\x1b\][^\x07]*\x07|\r|\x1b\[K|\x1b\[J|direnv: [^\n]*\n)*"
ZLE_START = r"(?:\x1b\[K)?(?:\x1b\[\?1h\x1b=)?\x1b\[\?2004h"
PROMPTS = {  # (PS1 with the status shown, PS2)
    "bash": (FRESH + r"P(\d+)> ", FRESH + r"C> "),
    "fish": (FRESH + r"P(\d+)> ", FRESH + r"C> "),
    "zsh": (r"P(\d+)> " + ZLE_START, r"C> " + ZLE_START),
}
QUESTION_RE = r"command or question\?"

PROBE_BASH = r"""
__dstate() { \builtin local __s=$? __n
    \builtin printf '\n@@S\nstatus=%s\npwd=%s\nflags=%s\n' "$__s" "$PWD" "${-//[is]/}"
    for __n in "${@:2}"; do
        if [[ -v $__n ]]; then \builtin printf 'var %s=%q\n' "$__n" "${!__n}"; else \builtin printf 'var %s unset\n' "$__n"; fi
    done
    \builtin printf 'hist=%s\n@@E\n' "$(HISTTIMEFORMAT= \builtin history 1 | \command sed 's/^ *[0-9]* *//')"
    \builtin cd -- "$1"; \builtin return 0; }
"""
PROBE_ZSH = r"""
__dstate() { \builtin local __s=$? __n
    \builtin printf '\n@@S\nstatus=%s\npwd=%s\nflags=%s\n' "$__s" "$PWD" "${-//[is]/}"
    for __n in "${@:2}"; do
        if (( ${(P)+__n} )); then \builtin printf 'var %s=%q\n' "$__n" "${(P)__n}"; else \builtin printf 'var %s unset\n' "$__n"; fi
    done
    \builtin printf 'hist=%s\n@@E\n' "${history[$((HISTCMD-1))]-}"
    \builtin cd -- "$1"; \builtin return 0 }
"""
PROBE_FISH = r"""
function __dstate
    set -l s $status
    builtin printf '\n@@S\nstatus=%s\npwd=%s\n' $s $PWD
    for n in $argv[2..-1]
        if set -q $n; builtin printf 'var %s=%s\n' $n (string join ' ' -- (string escape -- $$n)); else; builtin printf 'var %s unset\n' $n; end
    end
    builtin printf 'hist=%s\n@@E\n' (builtin history search --max 1 | string collect)
    builtin cd -- $argv[1]
end
"""
RC_HEAD = {
    "bash": "PS2='C> '\nHISTCONTROL=ignorespace\nHISTFILE=\n" + PROBE_BASH,
    "zsh": "PS1='P%?> '\nPS2='C> '\nsetopt hist_ignore_space\nHISTSIZE=1000\n" + PROBE_ZSH,
    "fish": (
        "function fish_prompt; builtin printf 'P%s> ' $status; end\nfunction fish_mode_prompt; end\n"
        "set -g fish_autosuggestion_enabled 0\n" + PROBE_FISH
    ),
}


@dataclass
class Step:
    keys: str
    wait: str | None = "prompt"  # "prompt" (PS1, PS2, the question, or the end), "ps1", a regex, or None
    # Then also wait until the terminal echoes again (a command reading it in cooked mode): the
    # line editor prints its last escape before it restores the terminal's modes, and keys sent
    # in between are read without being echoed (it failed that way once in CI, for zsh).
    cooked: bool = False
    pause: float = 0.0  # seconds to wait after sending the keys (keys typed later, without waiting for anything)


@dataclass
class Case:
    name: str
    steps: list[Step]
    vars: tuple[str, ...] = ()
    files: dict[str, str] = field(default_factory=dict)  # made in the fresh directory first
    routed: str | None = None  # the line the classifier routes to `parsec ask`: the allowed difference
    note: str = ""
    screen: bool = True  # False: keys typed ahead are echoed when the scheduler lets the tty do it

    @property
    def lines(self) -> list[str]:
        return [s.keys.rstrip("\r") for s in self.steps]


def case(
    name: str,
    *keys: str,
    vars: tuple[str, ...] | str = (),
    files: dict | None = None,
    routed: str | None = None,
    note: str = "",
    screen: bool = True,
) -> Case:
    """A case typed as lines: each string is sent (with Enter when it has no control key at its
    end) and the next waits for a prompt. A `Step` can be passed for other waits."""
    steps = []
    for k in keys:
        if isinstance(k, Step):
            steps.append(k)
        else:
            steps.append(Step(k if k and (k[-1] < " " or k[-1] == "\x7f") else k + "\r"))
    return Case(name, steps, tuple(vars.split()) if isinstance(vars, str) else vars, files or {}, routed, note, screen)


@dataclass
class Group:
    """Cases that can share one shell process: the same rc file around the hook."""

    name: str
    cases: list[Case]
    before: str = ""  # rc lines before the hook
    after: str = ""  # rc lines after it
    env: dict[str, str] = field(default_factory=dict)
    needs: tuple[str, ...] = ()  # programs that must be installed


@dataclass
class Snapshot:
    shown: str  # what the terminal got, rendered when compared (see `screen`)
    waits: list[str]  # what each step ended on: P<status>, C (continuation), Q (the question), EOF, text
    state: dict[str, str]
    files: dict[str, str]
    classified: list[str] = field(default_factory=list)
    seconds: float = 0.0
    root: Path | None = None

    @property
    def screen(self) -> list[str]:
        return render(self.shown, self.root or Path("/nonexistent"))


class Side:
    """One shell process (bare or hooked) running a group's cases one after another."""

    def __init__(self, kind: str, group: Group, root: Path, env: dict[str, str], hook_line: str) -> None:
        self.kind, self.group, self.root, self.env, self.hook_line = kind, group, root, dict(env), hook_line
        self.child: pexpect.spawn | None = None
        self.ps1, self.ps2 = PROMPTS[kind]

    def start(self, first_dir: Path) -> str:
        home = self.root / "home"
        for sub in ("home", "config", "cases"):
            (self.root / sub).mkdir(parents=True, exist_ok=True)
        env = dict(self.env, **self.group.env, HOME=str(home), XDG_CONFIG_HOME=str(self.root / "config"))
        body = f"{RC_HEAD[self.kind]}\n{self.group.before}\n{self.hook_line}"
        if self.group.after:
            body += f"\n{self.group.after}"
        argv = write_rc_file(self.kind, self.root, body, env)
        if self.kind == "bash":  # write_rc_file sets the harness's prompt: ours shows $?
            rc = home / ".bashrc"
            rc.write_text("PS1='P$?> '\n" + rc.read_text().split("\n", 1)[1])
        elif self.kind == "zsh":
            (home / ".zshrc").write_text((home / ".zshrc").read_text().replace("PS1='T> '\n", ""))
        self.child = pexpect.spawn(
            argv[0],
            argv[1:],
            env=env,
            cwd=str(first_dir),
            encoding="utf-8",
            codec_errors="replace",
            timeout=WAIT,
            dimensions=(ROWS, COLS),
        )
        self.child.delaybeforesend = None
        self.child.expect(self.ps1)
        startup = self.child.before + self.child.after
        self.probe(first_dir, ())
        return startup

    def probe(self, next_dir: Path, names: tuple[str, ...]) -> dict[str, str]:
        assert self.child is not None
        self.child.send(f" __dstate {next_dir} {' '.join(names)}\r")
        self.child.expect("@@S\r\n")
        self.child.expect("@@E\r\n")
        body = self.child.before
        self.child.expect(self.ps1)
        state = {}
        for line in body.replace(str(self.root), "@ROOT").split("\r\n"):
            key, _, value = line.partition("=") if not line.startswith("var ") else (line, "", "")
            state[key] = value
        return state

    def run_case(self, c: Case, next_dir: Path) -> Snapshot:
        assert self.child is not None
        child = self.child
        shown, waits = child.after, []
        for step in c.steps:
            child.send(step.keys)
            time.sleep(step.pause)
            if step.wait is None:
                continue
            patterns = [self.ps1, self.ps2, QUESTION_RE, pexpect.EOF, pexpect.TIMEOUT]
            if step.wait == "ps1":  # the lines typed ahead end the command: wait for its end
                patterns = [self.ps1, pexpect.EOF, pexpect.TIMEOUT]
            elif step.wait != "prompt":
                patterns = [step.wait, *patterns]
            i = child.expect(patterns)
            shown += child.before + (child.after if isinstance(child.after, str) else "")
            got = patterns[i]
            if got is pexpect.EOF:
                waits.append("EOF")
                break
            if got is pexpect.TIMEOUT:
                waits.append("TIMEOUT")
                break
            waits.append(
                {self.ps1: f"P{child.match.group(1) if got == self.ps1 else ''}", self.ps2: "C", QUESTION_RE: "Q"}.get(
                    got, "text"
                )
            )
            if step.cooked:
                _wait_until_cooked(child.child_fd)
        state: dict[str, str] = {}
        if waits and waits[-1] in ("EOF", "TIMEOUT"):
            state["ended"] = waits[-1]
            self.stop()
        else:
            try:
                if waits and waits[-1] in ("C", "Q"):  # leave the unfinished line the same way in both
                    child.send("\x03")
                    child.expect(self.ps1)
                    shown += child.before + child.after
                state = self.probe(next_dir, c.vars)
            except pexpect.TIMEOUT:  # the probe line was eaten or never ran: start a new shell
                state = {"probe": "timed out"}
                self.stop()
        return Snapshot(shown, waits, state, {})

    def stop(self) -> None:
        if self.child is not None:
            self.child.close(force=True)
            self.child = None


def render(text: str, root: Path) -> list[str]:
    """What a terminal shows for `text`, its lines without trailing blanks, paths made relative."""
    screen = pyte.Screen(COLS, 400)
    text = re.sub(r"(\[\d+\]\+? )\d+", r"\1PID", text.replace(str(root), "@ROOT"))  # job ids: a new pid each run
    pyte.Stream(screen).feed(text)
    last = max([screen.cursor.y, *(y for y, row in screen.buffer.items() if row)])
    lines = []
    for y in range(last + 1):  # only the rows written to: rendering all 400 costs seconds
        row = screen.buffer[y]
        lines.append("".join(row[x].data for x in range(max(row, default=-1) + 1)).rstrip())
    while lines and not lines[-1]:
        lines.pop()
    return lines


def read_files(directory: Path) -> dict[str, str]:
    out = {}
    for path in sorted(directory.rglob("*")):
        rel = str(path.relative_to(directory))
        if path.is_symlink():
            out[rel] = "-> " + os.readlink(path)
        elif path.is_dir():
            out[rel] = "<dir>"
        else:
            out[rel] = path.read_bytes().decode("utf-8", "replace")
    return out


def case_dir(root: Path, index: int, c: Case) -> Path:
    d = root / "cases" / f"{index:03d}"
    d.mkdir(parents=True, exist_ok=True)
    for name, content in c.files.items():
        (d / name).parent.mkdir(parents=True, exist_ok=True)
        (d / name).write_text(content)
    return d


def run_group(
    kind: str, group: Group, root: Path, env: dict[str, str], hook_line: str, classified=None
) -> tuple[str, list[Snapshot]]:
    """Runs every case of `group` in one shell (restarted after a case that ends it). Returns the
    first prompt's screen and one snapshot per case. `classified()` lists the classify texts sent
    so far by the shell with the given pid."""
    shutil.rmtree(root, ignore_errors=True)
    side = Side(kind, group, root, env, hook_line)
    dirs = [case_dir(root, i, c) for i, c in enumerate(group.cases)]
    startup = side.start(dirs[0]) if dirs else ""
    snaps = []
    try:
        for i, c in enumerate(group.cases):
            if side.child is None:
                side.start(dirs[i])  # the case before ended the shell
            before = classified(side.child.pid) if classified else []
            nxt = dirs[i + 1] if i + 1 < len(dirs) else root
            t0 = time.monotonic()
            snap = side.run_case(c, nxt)
            snap.seconds = time.monotonic() - t0
            if classified and side.child is not None:
                snap.classified = classified(side.child.pid)[len(before) :]
            snap.files, snap.root = read_files(dirs[i]), root
            snaps.append(snap)
    finally:
        side.stop()
    return startup, snaps


__all__ = ["Case", "Group", "Snapshot", "Step", "case", "run_group", "render", "re"]


def _wait_until_cooked(fd: int, timeout: float = 10.0) -> None:
    """Until the pty (its master reports the terminal's modes) has ICANON and ECHO back on."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        lflag = termios.tcgetattr(fd)[3]
        if lflag & termios.ICANON and lflag & termios.ECHO:
            return
        time.sleep(0.002)
