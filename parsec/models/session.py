"""Session-level values: a shell session, its environment and the commands it ran directly."""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field, field_validator

from .parsec_model import ParsecModel, Ulid, UtcDatetime, new_id, utcnow
from .text import TruncatedText, clean_text


class ProjectType(StrEnum):
    rust = "rust"
    python = "python"
    node = "node"
    go = "go"
    java = "java"
    kotlin = "kotlin"
    ruby = "ruby"
    php = "php"
    dotnet = "dotnet"
    elixir = "elixir"
    haskell = "haskell"
    c_cpp = "c_cpp"
    terraform = "terraform"
    docker = "docker"


class GlobalContext(ParsecModel):
    working_directory: str = ""
    # Only allow-listed variable names, never values of anything secret-looking.
    environment_snapshot: dict[str, str] = Field(default_factory=dict)
    detected_project_type: ProjectType | None = None
    active_tools: list[str] = Field(default_factory=list)


class SessionSettings(ParsecModel):
    privacy_mode: bool = False  # commands only: no output, no environment
    capture_output: bool = False  # true under `parsec shell`


class DirectCommandExecution(ParsecModel):
    """One line the shell ran itself (shell-classified input)."""

    id: Ulid = Field(default_factory=new_id)
    session_id: Ulid
    command: str
    executed_at: UtcDatetime = Field(default_factory=utcnow)
    duration_ms: int | None = Field(default=None, ge=0)
    exit_status: int | None = None
    pipeline_statuses: list[int] = Field(default_factory=list)
    # Under `parsec shell` stdout and stderr share one pseudo-terminal: both land in `stdout`.
    stdout: TruncatedText | None = None
    stderr: TruncatedText | None = None
    working_directory: str = ""
    cwd_after: str | None = None
    host: str = ""
    user: str = ""
    source: str = "shell"  # shell | import | workflow (a command `parsec ask` ran)
    conversation_id: Ulid | None = None  # the workflow's conversation (source "workflow")

    @field_validator("command", "working_directory", mode="before")
    @classmethod
    def _clean(cls, value: object) -> object:
        return clean_text(value) if isinstance(value, (str, bytes)) else value

    @property
    def succeeded(self) -> bool:
        return self.exit_status == 0


class Session(ParsecModel):
    """One interactive shell process (or one imported history file)."""

    id: Ulid = Field(default_factory=new_id)
    created_at: UtcDatetime = Field(default_factory=utcnow)
    last_active: UtcDatetime = Field(default_factory=utcnow)
    ended_at: UtcDatetime | None = None
    shell: str = ""
    pid: int | None = None
    tty: str = ""
    user: str = ""
    host: str = ""
    conversations: list[Ulid] = Field(default_factory=list)
    # Loaded lazily: load_session returns the most recent executions only.
    command_history: list[DirectCommandExecution] = Field(default_factory=list)
    global_context: GlobalContext = Field(default_factory=GlobalContext)
    settings: SessionSettings = Field(default_factory=SessionSettings)

    @property
    def is_open(self) -> bool:
        return self.ended_at is None

    def touch(self) -> None:
        self.last_active = utcnow()

    def close(self) -> None:
        if self.ended_at is None:
            self.ended_at = utcnow()
