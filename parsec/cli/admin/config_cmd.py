"""`parsec config show`: the effective configuration and where each value came from."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import typer

if TYPE_CHECKING:
    from ...config import LoadedConfig


def register(app: typer.Typer) -> None:
    config_app = typer.Typer(help="Inspect the configuration.", no_args_is_help=True)
    app.add_typer(config_app, name="config")

    @config_app.command("show")
    def show(as_json: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
        """Show every effective value and its source (default, a file, a variable, a flag)."""
        from ...config import flatten
        from ..app import load_settings

        loaded = load_settings()
        values = flatten(loaded.settings)
        if as_json:
            described = {key: described_value(loaded, key, value) for key, value in values.items()}
            typer.echo(json.dumps({"files": [str(p) for p in loaded.files], "values": described}, indent=2))
            return
        from ..render import table

        rows = [(key, json.dumps(value), source(loaded, key)) for key, value in values.items()]
        files = ", ".join(str(p) for p in loaded.files) or "none"
        typer.echo(f"config files read: {files}")
        table(["key", "value", "source"], rows)


def source(loaded: LoadedConfig, key: str) -> str:
    """Where a value came from; for a key only the user sets, that a project file cannot set it
    (and which one tried)."""
    from ...config_merge import user_only

    origin = loaded.source_of(key)
    if not user_only(key):
        return origin
    tried = _ignored_from(loaded, key)
    if tried:
        return f"{origin} (ignored from {tried}: never from a project file)"
    return f"{origin} (never from a project file)"


def described_value(loaded: LoadedConfig, key: str, value: object) -> dict[str, Any]:
    """A value in `--json`: `source` as a name scripts can compare, `user_only` for the keys a
    project file never sets, and `ignored_from` the project file that tried."""
    from ...config_merge import user_only

    described = {"value": value, "source": loaded.source_of(key)}
    if user_only(key):
        described["user_only"] = True
        tried = _ignored_from(loaded, key)
        if tried:
            described["ignored_from"] = tried
    return described


def _ignored_from(loaded: LoadedConfig, key: str) -> str | None:
    return loaded.ignored.get(key) or next(
        (path for dotted, path in loaded.ignored.items() if dotted.startswith(key + ".")), None
    )
