"""Weigh the evidence: every feature adds log-odds that the line is prose (negative: a command).

Weights are set by hand from how often each cue occurs in commands versus prose (see
docs/classifier.md); the sum goes through a logistic function to a probability, and the caller's
thresholds turn that into command / ambiguous / prompt. The starting bias leans to "command":
prose that fails as a command costs one "command not found" (and the 127 fallback offers to ask
Parsec); a command sent to the LLM costs seconds and trust.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field

from .command_list import Command, command_position, later_commands
from .language import (
    DETERMINERS,
    IMPERATIVE_VERBS,
    ONE_WORD_PROSE,
    PARTICLES,
    QUESTION_STARTERS,
    REQUEST_STARTERS,
    bare,
    function_word_weight,
    is_plain_word,
)
from .lexer import Lexed, Word, lex
from .lexicon import ENGLISH_WORDS
from .other_languages import QUESTION_STARTERS as OTHER_QUESTION_STARTERS
from .other_languages import accented, function_word_weights, other_script
from .shell_facts import PathIndex, resolve
from .syntax import MAX_PARSE_CHARS, arg_kind, parses_as_shell
from .usage import ENGLISH_GRAMMAR, unexpected_words
from .vocabulary import KNOWN_COMMANDS
from .word_odds import WORD_ODDS

BIAS = -0.5
WORD_ODDS_SCALE = 0.3  # the trained log-odds are per word and overlap the other evidence
WORD_ODDS_CAP = 2.0
# Past this log-odds the parse cannot change the outcome, so bashlex (slow) is not consulted.
SETTLED = 1.5
MAX_ARGS = 40  # the first 40 arguments carry all the evidence a line has
FREE_TEXT_COMMANDS = frozenset("echo printf say logger notify-send wall banner figlet cowsay espeak toilet".split())
STREAM_PREPOSITIONS = frozenset("to on into onto from".split())
STREAMS = frozenset("stdout stderr stdin".split())
COMPOUND_KEYWORDS = frozenset("if for while until case select function { [[ coproc".split())
# A complete compound statement ends with its closing word; without it bashlex need not be asked.
CLOSERS = {
    "if": "fi",
    "for": "done",
    "while": "done",
    "until": "done",
    "select": "done",
    "case": "esac",
    "{": "}",
    "[[": "]]",
}

# `Enable/Disable ufw`, `Read/Write mode`: words joined by a slash, unless the first is a directory
# that programs live in (`bin/rails`, `scripts/deploy`).
_SLASH_WORDS = re.compile(r"^[A-Za-z]{2,}(/[A-Za-z]{2,})+$")
PROGRAM_DIRS = frozenset(
    "bin sbin scripts script tools tool build out dist target vendor node_modules src test tests hack ci util utils usr opt local libexec lib dev venv env".split()
)
# Words of the man-page lexicon that are program names: no vowel (`btrfs`, `cf`) or a `ctl` end.
_PROGRAM_LIKE = re.compile(r"^[^aeiouy]+$|ctl$")
_CAMEL_CASE = re.compile(r"[a-z][A-Z]")  # VBoxManage, PowerShell: a program's name, not a sentence's start
# (weight per occurrence, cap on the total) for each kind of argument
ARG_WEIGHTS: dict[str, tuple[float, float]] = {
    "flag": (-1.5, -4.5),
    "assignment": (-1.0, -2.0),
    "url": (-1.0, -2.0),
    "path": (-0.8, -2.4),
    "glob": (-0.8, -1.6),
    "number": (-0.3, -0.9),
    "quoted": (-0.4, -1.2),
    "name": (-0.6, -1.8),
}
OPERATOR_WEIGHTS: dict[str, float] = {
    "|": -3.0,
    "&&": -3.0,
    "||": -3.0,
    "<<": -3.0,
    ";": -2.0,
    ">": -2.5,
    "<": -2.0,
    "&": -2.0,
    ";;": -1.0,
    "|&": -3.0,
    "(": -0.5,
    ")": -0.3,
}


@dataclass(slots=True)
class Analysis:
    """Everything the classifier learned about one line; `score` is log-odds of prose."""

    head: str = ""
    head_kind: str = "none"
    args: list[Word] = field(default_factory=list)  # the words after the command (past sudo, FOO=1 ...)
    arg_kinds: list[str] = field(default_factory=list)
    own: int = 0  # how many of `args` are the first command's own (the rest follow `;`, `&&`, `|` ...)
    commands: list[Command] = field(default_factory=list)  # the commands after the first
    grammar: set[int] = field(default_factory=set)  # indices of `args` that are loop or `if` keywords
    function_words: float = 0.0
    score: float = BIAS
    evidence: list[tuple[float, str]] = field(default_factory=list)
    lexed: Lexed | None = None
    # evidence that depends on whether bashlex parses the line: (if it parses, if not, why, why not)
    pending: tuple[float, float, str, str] | None = None
    inline_code: float = 0.0  # the weight of `backticks` / $VAR, decided after the language evidence
    shell: str | None = None  # the user's shell, when the hook said (bash, zsh, fish)

    def add(self, weight: float, why: str) -> None:
        if weight:
            self.score += weight
            self.evidence.append((weight, why))

    def own_arguments(self, command: Command | None = None) -> tuple[list[str], list[str]]:
        """The words and kinds of the first command's own arguments, or of `command`'s."""
        indices = range(self.own) if command is None else command.args
        return [self.args[i].text for i in indices], [self.arg_kinds[i] for i in indices]

    @property
    def probability(self) -> float:
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, self.score))))


_ARTICLE = {"alias": "an", "function": "a"}
_KIND_NAMES = {"file": "program", "builtin": "shell builtin", "keyword": "shell keyword"}


def _first_word(analysis: Analysis, word: str, fact: str, line: str, path_index: PathIndex) -> bool:
    """Evidence from what the first word is; False when the line is a complete shell compound."""
    analysis.head, analysis.head_kind = word, fact
    # what an alias or function stands over, without the user's own definitions
    underneath = resolve(word, path_index, analysis.shell) if fact in ("alias", "function") else "none"
    if underneath != "none":
        # `alias ls='ls --color=auto'` (Debian's default .bashrc), fish's own `man` and `umask`
        # functions: no sign the user chose the word, so it weighs as the command it stands for.
        what = "a function that ships with fish" if underneath == "function" else f"{_ARTICLE[fact]} {fact}"
        over = "" if underneath == "function" else f" over the {_KIND_NAMES[underneath]} of that name"
        analysis.add(-1.2, f"'{word}' is {what}{over}")
    elif fact in ("alias", "function"):
        analysis.add(-2.5, f"'{word}' is a shell {fact}")
    elif fact == "keyword" and word in COMPOUND_KEYWORDS:
        closer = CLOSERS.get(word)
        words = analysis.lexed.words if analysis.lexed else []
        if (closer is None or any(w.text == closer for w in words)) and parses_as_shell(line):
            analysis.add(-5.0, f"a shell '{word}' statement that parses")
            return False
        if word != "[[":  # bashlex does not know [[ ]]; its operators decide instead
            analysis.add(0.5, f"'{word}' starts no valid shell statement")
    elif fact == "none" and other_script(word):  # `查找所有大于1MB的python文件`, `найди`
        analysis.add(3.0, f"'{word[:12]}' is written in a script no command name uses")
    elif fact == "none" and is_plain_word(word) and accented(word):
        analysis.add(1.0, f"'{word}' has accents no command name has")
    elif fact == "none" and word in KNOWN_COMMANDS:
        analysis.add(-0.9, f"'{word}' is a well-known command (not found here)")
    elif fact in ("builtin", "file", "keyword"):
        analysis.add(-1.2, f"'{word}' is a {'command on PATH' if fact == 'file' else 'shell ' + fact}")
    elif is_plain_word(word) and bare(word) in DETERMINERS:
        analysis.add(1.5, f"starts with '{bare(word)}', a word that opens a noun phrase")
    elif _SLASH_WORDS.match(word) and word.split("/", 1)[0].lower() not in PROGRAM_DIRS:
        analysis.add(1.2, f"'{word}' joins words with '/' (it is no path to a program)")
    elif word[:1] in "./~" or "/" in word:
        analysis.add(-2.0, f"'{word}' is a path to a program")
    elif word[:1].isupper() and len(word) >= 6 and _CAMEL_CASE.search(word) and is_plain_word(word):
        analysis.add(-1.0, f"'{word}' is written like a program name (VBoxManage)")
    elif word[:1].isupper() and word[1:].islower() and is_plain_word(word):
        analysis.add(1.5, f"starts with the capitalised word '{bare(word)}', not a command")
    elif word[:1].isupper() and is_plain_word(word):
        analysis.add(0.8, f"starts with the capitalised word '{word}', not a command")
    elif is_plain_word(word) and _verb(bare(word)) in IMPERATIVE_VERBS:
        analysis.add(1.2, f"'{word}' is a verb that opens a request, not a command here")
    elif is_plain_word(word) and _english(bare(word)):
        analysis.add(0.7, f"'{word}' is an English word, not a command")
    elif is_plain_word(word):
        analysis.add(-0.3, f"'{word}' is not a command here, nor a common English word")
    else:
        analysis.add(-1.0, f"'{word}' looks like a program name")
    return True


def _english(word: str) -> bool:
    """A word of the man-page lexicon that is not shaped like a program name (`systemctl`, `ln`)."""
    return word in ENGLISH_WORDS and not _PROGRAM_LIKE.search(word)


def _verb(word: str) -> str:
    """`lists` → `list`, `searches` → `search`: third-person requests ("Counts lines in ...")."""
    for ending in ("es", "s"):
        if word.endswith(ending) and word[: -len(ending)] in IMPERATIVE_VERBS:
            return word[: -len(ending)]
    return word


def _syntax(analysis: Analysis, lexed: Lexed, line: str, parses: bool | None) -> None:
    shell_ops = [op for op in lexed.operators if op in OPERATOR_WEIGHTS]
    weight = sum(OPERATOR_WEIGHTS[op] for op in shell_ops)
    if lexed.substitution:
        weight -= 3.0
    if lexed.variable:
        weight -= 2.0
    if weight and _inline_code(lexed, shell_ops):
        analysis.inline_code = weight  # weighed once the rest of the line is known
        weight = 0.0
    if weight:
        structural = any(op not in ("(", ")") for op in shell_ops) or lexed.substitution
        ops = _describe_ops(lexed)
        if not structural or parses is False:
            analysis.add(weight / 2, f"shell-like characters ({ops}) that do not parse")
        elif parses:
            analysis.add(weight - 1.0, f"shell syntax: {ops}")
        else:  # decided at the end, and only if the outcome depends on it
            analysis.pending = (
                weight - 1.0,
                weight / 2,
                f"shell syntax that parses: {ops}",
                f"shell-like characters ({ops}) that do not parse",
            )
    if lexed.comment:
        analysis.add(-1.5, "ends with a shell comment")
    if lexed.contractions:
        analysis.add(1.5, "English contractions (don't, what's, ...)")
    if lexed.unbalanced_quote:
        analysis.add(1.0, "an unclosed quote")
    if parses is False:
        analysis.add(1.5, "the shell cannot parse it")


def _inline_code(lexed: Lexed, shell_ops: list[str]) -> bool:
    """Only `backticks` or $VAR, no operators: code quoted in a sentence, or part of a command."""
    return not shell_ops and not lexed.dollar_paren and (lexed.substitution or lexed.variable)


def _weigh_inline_code(analysis: Analysis) -> None:
    """`what does `set -e` mean`, `print the value of $HOME`: in a sentence (English function
    words, a question, a capitalised word first) backticks and $VAR quote code; otherwise they
    are the shell's."""
    weight, analysis.inline_code = analysis.inline_code, 0.0
    if not weight:
        return
    sentence = analysis.function_words >= 1.0 or any(
        w > 0 and why.startswith(("starts with the capitalised", "starts like a question"))
        for w, why in analysis.evidence
    )
    if sentence:
        analysis.add(weight / 4, "code quoted in a sentence (`...` or $VAR)")
    elif analysis.lexed and analysis.lexed.substitution:
        analysis.add(weight - 1.0, f"shell syntax: {_describe_ops(analysis.lexed)}")
    else:
        analysis.add(weight / 2, "a shell variable ($VAR)")


