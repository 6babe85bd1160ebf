"""Parsec's own secret shapes: the generic forms a shell line carries secrets in.

Provider token formats come from gitleaks' rule set (`gitleaks.py`); this table holds what a
rule file for source code does not: `--password X` and `NAME=value` assignments, glued `-pX`
for the tools that read it so, `curl -u user:pw`, `htpasswd -b`, `gh secret set --body`, auth
headers of any name, URL credentials, and a few provider prefixes kept with shorter minimum
lengths than gitleaks' (a truncated token is still a secret).

All patterns are RE2 syntax (no look-around, see matcher.py). Each masks its group `s`, or its
whole match. Keywords gate them: a pattern runs only on text holding one of its keywords.
"""

from __future__ import annotations

import re
from functools import lru_cache

from .matcher import WORD_BYTES, SecretPattern, compile_re2, is_reference

# A value after `=`, `--flag ` or `:`: quoted, or up to the next shell separator; not a
# redirection, a pipe, a reference (`$…`, `` ` ``) or the next flag.
_VALUE = r"""(?:"[^"\n]*"|'[^'\n]*'|[^\s;&|'"`$<>\-][^\s;&|'"`]*)"""
_URL_VALUE = r"""[^\s&;#'"`]+"""
# A value glued to its flag (`-pSECRET`, `-p'my secret'`, `-p"my secret"`); an unterminated quote
# still masks the word after it.
_GLUED_VALUE = r"""(?:'[^']*'|"[^"]*"|['"]?[^\s;|&'"]+)"""
# One shell word, quotes and all (`user:'pw'`, `":pw"`, `me@x.com:S3cr3t!`).
_SHELL_WORD = r"""(?:'[^'\n]*'|"[^"\n]*"|[^\s'";|&])+"""
# The rest of one command: up to a separator or the end of the line.
_REST = r"[^;|&\n]*?"

_GLUED_WORDS = r"(?:password|passwd|passphrase|secret)"
_BARE_WORDS = (
    r"(?:pass|token|api_?key|apikey|access_?key|secret_?key|private_?key|auth_?token|access_?token|"
    r"refresh_?token|session_?token|id_?token|credentials?|client_?secret)"
)
_SUFFIX_WORDS = r"(?:key|pwd|auth)"  # `KEY=`, `PWD=` (the cwd) alone are not secrets; `DB_PWD=` is
# Names whose value is a credential: `DB_PASSWORD`, `api_key`, `clientSecret`, `_authToken`.
_CREDENTIAL_NAME = rf"(?i)(?:[a-z0-9]*{_GLUED_WORDS}|(?:[a-z0-9]*[_.-])*(?:{_BARE_WORDS}|{_GLUED_WORDS})|(?:[a-z0-9]*[_.-])+{_SUFFIX_WORDS})"
_NAME_WORDS = ("pass", "pwd", "secret", "token", "key", "auth", "cred")
# A name holding one of the credential words (name_check then decides): names without one are
# never candidates, so `env` output full of `FOO=bar` costs no Python per line.
# Unbounded runs keep RE2's automaton small on text made of name characters (base64); the
# name's length is checked on the candidate (_credential_name).
_ANY_NAME = r"(?P<n>[A-Za-z0-9_.\-]*(?i:pass|pwd|secret|token|key|auth|cred)[A-Za-z0-9_.\-]*)"

_AUTH_SCHEMES = (b"bearer", b"basic", b"token", b"digest", b"negotiate", b"apikey", b"bot", b"sso-key")
_AUTH_SCHEME = r"(?i:bearer|basic|token|digest|negotiate|apikey|bot|sso-key)"
_MYSQL_LIKE = r"(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlshow|mysqlcheck|mysqlsh|mariadb|mariadb-dump)"
_AWS_PROFILE = r"(?:--profile(?:\s+|=)\S+\s+)?"
_AWS_CONFIGURE_SET = rf"configure\s+{_AWS_PROFILE}set\s+{_AWS_PROFILE}(?:[A-Za-z0-9_-]+\.)*"

