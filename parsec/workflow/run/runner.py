"""The workflow engine: a Conversation from plan to finish, saved after every change.

planning → ready (the user reviews the plan) → in_progress (each step: ask the model for a
command, gate it, run it in the conversation's shell, feed results and errors back) → finished,
or aborted / error. Every state change is saved first, so a `kill -9` at any point leaves a
conversation that `parsec resume` can pick up from the last completed step.
"""

from __future__ import annotations

import contextlib
import importlib
import os
from functools import partial
from typing import Any

from ...bashlex_tables import load_bashlex
from ...errors import ParsecError
from ...models.parsec_model import utcnow
from ...models.session import Session
from ...models.workflow import (
    Approval,
    Conversation,
    ConversationStatus,
    ModelExchange,
    StepStatus,
    WorkflowPlan,
)
from ..approval import gate
from ..approval.gatekeeping import GateSteps
from ..execution.executor import ExecutionSteps
from ..execution.persistent_shell import PersistentShell
from ..planning.planner import edit_plan, make_plan, plan_instructions
from ..planning.reply_checks import CommandFacts, stays_put, unusable_reply_notice
from ..planning.schemas import CommandCandidate, PlanReply, meets
from ..planning.stepgen import ask_step_or_plain_command, request_adds, step_request
from .naming import clean_name
from .outcome import Terminated, WorkflowInterrupted, WorkflowPaused, WorkflowTerminated
from .quickstart import REQUEST_SETTLE_S, run_later
from .runner_parts import RunnerContext, RunnerProvider, RunnerStore, RunOptions, WorkflowUI
from .step_attempts import declined_note, held_back, repeats_last_success
from .stored_form import commands_only

# Needed once the plan is back, not before the planning request: imported in the methods that
# use them (and in the background while the model thinks, see _warm_up).
AFTER_PLAN_MODULES = (
    "parsec.workflow.approval.gate",
    "parsec.workflow.risk",
    "parsec.workflow.execution.results",
    "parsec.workflow.run.handoff",
    "rich.console",
)


