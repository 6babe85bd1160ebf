"""The `[search]` config keys, read with tomllib only (pydantic costs the whole start-up budget);
with a `PARSEC_SEARCH_*` variable set, through the full loader, which alone converts those.

config.SearchConfig validates the same keys for `parsec config`; a test keeps the defaults equal.
A value of the wrong type or out of range is ignored here (the default is used) and reported by
`parsec config` / `parsec doctor`.
"""

from __future__ import annotations

from collections import namedtuple

from ....store.search import MODES
from .scope import FILTERS

# A namedtuple, not a dataclass: dataclasses imports inspect and ast, too slow for Ctrl-R's start-up.
SearchSettings = namedtuple(
    "SearchSettings", ["filter", "mode", "inline_height", "full_screen"], defaults=("everywhere", "fuzzy", 16, False)
)


def load() -> SearchSettings:
    from ..history_common import config_section

    keys = config_section("search")
    if keys is None:  # PARSEC_SEARCH_* set, or a file tomllib alone cannot take: the full loader
        keys = _full_config_keys()
    defaults = SearchSettings()
    height = keys.get("inline_height")
    return SearchSettings(
        filter=keys["filter"] if keys.get("filter") in FILTERS else defaults.filter,
        mode=keys["mode"] if keys.get("mode") in MODES else defaults.mode,
        inline_height=height if isinstance(height, int) and 5 <= height <= 200 else defaults.inline_height,
        full_screen=keys["full_screen"] if isinstance(keys.get("full_screen"), bool) else defaults.full_screen,
    )


def _full_config_keys() -> dict:
    """[search] as config.load_config sees it (environment included); {} when the config is bad,
    which `parsec config` and `parsec doctor` report."""
    from ....config import load_config
    from ....errors import ConfigError

    try:
        return load_config().settings.search.model_dump()
    except ConfigError:
        return {}
