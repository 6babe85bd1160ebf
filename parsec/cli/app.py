"""The typer application: global options, error handling, and the registry of command modules."""

from __future__ import annotations

import importlib
import sys
from typing import TYPE_CHECKING, Any

import typer

from .global_options import parse_overrides

if TYPE_CHECKING:
    from ..config import LoadedConfig


# Each module exposes `register(app: typer.Typer) -> None`. Add new command modules here.
COMMAND_MODULES = [
    "parsec.cli.ai.classify_cmd",
    "parsec.cli.ai.ask_cmd",
    "parsec.cli.ai.conversations_cmd",
    "parsec.cli.admin.config_cmd",
    "parsec.cli.ai.context_cmd",
    "parsec.cli.admin.daemon_cmd",
    "parsec.cli.admin.doctor_cmd",
    "parsec.cli.history.export_cmd",
    "parsec.cli.history.forget_cmd",
    "parsec.cli.history.history_cmd",
    "parsec.cli.history.import_cmd",
    "parsec.cli.shell.init_cmd",
    "parsec.cli.shell.shell_cmd",
    "parsec.cli.ai.providers_cmd",
    "parsec.cli.history.prune_cmd",
    "parsec.cli.ai.risk_cmd",
    "parsec.cli.history.stats_cmd",
    "parsec.cli.ai.trust_cmd",
]

app = typer.Typer(
    name="parsec",
    help="Parsec: shell history, prompt routing and step-by-step LLM workflows.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


class _State:
    debug: bool = False
    overrides: dict[str, Any] = {}


state = _State()


def _version(value: bool) -> None:
    if value:
        from .version_line import version_lines

        typer.echo(version_lines())
        raise typer.Exit(0)


@app.callback()
def _main(
    debug: bool = typer.Option(False, "--debug", help="Show tracebacks for errors."),
    setting: list[str] | None = typer.Option(
        None, "--set", metavar="SECTION.KEY=VALUE", help="Override a config key for this run."
    ),
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Show the version."),
) -> None:
    state.debug = debug  # PARSEC_DEBUG too: run_reporting_errors reads it, the one place that does
    state.overrides = parse_overrides(setting or [])


def load_settings(**flags: object) -> LoadedConfig:
    """The effective config for a command: every layer, with the command's own flags last."""
    from ..config import load_config

    overrides = dict(state.overrides)
    overrides.update({k: v for k, v in flags.items() if v is not None})
    return load_config(overrides)


for _name in COMMAND_MODULES:
    importlib.import_module(_name).register(app)


def run(args: list[str]) -> int:
    from .failures import run_reporting_errors

    debug = "--debug" in args  # (and PARSEC_DEBUG, read by run_reporting_errors)
    return run_reporting_errors(lambda: _run_app(args), debug)


def _run_app(args: list[str]) -> int:
    try:
        # With standalone_mode=False click returns a command's `typer.Exit(code)` instead of raising it.
        result = app(args=args, prog_name="parsec", standalone_mode=False)
    except typer.Exit as exit_:
        return exit_.exit_code
    except typer.Abort:
        sys.stderr.write("parsec: aborted\n")
        return 1
    except Exception as err:
        show = getattr(err, "show", None)  # click's usage errors print themselves
        if show is not None and hasattr(err, "exit_code"):
            show()
            return err.exit_code
        raise
    return result if isinstance(result, int) else 0
