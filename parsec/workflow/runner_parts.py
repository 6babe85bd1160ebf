"""What the runner's two parts (gatekeeping.py, execution.py) use of WorkflowRunner (engine.py).

One declaration of the seam, so that a type checker (and the next reader) sees what the mixins
rely on: the runner sets these attributes in its __init__ and defines these methods.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..models.workflow import Conversation

if TYPE_CHECKING:
    from .engine import RunOptions
    from .shell import PersistentShell


class RunnerParts:
    conversation: Conversation
    options: RunOptions
    ui: Any  # workflow.ui.TerminalUI or a scripted UI
    provider: Any  # a providers.base.LLMProvider
    context: Any  # a context.engine.ContextEngine
    executed_commands: list[str]
    _pending_command: str
    _step_messages: list[Any]

    if TYPE_CHECKING:

        def save(self) -> None: ...

        def _shell(self) -> PersistentShell: ...
