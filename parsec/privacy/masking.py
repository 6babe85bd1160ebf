"""Secret masking: find credentials in text and replace each by `[REDACTED:<kind>]`.

Runs on every command the daemon records and on every byte sent to a model, so it is built to be
linear and cheap: all patterns are RE2 (no backtracking, see matcher.py) and one pass over the text
with a set of literal keywords decides which patterns can match at all. Two tables are applied:
Parsec's generic shapes (shapes.py: `--password X`, `NAME=value`, `-u user:pw`, headers …) and
gitleaks' provider formats (gitleaks.py). Each masks only the secret, so
`curl -H 'Authorization: Bearer abc'` becomes `curl -H 'Authorization: Bearer [REDACTED:auth_header]'`.
Overlapping finds are merged, so a secret is masked whole whichever pattern saw it.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

from ..errors import ConfigError

# The engine (RE2) and the tables load on the first text that needs them: importing this module
# (every store writer does) stays cheap for a command that never masks anything.
_MARKER_PREFIX = b"[REDACTED:"

MARKER = "[REDACTED:{kind}]"
# Candidates examined per text, all patterns together. Each costs a few microseconds of Python,
# so a text dense with secret-shaped strings (1 MB of `--password x`) would take seconds. Text is
# matched in chunks of whole lines; when the budget runs out inside a chunk, everything from that
# chunk's start is withheld as one `[REDACTED:masking_limit]` marker: never slow, never a leak.
# Real commands and outputs hold a handful of candidates.
CANDIDATE_BUDGET = 1000
CHUNK_BYTES = 64 * 1024


@lru_cache(maxsize=1)
def builtin_patterns() -> tuple:
    """Parsec's shapes first: at equal spans their kind names the marker."""
    from .entropy import entropy_patterns
    from .gitleaks import gitleaks_patterns, prefix_patterns
    from .shapes import shape_patterns

    # The random-token check last: any rule that knows the format names the marker.
    return shape_patterns() + gitleaks_patterns() + prefix_patterns() + entropy_patterns()


@lru_cache(maxsize=1)
def _builtin_gate():
    from .matcher import KeywordGate

    return KeywordGate(builtin_patterns())


