"""Console-script entry point.

`parsec init <shell>` runs once per new shell, so it is answered here without importing typer,
pydantic or anything heavy; `ask`, `resume`, `search`, `history` and `sessions` have start-up
budgets too and go straight to their own entries (their arguments: arguments.py, parsed the same
way when the typer app hands them over). Everything else goes to the typer app.
"""

from __future__ import annotations

import sys

from .global_options import split_leading


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["init"] and len(args) == 2 and not args[1].startswith("-"):
        from .shell.hook_file import print_hook

        return print_hook(args[1])
    debug, sets, command = split_leading(args)  # `parsec --set k=v ask …` takes the same path
    if command[:1] in (["ask"], ["resume"]):  # the workflow's start-up budget has no room for typer
        from .ai.ask_cmd import fast_main

        return fast_main(command, debug=debug, sets=sets)
    if args[:1] == ["search"]:  # Ctrl-R: first frame within 100 ms, so no typer
        from .history.search.main import main as search_main

        return search_main(args[1:])
    if command[:1] in (["history"], ["sessions"]):  # kept under 150 ms: no typer (it imports pydantic)
        from .history.history_entry import run as run_history_command

        return run_history_command(command, debug=debug, sets=sets)
    from .app import run

    return run(args)


if __name__ == "__main__":
    sys.exit(main())
