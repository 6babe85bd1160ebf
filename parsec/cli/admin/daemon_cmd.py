"""`parsec daemon start|stop|restart|status|run`: the per-user daemon's lifecycle."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:
    from ...protocol.replies import StatusReply


def register(app: typer.Typer) -> None:
    daemon_app = typer.Typer(help="Start, stop and inspect the background daemon.", no_args_is_help=True)
    app.add_typer(daemon_app, name="daemon")

    @daemon_app.command("start")
    def start(
        auto: bool = typer.Option(False, "--auto", help="As the shell hooks start it: not after `parsec daemon stop`."),
    ) -> None:
        """Start the daemon in the background (nothing happens if it is already running)."""
        from ...protocol.control import start_background
        from ..app import load_settings, state

        settings = load_settings().settings
        pid, started = start_background(settings.daemon.socket_dir, _override_args(state.overrides), auto=auto)
        if pid is None and not started:
            typer.echo("daemon left stopped (`parsec daemon stop` was run; `parsec daemon start` starts it)")
            return
        typer.echo(f"daemon {'started' if started else 'already running'} (pid {pid})")

    @daemon_app.command("stop")
    def stop() -> None:
        """Stop the daemon; queued records reach the store first."""
        from ...protocol.control import stop as stop_daemon
        from ..app import load_settings

        pid = stop_daemon(load_settings().settings.daemon.socket_dir)
        typer.echo(f"daemon stopped (pid {pid})" if pid else "daemon was not running")
        typer.echo("It stays stopped, also for the shell hooks' autostart, until `parsec daemon start` (or a reboot).")

    @daemon_app.command("restart")
    def restart() -> None:
        """Stop the daemon (if running) and start it again."""
        from ...protocol.control import start_background
        from ...protocol.control import stop as stop_daemon
        from ..app import load_settings, state

        settings = load_settings().settings
        stop_daemon(settings.daemon.socket_dir, hold=False)
        pid, _ = start_background(settings.daemon.socket_dir, _override_args(state.overrides))
        typer.echo(f"daemon restarted (pid {pid})")

    @daemon_app.command("status")
    def status(as_json: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
        """Pid, version, uptime, memory, CPU, sessions, requests, queue depth, store and last error."""
        from ...protocol import messages as m
        from ...protocol.client import DaemonClient
        from ...protocol.control import runtime_for
        from ..app import load_settings

        runtime = runtime_for(load_settings().settings.daemon.socket_dir)
        with DaemonClient.connect(runtime, timeout=5.0) as client:
            reply = client.call(m.Status())
        if as_json:
            typer.echo(json.dumps(reply.model_dump(exclude={"v", "id", "ok"}), indent=2))
            return
        typer.echo(_render_status(reply))

    @daemon_app.command("run")
    def run() -> None:
        """Run the daemon in the foreground (for systemd and for debugging)."""
        import os
        import sys

        from ..app import load_settings, state

        load_settings()  # a broken config fails here, with the CLI's one-line error
        # The daemon package is the CLI's sibling layer: hand this process over to it.
        from ...protocol.control import daemon_command

        os.execv(sys.executable, daemon_command(_override_args(state.overrides)))


def _override_args(overrides: dict) -> list[str]:
    return [f"{key}={json.dumps(value)}" for key, value in overrides.items()]


def _processes(status: StatusReply) -> str:
    count = status.processes
    return "the daemon alone" if count == 1 else f"the daemon and its store writer: {count} processes"


def _render_status(status: StatusReply) -> str:
    from ... import __version__
    from ...protocol.code_id import STALE_HINT, code_id, describe, stale

    jobs = ", ".join(f"{job.name} ×{job.runs}" for job in status.jobs)
    lines = [
        f"pid            {status.pid}",
        f"version        daemon {describe(status.version, status.code_id)}, "
        f"client {describe(__version__, code_id())}"
        + (f"\n               {STALE_HINT}" if stale(status.code_id) else ""),
        f"uptime         {_duration(status.uptime_s)}",
        f"memory (RSS)   {status.rss_bytes / 1048576:.1f} MiB ({_processes(status)})",
        f"cpu            {status.cpu_percent:.1f}% since the last status",
        f"sessions open  {status.sessions_open}",
        f"connections    {status.connections}",
        f"requests       {status.requests_served}",
        f"queue depth    {status.queue_depth}",
        f"store          {status.store_url} ({_store_state(status)})",
        f"journal        {status.journal_problem or 'ok'}{_waiting(status)}",
        f"pending output {status.pending_output_bytes} bytes held, {status.outputs_dropped} outputs dropped "
        f"({status.output_bytes_dropped} bytes) over [daemon] max_pending_output_bytes",
        f"last error     {status.last_error or '-'}",
        f"jobs           {jobs}",
    ]
    return "\n".join(lines)


def _waiting(status: StatusReply) -> str:
    waiting = status.hook_records_waiting
    return f"; {waiting} hook records wait for it in memory (shells spool beyond)" if waiting else ""


def _store_state(status: StatusReply) -> str:
    if status.store_ok:
        return "ok"
    return status.store_problem or ("not written yet" if not status.last_error else "failing")


def _duration(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m{secs:02d}s" if hours else f"{minutes}m{secs:02d}s"
