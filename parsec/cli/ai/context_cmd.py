"""`parsec context show`: what would be sent to the model for a conversation's step, with the
tokens per section and what was kept, summarised, compressed or dropped, and why."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:
    from ...context.report import ContextReport
    from ...models.chat import ChatMessage


def register(app: typer.Typer) -> None:
    context_app = typer.Typer(help="Inspect what the model sees.", no_args_is_help=True)
    app.add_typer(context_app, name="context")

    @context_app.command("show")
    def show(
        conversation_id: str | None = typer.Option(
            None, "--conversation", "-c", help="Conversation id (default: the newest)."
        ),
        step: int | None = typer.Option(
            None, "--step", "-s", min=1, help="Step number, from 1 (default: the current step)."
        ),
        planning: bool = typer.Option(False, "--planning", help="Show the planning context instead of a step's."),
        as_json: bool = typer.Option(False, "--json", help="Print JSON."),
        full: bool = typer.Option(False, "--full", help="Print every decision, not only a summary per action."),
    ) -> None:
        """Show the messages a step would send, with token counts and pruning decisions."""
        from ...errors import UsageError
        from ..app import load_settings
        from ..history.history_common import configured_store

        settings = load_settings().settings
        store = configured_store(settings)
        try:
            conversation = _conversation(store, conversation_id)
            engine = _engine(settings, store, conversation)
            if planning or not conversation.steps:
                messages = engine.planning_messages(conversation, None)
                report = engine.last_report
                title = f"planning context of conversation {conversation.id}"
                if conversation.planning_exchanges:  # exactly what went out
                    sent = conversation.planning_exchanges[-1]
                    messages, title = sent.messages, f"{title}, as sent {sent.at:%Y-%m-%d %H:%M:%S}"
            else:
                index = _step_index(conversation, step)
                messages, report, title = _step_view(engine, conversation, index)
        except IndexError as err:
            raise UsageError(str(err)) from None
        finally:
            store.close()
        if as_json:
            payload = {"title": title, "messages": [m.model_dump() for m in messages], "report": report.to_dict()}
            typer.echo(json.dumps(payload, indent=2, ensure_ascii=False))
            return
        _print(title, messages, report, full)


def _step_view(engine, conversation, index: int):
    """(messages, report, title) for a step: the last request it sent, as stored; for a step not
    asked yet, the request the workflow would send, built by the same functions (stepgen's
    step_request), with the dynamic context commands' last output instead of running them again."""
    from ...context.commands import BLOCK_END
    from ...workflow.planning.stepgen import request_adds, step_request

    title = f"step {index + 1} of {len(conversation.steps)} in conversation {conversation.id}"
    exchanges = [e for s in conversation.steps for e in s.exchanges]
    last_text = exchanges[-1].messages[-1].content if exchanges else ""
    start, end = last_text.find("--- Context: "), last_text.rfind(BLOCK_END)
    dynamic = last_text[start : end + len(BLOCK_END)] if start >= 0 and end > start else ""
    built, _, report = engine.step_messages(conversation, index, adds=request_adds("bash"), dynamic=dynamic)
    own = conversation.steps[index].exchanges
    if own:
        sent = own[-1]
        return sent.messages, report, f"{title}, as sent {sent.at:%Y-%m-%d %H:%M:%S}"
    return step_request(built, shell="bash"), report, f"{title}, as it would be sent now"


def _conversation(store, conversation_id: str | None):
    """By id or id prefix (as `conversations show` and `resume` take them), else the newest."""
    from ...workflow.run.conversation_lookup import find_conversation

    return find_conversation(store, conversation_id)


def _engine(settings, store, conversation):
    from ...context.engine import ContextEngine

    limits = None
    model = conversation.model or settings.llm.model
    if model:
        from ...providers.models_meta import model_limits

        limits = model_limits(conversation.provider or settings.llm.provider, model, settings.llm.models)
    return ContextEngine(settings, store, limits)


def _step_index(conversation, step: int | None) -> int:
    from ...errors import UsageError

    if step is None:
        current = conversation.current_step_index()
        return current if current is not None else len(conversation.steps) - 1
    if step > len(conversation.steps):
        raise UsageError(
            f"conversation {conversation.id} has {len(conversation.steps)} steps; pick --step 1..{len(conversation.steps)}"
        )
    return step - 1


def _print(title: str, messages: list[ChatMessage], report: ContextReport, full: bool) -> None:
    from ..render import table

    typer.echo(f"# {title}")
    typer.echo(f"# {report.total_tokens} of {report.budget} tokens ({report.counter})")
    for message in messages:
        typer.echo(f"\n--- {message.role} ---")
        typer.echo(message.content)
    typer.echo("")
    sections: dict[str, int] = report.sections
    by_size = sorted(sections.items(), key=lambda kv: -kv[1])
    table(["section", "tokens"], by_size, title="tokens per section")
    actions = report.actions()
    typer.echo("")
    typer.echo("items: " + (", ".join(f"{n} {action}" for action, n in sorted(actions.items())) or "none"))
    rows = []
    for action in ("kept", "summarised", "compressed", "dropped"):
        decisions = report.by_action(action)
        shown = decisions if full or action != "dropped" else decisions[:10]
        rows += [(d.action, d.section, d.key, d.tokens if d.tokens is not None else "-", d.reason) for d in shown]
        if len(shown) < len(decisions):
            rows.append((action, "", f"... {len(decisions) - len(shown)} more (--full shows them)", "", ""))
    if rows:
        table(["action", "section", "item", "tokens", "why"], rows, title="decisions")
    for warning in report.warnings:
        typer.echo(f"warning: {warning}")
