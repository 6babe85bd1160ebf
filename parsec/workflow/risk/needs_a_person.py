"""Whether a command line would wait for a person at the terminal: a full-screen program, a pager
whose output is the terminal, an editor, a REPL or shell with nothing to run and its input not
redirected, ssh without a remote command, git opening an editor or a patch prompt.

Under --yes nobody is there to type, so such a command would sit until the timeout (gatekeeping.py
does not run it). Every simple command in the line counts (lists, pipelines, $(…), <(…)), behind
its wrappers (sudo, env, nice …); a pipe or redirection into its input or out of its output is
followed (`man ls | cat` does not wait, `… | less` does). The program lists are in
command_names.py; the options that change the answer (a batch mode, a command given) are here.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, NamedTuple

from .command_names import EDITORS, FULL_SCREEN, MANUALS, PAGERS, REPLS, VIM_LIKE, WRAPPERS
from .runners import STDIN_COMMANDS, code_source
from .syntax_tree import SUBSTITUTIONS, assignment_words, child_nodes, command_words, substitutions_in
from .words import command_name, flag_names, is_assignment, is_dynamic, operands_of, option_values, unwrapped

if TYPE_CHECKING:
    from .syntax_tree import Node


class Wait(NamedTuple):
    program: str  # as the model wrote it: `vim`, `git commit`
    why: str  # one short phrase: "an editor", "opens an editor for the message"


class _Streams(NamedTuple):
    """Whether a command's input comes from elsewhere than the terminal, and its output goes elsewhere."""

    stdin: bool = False
    stdout: bool = False


_NO_WAIT = {"--help", "--version", "-version", "-help"}  # print and exit, whatever the program
_OFF_PAGERS = {"", "cat"}  # a pager setting that pages nothing
# Options after which an interpreter prints something and exits (python3 -V, node -v, psql -l).
_PRINTS_AND_EXITS = {
    "python": {"-V", "-VV", "-h"},
    "node": {"-v", "-h"},
    "ruby": {"-v"},
    "perl": {"-v", "-V"},
    "php": {"-v", "-i", "-m"},
    "lua": {"-v"},
    "sh": {"-h"},
}
_SQL_LISTS = {"-l", "--list", "-V"}  # psql -l lists the databases; -V its version
# REPLs that do their work and exit when given an operand (a script, a command), and the options
# that take the next word as a value (so it is not the operand).
_OPERAND_RUNS = {
    "ipython": {"--profile", "--ipython-dir"},
    "bpython": set(),
    "ptpython": set(),
    "julia": {"-t", "--threads", "-J", "--project", "-L", "--load"},
    "scala": {"-cp", "-classpath"},
    "clojure": {"-Sdeps", "-M", "-A"},
    "clj": {"-Sdeps", "-M", "-A"},
    "redis-cli": {"-h", "-p", "-a", "-n", "-u", "-s", "-r", "-i", "-d", "--user", "--pass"},
    "R": set(),
    "jshell": {"--class-path", "-cp"},
    "octave": set(),
    "gnuplot": set(),
    "guile": {"-L", "-l"},
    "racket": set(),
    "ocaml": set(),
    "irb": {"-r", "-I"},
}
# Options that make a REPL run its work and exit.
_BATCH = {
    "gdb": {"-batch", "--batch"},
    "lldb": {"--batch", "-b"},
    "ghci": {"-e"},
    "erl": {"-noshell", "-eval"},
    "mongo": {"--eval"},
    "mongosh": {"--eval", "-f", "--file"},
    "sftp": {"-b"},
    "julia": {"-e", "--eval", "-E", "--print"},
    "R": {"-e", "-f", "--file"},
    "octave": {"--eval"},
    "ipython": {"-c", "-m"},
    "bpython": {"-c"},
    "ptpython": {"-c"},
    "irb": {"-v", "--version"},
    "guile": {"-c", "-s"},
    "racket": {"-e", "-f", "-t", "-r"},
    "bc": {"-e"},
    "dc": {"-e", "-f"},
    "mycli": {"-e", "--execute"},
    "pgcli": {"-l", "--list"},
    "litecli": {"-e", "--execute"},
}
_FULL_SCREEN_VALUED = {
    "top": {"-d", "-n", "-p", "-u", "-U", "-o", "-O", "-w", "-E", "-e", "-s"},
    "fzf": {"-q", "--query", "-d", "--delimiter", "-n", "--nth"},
    "tmux": {"-L", "-S", "-f", "-c", "-T", "-s", "-n", "-t", "-F", "-x", "-y", "-e"},
    "screen": {"-S", "-c", "-e", "-h", "-p", "-T", "-X"},
}
_TMUX_ATTACHING = {"new", "new-session", "attach", "attach-session", "a", "at"}
_SSH_VALUED = {f"-{c}" for c in "BbcDEeFIiJLlmOoPpQRSWw"}
_SSH_NO_SESSION = {"G", "V", "Q", "O"}  # print the configuration, the version, a query; -O controls a master
_EX_QUIT = re.compile(r"(^|\|)\s*(w?q|wqa?|qa|xa?|x|exit|quit|wq)!?\s*$")  # an Ex command that ends vim
# git: subcommands that page their output, and those that open an editor or ask per hunk.
_GIT_PAGED = {"log", "show", "diff", "blame", "shortlog", "reflog", "grep", "whatchanged", "help", "annotate"}
_GIT_VALUED = {"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path", "--config-env"}
# Subcommands that ask about each change: the short and long options that make them ask.
_GIT_ASKS = {
    "add": ("pie", {"--patch", "--interactive", "--edit"}),
    "checkout": ("p", {"--patch"}),
    "reset": ("p", {"--patch"}),
    "restore": ("p", {"--patch"}),
    "stash": ("p", {"--patch"}),
    "commit": ("p", {"--patch", "--interactive"}),
    "clean": ("i", {"--interactive"}),
}
_GIT_MESSAGE = {"-m", "--message", "-F", "--file", "-C", "--reuse-message", "--no-edit", "--fixup"}


