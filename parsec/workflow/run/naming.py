"""A short human name for a conversation, derived from its prompt when the model gave none."""

from __future__ import annotations

import re

_FILLER = {
    "please",
    "can",
    "you",
    "could",
    "would",
    "i",
    "want",
    "to",
    "the",
    "a",
    "an",
    "me",
    "for",
    "my",
    "help",
    "some",
}


def name_from_prompt(prompt: str, max_words: int = 5) -> str:
    words = [w for w in re.findall(r"[\w.+#-]+", prompt) if w.lower() not in _FILLER]
    if not words:
        return "Workflow"
    name = " ".join(words[:max_words])
    return name[:1].upper() + name[1:]


def clean_name(name: str, prompt: str) -> str:
    name = " ".join(name.split())[:60].strip(" .")
    return name or name_from_prompt(prompt)