def _describe_ops(lexed: Lexed) -> str:
    parts = sorted(lexed.operators)
    if lexed.substitution:
        parts.append("$(...)")
    if lexed.variable:
        parts.append("$VAR")
    return " ".join(parts)


def _arguments(analysis: Analysis, args: list[Word], free_text: bool, cwd: str | None) -> None:
    kinds = analysis.arg_kinds
    totals: dict[str, float] = {}
    for kind in kinds:
        if kind in ARG_WEIGHTS:
            per, cap = ARG_WEIGHTS[kind]
            totals[kind] = max(cap, totals.get(kind, 0.0) + per)
    for kind, total in totals.items():
        analysis.add(total, f"{kind} arguments")
    stream = _stream_in_words(args) if free_text and not (analysis.lexed and analysis.lexed.operators) else None
    if stream:  # could still be text to print: asked about, never sent to the model unasked
        analysis.add(1.5, f"'{analysis.head}' names the stream in words ('{stream}') where a command redirects")
        return
    if free_text:
        analysis.add(-2.0, f"'{analysis.head}' takes free text as its arguments")
        return
    if analysis.head in ENGLISH_GRAMMAR:
        analysis.add(-1.0, f"'{analysis.head}' has a grammar of English words")
        return
    plain = [w.text for w, k in zip(args, kinds) if k == "word"]
    weights = function_word_weights(plain, after_a_command=analysis.head_kind != "none")
    if len(args) < 3:  # `make all`, `xset s off`, `yes no`: weak words need company to count
        weights = [x if x >= 1.0 else x / 2 for x in weights]
    if len(args) == 1 and analysis.head_kind != "none":  # `touch here`, `cat this`: a file name
        weights = [x / 2 for x in weights]
    analysis.function_words = sum(weights)
    if analysis.function_words:
        found = [bare(w) for w, x in zip(plain, weights) if x][:3]
        analysis.add(min(6.0, 1.3 * analysis.function_words), "function words (" + ", ".join(found) + ")")
    accents = [w for w in plain if accented(w)] if analysis.head_kind == "none" else []
    if accents:  # `dale permisos de ejecución`: words of a language, after no command
        analysis.add(min(1.2, 0.6 * len(accents)), f"words with accents ({bare(accents[0])})")
    if len(args) >= 2 and kinds[0] == "word" and kinds[1] in ("word", "quoted") and len(args[1].text) > 2:
        second = bare(args[0].text)
        strong = function_word_weight(second) >= 1.0
        if second in DETERMINERS and (strong or len(args) >= 3):  # `make all install` is a command
            analysis.add(1.4, f"'{second}' right after the command word")
        elif second in PARTICLES:
            analysis.add(0.8, f"'{analysis.head} {second}' reads as a phrasal verb")
    _word_odds(analysis, args, kinds)
    odd = (
        unexpected_words(analysis.head, *analysis.own_arguments(), analysis.shell)
        if analysis.head_kind != "none"
        else []
    )
    if odd:  # `enable debug mode`: bash itself would refuse these words
        analysis.add(min(3.0, 1.5 * len(odd)), f"'{analysis.head}' takes no words like '{bare(odd[0])}'")
    if len(args) >= 2 and len(plain) == len(args):
        analysis.add(0.6 if len(args) < 4 else 1.2, "only plain words after the command")
    if cwd and not analysis.function_words:  # "make the tests pass" in a repo with tests/ is prose
        existing = [
            w.text
            for w, k in zip(args[:8], kinds)
            if k in ("word", "name") and os.path.exists(os.path.join(cwd, w.text))
        ]
        if existing:
            analysis.add(max(-1.6, -0.8 * len(existing)), f"names existing files ({', '.join(existing[:2])})")


