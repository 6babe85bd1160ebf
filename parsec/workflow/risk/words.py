"""Reading a command's words before any rule looks at them: the command behind its wrappers (sudo,
env, nohup ...), assignments, values only known at run time, options and operands as getopt
reads them, paths after brace expansion, and quoting.
"""

from __future__ import annotations

import os
import re
from collections.abc import Collection, Iterator

from .command_names import WRAPPER_VALUE_OPTIONS, WRAPPERS

HOME_VARIABLE = re.compile(r"^\$(HOME|\{HOME\})(?=/|$)")


def command_name(word: str) -> str:
    """The name a command word runs: /bin/bash -> bash."""
    return os.path.basename(word.rstrip("/")) or word


def is_assignment(word: str) -> bool:
    return bool(re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", word))


def is_dynamic(word: str) -> bool:
    """Whether the word's value is only known at run time ($VAR, $(...), `...`); $HOME is known."""
    return "$" in HOME_VARIABLE.sub("", word) or "`" in word


def first_word(text: str) -> str:
    words = text.split()
    return command_name(words[0]) if words else ""


def unwrapped(words: list[str]) -> tuple[list[str], list[str]]:
    """Strip leading assignments and wrappers (sudo -E, nohup, env -i X=1 ...); return (rest, wrappers)."""
    wrappers: list[str] = []
    i = 0
    while i < len(words):
        name = command_name(words[i])
        if is_assignment(words[i]):
            i += 1
        elif name in WRAPPERS:
            wrappers.append(name)
            start, i = i + 1, _skip_wrapper_options(name, words, i + 1)
            if name == "command" and {"-v", "-V"} & set(words[start:i]):
                return [], wrappers  # command -v only looks the name up
            if name == "env":  # env -S 'cmd args', -S'cmd args', --split-string='cmd args'
                words = words[:i] + [w for s in _env_split_strings(words[start:i]) for w in _split(s)] + words[i:]
        else:
            break
    return words[i:], wrappers


def _split(text: str) -> list[str]:
    import shlex  # loaded here, not with the module: only env -S and nested commands need it

    try:
        return shlex.split(text)
    except ValueError:  # unbalanced quotes: keep it as one word
        return [text]


def _skip_wrapper_options(name: str, words: list[str], i: int) -> int:
    """The index of the word after the wrapper's options (and timeout's duration)."""
    valued = WRAPPER_VALUE_OPTIONS.get(name, set())
    if name == "env":  # a cluster ending in a letter that takes a value (-iS 'cmd') takes the next word
        valued = valued | {w for w in words if re.fullmatch(r"-[^-]*[SuC]", w)}
    i += sum(role != "operand" for _, role in word_roles(words[i:], valued, permute=False))
    if name == "timeout" and i < len(words):
        i += 1  # the duration
    return i


def _env_split_strings(options: list[str]) -> list[str]:
    """The values of env's -S / --split-string among its options: env splits each into words."""
    return option_values(options, "S", "--split-string", "uC")


def word_roles(args: list[str], valued: Collection[str] = (), permute: bool = True) -> Iterator[tuple[str, str]]:
    """Each word with its role: "option", "value" (the word after an option in `valued`), "--" or
    "operand". Everything after `--` is an operand; with permute=False so is everything from the
    first operand on (the command that sudo or xargs runs), as getopt does without GNU permutation.
    """
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            yield arg, "--"
            yield from ((a, "operand") for a in args[i + 1 :])
            return
        if not is_option(arg):
            if not permute:
                yield from ((a, "operand") for a in args[i:])
                return
            yield arg, "operand"
        else:
            yield arg, "option"
            if arg in valued and i + 1 < len(args):
                i += 1
                yield args[i], "value"
        i += 1


def is_option(word: str) -> bool:
    return word.startswith("-") and word != "-"


def operands_of(args: list[str], valued: Collection[str] = ()) -> list[str]:
    """The operands, skipping each option in `valued` and the word after it."""
    return [word for word, role in word_roles(args, valued) if role == "operand"]


def flag_names(args: list[str], valued: Collection[str] = ()) -> tuple[set[str], set[str]]:
    """The short option letters and long option names given: `--sort -date` is not -d -a -t -e."""
    options = [word for word, role in word_roles(args, valued) if role == "option"]
    letters = {c for o in options if not o.startswith("--") for c in o[1:]}
    return letters, {o.split("=")[0] for o in options if o.startswith("--")}


def path_operands(args: list[str]) -> list[str]:
    """The operands as paths, after the shell's brace expansion."""
    return [path for arg in operands_of(args) for path in expand_braces(arg)]


_BRACES = re.compile(r"(?<!\$)\{([^{}]*,[^{}]*)\}")


def expand_braces(word: str, limit: int = 64) -> list[str]:
    """Simple brace alternatives, as the shell expands them: `{~,/}` is `~` and `/`."""
    match = _BRACES.search(word)
    if not match:
        return [word]
    out: list[str] = []
    for alternative in match.group(1).split(","):
        out.extend(expand_braces(word[: match.start()] + alternative + word[match.end() :], limit))
    return out[:limit]


def after_options(args: list[str], valued: set[str]) -> list[str]:
    """The words from the first operand on: the command that xargs or runuser -u runs."""
    return [word for word, role in word_roles(args, valued, permute=False) if role == "operand"]


def option_values(args: list[str], short: str, long: str, other_valued: str = "", optional: bool = False) -> list[str]:
    """The values given to -X or --long (attached, after `=`, or as the next word).

    `other_valued` are the command's other short options that take a value: in `-kSo` the rest of
    the word after k is k's value, not an -o. An `optional` value can only be attached (git grep
    -O[pager]); then a bare -X counts too, as an empty value.
    """
    values: list[str] = []
    i = 0
    while i < len(args) and args[i] != "--":
        arg = args[i]
        name, equals, attached = arg.partition("=")
        if long and arg.startswith("--") and len(name) > 3 and long.startswith(name):  # getopt takes prefixes
            takes_next = not (equals or optional)
            values.append(word_at(args, i + 1) if takes_next else attached)
            i += takes_next
        elif is_option(arg) and not arg.startswith("--"):
            for j, letter in enumerate(arg[1:], start=1):
                if letter == short or letter in other_valued:
                    takes_next = not (arg[j + 1 :] or (optional and letter == short))
                    value = word_at(args, i + 1) if takes_next else arg[j + 1 :]
                    i += takes_next
                    if letter == short:
                        values.append(value)
                    break
        i += 1
    return values if optional else [v for v in values if v]


def word_at(args: list[str], i: int) -> str:
    return args[i] if i < len(args) else ""


def quote_word(word: str) -> str:
    import shlex  # see _split

    return shlex.quote(word) if word not in ("~",) and not word.startswith("~/") else word
