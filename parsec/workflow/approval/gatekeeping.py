"""The gate's side of a step: show a candidate, ask the user (or decide under --yes), explain it.

A mixin of WorkflowRunner (runner.py); what it uses of the runner is declared in runner_parts.py.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from ...errors import ParsecError
from ...models.workflow import Approval, CommandAttempt, ConversationStatus, StepStatus, WorkflowStepState
from ..planning.schemas import CommandCandidate
from ..run.runner_parts import RunnerParts
from . import gate
from .gate import Choice

if TYPE_CHECKING:
    from ..risk import RiskVerdict
    from ..risk.needs_a_person import Wait

EXPLAIN_REQUEST = (
    "Explain `{command}` part by part for the user deciding whether to run it: each program, flag, "
    "pipe and redirection, what it will read or change, and what could go wrong. Plain text, at "
    "most 150 words, no commands to run instead."
)
WAITS = "waits for a person at the terminal"  # in a refused attempt's reasons (and the note to the model)
UNATTENDED_NOTE = (
    "{reason}, and this run is unattended (--yes): give a command that does not wait for input "
    "(e.g. sed -i, cat, --no-pager, -m)."
)
MAX_WAITING_IN_A_ROW = 3  # refused under --yes one after another in a step: the step stops there


class GateResult(NamedTuple):
    """The gate's answer: run `command` (approved, edited or auto-approved), or what the user
    chose instead (alternative / skip / abort, with no command)."""

    choice: Choice
    verdict: RiskVerdict
    command: str = ""
    approval: Approval | None = None
    note: str = ""  # why --yes declined on its own: sent to the model (alternative), or the error (abort)
    waits: Wait | None = None  # --yes declined it: the program would wait for a person at the terminal


class GateSteps(RunnerParts):
    _declined_because = ""  # the last candidate's note for the model when --yes declined it (runner.py)

    def _offer(self, state: WorkflowStepState, candidate: CommandCandidate, remaining: int) -> Choice:
        """Show a candidate and ask; returns run / alternative / skip / abort (the attempt is
        recorded; on run, the command to run is `_pending_command`)."""
        from ..risk import assess

        shell = self._shell()
        verdict = assess(candidate.command, cwd=shell.cwd, home=shell.env.get("HOME"))
        if state.status != StepStatus.command_suggested:
            state.transition(StepStatus.command_suggested)
        attempt = CommandAttempt(
            suggested_command=self.options.mask(candidate.command),
            command=self.options.mask(candidate.command),
            explanation=self.options.mask(candidate.explanation),
            risk_level=verdict.level,
            risk_reasons=verdict.reasons,
            cwd=shell.cwd,
        )
        state.command_attempts.append(attempt)
        self.save()
        self.ui.show_candidate(candidate, verdict, alternatives=remaining)
        decided = self._decide(candidate, verdict)
        verdict = decided.verdict
        if decided.waits is not None:
            decided = self._refuse_waiting(state, attempt, decided)
        self._declined_because = decided.note if decided.choice == Choice.alternative else ""
        if decided.choice != Choice.run:  # alternative / skip / abort: recorded as declined
            attempt.approval = Approval.declined
            if decided.choice == Choice.skip:
                state.transition(StepStatus.skipped, by_user=True)
            elif decided.choice == Choice.abort:
                state.transition(StepStatus.aborted, by_user=True)
                reason = decided.note or (
                    f"declined a {verdict.level}-risk command under "
                    + gate.auto_flag(self.options.auto_level, self._confined())
                    if self.options.auto_yes
                    else "aborted by the user"
                )
                self.conversation.error = reason
                self.conversation.transition(ConversationStatus.aborted)
            self.save()
            if decided.choice == Choice.abort:
                self.ui.say(f"Stopped: {self.conversation.error}", style="yellow")
            return decided.choice
        attempt.approval = decided.approval
        if decided.approval == Approval.edited:
            attempt.command = self.options.mask(decided.command)
            attempt.risk_level, attempt.risk_reasons = verdict.level, verdict.reasons
        self._pending_command = decided.command
        self.save()
        return Choice.run

    def _refuse_waiting(self, state: WorkflowStepState, attempt: CommandAttempt, decided: GateResult) -> GateResult:
        """--yes declined a command that would wait for a person: the attempt says why, the user
        is told in one line, and the model is asked for another command (the note). After a few
        in a row (a model that insists), the run stops as declined rather than asking for ever."""
        assert decided.waits is not None
        program, why = decided.waits
        reason = f"`{program}` {WAITS} ({why})"
        attempt.risk_reasons = [*attempt.risk_reasons, reason]
        in_a_row = 0
        for earlier in reversed(state.command_attempts):  # this attempt included
            if earlier.executed or not any(WAITS in r for r in earlier.risk_reasons):
                break
            in_a_row += 1
        if in_a_row >= MAX_WAITING_IN_A_ROW:
            error = (
                f"declined under --yes: the model's commands for step {state.step.index + 1} wait for a "
                f"person at the terminal ({in_a_row} in a row, the last `{program}`)"
            )
            return decided._replace(choice=Choice.abort, note=error)
        self.ui.say(f"Not run: {reason}, and nobody is there to answer it under --yes.", style="yellow")
        return decided._replace(note=UNATTENDED_NOTE.format(reason=reason))

    def _confined(self) -> bool:
        """Whether the commands run inside the sandbox (what --yes may approve depends on it)."""
        return self._shell().sandbox is not None

    def _decide(self, candidate: CommandCandidate, verdict: RiskVerdict) -> GateResult:
        """What the user (or --yes) decided for `candidate`. An edited command goes back through
        the gate with its own verdict: editing `ls` into `rm -rf ~` must still need an explicit yes."""
        from ..risk import assess

        if self.options.auto_yes:
            decision = gate.auto_decision(verdict, up_to=self.options.auto_level, confined=self._confined())
            if decision.choice == Choice.run:
                from ..risk.needs_a_person import waits_for_a_person

                waits = waits_for_a_person(candidate.command, self._shell().env)
                if waits is not None:  # nobody would answer it: the model is asked for another
                    return GateResult(Choice.alternative, verdict, waits=waits)
                return GateResult(Choice.run, verdict, candidate.command, Approval.auto_approved)
            self.ui.say(decision.message, style="red")
            return GateResult(Choice.abort, verdict)
        shown = candidate
        while True:
            decision = gate.interpret(self.ui.ask(gate.prompt_for(verdict)), verdict)
            if decision.choice == Choice.run:
                edited = shown.command != candidate.command
                return GateResult(Choice.run, verdict, shown.command, Approval.edited if edited else Approval.approved)
            if decision.choice == Choice.edit:
                text = self.ui.edit(shown.command).strip()
                if text and text != shown.command:
                    shell = self._shell()
                    shown = CommandCandidate(command=text, explanation="edited by you")
                    verdict = assess(text, cwd=shell.cwd, home=shell.env.get("HOME"))
                    self.ui.show_candidate(shown, verdict)
                continue
            if decision.choice == Choice.explain:
                self._explain(shown, verdict)
                continue
            if decision.choice == Choice.ask_again:
                self.ui.say(decision.message, style="yellow")
                continue
            return GateResult(decision.choice, verdict)  # alternative, skip or abort

    def _explain(self, candidate: CommandCandidate, verdict: RiskVerdict) -> None:
        """`x` at the gate: what Parsec knows at once (the explanation, the risk reasons), then the
        model's part-by-part explanation, streamed as it arrives. The request is the step's
        messages plus this exchange, fitted to the budget (compaction, then truncation) as every
        conversation-style list is."""
        from ...models.chat import ChatMessage

        self.ui.explain(candidate, verdict)
        command = self.options.mask(candidate.command)
        messages = [
            *self._step_messages,
            ChatMessage(role="assistant", content=command),
            ChatMessage(role="user", content=EXPLAIN_REQUEST.format(command=command)),
        ]
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
