"""Provider errors. Each message is one line that says what to do, and never holds a key."""

from __future__ import annotations

from ..errors import ConfigError, ProviderError


class NoProviderConfigured(ProviderError):
    """No flag, variable, config entry, key or local Ollama names a provider."""

    exit_code = 2


class InvalidEndpoint(ProviderError, ConfigError):
    """A base URL or OLLAMA_HOST that is not an http(s) URL: names the variable and what it should look like."""

    exit_code = 2


class ProviderAuthError(ProviderError):
    """401/403: the key is missing, wrong or lacks access."""


class ModelNotFound(ProviderError):
    """404 or the provider's equivalent: the model name is unknown to the endpoint."""


class ContextLengthExceeded(ProviderError):
    """The request holds more tokens than the model accepts."""


class EndpointUnreachable(ProviderError):
    """The endpoint could not be connected to, after the retries."""


class ProviderTimeout(ProviderError):
    """The provider did not answer within the read timeout."""


class RateLimited(ProviderError):
    """Still 429 after the retries (or asked to wait longer than we are willing to)."""


class ProviderResponseError(ProviderError):
    """Any other error status or a reply that cannot be understood."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status  # the HTTP status, when the error came from one


class StructuredModeRefused(ProviderResponseError):
    """An error answer naming the structured-output field Parsec sent: the server does not speak
    that mode (dialects.py); never retried, the next mode is tried instead."""


class StructuredOutputError(ProviderError):
    """The reply did not match the requested schema, even after one repair request. `reply`: the
    model's last reply, for the conversation's record."""

    reply: str = ""


class UnknownMessagePart(ProviderError):
    """A message carries something an adapter cannot send (e.g. a role or part type it lacks)."""