_WORD = WORD_BYTES
_WORD_DASH = WORD_BYTES | frozenset(b"-")
_NAME_CHARS = WORD_BYTES | frozenset(b".-")


def _strip_quotes(text: bytes, start: int, end: int) -> tuple[int, int]:
    """The span inside one pair of matching quotes around it, if any."""
    if end - start >= 2 and text[start] in b"'\"" and text[end - 1] == text[start]:
        return start + 1, end - 1
    return start, end


def _not_a_scheme(text: bytes, start: int, end: int) -> tuple[int, int] | None:
    """`Authorization: Bearer` with nothing after it names a scheme, not a credential."""
    return None if text[start:end].lower() in _AUTH_SCHEMES else (start, end)


def _user_password(text: bytes, start: int, end: int) -> tuple[int, int] | None:
    """The password of a `user:password` shell word (`me:pw`, `me:'p w'`, `":pw"`, `'me:p w'`)."""
    word = text[start:end]
    colon = word.find(b":")
    if colon < 0:
        return None
    user, password = word[:colon].strip(b"'\""), word[colon + 1 :]
    if password.startswith(b"//"):
        return None  # `-u host://…` is not a user
    p_start, p_end = start + colon + 1, end
    if password[:1] in (b"'", b'"') and password.endswith(password[:1]) and len(password) >= 2:
        p_start, p_end = p_start + 1, p_end - 1
    elif word[:1] in (b"'", b'"') and word.endswith(word[:1]):
        p_end -= 1  # the quote opened before the user closes after the password
    elif password.endswith((b"'", b'"')) and word.count(password[-1:]) % 2 == 1:
        p_end -= 1  # `":pw"`
    if p_end <= p_start:
        return None
    if user.isdigit() and text[p_start:p_end].isdigit():
        return None  # `docker run -u 1000:1000`: uid:gid
    return p_start, p_end


def _htpasswd_password(text: bytes, start: int, end: int) -> tuple[int, int] | None:
    """`htpasswd -b[c…] FILE USER PASSWORD` / `htpasswd -nb USER PASSWORD`: that last word."""
    words = [match.span() for match in _WORDS.finditer(text, start, end)]
    flags = b"".join(text[s + 1 : e] for s, e in words if text[s : s + 1] == b"-")
    positional = [(s, e) for s, e in words if text[s : s + 1] != b"-"]
    wanted = 1 if b"n" in flags else 2
    if b"b" not in flags or len(positional) <= wanted:
        return None
    return _strip_quotes(text, *positional[wanted])


def _value_like(text: bytes, start: int, end: int) -> tuple[int, int] | None:
    """In prose ("the password is Hunter2secret") only a word that looks made up is a value:
    6+ characters with a digit or a symbol ("the password is wrong" stays)."""
    start, end = _strip_quotes(text, start, end)
    while end > start and text[end - 1] in b".,;:!?)":
        end -= 1
    word = text[start:end]
    if len(word) < 6 or word.isalpha():
        return None
    return start, end


class _NotNegated:
    """`--no-password x`, `--ask-password URL`: a switch about a password holds none."""

    _SWITCHES = (b"no-", b"ask-", b"prompt-", b"use-", b"with-", b"require-", b"skip-", b"show-", b"reset-", b"change-")

    @staticmethod
    def fullmatch(name: bytes):
        return None if name.lower().lstrip(b"-").startswith(_NotNegated._SWITCHES) else name


_WORDS = compile_re2(_SHELL_WORD)


def _p(kind: str, pattern: str, keywords: tuple[str, ...], **options) -> SecretPattern:
    return SecretPattern(kind, pattern, keywords=keywords, **options)


def _named(kind: str, pattern: str, keywords: tuple[str, ...] = _NAME_WORDS, **options) -> SecretPattern:
    return SecretPattern(kind, pattern, keywords=keywords, name_check=_credential_name(), **options)


class _CredentialName:
    """Python's re on one captured name of at most 100 bytes (each repetition of the pattern
    needs a separator, so no backtracking blow-up): cheaper per call than RE2's Python wrapper."""

    def __init__(self) -> None:
        self._regex = re.compile(_CREDENTIAL_NAME.encode())

    def fullmatch(self, name: bytes):
        return self._regex.fullmatch(name) if len(name) <= 100 else None


