"""Context commands: static ones once per conversation and in parallel, dynamic ones per step,
failures as `on_error` says, and never longer than their timeout."""

from __future__ import annotations

import time

import pytest

from parsec.config import ContextCommand
from parsec.context.commands import ContextCommandFailed, run_all
from parsec.context.engine import ContextEngine
from parsec.context.prompts import build_system_prompt

from .ctx_helpers import attempt, conversation, finish_step, fixed_clock, settings


def test_commands_run_at_the_same_time(tmp_path):
    """Each command marks itself started, then waits for the other two: run one after another,
    the first would wait alone (30 s) and say so."""
    everyone = " -a ".join(f"-e started.{i}" for i in range(3))
    waits = f"n=0; while ! [ {everyone} ] && [ $n -lt 600 ]; do sleep 0.05; n=$((n+1)); done"
    commands = [
        ContextCommand(
            name=f"meet {i}",
            command=f"touch started.{i}; {waits}; if [ {everyone} ]; then echo met {i}; else echo alone {i}; fi",
            timeout=60,
        )
        for i in range(3)
    ]
    outputs = run_all(commands, str(tmp_path), 1024)
    assert [o.output.strip() for o in outputs] == ["met 0", "met 1", "met 2"], "results keep config order"


def test_a_slow_command_and_its_children_are_killed_at_the_timeout(tmp_path):
    command = ContextCommand(name="hang", command="sleep 30 & sleep 30; echo never", timeout=0.5)
    started = time.monotonic()
    [out] = run_all([command], str(tmp_path), 1024)
    # A bound on a hang, not a speed figure: a child left alive would hold the pipe for its 30 s.
    assert time.monotonic() - started < 20
    assert not out.ok and "timed out after 0.5 s" in out.error


def test_on_error_warn_ignore_and_fail(tmp_path):
    warn = ContextCommand(name="warned", command="echo partial; echo boom >&2; exit 3", on_error="warn")
    ignore = ContextCommand(name="ignored", command="exit 4", on_error="ignore")
    fine = ContextCommand(name="fine", command="echo fine")
    engine = ContextEngine(
        settings(context_commands=[warn.model_dump(), ignore.model_dump(), fine.model_dump()]), None, clock=fixed_clock
    )
    prompt = engine.system_prompt(str(tmp_path), "bash")
    assert (
        "--- Context: warned ---\npartial\n[context command failed: exit status 3: boom]\n--- End Context ---" in prompt
    )
    assert "--- Context: ignored ---" not in prompt
    assert "--- Context: fine ---\nfine\n--- End Context ---" in prompt
    assert engine.warnings == ["context command 'warned' failed: exit status 3: boom"]

    failing = ContextCommand(name="must work", command="exit 5", on_error="fail")
    with pytest.raises(ContextCommandFailed, match="context command 'must work' failed \\(exit status 5\\)"):
        run_all([fine, failing], str(tmp_path), 1024)


def test_static_commands_run_once_per_conversation_and_dynamic_ones_every_step(tmp_path, workdir):
    static_log, dynamic_log = tmp_path / "static.log", tmp_path / "dynamic.log"
    config = settings(
        context_commands=[
            {"name": "Toolchain", "command": f"echo run >> {static_log}; echo rustc 1.80"},
            {
                "name": "Clock",
                "command": f"echo run >> {dynamic_log}; echo tick $(wc -l < {dynamic_log})",
                "dynamic": True,
            },
        ]
    )
    conv = conversation(["create project", "build it", "test it"], cwd=str(workdir))
    engine = ContextEngine(config, None, clock=fixed_clock)
    seen = []
    for index in range(3):
        messages, _, report = engine.step_messages(conv, index, {"working_directory": str(workdir)})
        seen.append(messages)
        assert "dynamic_context" in report.sections
        finish_step(conv, index, [attempt(f"step {index} command", 0, "ok", str(workdir))])
    assert static_log.read_text().count("run") == 1
    assert dynamic_log.read_text().count("run") == 3
    for index, messages in enumerate(seen):
        system, user = messages
        assert system.content.count("--- Context: Toolchain ---") == 1
        assert "--- Context: Clock ---" not in system.content, "dynamic output never lands in the system prompt"
        assert f"--- Context: Clock ---\ntick {index + 1}\n--- End Context ---" in user.content
        assert "--- Context: Toolchain ---" not in user.content


def test_context_blocks_follow_the_prompt_layers(tmp_path):
    blocks = "--- Context: A ---\na\n--- End Context ---"
    prompt = build_system_prompt(str(tmp_path), "zsh", fixed_clock(), blocks).content
    assert prompt.endswith(blocks)
    assert prompt.index("# Environment") < prompt.index("--- Context: A ---")


def test_context_commands_do_not_see_llm_keys(tmp_path, monkeypatch):
    key = "sk-test-Zq8VfR2mXk41pLsT9wYc"
    monkeypatch.setenv("OPENAI_API_KEY", key)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-context-leak-check")
    monkeypatch.setenv("PARSEC_CONTEXT_TEST_MARKER", "kept")
    commands = [
        ContextCommand(name="env", command="env"),
        ContextCommand(name="printenv", command="printenv OPENAI_API_KEY || echo absent"),
    ]
    env_out, printenv_out = run_all(commands, str(tmp_path), 100_000)
    assert env_out.ok and "PARSEC_CONTEXT_TEST_MARKER=kept" in env_out.output and "PATH=" in env_out.output
    assert "OPENAI_API_KEY" not in env_out.output and "ANTHROPIC_API_KEY" not in env_out.output
    assert key not in env_out.output and "sk-ant-context-leak-check" not in env_out.output
    assert printenv_out.output.strip() == "absent"
    # Through the engine, into the system prompt the model sees: still absent.
    engine = ContextEngine(settings(context_commands=[c.model_dump() for c in commands]), None, clock=fixed_clock)
    prompt = engine.system_prompt(str(tmp_path), "bash")
    assert "--- Context: printenv ---\nabsent\n--- End Context ---" in prompt and "OPENAI_API_KEY" not in prompt
