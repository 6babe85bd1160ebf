"""The layer direction of DESIGN.md §2 and the light-import rule for the hook path."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
HEAVY = ["pydantic", "sqlalchemy", "httpx", "typer", "rich", "tiktoken", "psutil"]


def test_layers_are_respected():
    result = subprocess.run(["lint-imports", "--no-cache"], cwd=REPO, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


# One import per issue-29 contract, each the leak it keeps out (pyproject.toml [tool.importlinter]).
PLANTED_LEAKS = {
    "parsec/protocol/control.py": ("from ..config import Settings", "parsec.protocol", "parsec.config"),
    "parsec/daemon/sessions.py": ("from ..context import engine", "parsec.daemon", "parsec.context"),
    "parsec/context/commands.py": ("from ..providers.keys import Secret", "parsec.context", "parsec.providers.keys"),
    "parsec/cli/ai/conversations_cmd.py": (
        "from ...workflow.run.start import warm_up",
        "parsec.cli",
        "parsec.workflow.run.start",
    ),
}


def test_a_planted_leak_breaks_its_contract(tmp_path):
    shutil.copytree(REPO / "parsec", tmp_path / "parsec", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "pyproject.toml", tmp_path)
    for path, (line, _, _) in PLANTED_LEAKS.items():
        with open(tmp_path / path, "a") as module:
            module.write(f"\n{line}  # noqa\n")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    result = subprocess.run(["lint-imports", "--no-cache"], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert result.returncode != 0
    report = " ".join(result.stdout.split())  # lint-imports wraps long lines
    for _, importer, imported in PLANTED_LEAKS.values():
        assert f"{importer} is not allowed to import {imported}:" in report, report
    assert f"{len(PLANTED_LEAKS)} broken" in report


def _modules_after(code: str) -> set[str]:
    probe = f"{code}\nimport sys, json; print(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def test_package_inits_import_nothing_heavy():
    loaded = _modules_after(
        "import parsec, parsec.models, parsec.store, parsec.providers, parsec.protocol, "
        "parsec.context, parsec.workflow, parsec.daemon, parsec.cli, parsec.privacy"
    )
    assert not [name for name in HEAVY if name in loaded]


def test_parsec_init_fast_path_imports_nothing_heavy():
    loaded = _modules_after(
        "import io, contextlib\n"
        "from parsec.cli.entry import main\n"
        "with contextlib.redirect_stdout(io.StringIO()): main(['init', 'bash'])"
    )
    assert not [name for name in HEAVY if name in loaded]


def test_the_daemon_imports_the_classifier_itself_not_through_the_workflows():
    loaded = _modules_after("import parsec.daemon.server")
    assert "parsec.routing.classifier" in loaded
    assert not [name for name in loaded if name.startswith("parsec.workflow")]


def test_no_module_imports_itself_through_others():
    # Every import counts, lazy and TYPE_CHECKING ones too: a cycle means two modules share one job.
    import grimp

    graph = grimp.build_graph("parsec")
    cycles = sorted(
        {
            tuple(sorted((module, imported)))
            for module in graph.modules
            for imported in graph.find_modules_directly_imported_by(module)
            if graph.chain_exists(importer=imported, imported=module)
        }
    )
    assert cycles == []


DATA_MODULES = {"parsec/routing/lexicon.py", "parsec/routing/word_odds.py"}  # word lists, generated odds
MAX_MODULE_LINES = 450


def test_modules_stay_small():
    # One job per module: a file past this size has grown a second one (issue 17).
    oversized = {
        str(path.relative_to(REPO)): lines
        for path in sorted((REPO / "parsec").rglob("*.py"))
        if str(path.relative_to(REPO)) not in DATA_MODULES
        and (lines := path.read_text().count("\n")) > MAX_MODULE_LINES
    }
    assert oversized == {}


def test_history_search_imports_no_socket_toml_parser_nor_logging(tmp_path):
    """`parsec history --search` is timed against Atuin: it reads paths from the daemon's endpoints
    module without its socket import, parses `--set` values only when there are some, and sets up
    the CLI log only for an internal error."""
    from parsec.store import open_store

    (tmp_path / "data" / "parsec").mkdir(parents=True)
    open_store(f"sqlite:///{tmp_path / 'data' / 'parsec' / 'parsec.db'}").close()
    loaded = _modules_after(
        "import io, os, contextlib\n"
        f"os.environ.update(XDG_DATA_HOME={str(tmp_path / 'data')!r}, XDG_CONFIG_HOME={str(tmp_path / 'config')!r},"
        f" XDG_RUNTIME_DIR={str(tmp_path / 'run')!r})\n"
        "from parsec.cli.entry import main\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):\n"
        "    try:\n"
        "        main(['history', '--search', 'docker', '--limit', '5'])\n"
        "    except SystemExit:\n"
        "        pass"
    )
    assert "parsec.cli.history.history_views" in loaded  # the probe really ran the command
    assert not [name for name in ("socket", "tomllib", "logging", *HEAVY) if name in loaded]