def _stream_in_words(args: list[Word]) -> str | None:
    """`echo commands to stderr`, `echo the value on stdout`: a description of what a command
    does names its stream; the command itself would redirect (`>&2`)."""
    low = [bare(word.text) for word in args]
    return next((f"{a} {b}" for a, b in zip(low, low[1:]) if a in STREAM_PREPOSITIONS and b in STREAMS), None)


def _word_odds(analysis: Analysis, args: list[Word], kinds: list[str]) -> None:
    """After a verb that opens requests (`print`, `mount`, `sort`, `list` ...) or an English word
    (`file name matches regex`, `debug mode`), plain argument words that lean one way in the tuning
    corpus (word_odds.py): `information`, `mode` are what descriptions are made of; `dev`,
    `origin`, `status` are what commands take."""
    head = bare(analysis.head)
    if _verb(head) not in IMPERATIVE_VERBS and not _english(head):
        return  # `systemctl status docker`, `pip install data`: sub-commands and names, not objects
    found = [
        (WORD_ODDS[low], low)
        for w, k in zip(args, kinds)
        if k == "word" and w.text.islower() and (low := bare(w.text)) in WORD_ODDS
    ]
    if not found:
        return
    total = max(-WORD_ODDS_CAP, min(WORD_ODDS_CAP, WORD_ODDS_SCALE * sum(value for value, _ in found)))
    words = ", ".join(word for value, word in sorted(found, key=lambda item: -abs(item[0]))[:2])
    analysis.add(round(total, 2), f"words typical of {'requests' if total > 0 else 'command arguments'} ({words})")


