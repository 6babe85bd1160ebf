"""Requests in languages other than English, by signals that do not need a dictionary of each.

- *Script*: command names are written in Latin letters. A first word in Han, Kana, Cyrillic,
  Greek, Arabic ... is a sentence (`查找所有大于1MB的python文件` is one "word": Chinese puts no
  spaces between words), while such words as arguments are file names (`mkdir 新建文件夹`).
- *Word shape*: a first word with accents (`muéstrame`, `lösche`, `crée`) is no program name.
- *Function words*: a small closed list per common language (articles, prepositions, pronouns,
  question words), as language.py has for English: `tous les fichiers`, `die größten Dateien`.
"""

from __future__ import annotations

import unicodedata

from .language import bare, function_word_weight

# Closed-class words of French, German, Spanish, Portuguese and Italian that are neither English
# function words nor words a command line takes (no `de`, `die`, `es`, `la`, `lo`, `du`, `os`:
# `setxkbmap de`, `la` is many users' alias, `ip link set lo up`). Each counts as an English
# function word does.
FUNCTION_WORDS = frozenset(
    """
    le les des une et est sont pour dans sur avec sans qui que cette ces ma mes ton ta
    tes son ses notre nos votre vos leur leurs tous toutes tout toute moi lui nous vous ils elles
    chaque par aux au entre quelle quel quels quelles
    der das den dem ein eine einen einem einer und ist sind mit von zu zum zur im auf für nicht
    mir mich ich alle allen diese diesen dieser dieses nach aus bei wie welche welcher welches
    jede jeden jeder mein meine meinen hier ob oder
    el los las una por para qué cómo dónde cuántas cuántos este esta estos estas
    todos todas mis sus está están cada
    dos das na nas nos um uma meu minha este esta todos todas pelo pela qual
    il gli di della delle dei nella nel che questo questa tutti tutte mio mia ogni quale
    """.split()
)
# They open a question or a request (`comment annuler …`, `wie mache ich …`, `cómo deshago …`).
QUESTION_STARTERS = frozenset(
    """comment pourquoi combien quel quelle quels quelles où
    wie warum wo welche welcher welches wieviel
    cómo como qué que por dónde cuántas cuántos cuál
    qual quantas quantos onde porque perché quale quante quanti dove""".split()
)


def other_script(word: str) -> bool:
    """A letter in a script other than Latin (Han, Kana, Hangul, Cyrillic, Greek, Arabic ...)."""
    if word.isascii():
        return False
    return any(ch.isalpha() and not unicodedata.name(ch, "").startswith("LATIN") for ch in word)


def accented(word: str) -> bool:
    """Latin letters with accents (`lösche`, `muéstrame`): a word of a language, no program name."""
    return not word.isascii() and not other_script(word)


def function_word_weights(words: list[str], after_a_command: bool) -> list[float]:
    """Each word's weight as a function word, English or another language's (`tous les fichiers`,
    `die größten Dateien`); after a command, another language's alone may be a name (`git
    checkout der`) and counts half."""
    others = sum(bare(w) in FUNCTION_WORDS for w in words)
    other_weight = 1.0 if others >= 2 or not after_a_command else 0.5
    return [function_word_weight(w) or other_weight * (bare(w) in FUNCTION_WORDS) for w in words]
