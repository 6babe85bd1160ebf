"""Commands that change state: prose that starts with one of them, that carries a command
substitution (which the shell runs first), or whose first word is no command and that redirects
into a file (which the shell empties first), is never run without asking.

`exit Steam` closes the shell, `kill screen session 23536` still signals 23536, `set alias "m"
for command "mplayer"` overwrites the positional parameters, `unset a secret` deletes two
variables. For these the cost of running prose is harm, not a "command not found".
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from .language import bare, function_word_weight, is_plain_word
from .other_languages import FUNCTION_WORDS as OTHER_FUNCTION_WORDS
from .usage import NAMES_ONLY, fish_set_word_name, malformed, unexpected_words

if TYPE_CHECKING:
    from .scoring import Analysis

# Whitespace-separated names. A data file, so that `parsec init` can write the same list into the
# shell hooks without importing the classifier: with words after one of these, a hook never takes
# the line for a plain command on its own (cli/shell/hook_scripts.py).
STATE_CHANGING_FILE = Path(__file__).with_name("state_changing.txt")
STATE_CHANGING = frozenset(STATE_CHANGING_FILE.read_text().split())
PLAIN_WORDS_CUE = 2  # plain words after a state-changing command read as a phrase (unless they name files here)
WORD_ODDS_CUE = "words typical of"  # scoring._word_odds: `killall node` is no phrase
# Evidence too weak alone to stop a state-changing command (`mv Makefile docs`, `mv a b`).
FUNCTION_WORDS_CUE = "function words ("  # scoring._arguments: English ones, or another language's
NOT_CUES = ("only plain words", "long, with no shell operators", FUNCTION_WORDS_CUE, WORD_ODDS_CUE)


def could_do_harm(analysis: Analysis) -> bool:
    """Whether running the line could change state: its command does, or it carries what the
    shell does before it even looks for the command — a command substitution, or (when there is
    no such command) a redirection that empties a file."""
    lexed = analysis.lexed
    return (
        analysis.head in STATE_CHANGING
        or bool(lexed and lexed.substitution)
        or bool(lexed and lexed.truncates and analysis.head_kind == "none")
    )


def _later_command_cue(analysis: Analysis) -> str | None:
    """Words a later command of the list (`make && kill screen session 1`) never takes."""
    for command in analysis.commands:
        if command.head in STATE_CHANGING:
            words, kinds = analysis.own_arguments(command)
            odd = unexpected_words(command.head, words, kinds, analysis.shell)
            if odd:
                return f"'{command.head}' takes no words like '{odd[0]}'"
            misfit = malformed(command.head, words, kinds)
            if misfit:
                return misfit
    return None


def prose_cue(analysis: Analysis) -> str | None:
    """Why a line that could do harm if run (could_do_harm) may be prose, or None when it reads
    as a command.

    Lower bar than the live decision: any English evidence at all, or arguments the command
    does not take, is enough to ask before running it."""
    head = analysis.head
    substitution = bool(analysis.lexed and analysis.lexed.substitution)
    if analysis.head_kind == "none" and analysis.lexed and is_plain_word(head):
        # `undo `git reset --hard HEAD~1``, `summarise > summary.md`: the shell runs the quoted
        # command or empties the file, then finds no `undo`
        if substitution:
            return f"'{head}' is no command here: the shell would only run the code in the substitution"
        if analysis.lexed.truncates:
            return f"'{head}' is no command here: the shell would only empty the file it redirects to"
    later = _later_command_cue(analysis)
    if later is not None or not could_do_harm(analysis):
        return later
    # what running it would do: its command changes state, or the shell runs a substitution
    harm = f"'{head}' changes state" if head in STATE_CHANGING else "the shell would run its substitution"
    words, kinds = analysis.own_arguments()  # `kill %1; rm -f nohup.out`: rm's words are not kill's
    content = [
        w
        for w, k in zip(words, kinds)
        if k == "word" and len(bare(w)) > 2 and not function_word_weight(w) and bare(w) not in OTHER_FUNCTION_WORDS
    ]
    if analysis.function_words and content:  # `unset a secret`, not `mv a b` or `chown me: /srv`
        return f"{harm} and the line has function words"
    odd = unexpected_words(head, words, kinds, analysis.shell)
    if odd:
        return f"'{head}' takes no words like '{odd[0]}'"
    if head == "set" and analysis.shell == "fish" and (name := fish_set_word_name(words)):
        return f"fish's 'set' would assign the variable '{name}'"
    misfit = malformed(head, words, kinds)
    if misfit:
        return misfit
    existing_files = any(weight < 0 and why.startswith("names existing files") for weight, why in analysis.evidence)
    strong = [w for w, k in zip(words, kinds) if k == "word" and w.isalpha() and function_word_weight(w) >= 1.0]
    if strong and len(words) >= 2:
        return f"{harm} and '{strong[0]}' reads as English"
    titled = [w for w, k in zip(words, kinds) if k == "word" and w[:1].isupper() and w[1:].islower()]
    if titled and head in NAMES_ONLY:  # `local Path`: variables are not named like sentence words
        return f"{harm} and '{titled[0]}' reads as a name in a sentence"
    if sum(k == "word" for k in kinds) >= PLAIN_WORDS_CUE and set(kinds) <= {"word", "quoted"} and not existing_files:
        return f"{harm} and a phrase of plain words follows '{head}'"
    # fish's `set NAME VALUE…` takes free words as values: words typical of requests there are a
    # phrase (`set ap_scan parameter`), as they are not after `killall` (`killall node`).
    # Around a substitution, function words make a sentence (`help with `git reset --hard``).
    if analysis.own < len(analysis.args):  # a list: the rest of the line is other commands' words
        return None
    cues_here = {WORD_ODDS_CUE: head == "set" and analysis.shell == "fish", FUNCTION_WORDS_CUE: substitution}
    not_cues = tuple(cue for cue in NOT_CUES if not cues_here.get(cue))
    prose = [why for weight, why in analysis.evidence if weight > 0 and not why.startswith(not_cues)]
    if prose:
        return f"{harm} and {prose[0]}"
    return None
