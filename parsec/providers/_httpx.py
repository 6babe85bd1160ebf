"""httpx, imported without the parts a synchronous client never uses.

Two optional imports dominate `import httpx` and the first client when their packages happen to
be installed, and Parsec uses neither:
- `httpx._main` (httpx's own command-line tool) pulls in rich and pygments: ~45 ms;
- httpcore imports `trio` to support async code under trio: ~60 ms. Parsec's clients are sync.
Each is marked absent only while httpx/httpcore load (both handle ImportError), then unmarked,
so anything that imports them explicitly later still gets the real modules. If httpx is already
loaded, nothing changes.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def _absent(*names: str) -> Iterator[None]:
    marked = [name for name in names if name not in sys.modules]
    for name in marked:
        sys.modules[name] = None  # type: ignore[assignment]  # makes `import name` raise ImportError
    try:
        yield
    finally:
        for name in marked:
            del sys.modules[name]


if "httpx" not in sys.modules:
    with _absent("httpx._main", *(() if "httpcore" in sys.modules else ("trio",))):
        import httpcore  # noqa: F401  (loaded here so its optional trio import is skipped)
        import httpx
else:
    import httpx

__all__ = ["httpx"]
