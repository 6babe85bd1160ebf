"""The exit-127 fallback: the shell ran the line and said "command not found"; was it prose?

The line has already failed, so offering to ask Parsec is cheap: any line of two or more words
gets the offer, unless its first word is no English word and one edit away from a real command (`gti status`,
`dokcer ps -a`, `pyhton3 -m venv`), which is a typo the user will fix by hand. One word alone is
offered only when it is a reply (`thanks`, `hello`), never for a mistyped `sl`, or when it is
written in a script no command name uses (a Chinese sentence is one "word").
"""

from __future__ import annotations

import string

from .language import ONE_WORD_PROSE, QUESTION_STARTERS, REQUEST_STARTERS, bare, function_word_weight
from .lexer import lex
from .lexicon import ENGLISH_WORDS
from .other_languages import other_script
from .shell_facts import BUILTINS, PathIndex
from .vocabulary import KNOWN_COMMANDS

_LETTERS = string.ascii_lowercase + string.digits + "-"
_path_index: PathIndex | None = None


def reads_like_prose(text: str) -> bool:
    """True when a line that failed with 127 reads like a request rather than a mistyped command."""
    if not isinstance(text, str):
        return False
    words = lex(text).words
    if not words:
        return False
    first = bare(words[0].text)
    if other_script(first):  # `备份数据库`: Chinese puts no spaces between words; no command is named so
        return True
    if len(words) == 1:
        return first in ONE_WORD_PROSE
    if first in QUESTION_STARTERS or first in REQUEST_STARTERS or first in ENGLISH_WORDS:
        return True  # `go ahead`, `my wifi keeps dropping`: a word, not a typo of `gs` or `mv`
    if any(function_word_weight(w.text) >= 1.0 for w in words[1:]):
        return True
    return likely_typo(words[0].text) is None


def likely_typo(word: str) -> str | None:
    """The command `word` is one edit (a letter added, dropped, changed or two swapped) away from."""
    global _path_index
    if _path_index is None:
        _path_index = PathIndex()
    _path_index.refresh()
    if len(word) < 2 or len(word) > 40:
        return None
    for candidate in _one_edit(word):
        if candidate != word and (candidate in _path_index or candidate in KNOWN_COMMANDS or candidate in BUILTINS):
            return candidate
    return None


def _one_edit(word: str) -> list[str]:
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    swaps = [a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1]
    drops = [a + b[1:] for a, b in splits if b]
    changes = [a + c + b[1:] for a, b in splits if b for c in _LETTERS]
    adds = [a + c + b for a, b in splits for c in _LETTERS]
    return swaps + drops + changes + adds
