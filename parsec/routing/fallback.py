"""The exit-127 fallback: the shell ran the line and said "command not found"; was it prose?

Stricter than the live decision: the line has already failed, so offering to ask Parsec is cheap,
but the offer must not pop up for every typo (`gti status`, `sl`): besides a prose score above
one half, the line must sound like English (a function word, a question or request opener, or a
question mark).
"""

from __future__ import annotations

from .language import ONE_WORD_PROSE, QUESTION_STARTERS, REQUEST_STARTERS, bare
from .lexer import lex
from .scoring import analyse
from .shell_facts import PathIndex

OFFER_THRESHOLD = 0.5
_path_index: PathIndex | None = None


def reads_like_prose(text: str) -> bool:
    """True when a line that failed with 127 reads like a sentence rather than a mistyped command."""
    global _path_index
    if not isinstance(text, str):
        return False
    words = lex(text).words
    if not words:
        return False
    first = bare(words[0].text)
    if len(words) == 1:
        return first in ONE_WORD_PROSE
    if _path_index is None:
        _path_index = PathIndex()
    analysis = analyse(text, "none", None, _path_index)
    sounds_english = (
        analysis.function_words > 0
        or first in QUESTION_STARTERS
        or first in REQUEST_STARTERS
        or text.rstrip().endswith("?")
    )
    return sounds_english and analysis.probability >= OFFER_THRESHOLD
