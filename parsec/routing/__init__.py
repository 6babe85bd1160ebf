"""The input classifier: is a line a shell command, a prompt for Parsec, or ambiguous?

    from parsec.routing import Classifier, Decision
    Classifier(store=None, settings=None).classify("find all python files").decision  # "prompt"

Layers, most certain first: explicit overrides, the user's learned choices, then evidence from
the shell (what the first word is), shell syntax (bashlex) and English, weighed in scoring.py.
"""

from .classifier import Classifier
from .decision import Decision
from .fallback import reads_like_prose

__all__ = ["Classifier", "Decision", "reads_like_prose"]
