"""What some commands take as arguments, so that words they never take read as English.

bash answers `enable debug mode` with "enable: debug: not a shell builtin" and `exit Steam` with
"numeric argument required": for these commands an ordinary word is no argument at all, so a
line that carries one is a phrase (`enable debug mode`, `help with git rebase`, `clear dead
sessions`), whatever the rest of its evidence says.
"""

from __future__ import annotations

import re

from .shell_facts import SHELL_WORDS

# Their arguments are numbers, signals, job specs or flags (`exit 1`, `kill %1`, `shutdown now`).
NUMBERS_ONLY = frozenset("exit logout kill shift return suspend shutdown reboot halt poweroff init telinit".split())
# They take no operands at all, or only files and options (`clear`, `reset`, `print file.pdf`).
NO_WORDS = frozenset("clear reset pwd times dirs print".split())
# They take the names of builtins (`enable -n echo`, `help cd`).
BUILTIN_NAMES = frozenset("enable help".split())
# Options come first (`set -e`, `set -o vi`, `set +x`); a plain word first overwrites $1, $2 ...
OPTIONS_FIRST = frozenset({"set"})
WORDS_THEY_TAKE = {"shutdown": frozenset({"now"}), "reboot": frozenset({"now"})}
# Builtins whose grammar is one shell's own. fish's `path` and `string` take a sub-command first
# (`path exclusion` → "invalid subcommand"); zsh's `disable` takes builtin names as `enable` does
# (`disable SSL` → "no such hash table element"), its `log` no words ("too many arguments").
SUBCOMMANDS = {
    ("fish", "path"): frozenset(
        "basename change-extension dirname extension filter is mtime normalize resolve sort".split()
    ),
    ("fish", "string"): frozenset(
        """collect escape join join0 length lower match pad repeat replace shorten split split0 sub trim
        unescape upper""".split()
    ),
}
SHELL_NO_WORDS = {"zsh": frozenset({"log"})}
SHELL_BUILTIN_NAMES = {"zsh": frozenset({"disable"})}
FISH_SHORT_NAME = 3  # `set x 1`, `set ok 0`: names this short are variables, not words of a phrase
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(=.*)?$", re.DOTALL)


def unexpected_words(head: str, words: list[str], kinds: list[str], shell: str | None = None) -> list[str]:
    """The plain words after `head` that it never takes as arguments (empty when unknown).
    `shell`: the user's shell, where a builtin's grammar differs (fish's `set NAME VALUE…`)."""
    if head in OPTIONS_FIRST and shell == "fish":  # fish assigns with `set x 1`: a name, then values
        return _fish_set_misfits(words)
    subcommands = SUBCOMMANDS.get((shell or "bash", head))
    if subcommands is not None:
        first = next((w for w in words if not w.startswith("-")), None)
        return [first] if first is not None and first not in subcommands else []
    if head in OPTIONS_FIRST:  # `set -- a b` sets $1 $2; `set alias ll` does too, unasked
        return (
            [w for w in words if not w.startswith(("-", "+"))] if words and not words[0].startswith(("-", "+")) else []
        )
    if head in NUMBERS_ONLY or head in NO_WORDS or head in SHELL_NO_WORDS.get(shell or "bash", ()):
        allowed: frozenset[str] = WORDS_THEY_TAKE.get(head, frozenset())
    elif head in BUILTIN_NAMES or head in SHELL_BUILTIN_NAMES.get(shell or "bash", ()):
        if any(w.startswith("-") for w in words):  # `disable -a ll`, `enable -f lib.so name`: other names
            return []
        words_of_shell = SHELL_WORDS.get(shell, SHELL_WORDS[None])
        allowed = words_of_shell.builtins | words_of_shell.keywords
    else:
        return []
    return [
        w
        for w, k in zip(words, kinds)
        if (k == "word" or (k == "quoted" and head in NUMBERS_ONLY and "$" not in w and any(c.isalpha() for c in w)))
        and w.lower() not in allowed
    ]


def _fish_set_misfits(words: list[str]) -> list[str]:
    """fish's `set NAME VALUE…` assigns: a name that is no identifier is no argument."""
    name = next((w for w in words if not w.startswith(("-", "+"))), None)
    return [name] if name is not None and not _IDENTIFIER.match(name) else []


def fish_set_word_name(words: list[str]) -> str | None:
    """The name fish's `set` would assign when it is a plain lower-case word and no option says
    a variable is meant (`set password` empties $password; `set condense option` is a phrase).
    `set x 1`, `set fish_greeting`, `set -gx EDITOR vim` name variables."""
    if any(w.startswith(("-", "+")) for w in words) or not words:
        return None
    name = words[0]
    return name if len(name) >= FISH_SHORT_NAME and name.isalpha() and name.islower() else None


# Their own grammar is made of English words (`ufw allow from 10.0.0.0/8 to any port 22`, `ip a
# show up`, `consul kv put key value`): function words there are syntax, not a sentence.
ENGLISH_GRAMMAR = frozenset("ufw ip tc nft bridge consul nmcli iw bluetoothctl".split())
# They take variable names, NAME=value assignments and options, nothing else.
NAMES_ONLY = frozenset("export unset local readonly declare typeset".split())
# They need a source and a destination (`cp a b`); one plain word is half a command.
TWO_OPERANDS = frozenset("cp mv install ln".split())


def malformed(head: str, words: list[str], kinds: list[str]) -> str | None:
    """Why the arguments do not fit `head`'s usage (`export key/value pairs`, `install package`)."""
    if head in NAMES_ONLY:
        odd = [w for w, k in zip(words, kinds) if k not in ("flag", "code") and not _IDENTIFIER.match(w)]
        if odd:
            return f"'{head}' takes variable names, not '{odd[0]}'"
    if head in TWO_OPERANDS and "flag" not in kinds and len(words) == 1 and kinds[0] == "word":
        return f"'{head}' needs a source and a destination, not just '{words[0]}'"
    return None
