"""A fast, forgiving shell word splitter: words, quoting and the operators found outside quotes.

It is not a parser (bashlex is, see syntax.py); it only has to be right about what a reader sees
at a glance, in a few microseconds, for every line. Apostrophes inside words ("what's", "don't",
"the user's") are kept as letters: in prose they are contractions, not quotes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

MAX_CHARS = 4096  # longer input is judged on its start; evidence is plentiful by then

_OPERATOR_CHARS = frozenset("|&;<>()")
# `print # of in errors`, `skip #! line`: "#" read as a word ("number of", a shebang), not a comment.
_HASH_WORD = re.compile(r"#(!|\s+of\s)")
_CURLY_APOSTROPHE = re.compile(r"(?<=[^\W\d_])\u2019(?=[^\W\d_])")
_PLACEHOLDER = re.compile(r"<[A-Za-z][\w-]*>(?=[\s,.;:!?)'\"]|$)")  # <name>, <file-path>
_UNESCAPED_BACKTICK = re.compile(r"(?<!\\)`")  # "\`$user'": a literal backtick inside double quotes
_SPECIAL = frozenset("'\"\\|&;<>()$`#")
# Operators that end one command of a list and start the next (`export X=1; echo $X`, `set | grep X`).
LIST_OPERATORS = frozenset({";", "&&", "||", "|", "|&", "&", ";;"})


@dataclass(slots=True)
class Word:
    text: str  # the word as the shell would see it, quotes removed
    quoted: bool = False  # some part of it was inside quotes or escaped
    in_substitution: bool = False  # some part of it was inside `backticks` or $( ... ): another command's
    command: int = 0  # which command of a list (`a; b && c | d`) the word belongs to, from 0


@dataclass(slots=True)
class Lexed:
    words: list[Word] = field(default_factory=list)
    operators: set[str] = field(default_factory=set)  # "|", "&&", ";", ">", "<", "&", "(", ")"
    substitution: bool = False  # $( ... ) or backticks
    dollar_paren: bool = False  # the substitution is $( ... ), not only `backticks`
    placeholders: int = 0  # <name>: a placeholder in a usage line or a question, not redirections
    variable: bool = False  # $NAME, ${...}, $1
    unbalanced_quote: bool = False
    contractions: int = 0  # letter'letter inside an unquoted word
    truncated: bool = False
    comment: bool = False  # an unquoted "#" at the start of a word: the rest is a shell comment
    truncates: bool = False  # a redirection that empties its file (`> f`, `&> f`), not `>>` or `2>&1`


def _is_contraction(line: str, i: int) -> bool:
    return 0 < i < len(line) - 1 and line[i - 1].isalpha() and line[i + 1].isalpha()


def lex(line: str) -> Lexed:
    out = Lexed()
    if "\u2019" in line:  # `don’t`: a typographic apostrophe inside a word is an apostrophe
        line = _CURLY_APOSTROPHE.sub("'", line)
    if len(line) > MAX_CHARS:
        line, out.truncated = line[:MAX_CHARS], True
    if not any(ch in _SPECIAL for ch in line):  # the common prose/simple-command case
        out.words = [Word(w) for w in line.split()]
        return out
    buf: list[str] = []
    quoted = False
    in_ticks, depth = False, 0  # inside `backticks`; how many $( are open
    sub_word = False  # the word being built has a part inside a substitution
    command = 0  # the command of the list being read

    def flush() -> None:
        nonlocal buf, quoted, sub_word
        if buf or quoted:
            out.words.append(Word("".join(buf), quoted, sub_word, command))
        buf, quoted, sub_word = [], False, False

    i, n = 0, len(line)
    while i < n:
        ch = line[i]
        sub_word = sub_word or in_ticks or depth > 0
        if ch.isspace():
            flush()
        elif ch == "#" and not buf and not quoted and out.words and not _HASH_WORD.match(line, i):
            out.comment = True
            break
        elif ch == "\\":
            if i + 1 < n:
                buf.append(line[i + 1])
                quoted = True
                i += 1
        elif ch == "'" and _is_contraction(line, i):
            buf.append(ch)
            out.contractions += 1
        elif ch in "'\"":
            end = line.find(ch, i + 1)
            if end < 0:
                out.unbalanced_quote = True
                buf.append(line[i + 1 :])
                quoted = True
                break
            inner = line[i + 1 : end]
            if ch == '"':  # the shell expands inside double quotes
                out.variable = out.variable or "$" in inner
                out.substitution = out.substitution or "$(" in inner or bool(_UNESCAPED_BACKTICK.search(inner))
                out.dollar_paren = out.dollar_paren or "$(" in inner
            buf.append(inner)
            quoted = True
            i = end
        elif ch == "`":
            out.substitution = sub_word = True
            in_ticks = not in_ticks
            buf.append(ch)
        elif ch == "$":
            nxt = line[i + 1] if i + 1 < n else ""
            if line.startswith("$((", i):  # arithmetic: no command runs
                out.variable = sub_word = True
                depth += 2
                buf.append("$((")
                i += 3
                continue
            if nxt == "(":  # `$(pwd)/bin` stays one word, as it is to the shell
                out.substitution = out.dollar_paren = sub_word = True
                depth += 1
                buf.append("$(")
                i += 2
                continue
            elif nxt == "{" or nxt.isalnum() or nxt in "_?#@*!$-":
                out.variable = True
            buf.append(ch)
        elif ch == "<" and (placeholder := _PLACEHOLDER.match(line, i)):
            buf.append(placeholder.group(0))
            out.placeholders += 1
            i = placeholder.end() - 1
        elif ch == ")" and depth:
            depth -= 1
            buf.append(ch)
        elif ch in _OPERATOR_CHARS:
            if ch in "<>" and buf and "".join(buf).isdigit():
                buf = []  # "2>file": the descriptor number belongs to the redirection
            flush()
            two = line[i : i + 2]
            if line.startswith("&>>", i):  # appends both streams
                out.operators.add(">")
                i += 3
                continue
            # `> file`, `&> file`, `>| file` empty the file, even when no command is found
            out.truncates = out.truncates or two == "&>" or (ch == ">" and two not in (">>", ">&"))
            if two in ("&&", "||", ">>", "<<", ";;", "&>", ">&", "|&"):
                operator = two if two not in (">>", "&>", ">&") else ">"
                i += 1
            else:
                operator = ch
            out.operators.add(operator)
            if operator in LIST_OPERATORS and not in_ticks and not depth:
                command += 1
            if two == "<<":  # heredoc or here-string: the rest is data
                out.operators.add("<<")
        else:
            buf.append(ch)
        i += 1
    flush()
    return out
