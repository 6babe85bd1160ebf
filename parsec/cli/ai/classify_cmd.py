"""`parsec classify`: ask the input classifier about a line, many lines, or its learned choices."""

from __future__ import annotations

import json
import os
import sys
from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:
    from ...routing import Classifier


FACTS = "file|alias|builtin|function|keyword|none"


def register(app: typer.Typer) -> None:
    @app.command("classify")
    def classify(
        line: str | None = typer.Argument(None, help="The line to classify; '-' reads lines from stdin."),
        as_json: bool = typer.Option(False, "--json", help="Print a JSON object."),
        first_word: str | None = typer.Option(
            None, "--first-word", metavar=FACTS, help="What the shell says the first word is."
        ),
        learn: str | None = typer.Option(
            None, "--learn", metavar="command|prompt", help="Remember this route for lines of the same shape."
        ),
        forget: bool = typer.Option(
            False, "--forget", help="Drop the learned choice for LINE's shape (without LINE: every one)."
        ),
        learned: bool = typer.Option(False, "--learned", help="List the learned choices."),
        fallback_127: bool = typer.Option(
            False, "--fallback-127", help="Exit 0 if a line that failed with 127 reads like prose, else 1."
        ),
        shell: str | None = typer.Option(
            None, "--shell", metavar="bash|zsh|fish", help="The shell the line is for (default: $SHELL's)."
        ),
    ) -> None:
        """Classify a line as a command, a prompt or ambiguous, and say why."""
        from ...errors import UsageError
        from ...routing.decision import SHELLS

        if first_word is not None and first_word not in FACTS.split("|"):
            raise UsageError(f"--first-word must be one of {FACTS}, got {first_word!r}")
        if shell is not None and shell not in SHELLS:
            raise UsageError(f"--shell must be one of {'|'.join(SHELLS)}, got {shell!r}")
        shell = shell or _login_shell()
        if forget or learned:
            _preferences(forget, line)
            return
        if line is None:
            raise UsageError('give a line to classify, e.g. parsec classify "find all python files", or - for stdin')
        if fallback_127:
            from ...routing import reads_like_prose

            prose = reads_like_prose(line)
            typer.echo("prose" if prose else "command")
            raise typer.Exit(0 if prose else 1)
        if learn is not None:
            if learn not in ("command", "prompt"):
                raise UsageError(f"--learn must be 'command' or 'prompt', got {learn!r}")
            from ...errors import StoreError

            if not _classifier(require_store=True).learn(line, first_word, learn):
                raise StoreError("could not save the choice in the store; run `parsec doctor` to check it")
            _tell_the_daemon()
            typer.echo(
                f"learned: lines shaped like '{_classifier(require_store=False).shape(line, first_word)}' are a {learn}"
            )
            return
        classifier = _classifier(require_store=False)
        if line == "-":
            _batch(classifier, shell)
            return
        decision = classifier.classify(line, first_word, cwd=os.getcwd(), shell=shell)
        if as_json:
            typer.echo(json.dumps(decision.as_dict()))
        else:
            typer.echo(decision.describe())


def _classifier(require_store: bool) -> Classifier:
    """A Classifier with the user's learned choices; without the store only if it cannot open."""
    from ...errors import StoreError
    from ...routing import Classifier
    from ..app import load_settings

    settings = load_settings().settings
    store = None
    if settings.classifier.learn_from_corrections or require_store:
        try:
            from ..history.history_common import configured_store

            store = configured_store(settings)
        except StoreError:
            if require_store:
                raise
    return Classifier(store=store, settings=settings)


def _preferences(forget: bool, line: str | None) -> None:
    from ...routing import Classifier
    from ..history.history_common import configured_store

    classifier = Classifier(store=configured_store(), settings=None)
    if forget:
        count = classifier.forget(line)
        _tell_the_daemon()
        if line is not None:
            shape = classifier.shape(line)
            typer.echo(
                f"forgot the choice for lines shaped like '{shape}'"
                if count
                else f"no learned choice for lines shaped like '{shape}'"
            )
            return
        typer.echo(f"forgot {count} learned classifier choice{'s' if count != 1 else ''}")
        return
    choices = classifier.learned()
    if not choices:
        typer.echo("no learned classifier choices")
    for shape, choice in sorted(choices.items()):
        typer.echo(f"{choice:8} {shape}")


def _login_shell() -> str | None:
    """bash, zsh or fish from $SHELL, so `parsec classify` answers as the user's hook would."""
    from ...routing.decision import SHELLS

    name = os.path.basename(os.environ.get("SHELL", ""))
    return name if name in SHELLS else None


def _batch(classifier: Classifier, shell: str | None) -> None:
    """One JSON object out per line in: plain text, or {"text": ..., "first_word": ...}."""
    out, cwd = sys.stdout, os.getcwd()
    for raw in sys.stdin.buffer:
        text = raw.decode("utf-8", errors="replace").rstrip("\r\n")
        fact = None
        if text.startswith("{"):
            try:
                item = json.loads(text)
            except ValueError:
                item = None
            if isinstance(item, dict) and isinstance(item.get("text"), str):
                text, fact = item["text"], item.get("first_word")
        decision = classifier.classify(text, fact if isinstance(fact, str) else None, cwd=cwd, shell=shell)
        out.write(json.dumps(decision.as_dict()))
        out.write("\n")
    out.flush()


def _tell_the_daemon() -> None:
    """A running daemon keeps learned choices in memory: make it re-read them now. A daemon
    that is down reads them when it starts, so failing here changes nothing."""
    from ...errors import ParsecError
    from ...protocol import messages as m
    from ...protocol.client import DaemonClient

    try:
        with DaemonClient.connect(timeout=2.0) as client:
            client.call(m.ClassifierReload())
    except (ParsecError, OSError):
        pass