def waits_for_a_person(command: str, env: Mapping[str, str] | None = None) -> Wait | None:
    """The first program in `command` that would wait for a person at the terminal, and why;
    None when none would. `env` is the shell's environment (PAGER=cat turns man's and git's
    pagers off). A line bashlex cannot read is judged word by word. Never raises."""
    from .walker import parse

    env = env or {}
    try:
        trees = parse(command)
    except Exception:  # bashlex raises several error types, some not exported
        return _by_words(command)
    try:
        for tree in trees:
            found = _visit(tree, _Streams(), env)
            if found is not None:
                return found
    except Exception:  # a tree shape not foreseen: the words still tell the plain cases
        return _by_words(command)
    return None


def _visit(node: Node, streams: _Streams, env: Mapping[str, str]) -> Wait | None:
    kind = getattr(node, "kind", "")
    if kind == "command":
        return _command(node, streams, env)
    if kind in SUBSTITUTIONS:
        return _visit(node.command, streams, env)
    streams = _redirected(getattr(node, "redirects", None) or [], streams)  # { …; } > out, (…) < in
    parts = child_nodes(node)
    if kind == "pipeline":
        stages = [p for p in parts if getattr(p, "kind", "") != "pipe"]
        for i, stage in enumerate(stages):
            inner = _Streams(streams.stdin or i > 0, streams.stdout or i < len(stages) - 1)
            found = _visit(stage, inner, env)
            if found is not None:
                return found
        return None
    for child in parts:
        found = _visit(child, streams, env)
        if found is not None:
            return found
    return None


def _redirected(redirects: list[Node], streams: _Streams) -> _Streams:
    stdin, stdout = streams
    for redirect in redirects:
        kind, fd = redirect.type, getattr(redirect, "input", None)
        if kind in ("<", "<<", "<<-", "<<<", "<>") and fd in (None, 0):
            stdin = True
        elif kind in ("&>", "&>>") or (kind in (">", ">>", ">|") and fd in (None, 1)):
            stdout = True
        elif kind == ">&" and fd in (None, 1) and hasattr(redirect.output, "word"):
            stdout = stdout or not redirect.output.word.rstrip("-").isdigit()  # >&2 is still the terminal
    return _Streams(stdin, stdout)


