"""bashlex, imported with its parse tables built once per installed bashlex, not at every import.

bashlex's bundled yacc builds its LALR tables each time `bashlex.parser` is imported and never reads
the parsetab.py it ships: ~60 ms of CPU on a quiet machine, ~300 ms at load, in every `parsec ask`
(the risk check) and daemon start (the router). In `parsec ask` that was most of Parsec's own time
between a model's reply and the next request (issue 26 item 5). Here the tables yacc built are
kept as JSON in Parsec's cache directory, named by a hash of bashlex's grammar and generator
sources, and reused: the grammar's functions are bound by name, as yacc binds them. A missing,
stale, damaged (its first line is its content's hash) or foreign file (not the user's, or writable
by others) means bashlex builds as before, so the cache can only save time, never change a parse.

Standard library only, and `load_bashlex` is the one place Parsec imports bashlex from.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import sys
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

from .paths import cache_dir

_FORMAT = 1  # bump when the file's layout changes
_TABLE_FILES = "bashlex-tables-*.json"
# `parsec ask` imports bashlex in a background thread while the risk check may need it: the package
# sits half-made in sys.modules while its __init__ runs, so a second caller waits for the first.
_IMPORTING = threading.Lock()


def load_bashlex() -> ModuleType:
    """The bashlex package, imported (once per process) with cached tables where possible."""
    module = _imported()
    if module is not None:
        return module
    with _IMPORTING:
        module = _imported()
        if module is not None:
            return module
        try:
            return _import_with_cached_tables()
        except Exception:  # any surprise in bashlex's layout: its own import, unchanged
            for name in [name for name in sys.modules if name == "bashlex" or name.startswith("bashlex.")]:
                del sys.modules[name]
            import bashlex

            return bashlex


def _imported() -> ModuleType | None:
    module = sys.modules.get("bashlex")
    return module if module is not None and getattr(module, "parse", None) is not None else None


def _import_with_cached_tables() -> ModuleType:
    # The package's __init__ imports bashlex.parser, which calls yacc.yacc() at import time: load
    # bashlex.yacc first, under a package module whose __init__ has not run, and wrap its yacc().
    spec = importlib.util.find_spec("bashlex")
    if spec is None or spec.loader is None:
        raise ImportError("bashlex is not installed")
    package = importlib.util.module_from_spec(spec)
    sys.modules["bashlex"] = package
    try:
        import bashlex.yacc as yacc_module

        build = yacc_module.yacc
        yacc_module.yacc = _cached_build(build, yacc_module)
        try:
            spec.loader.exec_module(package)
        finally:
            yacc_module.yacc = build
    except BaseException:
        sys.modules.pop("bashlex", None)
        raise
    return package


def _cached_build(build: Callable[..., Any], yacc_module: ModuleType) -> Callable[..., Any]:
    def cached_yacc(*args: object, **kwargs: object) -> object:
        grammar = sys.modules["bashlex.parser"]  # mid-import: the module calling yacc()
        path = _table_file(grammar, yacc_module)
        tables = _read(path)
        if tables is not None:
            try:
                return _parser_from(tables, vars(grammar), yacc_module)
            except (KeyError, TypeError, ValueError):
                pass  # a file this code cannot use: build, and replace it
        parser = build(*args, module=grammar, **kwargs)
        _write(path, _tables_of(parser))
        return parser

    return cached_yacc


def _table_file(grammar: ModuleType, yacc_module: ModuleType) -> Path:
    digest = hashlib.sha256(f"{_FORMAT} {sys.version_info[:2]}".encode())
    for source in (grammar.__file__, yacc_module.__file__):
        digest.update(Path(str(source)).read_bytes())
    return cache_dir() / _TABLE_FILES.replace("*", digest.hexdigest()[:20])


def _tables_of(parser: Any) -> dict[str, object]:  # noqa: ANN401 - bashlex's LRParser is untyped
    return {
        "action": {state: dict(moves) for state, moves in parser.action.items()},
        "goto": {state: dict(moves) for state, moves in parser.goto.items()},
        "productions": [
            [p.number, p.name, list(p.prod), list(p.prec), p.func, p.file, p.line] for p in parser.productions
        ],
    }


def _parser_from(tables: dict[str, Any], names: dict[str, Any], yacc_module: ModuleType) -> object:
    """An LRParser from saved tables, its productions bound to the grammar's functions."""
    productions = []
    for number, name, prod, prec, func, file, line in tables["productions"]:
        production = yacc_module.Production(number, name, prod, tuple(prec), func, file, line)
        production.bind(names)
        productions.append(production)
    table = SimpleNamespace(
        lr_productions=productions,
        lr_action={int(state): dict(moves) for state, moves in tables["action"].items()},
        lr_goto={int(state): dict(moves) for state, moves in tables["goto"].items()},
    )
    parser = yacc_module.LRParser(table, names["p_error"])
    vars(yacc_module)["parse"] = parser.parse  # as yacc() leaves it
    return parser


def _read(path: Path) -> dict[str, Any] | None:
    """The saved tables, or None when the file is missing, not the whole file written, or one
    that someone else could have written (the risk check reads commands with these tables)."""
    try:
        with open(path, "rb") as handle:
            owner = os.fstat(handle.fileno())
            if owner.st_uid != os.getuid() or owner.st_mode & 0o022:
                return None
            digest, _, body = handle.read().partition(b"\n")
        if hashlib.sha256(body).hexdigest().encode() != digest:
            return None
        tables: dict[str, Any] = json.loads(body)
        return tables
    except (OSError, ValueError):
        return None


def _write(path: Path, tables: dict[str, object]) -> None:
    """Saves the tables atomically (a reader sees the old file or the whole new one); a cache
    directory that cannot be written only costs the next process the build."""
    try:
        body = json.dumps(tables).encode()
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".bashlex-tables-")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(hashlib.sha256(body).hexdigest().encode() + b"\n" + body)
            os.replace(temporary, path)
        except BaseException:
            os.unlink(temporary)
            raise
        for stale in path.parent.glob(_TABLE_FILES):  # an earlier bashlex's (or Python's) tables
            if stale != path:
                stale.unlink(missing_ok=True)
    except (OSError, TypeError, ValueError):
        pass
