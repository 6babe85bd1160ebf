"""`parsec doctor`: checks everything Parsec needs, each with a fix hint."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    @app.command("doctor")
    def doctor() -> None:
        """Check config, store, token encoding, daemon and hooks; print a fix for each problem."""
        from .doctor_checks import run_checks

        failed = 0
        for check in run_checks():
            mark = {"ok": "ok  ", "warn": "warn", "fail": "FAIL"}[check.status]
            typer.echo(f"[{mark}] {check.name}: {check.detail}")
            if check.hint and check.status != "ok":
                typer.echo(f"       fix: {check.hint}")
            failed += check.status == "fail"
        raise typer.Exit(1 if failed else 0)
