"""`parsec ask "…"` and `parsec resume [ID]`: run a prompt workflow with the user in control.

`parsec ask` must reach its first model request quickly, so `entry.py` sends plain
`parsec ask …` / `parsec resume …` lines to `fast_main`, which parses its few options with
argparse and never imports typer; the typer commands below serve `--help` and every other path.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import typer

_YES_HELP = (
    "Run low- and medium-risk commands without asking; stop at a high-risk one. --yes=low: low-risk commands only."
)
_JSON_HELP = (
    "Print one JSON document on stdout however the run ends (docs/workflow.md § --json); "
    "--json=full adds the whole conversation."
)


def register(app: typer.Typer) -> None:
    import typer

    @app.command("ask")
    def ask(
        request: list[str] = typer.Argument(..., metavar="REQUEST...", help="What you want done, in plain words."),
        yes: bool = typer.Option(False, "--yes", "-y", help=_YES_HELP),
        json_output: bool = typer.Option(False, "--json", help=_JSON_HELP),
        provider: str | None = typer.Option(None, "--provider", help="LLM provider for this run."),
        model: str | None = typer.Option(None, "--model", help="Model for this run."),
    ) -> None:
        """Plan the request, then carry it out step by step, asking before each command."""
        from .app import load_settings

        code = run_workflow(
            load_settings().settings,
            prompt=" ".join(request),
            conversation_id=None,
            yes=yes,
            json_output=json_output,
            provider=provider,
            model=model,
        )
        if code:
            raise typer.Exit(code)

    @app.command("resume")
    def resume(
        conversation_id: str | None = typer.Argument(
            None, metavar="[ID]", help="Conversation id (default: the newest open one)."
        ),
        yes: bool = typer.Option(False, "--yes", "-y", help=_YES_HELP),
        json_output: bool = typer.Option(False, "--json", help=_JSON_HELP),
    ) -> None:
        """Continue an interrupted conversation from its last completed step."""
        from .app import load_settings

        code = run_workflow(
            load_settings().settings,
            prompt=None,
            conversation_id=conversation_id or "",
            yes=yes,
            json_output=json_output,
            provider=None,
            model=None,
        )
        if code:
            raise typer.Exit(code)


def fast_main(args: list[str], *, debug: bool = False, sets: list[str] | None = None) -> int | None:
    """`parsec ask|resume …` without typer (`debug` and `sets`: the global options given before
    the command); None when the line needs the full app (e.g. --help)."""
    import argparse

    if any(a in ("-h", "--help") for a in args[1:]):
        return None
    debug = debug or "--debug" in args
    parser = argparse.ArgumentParser(prog=f"parsec {args[0]}", add_help=False)
    parser.add_argument("words", nargs="*")
    parser.add_argument("--yes", "-y", action="store_true")
    parser.add_argument("--yes-level", choices=("low", "medium"))
    parser.add_argument("--json", dest="json_output", action="store_true")
    parser.add_argument("--json-level", choices=("full",))
    if args[0] == "ask":
        parser.add_argument("--provider")
        parser.add_argument("--model")
    try:
        options, unknown = parser.parse_known_args(_valued_flags(args[1:]))
    except SystemExit:
        return None
    if unknown or (args[0] == "resume" and len(options.words) > 1):
        return None  # let the full app explain the usage error
    yes = options.yes_level or ("medium" if options.yes else None)
    json_output = options.json_level or options.json_output
    from .failures import run_reporting_errors

    def run() -> int:
        from ..config import load_config
        from .global_options import parse_overrides

        settings = load_config(parse_overrides(sets or [])).settings
        if args[0] == "ask":
            return run_workflow(
                settings,
                prompt=" ".join(options.words),
                conversation_id=None,
                yes=yes,
                json_output=json_output,
                provider=options.provider,
                model=options.model,
            )
        return run_workflow(
            settings,
            prompt=None,
            conversation_id=options.words[0] if options.words else "",
            yes=yes,
            json_output=json_output,
            provider=None,
            model=None,
        )

    return run_reporting_errors(run, debug=debug)


def _valued_flags(args: list[str]) -> list[str]:
    """`--yes=low` → `--yes-level low`: the value only ever comes after `=`, so `--yes list
    files` keeps `list` as a word of the request."""
    out: list[str] = []
    for arg in args:
        if arg.startswith("--yes="):
            out += ["--yes-level", arg[len("--yes=") :]]
        elif arg.startswith("--json="):
            out += ["--json-level", arg[len("--json=") :]]
        else:
            out.append(arg)
    return out


def run_workflow(
    settings: Any,
    *,
    prompt: str | None,
    conversation_id: str | None,
    yes: str | bool | None,
    json_output: bool | str,
    provider: str | None,
    model: str | None,
) -> int:
    """Run a new (prompt) or resumed (conversation_id) workflow; the exit code says how it ended
    (workflow/outcome.py). With --json, stdout holds one JSON document whenever a conversation
    exists, whatever happened; the error, if any, is also one line on stderr."""
    from ..errors import ParsecError, UsageError
    from ..workflow.start import build_runner, find_conversation, warm_up
    from ..workflow.ui import TerminalUI, UnattendedUI

    yes = "medium" if yes is True else (yes or None)  # None, "low" or "medium"
    if prompt is not None and not prompt.strip():
        raise UsageError('say what you want done: parsec ask "list the biggest files here"')
    if not yes and not sys.stdin.isatty():
        raise UsageError(
            "no terminal to confirm commands on: run it in a terminal, or add --yes "
            "(low- and medium-risk commands only)"
        )
    # With --json, stdout carries only the JSON: everything else goes to stderr.
    ui = UnattendedUI() if yes else TerminalUI(out=sys.stderr if json_output else None)
    pending_store, counter = warm_up(settings)
    conversation = runner = None
    failure: BaseException | None = None
    try:
        if prompt is None:
            store = pending_store.result()
            conversation = find_conversation(store, conversation_id or None, open_only=True)
            if conversation.is_terminal:
                raise UsageError(f"conversation {conversation.id} is {conversation.status.value}: nothing to resume")
            ui.say(f"Resuming {conversation.name} ({conversation.id})", style="bold")
        # A new conversation: the provider is set up while the store opens in the background.
        runner = build_runner(
            settings,
            conversation,
            prompt=prompt,
            store=pending_store,
            ui=ui,
            auto_yes=bool(yes),
            auto_level=yes or "medium",
            provider_name=provider,
            model=model,
            counter=counter,
        )
        runner.run()
    except (ParsecError, KeyboardInterrupt) as err:
        failure = err
    except Exception as err:  # an internal error: the JSON document still says what happened
        failure = err
    finally:
        try:
            pending_store.result().close()
        except Exception:  # the store never opened: its error is already on its way up
            pass
    return _report(
        runner.conversation if runner is not None else conversation,
        failure,
        json_output,
        final_cwd=runner.final_cwd if runner is not None else None,
    )


def _report(conversation: Any, failure: BaseException | None, json_output: bool | str, *, final_cwd: str | None) -> int:
    """Print the JSON document (when asked and a conversation exists) and the error line; the exit code."""
    from ..errors import ParsecError
    from ..workflow.outcome import outcome_of

    outcome = outcome_of(conversation, failure)
    if json_output and conversation is not None:
        import json

        from ..workflow.document import result_document

        document = result_document(conversation, outcome, final_cwd=final_cwd, full=json_output == "full")
        sys.stdout.write(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
        sys.stdout.flush()
    if failure is None:
        return outcome.exit_code
    if not isinstance(failure, (ParsecError, KeyboardInterrupt)):
        raise failure  # run_reporting_errors: one line (a traceback with --debug), exit 70
    sys.stderr.write(f"parsec: {failure if isinstance(failure, ParsecError) else 'interrupted'}\n")
    return outcome.exit_code
