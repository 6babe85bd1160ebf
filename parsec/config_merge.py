"""How configuration layers combine, for the full loader (config.py) and the fast readers that
cannot afford pydantic (cli/history/history_common.py): one rule, standard library only.

Tables merge at every depth, so a project's `[llm.models."b"]` keeps the user's
`[llm.models."a"]` and a project may set one key of a model the user described; lists and
scalars are replaced by the later layer, as in git's and cargo's configuration.

A project's `.parsec.toml` never sets the keys that decide where API keys, conversations and
history go, or what is masked and kept out of the store (USER_ONLY_KEYS), trusted or not
(trust.project_config drops them for every reader).
"""

from __future__ import annotations

from collections.abc import Mapping

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (`parsec history`'s start-up)
if TYPE_CHECKING:
    from typing import Any


# "section.key", or a whole "section": only the user's own config, the environment or a flag sets them.
USER_ONLY_KEYS = (
    "llm.base_url",  # the server that receives the API key and every conversation
    "llm.api_key",
    "store.url",  # where the history goes
    "daemon.socket_dir",  # which daemon the shell's commands are sent to
    "privacy",  # masking, exclusions, the environment allowlist
    "context_management.privacy_mode",
)


def user_only(dotted: str) -> bool:
    """Whether `section.key` is one a project file may not set."""
    return any(dotted == key or dotted.startswith(key + ".") for key in USER_ONLY_KEYS)


def without_user_only_keys(layer: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """A project layer without the user-only keys, and the `section.key` names it tried to set."""
    kept: dict[str, Any] = {}
    dropped: list[str] = []
    for section, value in layer.items():
        if section in USER_ONLY_KEYS:
            keys = value if isinstance(value, Mapping) and value else {"": None}
            dropped.extend(f"{section}.{key}".rstrip(".") for key in keys)
            continue
        if isinstance(value, Mapping):
            inner = {key: item for key, item in value.items() if f"{section}.{key}" not in USER_ONLY_KEYS}
            dropped.extend(f"{section}.{key}" for key in value if key not in inner)
            value = inner
        kept[section] = value
    return kept, dropped


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
