"""The arguments of the commands that start without typer: `history`, `sessions`, `ask`, `resume`.

These commands have start-up budgets that typer (which imports pydantic) does not fit in, so
their options are declared once, here, for argparse, and parsed by it on every path: `entry.py`
calls them directly, and the typer app registers them as commands that hand over their raw
arguments (`raw_command`), so `parsec --set k=v history …` parses the same way. Help (`-h`,
`--help`) is printed from these declarations; a usage error is a UsageError (one line, exit 2).
Standard library only.
"""

from __future__ import annotations

import argparse
import sys

from ..errors import UsageError

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up time; see docs/history.md)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import NoReturn

    import typer

HISTORY_FIELDS = (
    "id",
    "session",
    "time",
    "exit",
    "duration",
    "cwd",
    "host",
    "user",
    "source",
    "conversation",
    "command",
)
DEFAULT_FORMAT = "{time}  {exit:>4}  {command}"

YES_HELP = "Run low- and medium-risk commands without asking; stop at a high-risk one. --yes=low: low-risk only."
JSON_HELP = (
    "Print one JSON document on stdout however the run ends (docs/workflow.md § --json); "
    "--json=full adds the whole conversation."
)


class Parser(argparse.ArgumentParser):
    """argparse, with its errors as Parsec's usage errors and no abbreviated options."""

    def __init__(self, prog: str, description: str) -> None:
        super().__init__(prog=prog, description=description, allow_abbrev=False)

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see {self.prog} --help)")


def _int(value: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {value!r}") from None


def history_parser() -> Parser:
    parser = Parser("parsec history", "Show recorded commands, newest first.")
    add = parser.add_argument
    add("--session", metavar="ID", help="'current' or a session id.")
    add(
        "--cwd",
        nargs="?",
        const=".",
        metavar="PATH",
        help="Only this directory; without PATH (or '.') the current one.",
    )
    add("--here", action="store_true", help="Only the current directory (same as --cwd .).")
    add("--subtree", action="store_true", help="With --cwd: also every directory below it.")
    add("--exit", dest="exit_filter", metavar="STATUS", help="ok, fail, or an exit status.")
    add("--since", metavar="WHEN", help="2h, 3d, yesterday, 2024-05-01 ...")
    add("--until", metavar="WHEN", help="Same forms as --since (exclusive).")
    add("--host", help="Only commands run on this host.")
    add(
        "--source",
        choices=("ai", "user"),
        help="ai: only commands workflows ran (parsec ask), tagged with their conversation; user: only yours.",
    )
    add("--search", "-s", metavar="TEXT", help="Full text: every word must appear.")
    add("--limit", "-n", type=_int, default=50, metavar="N", help="How many (0: all; default 50).")
    add("--json", dest="as_json", action="store_true", help="A JSON array of executions (with captured output).")
    add("--output", action="store_true", help="Show captured output (parsec shell: stdout and stderr merged).")
    add(
        "--format",
        dest="fmt",
        metavar="TEMPLATE",
        help=f"A template with fields {{{', '.join(HISTORY_FIELDS)}}}, e.g. '{DEFAULT_FORMAT}'.".replace("%", "%%"),
    )
    return parser


def sessions_parser() -> Parser:
    parser = Parser(
        "parsec sessions", "Shell sessions, most recently active first: counts, duration, cwd, shell, host."
    )
    parser.add_argument("--limit", "-n", type=_int, default=50, help="How many sessions (default 50).")
    parser.add_argument("--json", dest="as_json", action="store_true", help="A JSON array.")
    return parser


def sessions_show_parser() -> Parser:
    parser = Parser("parsec sessions show", "One session: its details, its commands (oldest first), its conversations.")
    parser.add_argument("session_id", metavar="ID", help="A session id, a unique prefix of one, or 'current'.")
    parser.add_argument(
        "--limit", "-n", type=_int, default=200, metavar="N", help="Newest commands to show (0: all; default 200)."
    )
    parser.add_argument(
        "--json", dest="as_json", action="store_true", help="JSON: the session, its commands and conversations."
    )
    return parser


def workflow_parser(command: str) -> Parser:
    """`parsec ask REQUEST...` or `parsec resume [ID]`; read them with parse_workflow."""
    if command == "ask":
        parser = Parser("parsec ask", "Plan the request, then carry it out step by step, asking before each command.")
        parser.add_argument("words", nargs="*", metavar="REQUEST", help="What you want done, in plain words.")
    else:
        parser = Parser("parsec resume", "Continue an interrupted conversation from its last completed step.")
        parser.add_argument("words", nargs="?", metavar="ID", help="Conversation id (default: the newest open one).")
    parser.add_argument("--yes", "-y", action="store_true", help=YES_HELP)
    parser.add_argument("--json", dest="json_output", action="store_true", help=JSON_HELP)
    if command == "ask":
        kind = parser.add_mutually_exclusive_group()
        kind.add_argument(
            "--task", action="store_true", help="Carry it out as a workflow, even if it reads as a question."
        )
        kind.add_argument(
            "--question", action="store_true", help="Answer it in prose (one model call), even if it reads as a task."
        )
        parser.add_argument("--provider", metavar="NAME", help="LLM provider for this run.")
        parser.add_argument("--model", metavar="NAME", help="Model for this run.")
    return parser


# The values `--yes=` and `--json=` take; only after `=`, so `--yes list files` keeps `list` as a
# word of the request.
LEVELS = {"--yes": ("low", "medium"), "--json": ("full",)}


def parse_workflow(command: str, args: list[str]) -> argparse.Namespace | None:
    """The options of `parsec ask|resume` (None after printing help): `yes` is None, "low" or
    "medium"; `json_output` False, True or "full"; `words` a list."""
    parser = workflow_parser(command)
    levels: dict[str, str] = {}
    rest = []
    for arg in args:
        flag, equals, value = arg.partition("=")
        if equals and flag in LEVELS:
            levels[flag] = value
        else:
            rest.append(arg)
    options = parse(parser, rest)
    if options is None:
        return None
    for flag, value in levels.items():
        if value not in LEVELS[flag]:
            choices = " or ".join(f"{flag}={level}" for level in LEVELS[flag])
            raise UsageError(f"{flag}={value}: use {choices} (see {parser.prog} --help)")
    options.yes = levels.get("--yes") or ("medium" if options.yes else None)
    options.json_output = levels.get("--json") or options.json_output
    if not isinstance(options.words, list):  # resume's one optional ID
        options.words = [] if options.words is None else [options.words]
    return options


def parse(parser: Parser, args: list[str]) -> argparse.Namespace | None:
    """The options, or None after printing the help that -h/--help asked for."""
    if any(arg in ("-h", "--help") for arg in args):
        sys.stdout.write(parser.format_help())
        return None
    return parser.parse_intermixed_args(args)


def raw_command(app: typer.Typer, name: str, help_text: str, run: Callable[[list[str]], int]) -> None:
    """Register `name` on the typer app as a command that hands its raw arguments to `run(args)`
    (which parses them with this module) and exits with the code it returns."""
    import typer

    def command(ctx: typer.Context) -> None:
        code = run(list(ctx.args))
        if code:
            raise typer.Exit(code)

    command.__annotations__ = {"ctx": typer.Context, "return": None}  # typer reads the real classes
    app.command(
        name,
        help=help_text,
        add_help_option=False,
        context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
    )(command)
