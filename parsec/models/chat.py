"""Provider-neutral chat messages and token usage."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from .parsec_model import ParsecModel

Role = Literal["system", "user", "assistant"]


class ChatMessage(ParsecModel):
    role: Role
    content: str


class TokenUsage(ParsecModel):
    input_tokens: int = Field(default=0, ge=0)
    output_tokens: int = Field(default=0, ge=0)

    @property
    def total(self) -> int:
        return self.input_tokens + self.output_tokens
