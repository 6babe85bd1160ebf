"""Natural-language evidence: English function words, sentence shape, question and request form.

Closed-class words (articles, determiners, prepositions, pronouns, auxiliaries, conjunctions) are
the backbone of English sentences and almost never appear as bare command arguments, which are
flags, paths, names and sub-commands. That makes them general evidence, not a memorised list of
tasks.
"""

from __future__ import annotations

# Weight 1: words a command line practically never carries unquoted.
STRONG_FUNCTION_WORDS = frozenset(
    """the of my your our their his her its these those this that which what whose who whom
    is are was were be been being am has have had does did can could would should shall must might
    may will and or but nor because although though unless whether while than into onto from with
    without within about between through during before after since until towards toward upon
    against among across along around behind beyond under above below beneath inside outside except
    i me we us you they them he she him it
    something anything everything nothing someone somebody everyone everything please there here
    how why when where every each another other both either neither such very just also only
    not don't doesn't can't won't isn't aren't didn't shouldn't wouldn't couldn't it's that's
    what's there's i'm i've i'd let's so then if for in to""".split()
)
# Weight 1/2: also real arguments sometimes (`make all`, `xset s off`, `yes no`, `at now`).
WEAK_FUNCTION_WORDS = frozenset("all a an on off no some any at by up down out over more most few many".split())
# The whole line is a question or a request when it starts with one of these.
QUESTION_STARTERS = frozenset(
    """what what's how why where when who whom whose which is are was were can could would should
    does did will shall may might am do whats hows wheres whos thats theres""".split()
)
REQUEST_STARTERS = frozenset(
    """please pls plz i i'm i'd i've i'll we we're let's lets hey hi hello thanks thank thx kindly
    explain describe summarize summarise tell give suggest recommend why""".split()
)
# A line of just one of these words is a reply to Parsec, not a program to run.
ONE_WORD_PROSE = frozenset(
    "hello hi hey hiya thanks thank thx ty ok okay yes yep yeah no nope continue proceed go why how what explain help? sure cool nice great".split()
)
# Verbs that open requests ("list containers", "show help"): as an unresolved first word they
# are an instruction, not a program that happens to be missing.
IMPERATIVE_VERBS = frozenset(
    """list show display print get set enable disable start stop restart create delete remove add
    install uninstall update upgrade find search check open close change make build run view edit
    use convert count copy move rename download upload connect disconnect generate specify select
    ignore force skip suppress allow deny write read output send save load clear reset compress
    extract verify test sort fetch describe query lookup return include exclude limit prevent
    enroll reload toggle turn switch go give tell explain summarize summarise fix""".split()
)
DETERMINERS = frozenset("the a an all every each some any this that these those my your our its their".split())
PARTICLES = frozenset("up out down off over away around back through".split())

_TRAILING_PUNCT = ",.;:!?\"')("


def bare(word: str) -> str:
    """A word as a reader sees it: lower case, surrounding punctuation removed."""
    return word.strip(_TRAILING_PUNCT).lower()


def is_plain_word(word: str) -> bool:
    """Letters only (an inner apostrophe or hyphen allowed, sentence punctuation around it)."""
    core = word.strip(_TRAILING_PUNCT)
    if not core or not core[0].isalpha():
        return False
    return core.replace("'", "").replace("-", "").isalpha() and not (core.count("-") > 1)


def function_word_weight(word: str) -> float:
    low = bare(word)
    if low in STRONG_FUNCTION_WORDS:
        return 1.0
    if low in WEAK_FUNCTION_WORDS:
        return 0.5
    return 0.0
