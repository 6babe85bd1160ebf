"""How configuration layers combine, for the full loader (config.py) and the fast readers that
cannot afford pydantic (cli/history_common.py): one rule, standard library only.

Tables merge at every depth, so a project's `[llm.models."b"]` keeps the user's
`[llm.models."a"]` and a project may set one key of a model the user described; lists and
scalars are replaced by the later layer, as in git's and cargo's configuration.
"""

from __future__ import annotations

from collections.abc import Mapping

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (`parsec history`'s start-up)
if TYPE_CHECKING:
    from typing import Any


def merge_layer(
    into: dict[str, Any], layer: Mapping[str, Any], origin: str, sources: dict[str, str] | None = None, prefix: str = ""
) -> None:
    """Merge `layer` into `into`. `sources`, when given, records per `section.key` which layers
    set it ("user file" or "user file, project file" when they merged into one table)."""
    for key, value in layer.items():
        dotted = f"{prefix}{key}"
        if isinstance(value, Mapping):
            target = into.get(key)
            if not isinstance(target, dict):
                target = into[key] = {}
            merge_layer(target, value, origin, sources, prefix=f"{dotted}.")
            continue
        into[key] = value
        if sources is not None:
            _record(sources, dotted, origin)


def _record(sources: dict[str, str], dotted: str, origin: str) -> None:
    parts = dotted.split(".")
    key = ".".join(parts[:2])
    earlier = sources.get(key)
    if len(parts) > 2 and earlier and origin not in earlier.split(", "):
        sources[key] = f"{earlier}, {origin}"  # two layers filled one table
    else:
        sources[key] = origin
