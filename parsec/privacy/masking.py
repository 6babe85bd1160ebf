"""Secret masking: find credentials in text and replace each by `[REDACTED:<kind>]`.

Runs on every command the daemon records, so it is built for the clean case: one precompiled
pre-check regex rejects text without any secret-like trigger before the real patterns run.

Each pattern either masks its whole match or only its named group `s` (the value), so
`curl -H 'Authorization: Bearer abc'` becomes `curl -H 'Authorization: Bearer [REDACTED:auth_header]'`
and the rest of the command stays useful. Standard library only (layer 1, hook-adjacent).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from ..errors import ConfigError

MARKER = "[REDACTED:{kind}]"
_NOT_MARKER = r"(?!\[REDACTED:)"  # so masking twice changes nothing

# A value after `=`, `--flag ` or `:` -- quoted, or up to the next shell separator. Values that are
# references (`$VAR`, `$(cmd)`), redirections or the next flag are not secrets.
_VALUE = _NOT_MARKER + r"""(?:"[^"\n]*"|'[^'\n]*'|(?![$<>|`-])[^\s;&|'"`]+)"""
_URL_VALUE = _NOT_MARKER + r"""[^\s&;#'"`]+"""
# A value glued to its flag (`-pSECRET`, `-p'my secret'`, `-p"my secret"`): a quoted value is taken
# whole (up to its closing quote, which the shell lets span lines), else up to the next space or
# separator. An unterminated quote still masks the word after it. No alternative repeats and none
# holds a nested quantifier, so a failed match costs one scan of the value, never backtracking.
_GLUED_VALUE = _NOT_MARKER + r"""(?:'[^']*'|"[^"]*"|['"]?[^\s;|&'"]+)"""

# Names whose value is a credential: `DB_PASSWORD=`, `api_key=`, `clientSecret=`, `_authToken=`.
# The long words may be glued to a prefix (`dbpassword`); the short ones need a word start or a
# separator in front (`bypass`, `monkey` are not secrets).
_GLUED_WORDS = r"(?:password|passwd|passphrase|secret)"
_BARE_WORDS = (
    r"(?:pass|token|api_?key|apikey|access_?key|secret_?key|private_?key|auth_?token|access_?token|"
    r"refresh_?token|session_?token|id_?token|credentials?|client_?secret)"
)
_SUFFIX_WORDS = r"(?:key|pwd|auth)"  # `KEY=`, `PWD=` (the cwd) alone are not secrets; `DB_PWD=` is

_AUTH_SCHEME = r"(?i:bearer|basic|token|digest|negotiate|apikey|bot|sso-key)"

# Commands where `-pVALUE` is a password (elsewhere `-p` is a port or a flag).
# Where a command word may start: the line's start, a blank, an operator, or a quote or backtick
# (inside `sh -c '…'`, `ssh host "…"`, `$(…)`).
_CMD_START = r"(?:^|[\s;|&(`'\"])"
_MYSQL_LIKE = r"(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlshow|mysqlcheck|mysqlsh|mariadb|mariadb-dump)"

# `aws configure set [--profile P] [profile.P.]aws_secret_access_key VALUE` (the AWS CLI form).
# `aws --profile P configure set …` works as it is; `[A-Za-z0-9_-]+\.` cannot overlap itself.
_AWS_PROFILE = r"(?:--profile(?:\s+|=)\S+\s+)?"
_AWS_CONFIGURE_SET = rf"(?<![\w-])configure\s+{_AWS_PROFILE}set\s+{_AWS_PROFILE}(?:[A-Za-z0-9_-]+\.)*"


@dataclass(frozen=True)
class SecretPattern:
    kind: str
    regex: re.Pattern[str]
    # For `name=value` forms: the regex captures any name (group `n`, cheap to scan) and this
    # stricter regex decides whether the name is a credential's.
    name_check: re.Pattern[str] | None = None

    def spans(self, text: str) -> list[tuple[int, int]]:
        out = []
        position = 0
        while (match := self.regex.search(text, position)) is not None:
            position = match.end() if match.end() > match.start() else match.start() + 1
            if self.name_check is not None and self.name_check.fullmatch(match["n"]) is None:
                position = match.end("n") + 1  # `--opt=password=x`: the value may hold a name
                continue
            if "s" in self.regex.groupindex:
                start, end = match.span("s")
                if start < 0:
                    continue
            else:
                start, end = match.span()
            if end > start:
                out.append((start, end))
        return out


def _p(kind: str, pattern: str, flags: int = 0) -> SecretPattern:
    return SecretPattern(kind, re.compile(pattern, flags))


_CREDENTIAL_NAME = (
    rf"(?:[a-z0-9]*{_GLUED_WORDS}|(?:[a-z0-9]*[_.-])*(?:{_BARE_WORDS}|{_GLUED_WORDS})|(?:[a-z0-9]*[_.-])+{_SUFFIX_WORDS})"
)
_ANY_NAME = r"(?P<n>[A-Za-z0-9_.\-]{1,100})"
_NAME_START = r"(?<![A-Za-z0-9_.\-])"


def _named(kind: str, pattern: str, flags: int = 0) -> SecretPattern:
    return SecretPattern(kind, re.compile(pattern, flags), re.compile(_CREDENTIAL_NAME, re.IGNORECASE))


@lru_cache(maxsize=1)
def builtin_patterns() -> tuple[SecretPattern, ...]:
    """The maintained pattern set, compiled on first use: text that fails the pre-check (most
    commands) never pays for compiling it, and neither does a process that only imports this."""
    # Order matters only for ties: at the same start the longer span wins, then the earlier pattern.
    return (
        _p(
            "private_key",
            r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----.*?(?:-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\Z)",
            re.DOTALL,
        ),
        _p("aws_access_key", r"\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)[A-Z2-7]{16}\b"),
        _p("aws_secret_key", rf"(?i:aws_?secret_?access_?key)[\"']?\s*[=:]\s*[\"']?(?P<s>{_NOT_MARKER}[A-Za-z0-9/+]{{40}})\b"),
        _p("aws_secret_key", rf"{_AWS_CONFIGURE_SET}(?i:aws_secret_access_key)\s+(?P<s>{_VALUE})"),
        _p("aws_session_token", rf"{_AWS_CONFIGURE_SET}(?i:aws_session_token|aws_security_token)\s+(?P<s>{_VALUE})"),
        _p("gcp_api_key", r"\bAIza[0-9A-Za-z_\-]{35}(?![0-9A-Za-z_\-])"),
        _p("gcp_oauth_token", r"\bya29\.[0-9A-Za-z_\-]{20,}"),
        _p("azure_storage_key", rf"(?i:AccountKey|SharedAccessKey)=(?P<s>{_NOT_MARKER}[A-Za-z0-9+/]{{20,}}=*)"),
        _p("azure_sas_signature", rf"[?&]sig=(?P<s>{_NOT_MARKER}[A-Za-z0-9%+/=]{{16,}})"),
        _p("azure_client_secret", r"(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.\-]{31,34}(?![A-Za-z0-9_~.-])"),
        _p("github_token", r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255}\b"),
        _p("github_token", r"\bgithub_pat_[A-Za-z0-9_]{22,255}\b"),
        _p("gitlab_token", r"\b(?:glpat|gldt|glrt|glptt|glcbt|glimt|gloas)-[A-Za-z0-9_\-]{20,}"),
        _p("slack_token", r"\bxox[abposre]-[A-Za-z0-9\-]{10,}"),
        _p("slack_token", r"\bxapp-\d-[A-Za-z0-9\-]{10,}"),
        _p("slack_webhook", r"hooks\.slack\.com/(?:services|workflows)/(?P<s>[A-Za-z0-9_/]{20,})"),
        _p("anthropic_key", r"\bsk-ant-(?:api|admin|sid)\d{2}-[A-Za-z0-9_\-]{20,}"),
        _p("openai_key", r"(?<![A-Za-z0-9_-])sk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_\-]{20,}"),
        _p("stripe_key", r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}"),
        _p("huggingface_token", r"\bhf_[A-Za-z0-9]{30,}\b"),
        _p("npm_token", r"\bnpm_[A-Za-z0-9]{36}\b"),
        _p("pypi_token", r"\bpypi-AgE[A-Za-z0-9_\-]{50,}"),
        _p("sendgrid_key", r"\bSG\.[A-Za-z0-9_\-]{16,32}\.[A-Za-z0-9_\-]{16,64}"),
        _p("digitalocean_token", r"\bdo[opr]_v1_[a-f0-9]{64}\b"),
        _p("jwt", r"\beyJ[A-Za-z0-9_\-]{5,}\.eyJ[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]*"),
        _p(
            "auth_header",
            rf"(?i:\b(?:proxy-)?authorization)\s*:\s*(?:{_AUTH_SCHEME}\s+)?(?!{_AUTH_SCHEME}\s)(?P<s>{_NOT_MARKER}[^\s'\"]+)",
        ),
        _p(
            "auth_header",
            rf"(?i:\b(?:x-api-key|api-key|x-auth-token|x-access-token|private-token|x-goog-api-key|x-vault-token|x-api-token))\s*:\s*(?P<s>{_NOT_MARKER}[^\s'\"]+)",
        ),
        _p("cookie", rf"(?i:\b(?:set-)?cookie)\s*:\s*(?P<s>{_NOT_MARKER}[^\s'\"][^'\"\n]*)"),
        _p("url_credentials", rf"\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^\s:/@'\"\[\]]*:(?P<s>{_NOT_MARKER}[^\s@/'\"]+)@"),
        _p("basic_auth", rf"(?:^|\s)(?:-u|--user|--proxy-user)(?:\s+|=)['\"]?{_NOT_MARKER}[^\s:/'\"]+:(?!//)(?P<s>{_NOT_MARKER}[^\s'\"]+)"),
        _p("password", rf"{_CMD_START}{_MYSQL_LIKE}\b[^;|&\n]*?\s-p(?P<s>{_GLUED_VALUE})"),
        _p("password", rf"{_CMD_START}sshpass\b[^;|&\n]*?\s-p\s*(?P<s>{_GLUED_VALUE})"),
        _p("password", rf"{_CMD_START}(?:docker|podman|nerdctl|buildah)\s+login\b[^;|&\n]*?\s-p(?:\s+|=)(?P<s>{_VALUE})"),
        # `az login -u me -p PASSWORD`, `az acr login -n reg -u me -p PASSWORD` (`--password` is below)
        _p("password", rf"{_CMD_START}az\s+(?:acr\s+)?login\b[^;|&\n]*?\s-p(?:\s+|=)(?P<s>{_VALUE})"),
        # httpie / xh: `http -a user:pass`, `--auth=user:pass`, `-a 'user:my pass'` (`-a user` prompts)
        _p(
            "basic_auth",
            rf"{_CMD_START}(?:https?|xhs?)(?=\s)[^;|&\n]*?\s(?:-a|--auth)(?:\s+|=){_NOT_MARKER}(?:(?P<q>['\"])[^\s:'\"]*|[^\s:'\"-][^\s:'\"]*):"
            rf"(?P<s>{_NOT_MARKER}(?(q)[^'\"\n]+|[^\s'\"]+))",
        ),
        _p("password", rf"{_CMD_START}redis-cli\b[^;|&\n]*?\s-a\s+(?P<s>{_VALUE})"),
        _p("password", rf"\s-pass(?:in|out)?\s+pass:(?P<s>{_NOT_MARKER}\S+)"),
        _p("password", rf"(?i:\bidentified\s+(?:with\s+\S+\s+)?by)\s+(?P<s>{_NOT_MARKER}(?:'[^'\n]*'|\"[^\"\n]*\"|[^\s;]+))"),
        # --password X, --password=X, --db-password X, --api-key X, --auth-token=X (not --password-stdin)
        _p(
            "credential",
            rf"(?:^|\s)--?(?!no-)(?i:(?:[a-z0-9]+-)*(?:password|passwd|passphrase|pass|token|secret|"
            rf"api-?key|access-?key|secret-?key|private-?key|auth-?token|access-token|client-secret))(?:=|\s+)(?P<s>{_VALUE})",
        ),
        # "password": "x" (JSON), password: x (YAML / config output, at the start of a line)
        _named("credential", rf"\"{_ANY_NAME}\"\s*:\s*\"(?P<s>{_NOT_MARKER}[^\"\n]+)\""),
        _named("credential", rf"^[ \t-]*{_ANY_NAME}[ \t]*:[ \t]+(?P<s>{_NOT_MARKER}[^\s#'\"][^\n#]*?)[ \t]*$", re.M),
        # NAME=value, export DB_PASSWORD=..., ?access_token=... in URLs
        _named("credential", rf"{_NAME_START}{_ANY_NAME}=(?P<s>{_VALUE})"),
        _named("credential", rf"[?&]{_ANY_NAME}=(?P<s>{_URL_VALUE})"),
    )

# Cheap gate: every pattern above needs at least one of these substrings (compared lower-cased).
# Plain `in` tests run at C speed; a regex alternation would cost far more on clean text.
_TRIGGERS = (
    "pass", "pwd", "secret", "token", "key", "auth", "cred", "cookie", "identified", "sig=",
    "akia", "asia", "abia", "acca", "agpa", "aida", "aroa", "aipa", "anpa", "anva", "apka", "aiza",
    "ya29.", "q~", "hp_", "ho_", "hu_", "hs_", "hr_", "github_pat_", "gl", "xox", "xapp-",
    "hooks.slack", "sk-", "_live_", "_test_", "hf_", "npm_", "pypi-", "sg.", "_v1_", "eyj",
    "private key", "-p", "-u", "--user", "-a",
)


def _might_hold_secret(text: str) -> bool:
    lowered = text.lower()
    if "://" in lowered and "@" in lowered:
        return True
    return any(trigger in lowered for trigger in _TRIGGERS)


def find_secrets(text: str, extra_patterns: Sequence[str] = ()) -> list[tuple[str, int, int]]:
    """Every secret in `text` as (kind, start, end), sorted, without overlaps."""
    found: list[tuple[int, int, int, str]] = []  # (start, -length, priority, kind)
    run_builtin = _might_hold_secret(text)
    if not run_builtin and not extra_patterns:
        return []
    patterns = _with_extra(tuple(extra_patterns))
    builtin_count = len(builtin_patterns())
    for priority, pattern in enumerate(patterns):
        if priority < builtin_count and not run_builtin:
            continue
        for start, end in pattern.spans(text):
            found.append((start, start - end, priority, pattern.kind))
    found.sort()
    result: list[tuple[str, int, int]] = []
    last_end = -1
    for start, negative_length, _, kind in found:
        if start >= last_end:
            end = start - negative_length
            result.append((kind, start, end))
            last_end = end
    return result


def mask(text: str, extra_patterns: Sequence[str] = ()) -> str:
    """`text` with every secret replaced by `[REDACTED:<kind>]`. Clean text is returned as is."""
    if not text:
        return text
    if not extra_patterns and not _might_hold_secret(text):
        return text
    spans = find_secrets(text, extra_patterns)
    if not spans:
        return text
    parts: list[str] = []
    position = 0
    for kind, start, end in spans:
        parts.append(text[position:start])
        parts.append(MARKER.format(kind=kind))
        position = end
    parts.append(text[position:])
    return "".join(parts)


def compile_extra_patterns(patterns: Sequence[str], origin: str = "[privacy] extra_patterns") -> tuple[SecretPattern, ...]:
    """User-supplied regexes as patterns of kind "custom"; a group named `s` limits what is masked."""
    compiled = []
    for raw in patterns:
        try:
            compiled.append(SecretPattern("custom", re.compile(raw)))
        except re.error as err:
            raise ConfigError(f"{origin}: invalid regex {raw!r}: {err}") from None
    return tuple(compiled)


@lru_cache(maxsize=32)
def _with_extra(extra: tuple[str, ...]) -> tuple[SecretPattern, ...]:
    return builtin_patterns() + compile_extra_patterns(extra)
