"""PrivacyFilter: what may be recorded, and in what form, under the user's [privacy] settings.

Every writer (daemon recorder, importers, workflow engine, anything sent to a model) goes through
one of these before storing or sending. Layer 1: it takes any object shaped like
`parsec.config.PrivacyConfig` rather than importing the config module (layer 2).
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Mapping, Sequence
from typing import Protocol

from ..errors import ConfigError
from .masking import compile_extra_patterns, mask_collecting
from .memory import SecretValues

# Variable names that may hold a credential: never kept, whatever the allowlist says.
_SECRET_NAME = re.compile(
    r"TOKEN|KEY|SECRET|PASSW|PASSPHRASE|CREDENTIAL|PRIVATE|AUTH|COOKIE|SESSION_ID|_PWD$|^PWD_", re.I
)


class PrivacySettings(Protocol):
    """The attributes of parsec.config.PrivacyConfig this filter reads (read-only, so a list fits)."""

    @property
    def mask_secrets(self) -> bool: ...
    @property
    def exclude_commands(self) -> Sequence[str]: ...
    @property
    def exclude_dirs(self) -> Sequence[str]: ...
    @property
    def extra_patterns(self) -> Sequence[str]: ...
    @property
    def environment_allowlist(self) -> Sequence[str]: ...


class PrivacyFilter:
    def __init__(self, settings: PrivacySettings, privacy_mode: bool = False) -> None:
        self.mask_secrets = bool(settings.mask_secrets)
        self.privacy_mode = bool(privacy_mode)
        self._exclude_commands = _compile_all(settings.exclude_commands, "[privacy] exclude_commands")
        self._exclude_dirs = _compile_all(settings.exclude_dirs, "[privacy] exclude_dirs")
        self._extra = tuple(settings.extra_patterns)
        compile_extra_patterns(self._extra)  # fail now, with the key's name, not on first use
        self._allowlist = tuple(settings.environment_allowlist)

    @property
    def record_output(self) -> bool:
        """Privacy mode keeps commands only: no output, no environment."""
        return not self.privacy_mode

    def should_record(self, command: str, cwd: str = "") -> bool:
        """False for lines the user asked to keep out of history (leading space, exclusions)."""
        if not command.strip() or command[0] in " \t":
            return False
        if any(pattern.search(command) for pattern in self._exclude_commands):
            return False
        return not (cwd and any(pattern.search(cwd) for pattern in self._exclude_dirs))

    def mask(self, text: str, values: SecretValues | None = None) -> str:
        """`text` with secrets replaced by markers. With mask_secrets off only extra_patterns apply.
        With a session's `values`, the secrets found are remembered and known values masked."""
        if not text:
            return text
        if not self.mask_secrets and not self._extra:
            return values.mask(text) if values is not None else text
        masked, found = mask_collecting(text, self._extra, builtin=self.mask_secrets)
        if values is None:
            return masked
        values.remember_all(found)
        return values.mask(masked)

    def filter_environment(self, env: Mapping[str, str]) -> dict[str, str]:
        """Allow-listed, harmless-looking variables with masked values; nothing in privacy mode."""
        if self.privacy_mode:
            return {}
        kept: dict[str, str] = {}
        for name, value in env.items():
            if _SECRET_NAME.search(name) or not self._allowed(name):
                continue
            kept[name] = self.mask(str(value))
        return kept

    def _allowed(self, name: str) -> bool:
        # Entries may be shell-style wildcards (`LC_*`); matching is case-sensitive like the env.
        return any(name == entry or fnmatch.fnmatchcase(name, entry) for entry in self._allowlist)


def _compile_all(patterns: Sequence[str], origin: str) -> tuple[re.Pattern[str], ...]:
    compiled = []
    for raw in patterns:
        try:
            compiled.append(re.compile(raw))
        except re.error as err:
            raise ConfigError(f"{origin}: invalid regex {raw!r}: {err}; fix it in config.toml") from None
    return tuple(compiled)
