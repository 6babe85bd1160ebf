"""`parsec conversations`, `parsec conversations show ID` and `parsec abort ID`."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    group = typer.Typer(help="List and inspect prompt workflows.", invoke_without_command=True, no_args_is_help=False)
    app.add_typer(group, name="conversations")

    @group.callback()
    def conversations(
        ctx: typer.Context,
        limit: int = typer.Option(20, "--limit", "-n", min=1, help="How many, newest first."),
        json_output: bool = typer.Option(False, "--json", help="JSON lines instead of a table."),
    ) -> None:
        """List conversations, newest first."""
        if ctx.invoked_subcommand is not None:
            return
        from ..history.history_common import configured_store
        from ..render import table

        store = configured_store()
        try:
            rows = store.list_conversations(limit=limit)
        finally:
            store.close()
        if json_output:
            import json

            for row in rows:
                print(
                    json.dumps(
                        {
                            "id": row.id,
                            "name": row.name,
                            "status": row.status.value,
                            "steps": row.step_count,
                            "created_at": row.created_at.isoformat(),
                            "cwd": row.working_directory,
                            "prompt": row.original_prompt,
                        }
                    )
                )
            return
        table(
            ["id", "status", "steps", "created", "name"],
            [[r.id, r.status.value, r.step_count, r.created_at.strftime("%Y-%m-%d %H:%M"), r.name] for r in rows],
            title="Conversations",
        )

    @group.command("show")
    def show(
        conversation_id: str = typer.Argument(..., metavar="ID"),
        json_output: bool = typer.Option(False, "--json", help="The whole conversation as JSON."),
    ) -> None:
        """The plan, each step's commands, approvals, exit codes and outputs."""
        from ...workflow.run.conversation_lookup import find_conversation
        from ...workflow.run.conversation_view import render_conversation
        from ..history.history_common import configured_store

        store = configured_store()
        try:
            conversation = find_conversation(store, conversation_id)
        finally:
            store.close()
        if json_output:
            print(conversation.model_dump_json(indent=2))
        else:
            render_conversation(conversation)

    @app.command("abort")
    def abort(
        conversation_id: str | None = typer.Argument(None, metavar="[ID]", help="Default: the newest open one."),
    ) -> None:
        """Abort an open conversation (it can no longer be resumed)."""
        from ...errors import UsageError
        from ...models.workflow import StepStatus
        from ...workflow.run.conversation_lookup import find_conversation
        from ..history.history_common import configured_store

        store = configured_store()
        try:
            conversation = find_conversation(store, conversation_id, open_only=True)
            if conversation.is_terminal:
                raise UsageError(f"conversation {conversation.id} is already {conversation.status.value}")
            index = conversation.current_step_index()
            if index is not None and conversation.steps[index].status != StepStatus.pending:
                conversation.steps[index].transition(StepStatus.aborted, by_user=True)
            conversation.error = "aborted with `parsec abort`"
            conversation.transition("aborted")
            store.save_conversation(conversation)
        finally:
            store.close()
        print(f"Aborted {conversation.id} ({conversation.name})")