def _command(node: Node, streams: _Streams, env: Mapping[str, str]) -> Wait | None:
    for sub, writes_into in _substitutions(node):  # $(…), <(…): output captured; >(…): input fed
        found = _visit(sub.command, _Streams(streams.stdin or writes_into, True), env)
        if found is not None:
            return found
    streams = _redirected([p for p in node.parts if getattr(p, "kind", "") == "redirect"], streams)
    words = command_words(node)
    args, _ = unwrapped(words)
    settings = dict(env)
    for assignment in assignment_words(node) + [w for w in words[: len(words) - len(args)] if is_assignment(w)]:
        name, _, value = assignment.partition("=")
        settings[name] = value
    if not args or is_dynamic(args[0]):
        return None
    name, rest = command_name(args[0]), args[1:]
    if _NO_WAIT & set(rest[: rest.index("--")] if "--" in rest else rest):
        return None
    return _judge(name, rest, streams, settings)


def _substitutions(node: Node) -> list[tuple[Node, bool]]:
    """The command's substitutions, each with whether it reads what the command writes (>(…))."""
    out = []
    for sub in substitutions_in(node):
        holder = next((p for p in node.parts if sub in (getattr(p, "parts", None) or [])), None)
        text = getattr(holder, "word", "") if holder is not None else ""
        at = sub.pos[0] - holder.pos[0] if holder is not None else -1
        out.append((sub, sub.kind == "processsubstitution" and 0 <= at < len(text) and text[at] == ">"))
    return out


def _judge(name: str, rest: list[str], streams: _Streams, env: Mapping[str, str]) -> Wait | None:
    if name in EDITORS:
        return _editor(name, rest, streams)
    if name in PAGERS:
        return None if streams.stdout else Wait(name, "a pager")
    if name in MANUALS:
        return _manual(name, rest, streams, env)
    if name in FULL_SCREEN:
        return _full_screen(name, rest)
    if name == "git":
        return _git(rest, streams, env)
    edits = _opens_an_editor(name, rest)
    if edits:
        return Wait(edits, "opens an editor")
    if name == "ssh":
        return _ssh(rest, streams)
    if name in REPLS:
        return _repl(name, rest, streams)
    source = code_source(name, rest)
    if source is None or streams.stdin:
        return None
    language = source.language
    letters, _ = flag_names(rest)
    if language == "python" and "i" in letters and (source.script or source.code):
        return Wait(name, "an interactive interpreter (-i) after its script")
    if not source.reads_stdin or set(rest) & _PRINTS_AND_EXITS.get(language, set()):
        return None
    if language == "sql":
        return None if set(rest) & _SQL_LISTS else Wait(name, "an interactive SQL prompt without a query or -c")
    if name in STDIN_COMMANDS:
        if letters & {"l", "r", "d", "c"}:
            return None  # at -l lists the jobs, -r / -d removes, -c prints one
        return Wait(name, "reads the commands to schedule from the terminal (give -f FILE)")
    if language == "sh":
        return Wait(name, "an interactive shell without a script or -c")
    return Wait(name, "an interactive interpreter without a script or -c / -e")


# Programs that hand a file to $EDITOR: always (visudo), or with this option or subcommand.
_EDITS_WITH = {"visudo": "", "vipw": "", "vigr": "", "sudoedit": "", "crontab": "-e"}
_EDIT_SUBCOMMANDS = {"kubectl": "edit", "systemctl": "edit", "virsh": "edit", "oc": "edit"}


def _opens_an_editor(name: str, rest: list[str]) -> str:
    """How the program that opens an editor is named (`crontab -e`), or ""."""
    option = _EDITS_WITH.get(name)
    if option is not None and (not option or option in rest):
        return f"{name} {option}".strip()
    subcommand = _EDIT_SUBCOMMANDS.get(name)
    return f"{name} {subcommand}" if subcommand and subcommand in rest else ""


