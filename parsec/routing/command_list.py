"""The commands of a list (`export X=1; cd dir && ls | wc -l`): which word names each command's
program, past `FOO=1` prefixes and wrappers such as `sudo`, and which words are the shell's own
grammar around them (`for f in a b; do ...; done`), so that each command is judged on its own
arguments and a loop's `in` or `do` is not read as English.
"""

from __future__ import annotations

from dataclasses import dataclass

from .language import is_plain_word
from .lexer import Word
from .shell_facts import WRAPPERS, PathIndex, resolve
from .syntax import arg_kind
from .vocabulary import KNOWN_COMMANDS

# Keywords that only open or continue a statement; the command follows them (`do rm $f`, `then
# echo ok`, fish's `and make`). bash's and zsh's, and fish's.
_PREFIXES = frozenset("do then else elif if while until ! { time".split())
_FISH_PREFIXES = frozenset("and or not else if while begin".split())
# Keywords whose whole command is grammar: a loop's variable and list, a closer, a case pattern.
_GRAMMAR = frozenset("for select case foreach done fi esac } coproc function".split())
_FISH_GRAMMAR = frozenset("for switch case function end".split())


@dataclass(slots=True)
class Command:
    """One command after the first of a list: its program word and the indices, among the
    first command's arguments (Analysis.args), of its own arguments."""

    head: str
    args: list[int]


def command_position(words: list[Word], path_index: PathIndex, shell: str | None) -> tuple[int, bool]:
    """Index of the word that names the program, past `FOO=1` prefixes and `sudo`-like wrappers,
    and whether assignments came first."""
    i = 0
    while i < len(words) - 1 and not words[i].quoted and arg_kind(words[i]) == "assignment":
        i += 1
    assigned = i > 0
    while i < len(words) - 1 and words[i].text in WRAPPERS | {"time", "!"}:
        j = i + 1
        while j < len(words) - 1 and words[j].text.startswith("-"):
            j += 1
            if j < len(words) - 1 and not _names_a_program(words[j], path_index, shell):
                j += 1  # the option's value: `sudo -u bob ls`, `watch -n 5 df`
        if j == i + 1 and not _names_a_program(words[j], path_index, shell):
            break  # `watch the logs`, `time how long it takes`: the wrapper is the command word
        i = j
    return i, assigned


def _names_a_program(word: Word, path_index: PathIndex, shell: str | None) -> bool:
    text = word.text
    if text[:1] in "./~" or "/" in text:
        return True
    return (
        resolve(text, path_index, shell) != "none"
        or text in KNOWN_COMMANDS
        or not (is_plain_word(text) or text.isdigit())
    )


def later_commands(
    args: list[Word], own: int, path_index: PathIndex, shell: str | None
) -> tuple[list[Command], set[int]]:
    """The commands that follow the first one (numbered `own`) among `args`, every word after
    the first command's program word, and the indices of the words that are the shell's grammar,
    not arguments."""
    groups: dict[int, list[int]] = {}
    for index, word in enumerate(args):
        groups.setdefault(word.command, []).append(index)
    prefixes, grammar_words = (_FISH_PREFIXES, _FISH_GRAMMAR) if shell == "fish" else (_PREFIXES, _GRAMMAR)
    commands: list[Command] = []
    grammar: set[int] = set()
    for number, indices in groups.items():
        if number == own:  # the first command's own arguments
            continue
        i = 0
        while i < len(indices) and not args[indices[i]].quoted and args[indices[i]].text in prefixes:
            grammar.add(indices[i])
            i += 1
        if i < len(indices) and args[indices[i]].text in grammar_words:
            grammar.update(indices[i:])
            continue
        rest = indices[i:]
        if not rest:
            continue
        position, _ = command_position([args[j] for j in rest], path_index, shell)
        commands.append(Command(args[rest[position]].text, rest[position + 1 :]))
    return commands, grammar
