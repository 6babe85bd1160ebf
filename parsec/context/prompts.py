"""Layered system prompts: Parsec's own instructions, the personal PARSEC.md, the project's
PARSEC.md (once the user trusts it: `parsec trust`), an environment section and the static context
commands' blocks.

The result is captured once as a conversation's system prompt; a resumed conversation keeps it
even if the files changed since (cllm ADR-0020).
"""

from __future__ import annotations

import os
import platform
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from .. import paths, trust
from ..directory_facts import repo_root
from .redact import masked

PROMPT_FILE = "PARSEC.md"
MAX_PROMPT_FILE_BYTES = 64 * 1024  # a runaway file must not eat the context window

BASE_PROMPT = """You are Parsec, a workflow assistant inside the user's terminal.
You turn a request into a short plan of shell steps, then propose one command at a time for the
current step. Commands run after the user approves them, in a bash of their own that keeps its
directory and exported variables between commands but loads no rc files (no aliases or shell
functions), so prefer safe, idempotent commands and the tools and conventions the context says
the user prefers.
Secrets in the context appear masked; never try to guess or reconstruct them."""


@dataclass(frozen=True)
class LoadedPrompt:
    content: str
    personal_path: Path | None
    project_path: Path | None


def personal_prompt_path() -> Path:
    return paths.config_dir() / PROMPT_FILE


def project_prompt_path(cwd: str) -> Path | None:
    """PARSEC.md in `cwd` or its ancestors up to the repository root (only `cwd` outside a repo)."""
    start = Path(cwd).resolve()
    root = repo_root(str(start))
    directories = [start]
    if root is not None:
        directories = [start, *[p for p in start.parents if p == root or root in p.parents]]
    for directory in directories:
        candidate = directory / PROMPT_FILE
        if candidate.is_file():
            return candidate
    return None


def _read(path: Path | None, *, needs_trust: bool = False) -> str | None:
    """The file's text, masked; a project's file only once the user trusts it (trust.py)."""
    if path is None or not path.is_file():
        return None
    if needs_trust:
        content = trust.read_trusted(path)
        if content is None:
            return None
        data = content[:MAX_PROMPT_FILE_BYTES]
    else:
        try:
            with path.open("rb") as handle:
                data = handle.read(MAX_PROMPT_FILE_BYTES)
        except OSError:
            return None
    text = data.decode("utf-8", errors="replace").strip()
    return masked(text) if text else None


def operating_system() -> str:
    system = platform.system()
    if system == "Linux":
        release = platform.release().lower()
        if "microsoft" in release or "wsl" in release:
            return "Linux (WSL2 on Windows)"
        try:
            info = platform.freedesktop_os_release()
            return f"Linux ({info.get('PRETTY_NAME', info.get('NAME', 'unknown'))})"
        except OSError:
            return "Linux"
    if system == "Darwin":
        return f"macOS {platform.mac_ver()[0]}".strip()
    return system or "unknown"


def terminal() -> str:
    program = os.environ.get("TERM_PROGRAM", "")
    term = os.environ.get("TERM", "")
    if program and term:
        return f"{program} ({term})"
    return program or term or "unknown"


def environment_section(cwd: str, shell: str, mode: str, now: datetime) -> str:
    local = now.astimezone()
    return "\n".join(
        [
            "# Environment",
            f"Conversation started: {local:%Y-%m-%d %H:%M} ({local.tzname() or 'local'})",
            f"Working directory: {cwd}",
            f"Operating system: {operating_system()}",
            f"Shell: {shell or 'unknown'}",
            f"Terminal: {terminal()}",
            f"Mode: {mode}",
        ]
    )


def build_system_prompt(
    cwd: str, shell: str, now: datetime, context_blocks: str = "", mode: str = "workflow"
) -> LoadedPrompt:
    personal_path = personal_prompt_path()
    project_path = project_prompt_path(cwd)
    parts = [BASE_PROMPT]
    personal = _read(personal_path)
    if personal:
        parts.append(f"# Personal Configuration\n{personal}")
    project = _read(project_path, needs_trust=True)
    if project:
        parts.append(f"# Project Configuration\n{project}")
    parts.append(environment_section(cwd, shell, mode, now))
    if context_blocks:
        parts.append(context_blocks)
    return LoadedPrompt(
        content="\n\n".join(parts),
        personal_path=personal_path if personal else None,
        project_path=project_path if project else None,
    )
