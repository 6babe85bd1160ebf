"""Running an approved command and what follows: results, failures, retries, recovery after a
crash, and completing a step.

A mixin of WorkflowRunner (runner.py); what it uses of the runner is declared in runner_parts.py.
"""

from __future__ import annotations

from ...errors import ParsecError
from ...models.parsec_model import utcnow
from ...models.text import TruncatedText
from ...models.workflow import Approval, CommandAttempt, ConversationStatus, StepStatus, WorkflowStepState
from ..approval import gate
from ..planning.reply_checks import (
    ASK_AGAIN_NOTHING_RUN,
    ASK_AGAIN_NOTHING_RUN_HERE,
    DONE_WITH_NOTHING_RUN,
    DONE_WITH_NOTHING_RUN_HERE,
)
from ..run.outcome import NOT_ACHIEVED
from ..run.quickstart import REQUEST_SETTLE_S
from ..run.runner_parts import RunnerParts
from .persistent_shell import PersistentShell, SandboxFailed, ShellResult, pick_shell

ERROR_TAIL_BYTES = 2000


class ExecutionSteps(RunnerParts):
    def _launch_shell(self) -> None:
        """As the planning request goes out: start the conversation's shell in a thread, so the
        sandbox is up when the first step needs it rather than started between the plan's reply
        and the step's request (bwrap took most of that time; issue 26, item 5)."""
        import threading
        from concurrent.futures import Future

        if self.shell is not None or self._shell_launch is not None:
            return
        launch: Future[tuple[PersistentShell, str]] = Future()

        def start() -> None:
            try:
                shell, reason = self._started_shell()
            except BaseException as err:  # SandboxFailed and the like: met where the shell is needed
                launch.set_exception(err)
                return
            launch.set_result((shell, reason))
            # bwrap runs with --die-with-parent, which Linux ties to the thread that forked it:
            # this thread lives as long as the shell.
            shell.closed.wait()

        self._shell_launch = launch
        # A moment later, as the store's writes: the request is written before this competes.
        timer = threading.Timer(REQUEST_SETTLE_S, start)
        timer.name, timer.daemon = "parsec-shell", True
        timer.start()

    def _open_shell(self) -> PersistentShell:
        """The conversation's shell (the one launched during planning, if any). Where no sandbox
        can be, it says so once; the gate then lets --yes approve low risk only (see
        gate.auto_decision)."""
        launch, self._shell_launch = self._shell_launch, None
        shell, reason = launch.result() if launch is not None else self._started_shell()
        if reason:
            then = (
                "--yes approves low-risk commands only"
                if self.options.auto_yes
                else "each command runs unconfined once you approve it"
            )
            self.ui.say(f"No sandbox: {reason}; {then}.", style="yellow")
        return shell

    def _drop_unused_shell(self) -> None:
        """A shell launched for steps that never ran (the plan rejected, planning failed) ends."""
        launch, self._shell_launch = self._shell_launch, None
        if launch is not None:
            try:
                launch.result()[0].close()
            except Exception:  # it did not start: nothing to end
                pass

    def _where_commands_run(self) -> tuple[str, str, dict[str, str]]:
        """(the shell program, its working directory, its variables): the shell's own, or while it
        is still starting (launched as the model plans), where it will start. A step's request is
        built from these, so it does not wait for the sandbox to come up."""
        if self.shell is not None:
            return self.shell.shell, self.shell.cwd, self.shell.env
        cwd, env = self._start_point()
        return self.options.shell or pick_shell(env), cwd, env

    def _start_point(self) -> tuple[str, dict[str, str]]:
        from ..run.final_state import resume_point

        return resume_point(self.conversation, dict(self.options.env))

    def _started_shell(self) -> tuple[PersistentShell, str]:
        """(the conversation's shell, started where it last stood, inside the sandbox when one is
        used (sandbox.py); why there is no sandbox, or "")."""
        from .sandbox import confinement_for

        cwd, env = self._start_point()

        def started(probe_first: bool) -> tuple[PersistentShell, str]:
            confinement = confinement_for(
                self.options.sandbox,
                unattended=self.options.auto_yes,
                workdir=self.conversation.working_directory,
                home=env.get("HOME"),
                probe_first=probe_first,
            )
            shell = PersistentShell(cwd, env, shell=self.options.shell, sandbox=confinement.sandbox)
            shell.start()
            return shell, confinement.reason or ""

        # The first bwrap found is started as it is (a probe first cost every run a second
        # sandbox); only when it fails are the bwraps probed, to use another or say why none works.
        try:
            return started(probe_first=False)
        except SandboxFailed:
            return started(probe_first=True)

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
        result = shell.run(
            command,
            timeout=self.options.command_timeout_s or None,
            echo=out,
            stdin_fd=stdin_fd,
            detached_input=stdin_fd is None,
        )
        self.executed_commands.append(command)
        attempt.executed = True
        attempt.exit_status = result.exit_status
        attempt.duration_ms = result.duration_ms
        attempt.finished_at = utcnow()
        attempt.interrupted = result.interrupted or result.timed_out
        attempt.output = TruncatedText.from_output(self.options.mask(result.output), self.options.output_limit)
        # The same directory before and after, even when the command moved (`mkdir p && cd p`
        # makes p where it started).
        after_files = take_snapshot(before_cwd)
        index = state.step.index
        for artifact in artifacts_between(before_files, after_files, index):
            if artifact not in state.artifacts_produced:
                state.artifacts_produced.append(artifact)
        state.environment_changes.extend(
            environment_changes(before_cwd, result.cwd, before_env, result.env, index, mask=self.options.mask)
        )
        self.save()
        self._record_in_history(attempt, result.cwd)
        return result

    def _record_in_history(self, attempt: CommandAttempt, cwd_after: str) -> None:
        """The command joins the user's history (`parsec history --source ai`, Ctrl-R)."""
        from ..run.handoff import history_entry

        entry = history_entry(self.conversation, attempt, cwd_after, self.options)
        try:
            if entry is not None:
                self.store.append_executions([entry])
        except ParsecError as err:  # the conversation has it; the history can do without
            self._warn_once(f"could not add `{attempt.command}` to the history: {err}")

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
            return self._recover(
                state,
                problem,
                on_retry=f"The user asked to retry after: {problem} Suggest the command again (or a better one).",
            )
        if result.exit_status == 0:
            return ""
        self._fail(state, attempt, None, blocked=self._blocked(result))
        if state.retries < self.options.max_retries:
            state.retries += 1
            self.save()
            self.ui.say(
                f"Exit status {result.exit_status}: asking for a fix "
                f"(retry {state.retries}/{self.options.max_retries})",
                style="yellow",
            )
            return "The previous command failed: see error_context, and suggest a corrected command."
        return self._recover(
            state,
            f"Exit status {result.exit_status} after {state.retries} retries.",
            on_retry="The user asked to retry: suggest a corrected command.",
        )

    def _blocked(self, result: ShellResult) -> str:
        """For a command the sandbox stopped: the one line shown to the user, and the note that
        tells the model (so it does not try the same write again); ("", "") otherwise."""
        from .sandbox import blocked_by, model_note

        sandbox = self._shell().sandbox
        line = blocked_by(sandbox, result.output) if sandbox is not None else ""
        if not line or sandbox is None:
            return ""
        self.ui.say(line, style="red")
        return model_note(sandbox, line)

    def _fail(self, state: WorkflowStepState, attempt: CommandAttempt, message: str | None, blocked: str = "") -> None:
        tail = attempt.output.render()[-ERROR_TAIL_BYTES:] if attempt.output else ""
        state.error_context = message or (
            f"The command `{attempt.command}` exited with status {attempt.exit_status}.\nOutput (tail):\n{tail}"
        )
        if blocked:
            state.error_context = f"{blocked}\n{state.error_context}"
        state.transition(StepStatus.failed)
        self.save()

    def _recover(self, state: WorkflowStepState, problem: str, *, on_retry: str) -> str:
        """retry / skip / abort after a failure the automatic retries did not fix, a Ctrl-C, or a
        step that will not end; returns the instruction for the next model call: `on_retry` when
        the user retries, nothing otherwise."""
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
        if choice in (gate.Recovery.skip, gate.Recovery.abort):
            self._user_ends_step(state, aborted=choice == gate.Recovery.abort)
        else:
            state.retries = 0
        self.save()
        return on_retry if choice == gate.Recovery.retry else ""

    def _user_ends_step(self, state: WorkflowStepState, aborted: bool) -> None:
        """The user's [s]kip or [q] abort at a step's question (a failure's or a done step's)."""
        if not aborted:
            state.transition(StepStatus.skipped, by_user=True)
            return
        state.transition(StepStatus.aborted, by_user=True)
        self.conversation.error = "aborted by the user"
        self.conversation.transition(ConversationStatus.aborted)

    def _done_without_command(
        self, state: WorkflowStepState, summary: str, asked_again: bool
    ) -> tuple[gate.DoneChoice, str]:
        """The model judges the step done and nothing ran for it: (what to do, the instruction for
        the next model call when it is `run`). With nothing run in the whole conversation it is
        only the model's word: sent back once with the reason; said again, under --yes the step
        is not achieved. Otherwise the reason is shown and the user may agree (accept), disagree
        (run: ask for a command) or skip / abort; under --yes it is sent back once, then accepted."""
        if not self._anything_ran():
            if not asked_again:
                self._notice(DONE_WITH_NOTHING_RUN)
                return gate.DoneChoice.run, ASK_AGAIN_NOTHING_RUN
            if not self.ui.interactive:
                self._not_achieved(state, summary)
                return gate.DoneChoice.abort, ""
        elif not self.ui.interactive and not asked_again:
            self._notice(DONE_WITH_NOTHING_RUN_HERE)
            return gate.DoneChoice.run, ASK_AGAIN_NOTHING_RUN_HERE
        reason = summary.strip() or "(the model gave no reason)"
        self.ui.say(f"Step {state.step.index + 1} looks done already, without a command: {reason}", style="cyan")
        if not self.ui.interactive:
            return gate.DoneChoice.accept, ""
        while True:
            choice = gate.interpret_done(self.ui.ask("[Enter] agree  [r]un it anyway  [s]kip  [q] abort > "))
            if choice is not None:
                break
        if choice in (gate.DoneChoice.skip, gate.DoneChoice.abort):
            self._user_ends_step(state, aborted=choice == gate.DoneChoice.abort)
            self.save()
        run = "The user disagrees that this step is already done: give a command that carries it out."
        return choice, run if choice == gate.DoneChoice.run else ""

    def _anything_ran(self) -> bool:
        """Has any command of this conversation run? Its output is what could show that a step
        needs nothing more; with nothing run, a step said to be done is only the model's word."""
        return any(self._commands_run(state) for state in self.conversation.steps)

    def _not_achieved(self, state: WorkflowStepState, summary: str) -> None:
        """Under --yes the model said twice that a step was done, and nothing has run: the
        workflow stops, reported as not achieved (outcome.py), rather than finished."""
        claim = f" (it said: {summary.strip()})" if summary.strip() else ""
        reason = f"{NOT_ACHIEVED} step {state.step.index + 1}: the model says it is done, but nothing ran{claim}"
        state.error_context = reason
        state.transition(StepStatus.aborted, by_user=True)
        self.conversation.error = self.options.mask(reason)
        self.conversation.transition(ConversationStatus.aborted)
        self.save()
        self.ui.say(reason[:1].upper() + reason[1:], style="yellow")

    def _complete(self, state: WorkflowStepState, summary: str) -> None:
        commands = [a.command for a in state.command_attempts if a.succeeded]
        if self._commands_run(state) == 0:
            reason = summary.strip() or "(no reason given)"
            achievement = f"Step {state.step.index + 1}: done without a command: {reason}"
        else:
            achievement = f"Step {state.step.index + 1}: {summary or state.step.description}"
        if commands:
            achievement += f" ({'; '.join(commands[-3:])})"
        state.transition(StepStatus.complete)
        state.error_context = None
        state.summary = self.options.mask(summary.strip())  # later steps see what this one achieved
        self.conversation.context_summary.key_achievements.append(self.options.mask(achievement))
        self.save()

    def _recover_after_crash(self, state: WorkflowStepState) -> None:
        """A step left `running` by a crash or a provider failure. Either its command finished
        (exit status recorded) and only the model's confirmation is missing: the step goes on
        and the model is asked, with the result. Or Parsec stopped while the command ran: the
        attempt is interrupted, may have partly run, and the model is told so."""
        if state.status != StepStatus.running or not state.command_attempts:
            return
        last = state.command_attempts[-1]
        if last.exit_status is not None:
            return  # command finished, model not yet confirmed: ask it
        last.executed = last.started_at is not None or last.executed  # it started: it may have done part
        last.interrupted = True
        if last.approval is None:
            last.approval = Approval.declined
        state.error_context = (
            f"Parsec stopped while `{last.command}` ran; it was interrupted and may have "
            "partly run: check what it did before running it again."
        )
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