def _sentence_shape(analysis: Analysis, line: str, words: list[Word], n_args: int) -> None:
    end = line.rstrip()
    last = words[-1].text if words else ""
    if end.endswith("?") and last[:-1].replace("'", "").isalpha():
        analysis.add(2.0, "ends with a question mark")
    elif end.endswith(".") and len(last) > 2 and last[-2].isalpha() and "/" not in last and last.count(".") == 1:
        analysis.add(0.8, "ends like a sentence")
    if any(w.text.endswith(",") and w.text[:-1].isalpha() for w in words[:-1]):
        analysis.add(0.7, "a comma between words")
    if n_args >= 7 and analysis.lexed and not analysis.lexed.operators:
        analysis.add(0.5, "long, with no shell operators")


def _settle_parse(analysis: Analysis, line: str) -> None:
    """Consult bashlex only when its answer could change the decision (it costs ~0.1 ms/50 chars)."""
    if analysis.pending is None:
        return
    if_parses, if_not, why, why_not = analysis.pending
    analysis.pending = None
    lo, hi = analysis.score + min(if_parses, if_not), analysis.score + max(if_parses, if_not)
    if hi < -SETTLED or lo > SETTLED or len(line) > MAX_PARSE_CHARS:
        analysis.add(if_parses, why.replace(" that parses", ""))  # the operators speak for themselves
    elif parses_as_shell(line):
        analysis.add(if_parses, why)
    else:
        analysis.add(if_not, why_not)