@lru_cache(maxsize=1)
def _credential_name():
    return _CredentialName()


@lru_cache(maxsize=1)
def shape_patterns() -> tuple[SecretPattern, ...]:
    """Parsec's generic forms, compiled on first use."""
    w, wd = _WORD, _WORD_DASH
    return (
        _p(
            "private_key",
            r"(?s)-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----.*?(?:-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\z)",
            ("private key",),
        ),
        _p(
            "aws_access_key",
            r"(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)[A-Z2-7]{16}\b",
            ("akia", "asia", "abia", "acca", "agpa", "aida", "aroa", "aipa", "anpa", "anva", "apka"),
            not_after=w,
        ),
        _p(
            "aws_secret_key",
            r"(?i:aws_?secret_?access_?key)[\"']?\s*[=:]\s*[\"']?(?P<s>[A-Za-z0-9/+]{40})\b",
            ("secret",),
        ),
        _p(
            "aws_secret_key",
            rf"{_AWS_CONFIGURE_SET}(?i:aws_secret_access_key)\s+(?P<s>{_VALUE})",
            ("configure",),
            not_after=wd,
        ),
        _p(
            "aws_session_token",
            rf"{_AWS_CONFIGURE_SET}(?i:aws_session_token|aws_security_token)\s+(?P<s>{_VALUE})",
            ("configure",),
            not_after=wd,
        ),
        _p("gcp_api_key", r"(?P<s>AIza[0-9A-Za-z_\-]{35})(?:[^0-9A-Za-z_\-]|\z)", ("aiza",), not_after=w),
        _p("gcp_oauth_token", r"ya29\.[0-9A-Za-z_\-]{20,}", ("ya29.",), not_after=w),
        _p("azure_storage_key", r"(?i:AccountKey|SharedAccessKey)=(?P<s>[A-Za-z0-9+/]{20,}=*)", ("accountkey",)),
        _p("azure_sas_signature", r"[?&]sig=(?P<s>[A-Za-z0-9%+/=]{16,})", ("sig=",)),
        _p(
            "azure_client_secret",
            r"(?P<s>[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.\-]{31,34})(?:[^A-Za-z0-9_~.\-]|\z)",
            ("q~",),
            not_after=frozenset(b"~.-") | w,
        ),
        _p(
            "github_token",
            r"(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255}\b",
            ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
            not_after=w,
        ),
        _p("github_token", r"github_pat_[A-Za-z0-9_]{22,255}\b", ("github_pat_",), not_after=w),
        _p(
            "gitlab_token",
            r"(?:glpat|gldt|glrt|glptt|glcbt|glimt|gloas)-[A-Za-z0-9_\-]{20,}",
            ("glpat-", "gldt-", "glrt-", "glptt-", "glcbt-", "glimt-", "gloas-"),
            not_after=w,
        ),
        _p("slack_token", r"xox[abposre]-[A-Za-z0-9\-]{10,}", ("xox",), not_after=w),
        _p("slack_token", r"xapp-\d-[A-Za-z0-9\-]{10,}", ("xapp-",), not_after=w),
        _p("slack_webhook", r"hooks\.slack\.com/(?:services|workflows)/(?P<s>[A-Za-z0-9_/]{20,})", ("hooks.slack",)),
        _p("anthropic_key", r"sk-ant-(?:api|admin|sid)\d{2}-[A-Za-z0-9_\-]{20,}", ("sk-ant-",), not_after=w),
        _p("openai_key", r"sk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_\-]{20,}", ("sk-",), not_after=wd),
        _p("stripe_key", r"(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}", ("_live_", "_test_"), not_after=w),
        _p("huggingface_token", r"hf_[A-Za-z0-9]{30,}\b", ("hf_",), not_after=w),
        _p("npm_token", r"npm_[A-Za-z0-9]{36}\b", ("npm_",), not_after=w),
        _p("pypi_token", r"pypi-AgE[A-Za-z0-9_\-]{50,}", ("pypi-",), not_after=w),
        _p("sendgrid_key", r"SG\.[A-Za-z0-9_\-]{16,32}\.[A-Za-z0-9_\-]{16,64}", ("sg.",), not_after=w),
        _p("digitalocean_token", r"do[opr]_v1_[a-f0-9]{64}\b", ("_v1_",), not_after=w),
        # Telegram bot token anywhere, including the API URL form `/bot<id>:<token>/getUpdates`
        _p("telegram_bot_token", r"(?:^|[^0-9])(?P<s>[0-9]{5,16}:A[A-Za-z0-9_\-]{34})(?:[^A-Za-z0-9_\-]|\z)", (":a",)),
        # Documented prefixes gitleaks 8.30's rules lack: Supabase, PostHog personal keys, LangSmith.
        _p(
            "provider_token",
            r"(?:sbp_|phx_|lsv2_(?:pt|sk)_)[A-Za-z0-9_]{20,}",
            ("sbp_", "phx_", "lsv2_"),
            not_after=w,
        ),
        _p("jwt", r"eyJ[A-Za-z0-9_\-]{5,}\.eyJ[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]*", ("eyj",), not_after=w),
        _p(
            "auth_header",
            rf"(?i:(?:proxy-)?authorization)\s*:\s*(?:{_AUTH_SCHEME}\s+)?(?P<s>[^\s'\"]+)",
            ("authorization",),
            not_after=w,
            refine=_not_a_scheme,
        ),
        # Any header whose name ends in key/token/secret/auth: `X-Algolia-API-Key:`, `Api-Token:`, `X-Auth:`.
        _p(
            "auth_header",
            r"(?i:[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*-(?:api-?key|apikey|key|token|secret|auth)|private-token)[ \t]*:[ \t]*"
            rf"(?:{_AUTH_SCHEME}[ \t]+)?(?P<s>[^\s'\"]+)",
            ("key", "token", "secret", "auth"),
            not_after=wd,
            refine=_not_a_scheme,
        ),
        _p("cookie", r"(?i:(?:set-)?cookie)\s*:\s*(?P<s>[^\s'\"][^'\"\n]*)", ("cookie",), not_after=wd),
        _p("url_credentials", r"://[^\s:/@'\"\[\]]*:(?P<s>[^\s@/'\"]+)@", ("://",)),
        # curl/wget `-u user:pw`, `-u user:'p w'`, `-u ":pw"`, `--user=…`, `--proxy-user …`
        _p(
            "basic_auth",
            rf"(?:^|\s)(?:-u|--user|--proxy-user|--http-user)(?:\s+|=)(?P<s>{_SHELL_WORD})",
            ("-u",),
            refine=_user_password,
        ),
        _p("password", rf"{_MYSQL_LIKE}\b{_REST}\s-p(?P<s>{_GLUED_VALUE})", ("mysql", "mariadb"), not_after=wd),
        _p("password", rf"sshpass\b{_REST}\s-p\s*(?P<s>{_GLUED_VALUE})", ("sshpass",), not_after=wd),
        _p(
            "password",
            rf"(?:docker|podman|nerdctl|buildah)\s+login\b{_REST}\s-p(?:\s+|=)(?P<s>{_VALUE})",
            ("login",),
            not_after=wd,
        ),
        # `az login -u me -p PASSWORD`, `az acr login -n reg -u me -p PASSWORD` (`--password` is below)
        _p("password", rf"az\s+(?:acr\s+)?login\b{_REST}\s-p(?:\s+|=)(?P<s>{_VALUE})", ("login",), not_after=wd),
        # httpie / xh: `http -a user:pass`, `--auth=user:pass`, `-a 'user:my pass'` (`-a user` prompts)
        _p(
            "basic_auth",
            rf"(?:https?|xhs?)(?:\s{_REST})?\s(?:-a|--auth)(?:\s+|=)(?P<s>{_SHELL_WORD})",
            ("-a",),
            not_after=wd,
            refine=_user_password,
        ),
        _p("password", rf"redis-cli\b{_REST}\s-a\s+(?P<s>{_VALUE})", ("redis-cli",), not_after=wd),
        _p("password", r"\s-pass(?:in|out)?\s+pass:(?P<s>\S+)", ("pass:",)),
        _p(
            "password",
            r"(?i:identified\s+(?:with\s+\S+\s+)?by)\s+(?P<s>'[^'\n]*'|\"[^\"\n]*\"|[^\s;]+)",
            ("identified",),
            not_after=w,
        ),
        _p(
            "password",
            rf"htpasswd(?P<s>\s{_REST})(?:[;|&\n]|\z)",
            ("htpasswd",),
            not_after=wd,
            refine=_htpasswd_password,
        ),
        # `gh secret set NAME --body VALUE` / `-b VALUE` (without it, gh reads the value from stdin)
        _p(
            "credential",
            rf"gh\s+secret\s+set\b{_REST}\s(?:--body|-b)(?:=|\s+)(?P<s>{_VALUE})",
            ("secret",),
            not_after=wd,
        ),
        # --password X, --password=X, --db-password X, --api-key X, --auth-token=X (not --password-stdin)
        _p(
            "credential",
            r"(?:^|\s)(?P<n>--?(?i:(?:[a-z0-9]+-)*(?:password|passwd|passphrase|pass|token|secret|"
            rf"api-?key|access-?key|secret-?key|private-?key|auth-?token|access-token|client-secret)))(?:=|\s+)(?P<s>{_VALUE})",
            ("pass", "token", "secret", "key"),
            name_check=_NotNegated,
        ),
        # Prose: "the db root password is Hunter2secret", "my token was abc123xyz", "API key = …"
        _p(
            "credential",
            r"(?i:pass(?:word|phrase|wd)?|secret|token|api[ _-]?key|pin(?: code)?)\s+(?i:is|was|=|:|->)\s+(?P<s>[^\s]+)",
            ("pass", "secret", "token", "key", "pin"),
            not_after=_WORD,
            refine=_value_like,
        ),
        # Credential files: `.netrc` (`machine h login u password X`, one line or a token per
        # line), `.pgpass` (`host:port:db:user:password`), INI (`password = X` in .pypirc, .my.cnf).
        _p(
            "password",
            r"(?i:\b(?:machine|default|login|account)\s+\S+\s+(?:\S+\s+\S+\s+)?password)[ \t]+(?P<s>[^\s'\"]+)",
            ("password",),
        ),
        _p("password", r"(?m)^[ \t]*(?i:password)[ \t]+(?P<s>[^\s'\"=:]+)[ \t]*$", ("password",)),
        _p(
            "password",
            r"(?m)^[A-Za-z0-9_.\-*]+:(?:\d+|\*):[^:\s]+:[^:\s]+:(?P<s>[^:\s]+)[ \t]*$",
            ("5432:", ":*:"),
        ),
        _named("credential", rf"(?m)^[ \t]*{_ANY_NAME}[ \t]*=[ \t]*(?P<s>[^\s#;'\"][^\s#;]*)[ \t]*$"),
        # "password": "x" (JSON), password: x (YAML / config output, at the start of a line)
        _named("credential", rf"\"{_ANY_NAME}\"\s*:\s*\"(?P<s>[^\"\n]+)\""),
        _named("credential", rf"(?m)^[ \t-]*{_ANY_NAME}[ \t]*:[ \t]+(?P<s>[^\s#'\"][^\n#]*?)[ \t]*$"),
        # NAME=value, export DB_PASSWORD=..., ?access_token=... in URLs
        _named("credential", rf"(?:^|[^A-Za-z0-9_.\-]){_ANY_NAME}=(?P<s>{_VALUE})"),
        _named("credential", rf"[?&]{_ANY_NAME}=(?P<s>{_URL_VALUE})"),
    )


def credential_field(name: str, value: str) -> bool:
    """Whether a structured field (`{"db_password": "…"}`) holds a credential by its name alone:
    the rule the `"NAME": "value"` shape applies to JSON text, for fields masked one by one."""
    if not value or "\n" in value or value.startswith("[REDACTED:"):
        return False
    if is_reference(value.encode("utf-8", "surrogatepass")):
        return False
    return _credential_name().fullmatch(name.encode("utf-8", "surrogatepass")) is not None
