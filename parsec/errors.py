"""The exception tree. Every error a user can cause is a ParsecError whose message is one line
that says what went wrong and, where possible, what to do about it."""

from __future__ import annotations


class ParsecError(Exception):
    """Base of every error Parsec raises on purpose. `str(err)` is shown to the user as is."""

    exit_code = 1


class ConfigError(ParsecError):
    """A config file or variable that cannot be read: names the file, the key and the expectation."""

    exit_code = 2


class StoreError(ParsecError):
    """The ContextStore cannot be opened, read or written."""


class StoreUnavailable(StoreError):
    """The store is unreachable right now (e.g. PostgreSQL down); writers spool and retry."""


class StoreNotWritable(StoreUnavailable):
    """The store's disk is full or read-only: a fault of the storage, never of the records, so the
    journal keeps them and the writer retries until the store takes them."""


class SchemaTooNew(StoreError):
    """The database was written by a newer Parsec; it is left untouched."""


class NotFound(ParsecError):
    """A session, conversation or other record that does not exist."""


class InvalidTransition(ParsecError):
    """A status change the state machine does not allow."""


class ProtocolError(ParsecError):
    """A daemon message that is malformed, too large, of an unknown type or a wrong version."""


class DaemonUnavailable(ParsecError):
    """The daemon is not running or does not answer."""


class UnsafeRuntimeDir(DaemonUnavailable):
    """The runtime directory, or the server behind its socket, is not the user's own (another
    local user planted `/tmp/parsec-<uid>` to receive what the shells send): nothing talks to it."""


class ProviderError(ParsecError):
    """An LLM provider failed; the message says what to do (key, model, endpoint, ...)."""


class UsageError(ParsecError):
    """A command-line argument that does not make sense."""

    exit_code = 2