def _editor(name: str, rest: list[str], streams: _Streams) -> Wait | None:
    letters, longs = flag_names(rest, {"-c", "-S", "-s", "-u", "-U", "-i", "-T", "-w", "-W", "--cmd"})
    if name in VIM_LIKE:
        commands = option_values(rest, "c", "", "SuUiTwW") + [w[1:] for w in rest if w.startswith("+")]
        if any(_EX_QUIT.search(c) for c in commands):
            return None  # vim -c '%s/a/b/' -c wq: does its work and quits
        ex_mode = name == "ex" or bool(letters & {"e", "E"})
        if ex_mode and streams.stdin:
            return None  # vim -es < script, ex -s file <<EOF: the commands come from the redirection
        return Wait(name, "an editor in Ex mode, reading commands from the terminal" if ex_mode else "an editor")
    if name == "emacs" and (longs | set(rest)) & {"--batch", "--script", "-batch", "-script"}:
        return None
    if name == "emacsclient" and (letters & {"n", "e"} or longs & {"--no-wait", "--eval"}):
        return None
    return Wait(name, "an editor")


def _manual(name: str, rest: list[str], streams: _Streams, env: Mapping[str, str]) -> Wait | None:
    if streams.stdout:
        return None  # man ls | cat: no pager when the output is not the terminal
    if name == "man":
        letters, longs = flag_names(rest, {"-P", "-L", "-M", "-S", "-s", "-m", "-C", "-R", "-E", "-T", "-H"})
        pager = option_values(rest, "P", "--pager", "LMSsmCRETH")
        if letters & {"k", "f", "w", "W", "K"} or longs & {"--apropos", "--whatis", "--where", "--path"}:
            return None  # man -k / -f / -w print a list or a path
        if pager and pager[-1].split()[:1] in ([], ["cat"]):
            return None
        setting = env.get("MANPAGER") if env.get("MANPAGER") is not None else env.get("PAGER")
        if setting is not None and setting.split()[:1] in ([], ["cat"]):
            return None
        return Wait(name, "shows the manual through a pager")
    if set(rest) & {"-o", "--output"}:
        return None
    return Wait(name, "a full-screen manual browser")


def _full_screen(name: str, rest: list[str]) -> Wait | None:
    letters, longs = flag_names(rest, _FULL_SCREEN_VALUED.get(name, set()))
    if name == "top" and {"b", "n"} <= letters:
        return None  # top -b -n 1: one screenful as text
    if name == "fzf" and ("f" in letters or "--filter" in longs):
        return None  # fzf -f QUERY: filters without asking
    if name == "tmux":
        operands = operands_of(rest, _FULL_SCREEN_VALUED["tmux"])
        if "d" in letters or (operands and operands[0] not in _TMUX_ATTACHING):
            return None  # tmux ls, tmux send-keys, tmux new -d: no session on this terminal
    if name == "screen" and ({"d", "m"} <= letters or letters & {"X", "Q"} or {"-ls", "-list"} & set(rest)):
        return None  # screen -dm: detached
    if name == "watch":
        return Wait(name, "runs until someone stops it")
    return Wait(name, "a full-screen program")


