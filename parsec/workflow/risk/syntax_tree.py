"""Questions about bashlex's syntax tree: a node's children, a command's words, assignments and
substitutions, and which commands run anywhere under a node."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from .command_names import DOWNLOADERS, SHELLS
from .words import command_name, unwrapped

if TYPE_CHECKING:
    # bashlex publishes no types (mypy cannot check this class), but a reader sees which tree this is.
    # A node's attributes depend on its kind (parts, list, word, command, output, redirects…).
    from bashlex.ast import node as Node

SUBSTITUTIONS = ("commandsubstitution", "processsubstitution")


def child_nodes(node: Node) -> list[Node]:
    out: list[Node] = []
    for attr in ("parts", "list"):
        value = getattr(node, attr, None)
        if isinstance(value, list):
            out.extend(value)
    return out


def nodes_under(node: Node) -> Iterator[Node]:
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


def runs_apart(node: Node) -> bool:
    """Whether `node` runs in a subshell (or, a function body, not now): a cd there does not last."""
    kind = getattr(node, "kind", "")
    if kind in ("pipeline", "function"):
        return True
    first = (getattr(node, "list", None) or [None])[0]
    return kind == "compound" and getattr(first, "word", "") == "("


def command_words(node: Node) -> list[str]:
    return [p.word for p in getattr(node, "parts", []) if getattr(p, "kind", "") == "word"]


def assignment_words(node: Node) -> list[str]:
    """The X=1 words before a command (bashlex keeps them apart from the words)."""
    return [p.word for p in node.parts if getattr(p, "kind", "") == "assignment"]


def substitutions_in(node: Node) -> list[Node]:
    """The $(...) and <(...) directly in a command's words, assignments and redirections."""
    holders = [p.output if getattr(p, "kind", "") == "redirect" else p for p in node.parts]
    return [s for h in holders for s in getattr(h, "parts", None) or [] if getattr(s, "kind", "") in SUBSTITUTIONS]


def command_names_under(node: Node) -> set[str]:
    """The names of all commands anywhere under `node`, wrappers stripped."""
    heads = set()
    for command in (n for n in nodes_under(node) if getattr(n, "kind", "") == "command"):
        args = unwrapped(command_words(command))[0]
        if args:
            heads.add(command_name(args[0]))
    return heads


def has_download_substitution(node: Node) -> bool:
    """Whether a $(...) or <(...) in the command runs curl/wget: its text is a download."""
    return any(DOWNLOADERS & command_names_under(sub.command) for sub in substitutions_in(node))


def feeds_a_shell(node: Node) -> bool:
    """Whether the command writes into a shell through a process substitution (tee >(sh))."""
    return any(
        SHELLS & command_names_under(sub.command) for sub in substitutions_in(node) if sub.kind == "processsubstitution"
    )