class WorkflowRunner(GateSteps, ExecutionSteps):
    """The life cycle: planning, the step loop, the end; the gate (gatekeeping.py) and running
    commands, retries and recovery (executor.py) are its other two parts."""

    def __init__(
        self,
        conversation: Conversation,
        *,
        store: RunnerStore,
        provider: RunnerProvider,
        context: RunnerContext,
        ui: WorkflowUI,
        options: RunOptions,
        session: Session | None = None,
    ) -> None:
        self.conversation = conversation
        self.store = store
        self.provider = provider
        self.context = context
        self.ui = ui
        self.options = options
        self.session = session
        self.shell: PersistentShell | None = None
        self.final_cwd: str | None = None  # where the conversation's shell stood at the end
        self._warned: set[str] = set()
        self.executed_commands: list[str] = []
        self._pending_command = ""  # what the gate approved, for _execute
        self._step_messages: list[Any] = []  # the current step's request, for explain
        self.provider_label = f"{getattr(provider, 'name', '?')}:{getattr(provider, 'model', '?')}"
        self._facts = CommandFacts(options.env.get("PATH", os.environ.get("PATH", "")), options.shell)
        self._notice = unusable_reply_notice(ui.say)  # a reply sent back: the user told why in one line

    # --- the life cycle --------------------------------------------------------------------
    def run(self) -> Conversation:
        conversation = self.conversation
        if not conversation.is_terminal:
            conversation.error = None  # a resumed conversation starts afresh
        try:
            if conversation.status == ConversationStatus.planning:
                self._plan()
            if conversation.status == ConversationStatus.ready:
                self._review_plan()
            if conversation.status == ConversationStatus.in_progress:
                self._run_steps()
            if conversation.status == ConversationStatus.in_progress and conversation.current_step_index() is None:
                self._finish()
        except KeyboardInterrupt:
            self._pause("paused by the user (Ctrl-C)")
            raise WorkflowInterrupted(f"paused (Ctrl-C): continue with `parsec resume {conversation.id}`") from None
        except Terminated as stop:
            self._pause(f"paused: Parsec was stopped by {stop.signal_name}")
            raise WorkflowTerminated(
                f"paused ({stop.signal_name}): continue with `parsec resume {conversation.id}`"
            ) from None
        except Exception as err:
            paused = self._stop_on_error(err)
            if paused and isinstance(err, ParsecError):
                stopped = WorkflowPaused(f"{err} (then continue with `parsec resume {conversation.id}`)")
                stopped.original = err  # what stopped it, for the exit status (see outcome.py)
                raise stopped from None
            raise
        finally:
            self._hand_back()
        return conversation

    def _stop_on_error(self, err: Exception) -> bool:
        """Leave a consistent, saved conversation after an error; True when it can be resumed."""
        conversation = self.conversation
        message = str(err) if isinstance(err, ParsecError) else f"internal error: {type(err).__name__}: {err}"
        conversation.error = message
        if conversation.status == ConversationStatus.in_progress:
            # E.g. a provider outage mid-workflow: keep it resumable.
            self._close_open_attempt_if_unrun()
            self.save()
            return True
        if not conversation.is_terminal:
            conversation.transition(ConversationStatus.error)
        self.save()
        return False

    def save(self) -> None:
        self.conversation.updated_at = utcnow()
        stored = commands_only(self.conversation) if self.options.privacy_mode else self.conversation
        self.store.save_conversation(stored)

    def _pause(self, reason: str) -> None:
        """Ctrl-C (or SIGTERM): leave the conversation where it stands, resumable. A command shown
        but not yet answered is forgotten (the user did not decline it); nothing else changes."""
        conversation = self.conversation
        index = conversation.current_step_index()
        if index is not None and conversation.status == ConversationStatus.in_progress:
            attempts = conversation.steps[index].command_attempts
            if attempts and attempts[-1].approval is None and not attempts[-1].executed:
                attempts.pop()
        if not conversation.is_terminal:
            conversation.error = reason
        self.save()
        self.ui.say("")  # after the ^C the terminal echoed

    def _abort(self, reason: str) -> None:
        conversation = self.conversation
        index = conversation.current_step_index()
        if index is not None and conversation.steps[index].status != StepStatus.pending:
            self._close_open_attempt(conversation.steps[index])
            conversation.steps[index].transition(StepStatus.aborted, by_user=True)
        if not conversation.is_terminal:
            conversation.error = reason
            conversation.transition(ConversationStatus.aborted)
        self.save()
        self.ui.say(f"Aborted: {reason}", style="yellow")

    # --- planning --------------------------------------------------------------------------
    def _plan(self, remark: str | None = None) -> None:
        conversation = self.conversation
        self.ui.say(f"Planning: {conversation.original_prompt}")
        previous = conversation.workflow
        adds = [
            plan_instructions(self.options.max_plan_steps, remark, previous),
            self.provider.reply_format_text(PlanReply),
        ]
        messages = self.context.planning_messages(conversation, self.session, adds=adds)
        for warning in self.context.warnings:  # e.g. a failing static context command
            self._warn_once(warning)
        # While the model thinks, not before it is asked: open the store (writing what it held),
        # load the token encoding and the modules the steps need.
        self.provider.on_next_request(self._warm_up)
        with self._waiting("Planning"):
            name, plan = make_plan(
                self.provider,
                messages,
                request=conversation.original_prompt,
                max_steps=self.options.max_plan_steps,
                remark=remark,
                previous=previous,
                exchanges=conversation.planning_exchanges,
                shown_on=self.ui,
                is_command_line=self._facts.is_command_line,
                working_directory=conversation.working_directory,
            )
        conversation.planning_exchanges[-1:] = [self._masked(e) for e in conversation.planning_exchanges[-1:]]
        if previous is None:
            conversation.name = clean_name(name, conversation.original_prompt)
        conversation.set_plan(plan)
        conversation.transition(ConversationStatus.ready)
        self.save()

    def _warm_up(self) -> None:
        """As the planning request goes out: start the shell; a moment later (the request written
        first), write what the store held, then import the modules the steps need and bashlex,
        and list PATH for the step reply's command check. The token encoding is not loaded: the
        context engine counts with an upper bound until one cuts."""
        self._launch_shell()  # executor.py: the sandbox starts while the model plans
        claim = getattr(self.store, "claim_opening", None)  # first: the plan's reply writes next
        jobs: list[Any] = [claim()] if claim is not None else []
        jobs += [partial(importlib.import_module, name) for name in AFTER_PLAN_MODULES]  # failures: met later
        jobs += [load_bashlex, partial(self._facts.is_command_line, "sh")]
        run_later(REQUEST_SETTLE_S, jobs)

    def _review_plan(self) -> None:
        conversation = self.conversation
        while conversation.status == ConversationStatus.ready:
            assert conversation.workflow is not None
            self.ui.show_plan(conversation)
            # A one-step plan goes straight to its command: the gate is confirmation enough.
            if not self.ui.interactive or len(conversation.steps) == 1:
                break
            choice = gate.interpret_plan(self.ui.ask("[Enter] accept  [e]dit  [r]e-plan with a remark  [q] abort > "))
            if choice == gate.PlanChoice.accept:
                break
            if choice == gate.PlanChoice.abort:
                self._abort("plan rejected")
                return
            if choice == gate.PlanChoice.edit:
                self._edit_plan()
            elif choice == gate.PlanChoice.replan:
                remark = self.ui.ask("What should change? > ").strip()
                conversation.transition(ConversationStatus.planning)
                self.save()
                self._plan(remark or "make a different plan")
        conversation.transition(ConversationStatus.in_progress)
        self.save()

    def _edit_plan(self) -> None:
        conversation = self.conversation
        assert conversation.workflow is not None
        descriptions = [s.description for s in conversation.workflow.steps]
        self.ui.say("Edit: d N (drop)  m N M (move)  r N text (reword)  a [N] text (add after N); empty line when done")
        while True:
            line = self.ui.ask("plan edit> ").strip()
            if not line or line.lower() == "q":
                break
            try:
                descriptions = edit_plan(descriptions, line)
            except ValueError as err:
                self.ui.say(str(err), style="red")
                continue
            for i, text in enumerate(descriptions):
                self.ui.say(f"  {i + 1}. {text}")
        if descriptions != [s.description for s in conversation.workflow.steps]:
            conversation.set_plan(
                WorkflowPlan.from_descriptions(descriptions, revision=conversation.workflow.revision + 1)
            )
            self.save()

    # --- steps -----------------------------------------------------------------------------
    def _run_steps(self) -> None:
        conversation = self.conversation
        while conversation.status == ConversationStatus.in_progress:
            index = conversation.current_step_index()
            if index is None:
                return
            self._run_step(index)

    def _run_step(self, index: int) -> None:
        state = self.conversation.steps[index]
        self._recover_after_crash(state)
        pending: list[CommandCandidate] = []
        extra = ""
        allowed = self.options.max_commands_per_step
        empty_replies = 0
        done_asked_again = False  # a done with nothing run is sent back once
        stayed = False  # a `cd` to where the shell is was held back: given again, the step is done
        while not state.is_terminal and self.conversation.status == ConversationStatus.in_progress:
            self.ui.status(self.conversation, self.provider_label)
            if not pending:
                program, cwd, env = self._where_commands_run()  # executor.py: the shell need not be up yet
                shell_name, extra = os.path.basename(program), " ".join(filter(None, [declined_note(state), extra]))
                messages, step_context, report = self.context.step_messages(
                    self.conversation,
                    index,
                    environment={"working_directory": cwd, "virtual_env": env.get("VIRTUAL_ENV")},
                    adds=request_adds(shell_name, extra, self.provider),
                )
                state.context_used = step_context
                self._step_messages = messages
                for warning in report.warnings:  # a failing or timed-out dynamic context command
                    self._warn_once(warning)
                with self._waiting(f"Step {index + 1}: asking {self.provider_label}"):
                    request = step_request(messages, shell=shell_name, extra=extra)
                    reply, exchanges = ask_step_or_plain_command(
                        self.provider,
                        request,
                        messages,
                        shell=shell_name,
                        extra=extra,
                        is_command=self._facts.is_command,
                        notice=self._notice,
                    )
                state.exchanges += [self._masked(exchange) for exchange in exchanges]
                extra = ""
                if reply.done and not reply.candidates:
                    if self._commands_run(state) == 0:
                        verdict, extra = self._done_without_command(state, reply.summary, done_asked_again)
                        if verdict == gate.DoneChoice.run:  # asked for a command
                            done_asked_again = True
                            continue
                        if verdict != gate.DoneChoice.accept:
                            return
                    self._complete(state, reply.summary)
                    return
                proposed = reply.candidates[0].command if reply.candidates else ""
                staying = bool(proposed) and stays_put(proposed, cwd)
                if staying and stayed:  # given again: a step to go where the shell is
                    self.ui.say(f"Step {index + 1} is done: commands already run in {cwd}.")
                    self._complete(state, f"already in {cwd}")
                    return
                unattended = self.options.auto_yes
                note = proposed and held_back(state, proposed, self.options.mask(proposed), cwd, unattended=unattended)
                stayed = stayed or staying
                if note:
                    self.ui.say(f"Not run: {note}", style="yellow")
                    reply.candidates = []
                if not reply.candidates:
                    empty_replies += 1
                    if empty_replies > 2:
                        raise ParsecError(
                            f"the model gave no command to run for step {index + 1} three times; "
                            "try another model (--model) or rephrase the request"
                        )
                    extra = note or "Your last reply had no candidates: give at least one command, or done=true."
                    continue
                ran = self._commands_run(state)
                if ran >= allowed:
                    extra = self._recover(
                        state,
                        f"Step {index + 1} ran {ran} commands and the model has not said it is done.",
                        on_retry="The user chose to go on with this step: if the results above already "
                        "achieve it, say done; otherwise give the next command.",
                    )
                    allowed += self.options.max_commands_per_step  # the user chose to go on
                    continue
                first, now_in = reply.candidates[0], self.shell.cwd if self.shell else None
                if repeats_last_success(state, self.options.mask(first.command), now_in):
                    # The model has nothing left to do: a second run would only repeat the effects.
                    self.ui.say(f"`{first.command}` already ran and succeeded: step {index + 1} is done.")
                    self._complete(state, reply.summary or first.explanation)
                    return
                # A done flag that comes with commands is not trusted: the step is complete only
                # once the model has seen what they did and says so (done with no candidates).
                pending = list(reply.candidates)
            candidate = pending.pop(0)
            outcome = self._offer(state, candidate, remaining=len(pending))
            if outcome == gate.Choice.alternative:
                if not pending:  # --yes declining on its own says why (gatekeeping.py)
                    extra = (
                        self._declined_because
                        or f"The user declined `{candidate.command}`: suggest a different approach."
                    )
                continue
            if outcome in (gate.Choice.skip, gate.Choice.abort):
                return
            result = self._execute(state, state.command_attempts[-1])
            if result.interrupted and not self.ui.interactive:
                # Under --yes nobody answers retry / skip / abort: Ctrl-C during a command pauses
                # the workflow, as it does everywhere else (docs/workflow.md § Ctrl-C).
                self._fail(state, state.command_attempts[-1], f"The command `{candidate.command}` was interrupted.")
                raise KeyboardInterrupt
            pending = []
            # The model said beforehand what success looks like: a command that meets it (as
            # suggested, not edited) completes the step without another call.
            if (
                state.command_attempts[-1].approval != Approval.edited
                and not (result.interrupted or result.timed_out)
                and meets(candidate.expect, result.exit_status, result.output)
            ):
                self._complete(state, reply.summary or candidate.explanation)
                return
            extra = self._after_run(state, result)

    # --- the end ---------------------------------------------------------------------------
    def _finish(self) -> None:
        conversation = self.conversation
        summary = conversation.context_summary
        summary.generated_artifacts = [a for s in conversation.steps for a in s.artifacts_produced]
        summary.environment_changes = [c for s in conversation.steps for c in s.environment_changes]
        conversation.transition(ConversationStatus.finished)
        self.save()
        self.store.save_achievements(
            conversation.id,
            conversation.name,
            conversation.working_directory,
            summary.key_achievements,
            [a.path for a in summary.generated_artifacts],
            conversation.finished_at or utcnow(),
        )
        self.ui.say(f"Finished: {conversation.name}", style="bold green")
        from .wrapup import final_summary

        shell = self.shell
        for line in final_summary(
            conversation,
            shell.cwd if shell else "",
            dict(shell.env) if shell else {},
            cd_carried=bool(self.options.env.get("PARSEC_CD_FILE")),
        ):
            self.ui.say(line)

    def _hand_back(self) -> None:
        from .handoff import append_history, write_final_directory

        self._drop_unused_shell()
        if self.shell is not None:
            final_cwd = self.final_cwd = self.shell.cwd
            self.shell.close()
            self.shell = None
            if (
                final_cwd != self.conversation.working_directory
                and self.conversation.status == ConversationStatus.finished
            ):
                write_final_directory(final_cwd, self.options.env)
        append_history(self.executed_commands, self.options.env)

    def _masked(self, exchange: ModelExchange) -> ModelExchange:
        """An exchange as it may be stored: the messages (the provider's gate masks what goes out,
        after they were recorded) and the reply through the run's masker."""
        messages = []
        for message in exchange.messages:
            masked = self.options.mask(message.content)
            messages.append(message if masked == message.content else message.model_copy(update={"content": masked}))
        return exchange.model_copy(update={"messages": messages, "reply": self.options.mask(exchange.reply)})

    def _warn_once(self, warning: str) -> None:
        if warning not in self._warned:
            self._warned.add(warning)
            self.ui.say(f"warning: {warning}", style="yellow")

    def _waiting(self, label: str) -> Any:
        waiting = getattr(self.ui, "waiting", None)
        return waiting(label) if waiting is not None else contextlib.nullcontext()

    # --- the shell -------------------------------------------------------------------------
    def _shell(self) -> PersistentShell:
        if self.shell is None:
            self.shell = self._open_shell()  # executor.py
        return self.shell
