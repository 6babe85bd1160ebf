"""The end of a workflow, for the person who ran it: what was achieved, where the shell stands,
which variables and virtualenv the steps set, and what reached the user's own shell — with the
line to run for what did not."""

from __future__ import annotations

import os
import shlex

from ...models.workflow import Conversation


def final_summary(conversation: Conversation, final_cwd: str, env: dict[str, str], *, cd_carried: bool) -> list[str]:
    """Lines to print after "Finished: NAME". `env` is the conversation shell's final environment;
    `cd_carried`: the hooks will move the user's shell to `final_cwd` (PARSEC_CD_FILE)."""
    from .final_state import env_changes

    lines = [f"  - {achievement}" for achievement in conversation.context_summary.key_achievements]
    start = conversation.working_directory
    if final_cwd and final_cwd != start:
        how = "your shell follows it" if cd_carried else f"not carried back: run `cd {shlex.quote(final_cwd)}`"
        lines.append(f"Final directory: {final_cwd} ({how})")
    else:
        lines.append(f"Final directory: {final_cwd or start} (unchanged)")
    venv = env.get("VIRTUAL_ENV")
    changed = [c for c in env_changes(conversation) if c["name"] not in ("VIRTUAL_ENV", "PATH", "PS1")]
    if venv:
        activate = os.path.join(venv, "bin", "activate")
        lines.append(f"Virtualenv: {venv} (not carried back: run `source {shlex.quote(activate)}`)")
    for change in changed:
        name, value = change["name"], change["new"]
        if value is None:
            lines.append(f"Unset: {name} (not carried back: run `unset {name}`)")
        elif "[REDACTED" in value:
            lines.append(f"Exported: {name} (a secret, not shown and not carried back: set it yourself)")
        else:
            line = f"export {name}={shlex.quote(value)}"
            lines.append(f"Exported: {name}={value} (not carried back: run `{line}`)")
    return lines
