"""`parsec ask "…"` and `parsec resume [ID]`: run a prompt workflow with the user in control.

`parsec ask` must reach its first model request quickly, so `entry.py` sends `parsec ask …` /
`parsec resume …` lines to `fast_main`, which never imports typer; the typer app's `ask` and
`resume` hand their raw arguments to it too, so there is one parser (arguments.py).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from types import FrameType

    import typer

    from ...config import Settings
    from ...models.workflow import Conversation


def register(app: typer.Typer) -> None:
    from ..app import state
    from ..arguments import raw_command

    raw_command(
        app,
        "ask",
        "Plan the request, then carry it out step by step, asking before each command.",
        lambda args: fast_main(["ask", *args], debug=state.debug, overrides=state.overrides),
    )
    raw_command(
        app,
        "resume",
        "Continue an interrupted conversation from its last completed step.",
        lambda args: fast_main(["resume", *args], debug=state.debug, overrides=state.overrides),
    )


def fast_main(
    args: list[str],
    *,
    debug: bool = False,
    sets: list[str] | None = None,
    overrides: dict[str, Any] | None = None,
) -> int:
    """`parsec ask|resume …` (`args` from the command name on): parse (arguments.py), run, and
    return the exit code. The global options given before the command: `debug`, and `overrides`
    (parsed) or `sets` (the raw `--set` items)."""
    from ..failures import run_reporting_errors

    def run() -> int:
        from ...config import load_config
        from ..arguments import parse_workflow
        from ..global_options import parse_overrides

        options = parse_workflow(args[0], args[1:])
        if options is None:
            return 0  # the help, printed
        settings = load_config(overrides if overrides is not None else parse_overrides(sets or [])).settings
        if args[0] == "ask":
            prompt = " ".join(options.words)
            from ...workflow.run.question import answer_question, wants_answer

            if prompt.strip() and wants_answer(prompt, task=options.task, question=options.question):
                code, request = answer_question(
                    settings,
                    prompt,
                    json_output=options.json_output,
                    provider_name=options.provider,
                    model=options.model,
                )
                if request is None:
                    return code
                prompt = request  # the user turned the question into a workflow
            return run_workflow(
                settings,
                prompt=prompt,
                conversation_id=None,
                yes=options.yes,
                json_output=options.json_output,
                provider=options.provider,
                model=options.model,
            )
        return run_workflow(
            settings,
            prompt=None,
            conversation_id=options.words[0] if options.words else "",
            yes=options.yes,
            json_output=options.json_output,
            provider=None,
            model=None,
        )

    return run_reporting_errors(run, debug=debug)


def run_workflow(
    settings: Settings,
    *,
    prompt: str | None,
    conversation_id: str | None,
    yes: str | bool | None,
    json_output: bool | str,
    provider: str | None,
    model: str | None,
) -> int:
    """Run a new (prompt) or resumed (conversation_id) workflow; the exit code says how it ended
    (workflow/run/outcome.py). With --json, stdout holds one JSON document whenever a conversation
    exists, whatever happened; the error, if any, is also one line on stderr."""
    from ...errors import ParsecError, UsageError
    from ...workflow.run.conversation_lookup import find_conversation
    from ...workflow.run.outcome import Terminated
    from ...workflow.run.start import build_runner, warm_up
    from ...workflow.run.ui import TerminalUI, UnattendedUI

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
    previous_handlers = _pause_on_termination()
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
    except (ParsecError, KeyboardInterrupt, Terminated) as err:
        failure = err
    except Exception as err:  # an internal error: the JSON document still says what happened
        failure = err
    finally:
        _restore_handlers(previous_handlers)
        try:
            pending_store.close()  # writes what it holds; opens nothing it did not need
        except Exception:  # the store never opened: its error is already on its way up
            pass
    return _report(
        runner.conversation if runner is not None else conversation,
        failure,
        json_output,
        final_cwd=runner.final_cwd if runner is not None else None,
    )


_TERMINATING = ("SIGTERM", "SIGHUP")  # `kill`, a stopped service, a closed terminal


def _pause_on_termination() -> dict[int, Any]:
    """From here on SIGTERM and SIGHUP raise Terminated: the workflow pauses, saved, and the JSON
    document and the resume hint are printed, as at Ctrl-C. Returns the handlers they replace."""
    import signal

    from ...workflow.run.outcome import Terminated

    def stop(signum: int, _frame: FrameType | None) -> None:
        raise Terminated(signal.Signals(signum).name)

    return {sig: signal.signal(sig, stop) for sig in (getattr(signal, name) for name in _TERMINATING)}


def _restore_handlers(previous: dict[int, Any]) -> None:
    import signal

    for sig, handler in previous.items():
        signal.signal(sig, handler)


def _report(
    conversation: Conversation | None, failure: BaseException | None, json_output: bool | str, *, final_cwd: str | None
) -> int:
    """Print the JSON document (when asked and a conversation exists) and the error line; the exit code."""
    from ...errors import ParsecError
    from ...workflow.run.outcome import Terminated, outcome_of

    outcome = outcome_of(conversation, failure)
    if json_output and conversation is not None:
        import json

        from ...workflow.run.document import result_document

        document = result_document(conversation, outcome, final_cwd=final_cwd, full=json_output == "full")
        sys.stdout.write(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
        sys.stdout.flush()
    if failure is None:
        return outcome.exit_code
    if not isinstance(failure, (ParsecError, KeyboardInterrupt, Terminated)):
        raise failure  # run_reporting_errors: one line (a traceback with --debug), exit 70
    sys.stderr.write(f"parsec: {failure if isinstance(failure, ParsecError) else outcome.message}\n")
    return outcome.exit_code