def _encode(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


def _decode(data: bytes) -> str:
    return data.decode("utf-8", "surrogatepass")


def _byte_spans(data: bytes, extra_patterns: Sequence[str], builtin: bool = True) -> list[tuple[str, int, int]]:
    """Every secret in `data` as (kind, start, end) byte offsets, sorted, overlaps merged."""
    found: list[tuple[int, int, int, str]] = []  # (start, -end, priority, kind)
    extra = _compiled_extra(tuple(extra_patterns))
    budget = [CANDIDATE_BUDGET]
    own: dict[int, list[int]] = {}  # the budgets of patterns that keep their own (entropy.py)
    for chunk_start, chunk_end in _chunks(data):
        chunk = data if chunk_end - chunk_start == len(data) else data[chunk_start:chunk_end]
        patterns = (_builtin_gate().candidates(chunk) if builtin else []) + [
            (len(builtin_patterns()) + i, pattern) for i, pattern in enumerate(extra)
        ]
        for priority, pattern in patterns:
            spans, reached = pattern.spans(
                chunk, budget if pattern.candidates is None else own.setdefault(priority, [pattern.candidates])
            )
            found.extend((chunk_start + start, -(chunk_start + end), priority, pattern.kind) for start, end in spans)
            if reached < len(chunk):
                found = [f for f in found if f[0] < chunk_start]
                found.append((chunk_start, -len(data), -1, "masking_limit"))
                break
        else:
            continue
        break
    if not found:
        return []
    markers = _marker_spans(data)
    marker_starts = [m_start for m_start, _ in markers]
    found.sort()
    merged: list[list] = []  # [start, end, priority, kind]: the union of overlapping finds
    for start, negative_end, priority, kind in found:
        end = -negative_end
        if markers:  # a marker from an earlier pass, or a find inside one, stays as it is
            i = bisect.bisect_left(marker_starts, end) - 1
            if i >= 0 and markers[i][1] > start:
                continue
        if merged and start < merged[-1][1]:
            last = merged[-1]
            last[1] = max(last[1], end)
            if priority < last[2]:  # Parsec's own shapes come first and name the marker
                last[2], last[3] = priority, kind
        else:
            merged.append([start, end, priority, kind])
    return [(kind, start, end) for start, end, _, kind in merged]


def _chunks(data: bytes):
    """(start, end) of runs of whole lines of about CHUNK_BYTES; a longer line is one chunk, and a
    private key block is never cut."""
    size, start = len(data), 0
    while start < size:
        end = data.find(b"\n", min(start + CHUNK_BYTES, size))
        end = size if end < 0 else end + 1
        begin = data.rfind(b"-----BEGIN", start, end)
        if begin >= 0 and data.find(b"-----END", begin, end) < 0:
            close = data.find(b"-----END", end)
            end = size if close < 0 else (data.find(b"\n", close) + 1 or size)
        yield start, end
        start = end


def _marker_spans(data: bytes) -> list[tuple[int, int]]:
    spans = []
    position = data.find(_MARKER_PREFIX)
    while position >= 0:
        end = data.find(b"]", position)
        if end < 0:
            break
        spans.append((position, end + 1))
        position = data.find(_MARKER_PREFIX, end)
    return spans


def find_secrets(text: str, extra_patterns: Sequence[str] = ()) -> list[tuple[str, int, int]]:
    """Every secret in `text` as (kind, start, end) character offsets, sorted, without overlaps."""
    if not text:
        return []
    data = _encode(text)
    spans = _byte_spans(data, extra_patterns)
    if not spans or len(data) == len(text):
        return spans
    return [(kind, len(_decode(data[:start])), len(_decode(data[:end]))) for kind, start, end in spans]


def mask(text: str, extra_patterns: Sequence[str] = (), builtin: bool = True) -> str:
    """`text` with every secret replaced by `[REDACTED:<kind>]`. Clean text is returned as is.
    `builtin=False` applies only `extra_patterns` (the user turned mask_secrets off)."""
    return mask_collecting(text, extra_patterns, builtin)[0]


# Texts found to hold no secret, per masking policy. A text is masked more than once on its way
# to the store (by the recorder or importer, then by store_gate) and shells repeat their commands,
# so a second look at a clean text is a set lookup; a workflow's conversation is saved after every
# change with every message of its exchanges (step requests of a few KB), looked at again at each
# save. Only clean texts are kept (nothing secret stays in memory), none longer than
# CLEAN_MEMO_TEXT, and the memo is emptied when it reaches its size.
CLEAN_MEMO_CHARS = 8_000_000
CLEAN_MEMO_TEXT = 65_536
_clean: dict[tuple[tuple[str, ...], bool], set[str]] = {}
_clean_chars = [0]


def mask_collecting(text: str, extra_patterns: Sequence[str] = (), builtin: bool = True) -> tuple[str, list[str]]:
    """(`text` masked, the secret values masked in it): a session remembers the values (memory.py)."""
    if not text:
        return text, []
    policy = (tuple(extra_patterns), builtin)
    known = _clean.get(policy)
    if known is not None and text in known:
        return text, []
    data = _encode(text)
    spans = _byte_spans(data, extra_patterns, builtin)
    if not spans:
        if len(text) <= CLEAN_MEMO_TEXT:
            if _clean_chars[0] + len(text) > CLEAN_MEMO_CHARS:
                _clean.clear()
                _clean_chars[0] = 0
            _clean.setdefault(policy, set()).add(text)
            _clean_chars[0] += len(text)
        return text, []
    parts: list[bytes] = []
    values: list[str] = []
    position = 0
    for kind, start, end in spans:
        parts.append(data[position:start])
        parts.append(MARKER.format(kind=kind).encode())
        if kind != "masking_limit":
            values.append(_decode(data[start:end]))
        position = end
    parts.append(data[position:])
    return _decode(b"".join(parts)), values


def mask_json(value: object, masker: Callable[[str], str]) -> Any:  # noqa: ANN401 - decoded JSON, the same shape back
    """`value` (decoded JSON) with every string masked before it is serialised: masking the
    serialised text instead let a find run across a closing quote and swallow the fields after it.
    Keys are names, kept; a credential-named key (`"db_password"`) masks its string value whole; a
    string that carries JSON documents of its own (a prompt's "Step context (JSON):" block) has
    them masked string by string too (`mask_string`)."""
    if isinstance(value, str):
        return mask_string(value, masker)
    if isinstance(value, dict):
        return {key: _masked_field(key, item, masker) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [mask_json(item, masker) for item in value]
    return value


def _masked_field(key: object, value: object, masker: Callable[[str], str]) -> Any:  # noqa: ANN401 - as mask_json
    if isinstance(value, str) and isinstance(key, str):
        from .shapes import credential_field

        if credential_field(key, value):
            return MARKER.format(kind="credential")
    return mask_json(value, masker)


# A JSON document inside a text starts a line with `{` or `[` (how Parsec renders one, and how
# JSON Lines and pretty-printed output look).
_DOCUMENT_START = re.compile(r"(?m)^[\[{]")
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_DECODER = json.JSONDecoder()


def mask_string(text: str, masker: Callable[[str], str]) -> str:
    """`text` masked by `masker`, except that each JSON object or array starting a line is masked
    string by string (`mask_json`'s rules) and stays valid JSON with its layout: a secret inside
    one string never takes the quote, comma and next field with it."""
    if not text:
        return text
    documents = list(_json_documents(text))
    if not documents:
        return masker(text)
    parts: list[str] = []
    position = 0
    for start, end in documents:
        if start > position:
            parts.append(masker(text[position:start]))
        parts.append(_mask_document(text[start:end], masker))
        position = end
    if position < len(text):
        parts.append(masker(text[position:]))
    return "".join(parts)


def _json_documents(text: str):
    """(start, end) of each JSON object or array that starts a line of `text`. A failed decode
    resumes after the point where it failed, so text full of `{` lines stays linear."""
    position = 0
    while (found := _DOCUMENT_START.search(text, position)) is not None:
        start = found.start()
        try:
            _, end = _DECODER.raw_decode(text, start)
        except json.JSONDecodeError as err:
            position = max(err.pos, start + 1)
            continue
        except RecursionError:  # nested past Python's limit: masked as plain text
            position = start + 1
            continue
        yield start, end
        position = end


def _mask_document(document: str, masker: Callable[[str], str]) -> str:
    """A JSON text with each string literal masked on its own; keys stay, literals that do not
    change are kept byte for byte, changed ones are re-encoded."""
    parts: list[str] = []
    position = 0
    key: str | None = None
    for literal in _JSON_STRING.finditer(document):
        after = document[literal.end() : literal.end() + 64].lstrip()
        value = json.loads(literal.group())
        if after.startswith(":"):  # an object's key: a name, kept
            key = value
            continue
        masked = (
            _masked_field(key, value, masker)
            if key is not None and _follows_key(document, literal.start())
            else mask_string(value, masker)
        )
        key = None
        if masked != value:
            parts.append(document[position : literal.start()])
            parts.append(json.dumps(masked, ensure_ascii=literal.group().isascii()))
            position = literal.end()
    if not parts:
        return document
    parts.append(document[position:])
    return "".join(parts)


def _follows_key(document: str, start: int) -> bool:
    """Whether the literal at `start` is the value right after a key (`"key": "value"`)."""
    before = document[max(0, start - 64) : start].rstrip()
    return before.endswith(":")


# The store boundary: every text a record carries passes store_gate() as the row is built
# (parsec/store/rows.py), whoever wrote the record. load_config() sets the user's choices.
_store_policy: dict[str, Any] = {"builtin": True, "extra": ()}


def configure_store_gate(mask_secrets: bool, extra_patterns: Sequence[str] = ()) -> None:
    _store_policy.update(builtin=bool(mask_secrets), extra=tuple(extra_patterns))


def store_gate(text: str) -> str:
    """`text` as it may be stored: masked under the configured policy (idempotent: text masked
    upstream passes unchanged)."""
    if not text:
        return text
    if not _store_policy["builtin"] and not _store_policy["extra"]:
        return text
    return mask(text, _store_policy["extra"], builtin=_store_policy["builtin"])


def compile_extra_patterns(patterns: Sequence[str], origin: str = "[privacy] extra_patterns") -> tuple:
    """User-supplied regexes (RE2 syntax: no look-around, no backreference) of kind "custom";
    a group named `s` limits what is masked."""
    if not patterns:
        return ()
    from .matcher import RegexError, SecretPattern, compile_re2

    compiled = []
    for raw in patterns:
        try:
            regex = compile_re2(raw)
        except RegexError as err:
            raise ConfigError(f"{origin}: invalid regex {raw!r}: {err} (RE2 syntax: no look-around)") from None
        groups = {k.decode() if isinstance(k, bytes) else k: v for k, v in regex.groupindex.items()}
        compiled.append(SecretPattern("custom", raw, secret_group=groups.get("s", 0), _regex=regex))
    return tuple(compiled)


@lru_cache(maxsize=32)
def _compiled_extra(extra: tuple[str, ...]) -> tuple:
    return compile_extra_patterns(extra)