def _git(rest: list[str], streams: _Streams, env: Mapping[str, str]) -> Wait | None:
    pager_off = False
    i = 0
    while i < len(rest) and rest[i].startswith("-"):  # git's own options, before the subcommand
        option = rest[i]
        if option in ("--no-pager", "-P"):
            pager_off = True
        setting, _, value = (rest[i + 1] if option == "-c" and i + 1 < len(rest) else "").partition("=")
        if setting.lower() == "core.pager":
            pager_off = pager_off or value.strip() in _OFF_PAGERS
        if setting.lower() == "core.editor":
            env = {**env, "GIT_EDITOR": value}
        i += 2 if option in _GIT_VALUED else 1
    if i >= len(rest):
        return None
    sub, args = rest[i], rest[i + 1 :]
    letters, longs = flag_names(args, {"-m", "-F", "-C", "-c", "-t", "--template"})
    longs |= {w.split("=")[0] for w in args if w.startswith("--")}
    editor = _editor_setting(env)
    asks = _GIT_ASKS.get(sub)
    if asks is not None and (letters & set(asks[0]) or longs & asks[1]) and args[:1] not in (["show"], ["list"]):
        return Wait(f"git {sub}", "asks about each change (-p / -i)")
    if sub == "commit" and editor is None:
        given = {f"-{c}" for c in letters} | longs
        if "e" in letters or "--edit" in longs or not given & _GIT_MESSAGE:
            return Wait("git commit", "opens an editor for the message (give -m, -F or --no-edit)")
    if sub == "rebase" and editor is None and ("i" in letters or longs & {"--interactive", "--edit-todo"}):
        return Wait("git rebase -i", "opens an editor for the list of commits")
    tag_message = letters & {"m", "F", "d", "l", "v"} or longs & {"--message", "--file"}
    if sub == "tag" and editor is None and letters & {"a", "s"} and not tag_message:
        return Wait("git tag", "opens an editor for the tag's message (give -m)")
    if sub in ("mergetool", "difftool"):
        return Wait(f"git {sub}", "asks which tool to run for each file")
    if sub == "config" and ("e" in letters or "--edit" in longs):
        return Wait("git config --edit", "opens an editor")
    if sub in _GIT_PAGED and not (pager_off or streams.stdout or _git_pager_off(env)):
        return Wait(f"git {sub}", "shows its output through a pager (use git --no-pager)")
    return None


def _git_pager_off(env: Mapping[str, str]) -> bool:
    for name in ("GIT_PAGER", "PAGER"):
        if name in env:
            return env[name].strip() in _OFF_PAGERS
    return False


def _editor_setting(env: Mapping[str, str]) -> str | None:
    """The editor git runs when it is set to one that does not wait (GIT_EDITOR=true); else None."""
    for name in ("GIT_EDITOR", "VISUAL", "EDITOR"):
        value = env.get(name, "").strip()
        if value:
            return value if value.split()[0] in {"true", ":", "cat"} else None
    return None


def _ssh(rest: list[str], streams: _Streams) -> Wait | None:
    letters, _ = flag_names(rest, _SSH_VALUED)
    if letters & _SSH_NO_SESSION or streams.stdin:
        return None  # ssh host < script: the commands come from the redirection
    operands = operands_of(rest, _SSH_VALUED)
    if len(operands) >= 2:
        return None  # ssh host cmd: runs cmd and returns
    if "N" in letters:
        return Wait("ssh -N", "forwards ports until someone stops it")
    return Wait("ssh", "an interactive login without a remote command")


def _repl(name: str, rest: list[str], streams: _Streams) -> Wait | None:
    if streams.stdin:
        return None  # echo '2+2' | bc, sftp host < batch
    words = set(rest) | {w.split("=")[0] for w in rest}
    if words & _BATCH.get(name, set()):
        return None
    if name in _OPERAND_RUNS and operands_of(rest, _OPERAND_RUNS[name]) and "-i" not in rest:
        return None  # ipython script.py, redis-cli PING (ipython -i script.py stays)
    return Wait(name, "reads commands from the terminal")


# --- a line bashlex cannot read ------------------------------------------------------------------
_SEPARATORS = re.compile(r"\|\|?|&&|;|\n|\$\(|`|\(|\)|\{|\}")
_ALWAYS = EDITORS | FULL_SCREEN | PAGERS | MANUALS


def _by_words(command: str) -> Wait | None:
    """The programs that wait whatever their arguments, at the start of each piece of the line
    (the rest cannot be told without the syntax tree: then nothing is said)."""
    for piece in _SEPARATORS.split(command):
        words = [w for w in piece.split() if not is_assignment(w)]
        while words and command_name(words[0]) in WRAPPERS:
            words = [w for w in words[1:] if not w.startswith("-")]
        if words and command_name(words[0]) in _ALWAYS and ">" not in piece:
            name = command_name(words[0])
            if not _NO_WAIT & set(words):
                return Wait(name, "a full-screen program, an editor or a pager")
    return None