def analyse(
    line: str,
    fact: str | None,
    parses: bool | None,
    path_index: PathIndex,
    cwd: str | None = None,
    shell: str | None = None,
) -> Analysis:
    """Weigh a line; `cwd` (the user's directory, when known) lets existing file names count;
    `shell` (when known) lets a builtin's grammar be that shell's."""
    analysis = _analyse(line, fact, parses, path_index, cwd, shell)
    _settle_parse(analysis, line)
    return analysis


def _analyse(
    line: str,
    fact: str | None,
    parses: bool | None,
    path_index: PathIndex,
    cwd: str | None,
    shell: str | None,
) -> Analysis:
    analysis = Analysis(shell=shell)
    lexed = analysis.lexed = lex(line)
    words = lexed.words
    if not words:
        return analysis
    index, assigned = command_position([w for w in words if w.command == words[0].command], path_index, shell)
    if assigned:
        analysis.add(-3.0, "starts with a variable assignment")
    head = words[index].text
    if index == 0 and words[0].quoted:
        fact = fact or "none"
    kind = fact if (fact and index == 0) else resolve(head, path_index, shell)
    args = analysis.args = words[index + 1 : index + 1 + MAX_ARGS]
    analysis.own = sum(word.command == words[index].command for word in args)
    analysis.commands, analysis.grammar = later_commands(args, words[index].command, path_index, shell)
    # Words in `backticks` or $( ) are another command's (`explain `tar -xzf a.tgz``): their
    # flags and paths are weighed with the substitution, not as arguments of this command.
    analysis.arg_kinds = [
        "code" if word.in_substitution else "grammar" if i in analysis.grammar else arg_kind(word)
        for i, word in enumerate(args)
    ]
    low = bare(head)
    if not _first_word(analysis, head, kind, line, path_index):
        return analysis
    _syntax(analysis, lexed, line, parses)
    if not args:
        if low in ONE_WORD_PROSE and kind == "none":  # `yes` on PATH runs, as the hook runs it
            analysis.add(4.0, f"'{head}' on its own is a reply, not a program")
        elif kind == "none" and is_plain_word(head) and not head[:1].isupper() and head.isascii():
            analysis.add(-1.7, "a single unknown word: most likely a mistyped command")
        _sentence_shape(analysis, line, words, 0)
        _weigh_inline_code(analysis)
        return analysis
    question = low in QUESTION_STARTERS or (low in OTHER_QUESTION_STARTERS and kind == "none")
    if (question and (len(args) >= 2 or line.rstrip().endswith("?"))) or low in REQUEST_STARTERS:
        analysis.add(2.0, f"starts like a question or request ('{low}')")
    free_text = low in FREE_TEXT_COMMANDS and kind in ("builtin", "file")
    _arguments(analysis, args, free_text, cwd)
    if not free_text:
        _sentence_shape(analysis, line, words, len(args))
    _weigh_inline_code(analysis)
    return analysis
