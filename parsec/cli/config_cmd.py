"""`parsec config show`: the effective configuration and where each value came from."""

from __future__ import annotations

import json

import typer


def register(app: typer.Typer) -> None:
    config_app = typer.Typer(help="Inspect the configuration.", no_args_is_help=True)
    app.add_typer(config_app, name="config")

    @config_app.command("show")
    def show(as_json: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
        """Show every effective value and its source (default, a file, a variable, a flag)."""
        from ..config import flatten
        from .app import load_settings

        loaded = load_settings()
        values = flatten(loaded.settings)
        if as_json:
            described = {key: {"value": value, "source": loaded.source_of(key)} for key, value in values.items()}
            typer.echo(json.dumps({"files": [str(p) for p in loaded.files], "values": described}, indent=2))
            return
        from .render import table

        rows = [(key, json.dumps(value), loaded.source_of(key)) for key, value in values.items()]
        files = ", ".join(str(p) for p in loaded.files) or "none"
        typer.echo(f"config files read: {files}")
        table(["key", "value", "source"], rows)
