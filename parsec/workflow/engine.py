"""The workflow engine: a Conversation from plan to finish, saved after every change.

planning → ready (the user reviews the plan) → in_progress (each step: ask the model for a
command, gate it, run it in the conversation's shell, feed results and errors back) → finished,
or aborted / error. Every state change is saved first, so a `kill -9` at any point leaves a
conversation that `parsec resume` can pick up from the last completed step.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import ParsecError
from ..models.base import utcnow
from ..models.text import TruncatedText
from ..models.workflow import (
    Approval, CommandAttempt, Conversation, ConversationStatus, StepStatus, WorkflowPlan, WorkflowStepState,
)
from .naming import clean_name
from .planner import edit_plan, make_plan
from .quickstart import REQUEST_SETTLE_S, planning_messages, run_later, when_request_sent
from .schemas import CommandCandidate
from .shell import PersistentShell, ShellResult
from .stepgen import suggest

if TYPE_CHECKING:
    from .risk import RiskVerdict

# Needed once the plan is back, not before the planning request: imported in the methods that
# use them (and in the background while the model thinks, see _warm_up).
AFTER_PLAN_MODULES = ("parsec.workflow.gate", "parsec.workflow.risk", "parsec.workflow.results",
                      "parsec.workflow.handoff", "bashlex", "rich.console")

ERROR_TAIL_BYTES = 2000
EXPLAIN_REQUEST = (
    "Explain `{command}` part by part for the user deciding whether to run it: each program, flag, "
    "pipe and redirection, what it will read or change, and what could go wrong. Plain text, at "
    "most 150 words, no commands to run instead."
)


class WorkflowPaused(ParsecError):
    """The workflow stopped on an error it can resume from (e.g. the provider is unreachable)."""


class WorkflowInterrupted(ParsecError):
    """Ctrl-C at a question or while the model worked: the conversation is paused, resumable."""

    exit_code = 130


@dataclass
class RunOptions:
    auto_yes: bool = False  # approve commands up to auto_level without asking; decline the rest
    auto_level: str = "medium"  # --yes: low and medium; --yes=low: low only (high: never)
    max_retries: int = 2
    max_plan_steps: int = 12
    max_commands_per_step: int = 10  # a model that never says done cannot loop for ever under --yes
    command_timeout_s: float = 0.0
    output_limit: int = 1024
    mask: Callable[[str], str] = lambda text: text
    privacy_mode: bool = False  # store commands only: no output, no environment, no step context
    env: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))  # the user's, scrubbed of keys
    shell: str | None = None


class WorkflowRunner:
    def __init__(self, conversation: Conversation, *, store: Any, provider: Any, context: Any, ui: Any,
                 options: RunOptions, session: Any = None) -> None:
        self.conversation = conversation
        self.store = store
        self.provider = provider
        self.context = context
        self.ui = ui
        self.options = options
        self.session = session
        self.shell: PersistentShell | None = None
        self.executed_commands: list[str] = []
        self._pending_command = ""  # what the gate approved, for _execute
        self._step_messages: list[Any] = []  # the current step's request, for explain
        self.provider_label = f"{getattr(provider, 'name', '?')}:{getattr(provider, 'model', '?')}"

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
            self._pause()
            raise WorkflowInterrupted(f"paused (Ctrl-C): continue with `parsec resume {conversation.id}`") from None
        except Exception as err:
            paused = self._stop_on_error(err)
            if paused and isinstance(err, ParsecError):
                raise WorkflowPaused(f"{err} (then continue with `parsec resume {conversation.id}`)") from None
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
        stored = _commands_only(self.conversation) if self.options.privacy_mode else self.conversation
        self.store.save_conversation(stored)

    def _pause(self) -> None:
        """Ctrl-C: leave the conversation where it stands, resumable. A command shown but not yet
        answered is forgotten (the user did not decline it); nothing else changes."""
        conversation = self.conversation
        index = conversation.current_step_index()
        if index is not None and conversation.status == ConversationStatus.in_progress:
            attempts = conversation.steps[index].command_attempts
            if attempts and attempts[-1].approval is None and not attempts[-1].executed:
                attempts.pop()
        if not conversation.is_terminal:
            conversation.error = "paused by the user (Ctrl-C)"
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
        messages = planning_messages(self.context, conversation, self.session)
        # While the model thinks, not before it is asked: open the store (writing what it held),
        # load the token encoding and the modules the steps need.
        when_request_sent(self.provider, self._warm_up)
        previous = conversation.workflow
        name, plan = make_plan(self.provider, messages, max_steps=self.options.max_plan_steps, remark=remark, previous=previous)
        if previous is None:
            conversation.name = clean_name(name, conversation.original_prompt)
        conversation.set_plan(plan)
        conversation.transition(ConversationStatus.ready)
        self.save()

    def _warm_up(self) -> None:
        """As the planning request goes out: a moment later (the request written first), open the
        store (writing what it held), load the token encoding and the modules the steps need."""
        jobs = [claim() for claim in (getattr(self.store, "claim_opening", None),) if claim is not None]
        load_counter = getattr(self.context.counter, "load", None)
        if load_counter is not None:
            jobs.append(load_counter)
        jobs.append(lambda: _import_quietly(*AFTER_PLAN_MODULES))
        run_later(REQUEST_SETTLE_S, jobs)

    def _review_plan(self) -> None:
        from . import gate

        conversation = self.conversation
        while conversation.status == ConversationStatus.ready:
            assert conversation.workflow is not None
            self.ui.show_plan(conversation)
            # A one-step plan goes straight to its command: the gate is confirmation enough.
            if not self.ui.interactive or len(conversation.steps) == 1:
                break
            choice = gate.interpret_plan(self.ui.ask("[Enter] accept  [e]dit  [r]e-plan with a remark  [q] abort > "))
            if choice == "accept":
                break
            if choice == "abort":
                self._abort("plan rejected")
                return
            if choice == "edit":
                self._edit_plan()
            elif choice == "replan":
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
            conversation.set_plan(WorkflowPlan.from_descriptions(descriptions, revision=conversation.workflow.revision + 1))
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
        shell = self._shell()
        self._recover_after_crash(state)
        pending: list[CommandCandidate] = []
        extra = ""
        allowed = self.options.max_commands_per_step
        empty_replies = 0
        while not state.is_terminal and self.conversation.status == ConversationStatus.in_progress:
            self.ui.status(self.conversation, self.provider_label)
            if not pending:
                messages, step_context, _report = self.context.step_messages(
                    self.conversation, index, environment=self._environment())
                state.context_used = step_context
                self._step_messages = messages
                reply = suggest(self.provider, messages, shell=os.path.basename(shell.shell),
                                extra=" ".join(filter(None, [declined_note(state), extra])))
                extra = ""
                if reply.done and not reply.candidates:
                    self._complete(state, reply.summary)
                    return
                if not reply.candidates:
                    empty_replies += 1
                    if empty_replies > 2:
                        raise ParsecError(f"the model gave no command for step {index + 1} three times; "
                                          "try another model (--model) or rephrase the request")
                    extra = "Your last reply had no candidates: give at least one command, or done=true."
                    continue
                ran = self._commands_run(state)
                if ran >= allowed:
                    extra = self._recover(
                        state, f"Step {index + 1} ran {ran} commands and the model has not said it is done.",
                        on_retry="The user chose to go on with this step: if the results above already "
                                 "achieve it, say done; otherwise give the next command.")
                    allowed += self.options.max_commands_per_step  # the user chose to go on
                    continue
                # A done flag that comes with commands is not trusted: the step is complete only
                # once the model has seen what they did and says so (done with no candidates).
                pending = list(reply.candidates)
            candidate = pending.pop(0)
            outcome = self._offer(state, candidate, remaining=len(pending))
            if outcome == "alternative":
                if not pending:
                    extra = f"The user declined `{candidate.command}`: suggest a different approach."
                continue
            if outcome in ("skip", "abort"):
                return
            result = self._execute(state, state.command_attempts[-1])
            pending = []
            extra = self._after_run(state, result)

    def _offer(self, state: WorkflowStepState, candidate: CommandCandidate, remaining: int) -> str:
        """Show a candidate and ask; returns run / alternative / skip / abort (the attempt is recorded)."""
        from .risk import assess

        shell = self._shell()
        verdict = assess(candidate.command, cwd=shell.cwd, home=shell.env.get("HOME"))
        if state.status != StepStatus.command_suggested:
            state.transition(StepStatus.command_suggested)
        attempt = CommandAttempt(
            suggested_command=self.options.mask(candidate.command), command=self.options.mask(candidate.command),
            explanation=self.options.mask(candidate.explanation), risk_level=verdict.level,
            risk_reasons=verdict.reasons, cwd=shell.cwd,
        )
        state.command_attempts.append(attempt)
        self.save()
        self.ui.show_candidate(candidate, verdict, alternatives=remaining)
        command, approval, verdict = self._decide(candidate, verdict)
        if approval is None:  # alternative / skip / abort: recorded as declined
            attempt.approval = Approval.declined
            if command == "skip":
                state.transition(StepStatus.skipped, by_user=True)
            elif command == "abort":
                state.transition(StepStatus.aborted, by_user=True)
                reason = (f"declined a {verdict.level}-risk command under --yes"
                          + ("" if self.options.auto_level == "medium" else f"={self.options.auto_level}")
                          if self.options.auto_yes else "aborted by the user")
                self.conversation.error = reason
                self.conversation.transition(ConversationStatus.aborted)
            self.save()
            if command == "abort":
                self.ui.say(f"Stopped: {self.conversation.error}", style="yellow")
            return command
        attempt.approval = approval
        if approval == Approval.edited:
            attempt.command = self.options.mask(command)
            attempt.risk_level, attempt.risk_reasons = verdict.level, verdict.reasons
        self._pending_command = command
        self.save()
        return "run"

    def _decide(self, candidate: CommandCandidate, verdict: RiskVerdict) -> tuple[str, Approval | None, RiskVerdict]:
        """(command to run, approval, its verdict) or (alternative|skip|abort, None, verdict).

        An edited command goes back through the gate with its own verdict: editing `ls` into
        `rm -rf ~` must still need an explicit yes."""
        from . import gate
        from .risk import assess

        if self.options.auto_yes:
            decision = gate.auto_decision(verdict, up_to=self.options.auto_level)
            if decision.choice == gate.Choice.run:
                return candidate.command, Approval.auto_approved, verdict
            self.ui.say(decision.message, style="red")
            return "abort", None, verdict
        shown = candidate
        while True:
            decision = gate.interpret(self.ui.ask(gate.prompt_for(verdict)), verdict)
            if decision.choice == gate.Choice.run:
                edited = shown.command != candidate.command
                return shown.command, Approval.edited if edited else Approval.approved, verdict
            if decision.choice == gate.Choice.edit:
                text = self.ui.edit(shown.command).strip()
                if text and text != shown.command:
                    shell = self._shell()
                    shown = CommandCandidate(command=text, explanation="edited by you")
                    verdict = assess(text, cwd=shell.cwd, home=shell.env.get("HOME"))
                    self.ui.show_candidate(shown, verdict)
                continue
            if decision.choice == gate.Choice.explain:
                self._explain(shown, verdict)
                continue
            if decision.choice == gate.Choice.ask_again:
                self.ui.say(decision.message, style="yellow")
                continue
            return decision.choice.value, None, verdict

    def _explain(self, candidate: CommandCandidate, verdict: RiskVerdict) -> None:
        """`x` at the gate: what Parsec knows at once (the explanation, the risk reasons), then the
        model's part-by-part explanation, streamed as it arrives. The request is the step's
        messages plus this exchange, fitted to the budget (compaction, then truncation) as every
        conversation-style list is."""
        from ..models.chat import ChatMessage

        self.ui.explain(candidate, verdict)
        command = self.options.mask(candidate.command)
        messages = [*self._step_messages, ChatMessage(role="assistant", content=command),
                    ChatMessage(role="user", content=EXPLAIN_REQUEST.format(command=command))]
        deltas = None
        try:
            deltas = self.provider.stream(self.context.fit_messages(messages), purpose="explain")
            self.ui.stream_text(deltas)
        except ParsecError as err:  # the local explanation above stands on its own
            self.ui.say(f"(the model could not explain it: {err})", style="yellow")
        except KeyboardInterrupt:  # Ctrl-C stops the explanation only; the question comes back
            self.ui.say("\n(explanation stopped)", style="yellow")
        finally:
            close = getattr(deltas, "close", None)
            if close is not None:
                close()

    def _execute(self, state: WorkflowStepState, attempt: CommandAttempt) -> ShellResult:
        from .results import artifacts_between, environment_changes, take_snapshot

        shell = self._shell()
        command = self._pending_command
        state.transition(StepStatus.running)
        attempt.started_at = utcnow()
        self.save()
        before_cwd, before_env = shell.cwd, dict(shell.env)
        before_files = take_snapshot(before_cwd)
        out, stdin_fd = self.ui.command_streams()
        result = shell.run(command, timeout=self.options.command_timeout_s or None, echo=out, stdin_fd=stdin_fd,
                           detached_input=stdin_fd is None)
        self.executed_commands.append(command)
        attempt.executed = True
        attempt.exit_status = result.exit_status
        attempt.duration_ms = result.duration_ms
        attempt.finished_at = utcnow()
        attempt.interrupted = result.interrupted or result.timed_out
        attempt.output = TruncatedText.from_output(self.options.mask(result.output), self.options.output_limit)
        after_files = take_snapshot(result.cwd) if result.cwd != before_cwd else take_snapshot(before_cwd)
        index = state.step.index
        for artifact in artifacts_between(before_files, after_files, index):
            if artifact not in state.artifacts_produced:
                state.artifacts_produced.append(artifact)
        state.environment_changes.extend(
            environment_changes(before_cwd, result.cwd, before_env, result.env, index, mask=self.options.mask))
        self.save()
        return result

    @staticmethod
    def _commands_run(state: WorkflowStepState) -> int:
        return sum(1 for attempt in state.command_attempts if attempt.executed)

    def _after_run(self, state: WorkflowStepState, result: ShellResult) -> str:
        """Decide what follows a run; returns extra instructions for the next model call, which
        sees the results and says whether the step is done."""
        attempt = state.command_attempts[-1]
        if result.interrupted or result.timed_out:
            what = "timed out" if result.timed_out else "was interrupted (Ctrl-C)"
            self._fail(state, attempt, f"The command `{attempt.command}` {what}.")
            problem = f"The command {what}."
            return self._recover(state, problem, on_retry=f"The user asked to retry after: {problem} "
                                                          "Suggest the command again (or a better one).")
        if result.exit_status == 0:
            return ""
        self._fail(state, attempt, None)
        if state.retries < self.options.max_retries:
            state.retries += 1
            self.save()
            self.ui.say(f"Exit status {result.exit_status}: asking for a fix "
                        f"(retry {state.retries}/{self.options.max_retries})", style="yellow")
            return "The previous command failed: see error_context, and suggest a corrected command."
        return self._recover(state, f"Exit status {result.exit_status} after {state.retries} retries.",
                             on_retry="The user asked to retry: suggest a corrected command.")

    def _fail(self, state: WorkflowStepState, attempt: CommandAttempt, message: str | None) -> None:
        tail = attempt.output.render()[-ERROR_TAIL_BYTES:] if attempt.output else ""
        state.error_context = message or (
            f"The command `{attempt.command}` exited with status {attempt.exit_status}.\nOutput (tail):\n{tail}")
        state.transition(StepStatus.failed)
        self.save()

    def _recover(self, state: WorkflowStepState, problem: str, *, on_retry: str) -> str:
        """retry / skip / abort after a failure the automatic retries did not fix, a Ctrl-C, or a
        step that will not end; returns the instruction for the next model call: `on_retry` when
        the user retries, nothing otherwise."""
        from . import gate

        if not self.ui.interactive:
            state.transition(StepStatus.aborted, by_user=True)
            self.conversation.error = f"step {state.step.index + 1}: {problem}"
            self.conversation.transition(ConversationStatus.aborted)
            self.save()
            return ""
        while True:
            choice = gate.interpret_recovery(self.ui.ask(f"{problem} [r]etry  [s]kip  [q] abort > "))
            if choice is not None:
                break
        if choice == "skip":
            state.transition(StepStatus.skipped, by_user=True)
        elif choice == "abort":
            state.transition(StepStatus.aborted, by_user=True)
            self.conversation.error = "aborted by the user"
            self.conversation.transition(ConversationStatus.aborted)
        else:
            state.retries = 0
        self.save()
        return on_retry if choice == "retry" else ""

    def _complete(self, state: WorkflowStepState, summary: str) -> None:
        commands = [a.command for a in state.command_attempts if a.succeeded]
        achievement = f"Step {state.step.index + 1}: {summary or state.step.description}"
        if commands:
            achievement += f" ({'; '.join(commands[-3:])})"
        if state.status in (StepStatus.pending, StepStatus.running):
            state.transition(StepStatus.complete)
        else:
            # The state machine completes a step only after a run; the model judged it done
            # without one (e.g. after a declined suggestion), so it is skipped on its word.
            state.transition(StepStatus.skipped, by_user=True)
            achievement += " (judged done without running a command)"
        state.error_context = None
        self.conversation.context_summary.key_achievements.append(self.options.mask(achievement))
        self.save()

    def _recover_after_crash(self, state: WorkflowStepState) -> None:
        """A step left open by a crash: its unfinished attempt counts as interrupted."""
        if state.status == StepStatus.running:
            self._close_open_attempt(state)
            state.error_context = "Parsec stopped while this command ran; it may have partly run."
            state.transition(StepStatus.failed)
            self.save()

    def _close_open_attempt_if_unrun(self) -> None:
        index = self.conversation.current_step_index()
        if index is not None:
            state = self.conversation.steps[index]
            if state.command_attempts and state.command_attempts[-1].approval is None:
                state.command_attempts[-1].approval = Approval.declined

    def _close_open_attempt(self, state: WorkflowStepState) -> None:
        if state.command_attempts:
            last = state.command_attempts[-1]
            if last.approval is None:
                last.approval = Approval.declined
            elif last.exit_status is None:
                last.interrupted = True

    # --- the end ---------------------------------------------------------------------------
    def _finish(self) -> None:
        conversation = self.conversation
        summary = conversation.context_summary
        summary.generated_artifacts = [a for s in conversation.steps for a in s.artifacts_produced]
        summary.environment_changes = [c for s in conversation.steps for c in s.environment_changes]
        conversation.transition(ConversationStatus.finished)
        self.save()
        saver = getattr(self.store, "save_achievements", None)
        if saver is not None:
            saver(conversation.id, conversation.name, conversation.working_directory, summary.key_achievements,
                  [a.path for a in summary.generated_artifacts], conversation.finished_at or utcnow())
        self.ui.say(f"Finished: {conversation.name}", style="bold green")

    def _hand_back(self) -> None:
        from .handoff import append_history, write_final_directory

        if self.shell is not None:
            final_cwd = self.shell.cwd
            self.shell.close()
            self.shell = None
            if final_cwd != self.conversation.working_directory and self.conversation.status == ConversationStatus.finished:
                write_final_directory(final_cwd, self.options.env)
        append_history(self.executed_commands, self.options.env)

    # --- the shell -------------------------------------------------------------------------
    def _shell(self) -> PersistentShell:
        if self.shell is None:
            cwd, env = resume_point(self.conversation, dict(self.options.env))
            self.shell = PersistentShell(cwd, env, shell=self.options.shell)
            self.shell.start()
        return self.shell

    def _environment(self) -> dict[str, Any]:
        shell = self._shell()
        return {"working_directory": shell.cwd, "virtual_env": shell.env.get("VIRTUAL_ENV")}


def _import_quietly(*modules: str) -> None:
    import importlib

    for name in modules:
        try:
            importlib.import_module(name)
        except ImportError:
            pass


def _commands_only(conversation: Conversation) -> Conversation:
    """What privacy mode lets reach the store: the commands and their exit statuses, not their
    output, the variables they set or the context the model saw. The running workflow keeps all
    of it in memory, so the model still sees each result."""
    stored = conversation.model_copy(deep=True)
    for state in stored.steps:
        state.context_used = None
        state.environment_changes = [c for c in state.environment_changes if c.kind == "cwd"]
        for attempt in state.command_attempts:
            attempt.output = None
    return stored


def declined_note(state: WorkflowStepState) -> str:
    """The context engine shows executed attempts; the model must also know what the user refused."""
    declined = [a.command for a in state.command_attempts if a.approval == Approval.declined and not a.executed]
    if not declined:
        return ""
    listed = "; ".join(f"`{c}`" for c in declined[-5:])
    return f"The user declined these commands for this step, do not suggest them again: {listed}."


def resume_point(conversation: Conversation, env: dict[str, str]) -> tuple[str, dict[str, str]]:
    """Where the conversation's shell stood: the last cwd and the variables its steps exported."""
    cwd = conversation.working_directory or os.getcwd()
    for state in conversation.steps:
        for change in state.environment_changes:
            if change.kind == "cwd" and change.new_value:
                cwd = change.new_value
            elif change.name and "[REDACTED" not in (change.new_value or ""):
                if change.new_value is None:
                    env.pop(change.name, None)
                else:
                    env[change.name] = change.new_value
    if not os.path.isdir(cwd):
        cwd = conversation.working_directory if os.path.isdir(conversation.working_directory) else os.getcwd()
    return cwd, env
