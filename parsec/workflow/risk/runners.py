"""Programs that run code: shells and language interpreters. Where their code comes from: an option
(sh -c, python -c, perl -e), a script file, or their standard input (`… | sh`, `bash <<< …`)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .command_names import SH_LIKE
from .words import is_option, option_values, word_roles

# Each language's interpreters and the options that take its code as their value.
LANGUAGES = {
    "python": ({"python", "python2", "python3", "pypy", "pypy3"}, "c", ""),
    "perl": ({"perl", "perl5"}, "eE", ""),
    "ruby": ({"ruby"}, "e", ""),
    "node": ({"node", "nodejs"}, "ep", "--eval --print"),
    "php": ({"php"}, "r", ""),
    "lua": ({"lua", "lua5.1", "lua5.2", "lua5.3", "lua5.4", "luajit"}, "e", ""),
}
LANGUAGE_OF = {name: language for language, (names, _, _) in LANGUAGES.items() for name in names}
# Short options of each language that take the next word as their value (not code, not a script).
_VALUED = {
    "python": {"-W", "-X", "-m", "-Q"},
    "perl": {"-I", "-M", "-m", "-x"},
    "ruby": {"-I", "-r", "-C", "-E", "-F", "-K"},
    "node": {"-r", "--require", "--import", "--loader", "--input-type", "-C", "--conditions"},
    "php": {"-c", "-d", "-z", "-f"},
    "lua": {"-l"},
}
STDIN_COMMANDS = {"at", "batch"}  # read shell commands from stdin unless given -f FILE
# SQL clients: the option that takes SQL, the option that names a file of it, their other valued options.
SQL_CLIENTS = {
    "psql": ("c", "--command", "f", "--file", "dfhpUvLoPTFR"),
    "mysql": ("e", "--execute", "", "", "DhPpuSoT"),
    "mariadb": ("e", "--execute", "", "", "DhPpuSoT"),
}
SQLITE_VALUE_OPTIONS = {"-cmd", "-separator", "-newline", "-nullvalue", "-init", "-A", "-maxsize"}


@dataclass
class CodeSource:
    """Where a runner's code comes from: `code` (an option's value), `script` (a file), or stdin."""

    language: str
    code: list[str]
    script: str = ""
    reads_stdin: bool = False
    module: str = ""  # python -m MODULE


def code_source(name: str, rest: list[str]) -> CodeSource | None:
    """Where `name rest…` takes its code from; None when it is no shell or interpreter."""
    if name in SH_LIKE:
        return _shell_source(rest)
    if name in STDIN_COMMANDS:
        return CodeSource("sh", [], reads_stdin=not any(a.startswith("-f") for a in rest))
    if name in SQL_CLIENTS or name in ("sqlite3", "sqlite"):
        return _sql_source(name, rest)
    language = LANGUAGE_OF.get(name)
    if language is None:
        return None
    _, letters, longs = LANGUAGES[language]
    code = [v for letter in letters for v in option_values(rest, letter, "", "".join(_short_valued(language)))]
    code += [v for long in longs.split() for v in option_values(rest, "", long)]
    module = option_values(rest, "m", "", "".join(_short_valued(language) - {"m"})) if language == "python" else []
    if code or module:
        return CodeSource(language, code, module=module[0] if module else "")
    operands = _operands(rest, _VALUED[language])
    if operands and operands[0] != "-":
        return CodeSource(language, [], script=operands[0])
    return CodeSource(language, [], reads_stdin=True)


def _short_valued(language: str) -> set[str]:
    return {o[1] for o in _VALUED[language] if re.fullmatch(r"-\w", o)}


def _shell_source(rest: list[str]) -> CodeSource:
    for i, arg in enumerate(rest[:-1]):
        if arg == "--":
            break
        if re.fullmatch(r"-[A-Za-z]*c[A-Za-z]*", arg):
            return CodeSource("sh", [rest[i + 1]])
    operands = _operands(rest, {"-o", "+o", "-O", "+O", "--rcfile", "--init-file"})
    reads_stdin = not operands or operands[0] == "-" or any(re.fullmatch(r"-[A-Za-z]*s[A-Za-z]*", a) for a in rest)
    return CodeSource("sh", [], script="" if reads_stdin else operands[0], reads_stdin=reads_stdin)


def _operands(rest: list[str], valued: set[str]) -> list[str]:
    """The words from the first operand on (a script's own arguments follow it)."""
    return [word for word, role in word_roles(rest, valued, permute=False) if role == "operand"]


def shell_start_file(rest: list[str]) -> str:
    """bash --rcfile FILE / --init-file FILE: a file it runs first."""
    for i, arg in enumerate(rest):
        if arg in ("--rcfile", "--init-file") and i + 1 < len(rest):
            return rest[i + 1]
        if not is_option(arg):
            break
    return ""


def _sql_source(name: str, rest: list[str]) -> CodeSource:
    if name in ("sqlite3", "sqlite"):  # sqlite3 [options] DATABASE [SQL …]
        operands = [w for w, role in word_roles(rest, SQLITE_VALUE_OPTIONS) if role == "operand"]
        commands = [rest[i + 1] for i, a in enumerate(rest[:-1]) if a == "-cmd"]
        code = commands + [" ".join(operands[1:])] if operands[1:] else commands
        return CodeSource("sql", code, reads_stdin=not operands[1:])
    letter, long, file_letter, file_long, valued = SQL_CLIENTS[name]
    code = option_values(rest, letter, long, valued + file_letter)
    files = option_values(rest, file_letter, file_long, valued + letter) if file_letter else []
    return CodeSource("sql", code, script=files[0] if files else "", reads_stdin=not (code or files))
