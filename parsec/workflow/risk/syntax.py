"""Questions about bashlex's syntax tree: a node's children, a command's words, assignments and
substitutions, and which commands run anywhere under a node."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .commands import DOWNLOADERS, SHELLS
from .words import command_name, unwrapped

SUBSTITUTIONS = ("commandsubstitution", "processsubstitution")


def child_nodes(node: Any) -> list[Any]:
    out: list[Any] = []
    for attr in ("parts", "list"):
        value = getattr(node, attr, None)
        if isinstance(value, list):
            out.extend(value)
    return out


def nodes_under(node: Any) -> Iterator[Any]:
    """Every node under `node`, including substitutions' commands and redirections' targets."""
    yield node
    for child in child_nodes(node):
        yield from nodes_under(child)
    for attr in ("command", "output"):
        child = getattr(node, attr, None)
        if hasattr(child, "kind"):
            yield from nodes_under(child)
    for redirect in getattr(node, "redirects", None) or []:
        yield from nodes_under(redirect)


def runs_apart(node: Any) -> bool:
    """Whether `node` runs in a subshell (or, a function body, not now): a cd there does not last."""
    kind = getattr(node, "kind", "")
    if kind in ("pipeline", "function"):
        return True
    first = (getattr(node, "list", None) or [None])[0]
    return kind == "compound" and getattr(first, "word", "") == "("


def command_words(node: Any) -> list[str]:
    return [p.word for p in getattr(node, "parts", []) if getattr(p, "kind", "") == "word"]


def assignment_words(node: Any) -> list[str]:
    """The X=1 words before a command (bashlex keeps them apart from the words)."""
    return [p.word for p in node.parts if getattr(p, "kind", "") == "assignment"]


def substitutions_in(node: Any) -> list[Any]:
    """The $(...) and <(...) directly in a command's words, assignments and redirections."""
    holders = [p.output if getattr(p, "kind", "") == "redirect" else p for p in node.parts]
    return [s for h in holders for s in getattr(h, "parts", None) or [] if getattr(s, "kind", "") in SUBSTITUTIONS]


def command_names_under(node: Any) -> set[str]:
    """The names of all commands anywhere under `node`, wrappers stripped."""
    heads = set()
    for command in (n for n in nodes_under(node) if getattr(n, "kind", "") == "command"):
        args = unwrapped(command_words(command))[0]
        if args:
            heads.add(command_name(args[0]))
    return heads


def has_download_substitution(node: Any) -> bool:
    """Whether a $(...) or <(...) in the command runs curl/wget: its text is a download."""
    return any(DOWNLOADERS & command_names_under(sub.command) for sub in substitutions_in(node))


def feeds_a_shell(node: Any) -> bool:
    """Whether the command writes into a shell through a process substitution (tee >(sh))."""
    return any(
        SHELLS & command_names_under(sub.command) for sub in substitutions_in(node) if sub.kind == "processsubstitution"
    )
