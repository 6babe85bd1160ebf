"""`parsec providers`: which LLM providers are configured, which one Parsec would use, whether
each answers (a model-list request with short timeouts, all probed at once), and which local
model servers (Ollama, llama.cpp, vLLM, LM Studio ...) run here, with the line that uses each."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass

import typer

PROBE_CONNECT_TIMEOUT_S = 2.0
PROBE_READ_TIMEOUT_S = 5.0
FOUND_LOCALLY = "found on a local port"


@dataclass
class ProviderRow:
    provider: str
    selected: bool
    configured: bool
    model: str
    endpoint: str
    key: str  # where the key comes from ("OPENAI_API_KEY"), "none needed" or "missing"
    status: str  # "answers (N models)", the one-line error, or "not configured"
    answers: bool = False
    reason: str = ""  # why this one is in use ("ANTHROPIC_API_KEY is set", "--provider", ...)


def register(app: typer.Typer) -> None:
    @app.command("providers")
    def providers(
        as_json: bool = typer.Option(False, "--json", help="Print JSON."),
        probe: bool = typer.Option(True, "--probe/--no-probe", help="Ask each configured provider whether it answers."),
    ) -> None:
        """List the LLM providers that are configured, the one in use (*) and whether each answers."""
        from ..app import load_settings

        rows, problem = collect(load_settings(), probe=probe)
        if as_json:
            typer.echo(json.dumps([asdict(row) for row in rows], indent=2))
        else:
            from ..render import table

            table(
                ["", "provider", "model", "endpoint", "key", "status"],
                [
                    ("*" if r.selected else "", r.provider, r.model, r.endpoint, r.key, r.status)
                    for r in rows
                    if r.reason != FOUND_LOCALLY
                ],
            )
            for row in rows:
                if row.reason == FOUND_LOCALLY:
                    typer.echo(f"found {row.provider}-compatible server at {row.endpoint}: {row.status}")
            chosen = next((r for r in rows if r.selected), None)
            if chosen is None:
                typer.echo(problem, err=True)
            else:
                typer.echo(f"in use: {chosen.provider} {chosen.model} ({chosen.reason})")
        usable = any(r.selected and (r.answers or not probe) for r in rows)
        raise typer.Exit(0 if usable else 1)


def collect(loaded, *, probe: bool, env=None, find_local=None) -> tuple[list[ProviderRow], str]:
    """The rows, and (when no provider is in use) the one line that says why. With `probe`, also
    a row for each local server found running (`find_local`: providers.discover's, by default)
    that no configured row already points at."""
    import os
    from concurrent.futures import ThreadPoolExecutor

    from ...errors import ParsecError
    from ...providers.registry import SPECS
    from ...providers.select import HOW_TO_CONFIGURE, PROVIDERS, choose

    env = os.environ if env is None else env
    problem = ""
    try:
        in_use = choose(loaded, env=env, probe_ollama=probe)
        selected, reason = in_use.provider, in_use.reason
    except ParsecError as err:  # NoProviderConfigured, or e.g. a malformed OPENAI_BASE_URL / OLLAMA_HOST
        selected = reason = ""
        problem = str(err) or HOW_TO_CONFIGURE
    rows: list[ProviderRow] = []
    for name in PROVIDERS:
        # The configured model belongs to the selected provider; the others show their default.
        # Each row is chosen as `--provider NAME` would be: `[llm] api_key` / `base_url` go only to the
        # provider the config names, so every other row shows (and probes with) its own variable.
        model = None if name == selected else SPECS[name].default_model
        try:
            choice = choose(loaded, provider=name, model=model, env=env, probe_ollama=False)
        except ParsecError as err:
            rows.append(ProviderRow(name, name == selected, False, "", "", "", str(err)))
            continue
        configured = _is_configured(choice)
        key = choice.key_hint if choice.api_key else ("none needed" if configured else "missing")
        row = ProviderRow(
            name,
            name == selected,
            configured,
            choice.model,
            choice.base_url,
            key,
            "not configured" if not configured else "not probed",
            reason=reason if name == selected else "",
        )
        rows.append(row)
    if probe:
        with ThreadPoolExecutor(max_workers=len(rows)) as pool:
            list(pool.map(lambda row: _probe(row, loaded, env), [r for r in rows if r.configured]))
        rows += _local_rows(rows, find_local)
    return rows, problem


def _local_rows(rows: list[ProviderRow], find_local) -> list[ProviderRow]:
    from ...providers.discover import find_local_servers

    known = {row.endpoint.rstrip("/") for row in rows if row.answers}
    return [
        ProviderRow(
            server.kind,
            False,
            False,
            server.models[0] if server.models else "",
            server.base_url,
            "none needed",
            f"{len(server.models)} model(s); use it: {server.how_to_use}",
            answers=True,
            reason=FOUND_LOCALLY,
        )
        for server in (find_local or find_local_servers)()
        if server.base_url.rstrip("/") not in known
    ]


def _is_configured(choice) -> bool:
    """A key, or none needed (Ollama, a local OpenAI-compatible server: configured when it answers)."""
    from ...providers.select import needs_key

    return bool(choice.api_key) or not needs_key(choice)


def _probe(row: ProviderRow, loaded, env) -> None:
    from ...errors import ParsecError
    from ...providers.select import build_provider, choose
    from ...providers.transport import RetryPolicy

    settings = loaded.settings if hasattr(loaded, "settings") else loaded
    quick = settings.model_copy(deep=True)
    quick.llm.connect_timeout_s = PROBE_CONNECT_TIMEOUT_S
    quick.llm.read_timeout_s = PROBE_READ_TIMEOUT_S
    try:
        choice = choose(loaded, provider=row.provider, model=row.model, env=env, probe_ollama=False)
        with build_provider(choice, quick, retry=RetryPolicy(max_retries=0)) as provider:
            models = provider.list_models()
    except ParsecError as err:
        row.status = str(err)
        if row.provider == "ollama" and "cannot reach" in row.status:
            row.configured, row.status = False, "not running"
        return
    if row.provider == "ollama" and models and row.model not in models and f"{row.model}:latest" not in models:
        row.model = models[0] if not row.selected else row.model
    row.answers = True
    row.status = f"answers ({len(models)} model{'s' if len(models) != 1 else ''})"
