"""Context commands (`[[context_commands]]`): shell commands whose output the model should see.

Static ones run once per conversation, all at the same time, and their output is stored in the
system prompt between `--- Context: NAME ---` and `--- End Context ---`; dynamic ones run the same
way before each step and go into that step's message only. Each is killed (with its whole process
group) at its timeout, so a slow command never holds a conversation longer than that. They run
with the environment scrubbed of LLM keys, like the commands of a workflow.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from ..config import ContextCommand
from ..errors import ParsecError
from ..privacy.scrub import scrubbed_environment
from .redact import clip, masked

BLOCK_START = "--- Context: {name} ---"
BLOCK_END = "--- End Context ---"


class ContextCommandFailed(ParsecError):
    """A context command with on_error = "fail" failed or timed out."""


@dataclass(frozen=True)
class CommandOutput:
    name: str
    output: str  # masked, head+tail cut to max_command_output_length
    ok: bool
    error: str | None = None  # why it failed: exit status, timeout, cannot start
    duration_s: float = 0.0
    on_error: str = "warn"


def run_one(command: ContextCommand, cwd: str, max_output: int, env: Mapping[str, str] | None = None) -> CommandOutput:
    """Run one command; `env` (default: os.environ) is passed on without any LLM key."""
    started = time.monotonic()
    try:
        process = subprocess.Popen(
            ["/bin/sh", "-c", command.command],
            cwd=cwd or None,
            env=scrubbed_environment(env),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,  # its own process group, so a timeout kills its children too
        )
    except OSError as err:
        return CommandOutput(command.name, "", False, f"cannot start: {err.strerror}", 0.0, command.on_error)
    try:
        stdout, stderr = process.communicate(timeout=command.timeout)
    except subprocess.TimeoutExpired:
        _kill_group(process)
        stdout, stderr = _drain(process)
        return CommandOutput(
            command.name,
            _clip(stdout, max_output),
            False,
            f"timed out after {command.timeout:g} s",
            time.monotonic() - started,
            command.on_error,
        )
    elapsed = time.monotonic() - started
    if process.returncode != 0:
        detail = _clip(stderr, 200).strip().splitlines()
        reason = f"exit status {process.returncode}" + (f": {detail[0]}" if detail else "")
        return CommandOutput(command.name, _clip(stdout, max_output), False, masked(reason), elapsed, command.on_error)
    return CommandOutput(command.name, _clip(stdout, max_output), True, None, elapsed, command.on_error)


def run_all(
    commands: list[ContextCommand], cwd: str, max_output: int, env: Mapping[str, str] | None = None
) -> list[CommandOutput]:
    """Run `commands` in parallel (each without LLM keys, see run_one); results come back in
    config order.

    Raises ContextCommandFailed for the first failed command whose on_error is "fail".
    """
    if not commands:
        return []
    with ThreadPoolExecutor(max_workers=len(commands)) as pool:
        outputs = list(pool.map(lambda c: run_one(c, cwd, max_output, env), commands))
    for out in outputs:
        if not out.ok and out.on_error == "fail":
            raise ContextCommandFailed(
                f"context command '{out.name}' failed ({out.error}); fix it or set on_error = \"warn\""
            )
    return outputs


def render_blocks(outputs: list[CommandOutput]) -> str:
    """The `--- Context: NAME ---` blocks; ignored failures leave no block, warned ones a note."""
    blocks = []
    for out in outputs:
        if not out.ok and out.on_error == "ignore":
            continue
        body = out.output.rstrip("\n")
        if not out.ok:
            note = f"[context command failed: {out.error}]"
            body = f"{body}\n{note}" if body else note
        blocks.append(f"{BLOCK_START.format(name=out.name)}\n{body}\n{BLOCK_END}")
    return "\n\n".join(blocks)


def warnings(outputs: list[CommandOutput]) -> list[str]:
    return [
        f"context command '{out.name}' failed: {out.error}" for out in outputs if not out.ok and out.on_error == "warn"
    ]


def has_context_blocks(text: str | None) -> bool:
    return text is not None and "--- Context: " in text and BLOCK_END in text


def _clip(data: bytes | None, limit: int) -> str:
    return clip(data or b"", limit)


def _kill_group(process: subprocess.Popen) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        process.kill()


def _drain(process: subprocess.Popen) -> tuple[bytes, bytes]:
    try:
        return process.communicate(timeout=1.0)
    except subprocess.TimeoutExpired:  # a grandchild escaped the group and holds the pipe
        for stream in (process.stdout, process.stderr):
            if stream:
                stream.close()
        process.wait()
        return b"", b""
