"""The hooks next to direnv's, loaded before or after them, in bash and zsh."""

from __future__ import annotations

import shutil

import pytest

from .harness import Shell, executions


@pytest.mark.parametrize("shell", ["bash", "zsh"])
@pytest.mark.parametrize("order", ["parsec-first", "parsec-last"])
def test_coexists_with_direnv(sandbox, daemon, shell, order):
    if shutil.which("direnv") is None:
        pytest.skip("direnv is not installed (apt-get install direnv)")
    project = sandbox.work / "project"
    project.mkdir()
    (project / ".envrc").write_text("export PARSEC_DIRENV_PROBE=loaded\n")
    direnv = f'eval "$(direnv hook {shell})"\ndirenv allow {project} 2>/dev/null'
    if order == "parsec-first":
        sh = Shell(shell, sandbox, after=direnv)
    else:
        sh = Shell(shell, sandbox, before=direnv)
    sh.run("cd project")
    out = sh.run('echo "probe=${PARSEC_DIRENV_PROBE-}"')
    assert "probe=loaded" in out  # direnv's own hook still runs at the prompt
    sh.run("false | true")
    sh.exit()
    found = executions(sandbox, daemon, project, want=2)
    by = {e.command: e for e in found}
    assert by["false | true"].pipeline_statuses == [1, 0]
    assert 'echo "probe=${PARSEC_DIRENV_PROBE-}"' in by
