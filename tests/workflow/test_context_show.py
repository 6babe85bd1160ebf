"""`parsec context show` is what the model received, without running dynamic context commands
again; failing context commands warn during `parsec ask`; each model exchange is stored as
messages (issue 14, items 12 and 13). Real processes against the stub server."""

from __future__ import annotations

from pathlib import Path

from .conftest import finished_step, load_conversation, plan, queue, run_unattended, step


def configure(env: dict[str, str], tmp_path: Path, toml: str) -> None:
    config = Path(env["XDG_CONFIG_HOME"]) / "parsec"
    config.mkdir(parents=True, exist_ok=True)
    (config / "config.toml").write_text(toml)


def test_context_show_prints_the_request_as_sent_and_runs_nothing(stub, env, work: Path, tmp_path: Path) -> None:
    counter = tmp_path / "runs"
    configure(
        env,
        tmp_path,
        f'[[context_commands]]\nname = "Counter"\ncommand = "echo run >> {counter}; echo counted"\ndynamic = true\n',
    )
    queue(stub, plan("Say one", "Say two"), step("echo one"), finished_step(), step("echo two"), finished_step())
    result = run_unattended(["ask", "--yes", "--json", "say two things"], env, work)
    assert result.returncode == 0, result.stderr
    runs = counter.read_text().count("run")
    assert runs == 4  # one per step request

    shown = run_unattended(["context", "show", "--step", "2", "--json"], env, work)
    assert shown.returncode == 0, shown.stderr
    import json

    sent = json.loads(shown.stdout)["messages"]
    last = stub.model_requests()[-1].body["messages"]
    assert [m["content"] for m in sent] == [m["content"] for m in last]  # the same bytes, instructions included
    assert counter.read_text().count("run") == runs  # the dynamic command did not run again

    stored = load_conversation(env)
    assert [e.purpose for e in stored.planning_exchanges] == ["plan"]
    exchanges = stored.steps[0].exchanges
    assert len(exchanges) == 2 and exchanges[0].messages[0].role == "system"
    assert exchanges[0].messages[0].content.startswith(stored.system_prompt)  # then the reply-format line
    assert '"candidates"' in exchanges[0].reply


def test_a_failing_context_command_warns_during_ask(stub, env, work: Path, tmp_path: Path) -> None:
    configure(
        env, tmp_path, '[[context_commands]]\nname = "Broken"\ncommand = "exit 3"\ndynamic = true\non_error = "warn"\n'
    )
    queue(stub, plan("Say one"), step("echo one"), finished_step())
    result = run_unattended(["ask", "--yes", "say one thing"], env, work)
    assert result.returncode == 0, result.stderr
    assert result.stderr.count("warning: context command 'Broken' failed") == 1
