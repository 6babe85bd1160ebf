"""`parsec trust [DIR]`: let Parsec read a project's files (`.parsec.toml`, PARSEC.md), like
`direnv allow`; `--list` shows what is trusted, `--revoke` takes it back. The rules: trust.py."""

from __future__ import annotations

import os
from pathlib import Path

import typer


def register(app: typer.Typer) -> None:
    @app.command("trust")
    def trust_command(
        target: Path | None = typer.Argument(None, help="A project directory (default: here) or one of its files."),
        list_: bool = typer.Option(False, "--list", help="List the trusted files and whether they changed."),
        revoke: bool = typer.Option(False, "--revoke", help="Stop trusting the files of DIR (or this file)."),
    ) -> None:
        """Trust a project's .parsec.toml and PARSEC.md as they are now: Parsec reads them from then
        on, until they change."""
        from ...errors import UsageError

        if list_ and (revoke or target is not None):
            raise UsageError("--list takes no directory and no --revoke")
        if list_:
            _list()
        elif revoke:
            _revoke(target or Path("."))
        else:
            _trust(target or Path("."))


def project_files(target: Path) -> list[Path]:
    """The project files Parsec would read in `target` (a directory), or `target` itself (a file)."""
    from ... import paths
    from ...context.prompts import project_prompt_path
    from ...errors import UsageError

    target = Path(os.path.abspath(target))
    if target.is_file():
        return [target]
    if not target.is_dir():
        raise UsageError(f"{target}: no such file or directory")
    found = [paths.project_config_file(target)]
    prompt = project_prompt_path(str(target))
    if prompt is not None:
        found.append(prompt)
    return [path for path in found if path.exists()]


def _trust(target: Path) -> None:
    from ... import trust
    from ...errors import ParsecError, UsageError

    files = project_files(target)
    if not files:
        raise UsageError(f"{target}: no project file here (Parsec reads .parsec.toml and PARSEC.md)")
    refused = []
    for path in files:
        try:
            reading = trust.trust(path)
        except ParsecError as err:
            refused.append(str(err))
            continue
        typer.echo(f"trusted {path} (sha256 {reading.digest[:12]}…)")
        if path.name == ".parsec.toml":
            for line in _what_it_does(reading.content, path):
                typer.echo(f"  {line}")
    for reason in refused:
        typer.echo(f"parsec: not trusted: {reason}", err=True)
    if refused:
        raise typer.Exit(1)


def _what_it_does(content: bytes, path: Path) -> list[str]:
    """What a newly trusted .parsec.toml will make Parsec do that the user should know about."""
    import tomllib

    from ...config_merge import without_user_only_keys

    try:
        data = tomllib.loads(content.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as err:
        return [f"it is not valid TOML ({err}): Parsec reports it and leaves it out until it is fixed"]
    kept, dropped = without_user_only_keys(data)
    lines = []
    commands = kept.get("context_commands")
    for command in commands if isinstance(commands, list) else []:
        if isinstance(command, dict):
            lines.append(f"runs for every conversation here: {command.get('command')!r}")
    if dropped:
        lines.append(f"ignored even so: {', '.join(dropped)} (never from a project file)")
    return lines


def _revoke(target: Path) -> None:
    from ... import trust

    gone = trust.revoke(target)
    if not gone:
        typer.echo(f"nothing trusted in {target}")
        return
    for key in gone:
        typer.echo(f"no longer trusted: {key}")


def _list() -> None:
    from ... import trust
    from ..render import table

    rows = [(path, digest[:12], when, state) for path, digest, when, state in trust.entries()]
    if not rows:
        typer.echo("no project file is trusted (`parsec trust DIR` trusts one)")
        return
    table(["file", "sha256", "trusted at", "state"], rows)
