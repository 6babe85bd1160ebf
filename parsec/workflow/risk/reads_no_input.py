"""Whether a command line is a filter given no input: `sort -hr`, `head -n 3`, `wc -l` alone.

A small model cuts a pipeline into plan steps and gives its pieces one at a time. Each piece
after the first reads standard input, which under --yes is /dev/null: it prints nothing, exits 0
and would look like a step done. Such a line is a single simple command (no pipe, no `<`, no
here-document) whose program only filters and which names no file to read.
"""

from __future__ import annotations

from .words import operands_of

# Filters, with the options that take a value, and how many operands are not files (the pattern
# of grep, the program of awk and sed, tr's two sets: tr never reads a file).
_FILTERS: dict[str, tuple[set[str], int]] = {
    "sort": ({"-k", "-t", "-o", "-S", "-T", "--key", "--field-separator", "--output"}, 0),
    "head": ({"-n", "-c", "--lines", "--bytes"}, 0),
    "tail": ({"-n", "-c", "--lines", "--bytes"}, 0),
    "wc": (set(), 0),
    "uniq": ({"-f", "-s", "-w"}, 0),
    "cut": ({"-d", "-f", "-c", "-b", "--delimiter", "--fields"}, 0),
    "tac": (set(), 0),
    "rev": (set(), 0),
    "nl": ({"-w", "-s", "-b"}, 0),
    "column": ({"-t", "-s", "-c"}, 0),
    "grep": ({"-e", "-f", "-m", "-A", "-B", "-C", "--max-count"}, 1),
    "awk": ({"-F", "-v", "-f"}, 1),
    "sed": ({"-e", "-f"}, 1),
    "tr": ({"-d", "-s"}, 99),
    "xargs": ({"-n", "-I", "-d", "-P", "-L"}, 99),
}


def reads_no_input(command: str) -> str:
    """The filter's name when `command` is one filter given nothing to read, else ""."""
    from ...bashlex_tables import load_bashlex
    from .syntax_tree import command_words

    try:
        parts = load_bashlex().parse(command)
    except Exception:  # bashlex raises its own errors and others on lines it cannot read
        return ""
    if len(parts) != 1 or getattr(parts[0], "kind", "") != "command":
        return ""
    node = parts[0]
    if any(getattr(p, "kind", "") == "redirect" and p.type in ("<", "<<", "<<-", "<<<") for p in node.parts):
        return ""
    words = command_words(node)
    if not words or words[0] not in _FILTERS:
        return ""
    valued, not_files = _FILTERS[words[0]]
    rest = words[1:]
    if words[0] in ("grep", "sed", "awk") and any(w in ("-e", "-f") or w.startswith(("-e", "-f")) for w in rest):
        not_files = 0  # the pattern or program came with -e / -f
    return words[0] if len(operands_of(rest, valued)) <= not_files else ""
