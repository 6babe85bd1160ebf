"""Project detection has one home: the daemon's session context and a workflow step's context
read the same markers in the same order (they disagreed on go.mod + pyproject.toml before)."""

from __future__ import annotations

from pathlib import Path

from parsec import directory_facts as environment
from parsec.daemon import sessions


def test_go_module_with_pyproject_is_go_for_daemon_and_context(tmp_path: Path) -> None:
    (tmp_path / "go.mod").write_text("module x\n")
    (tmp_path / "pyproject.toml").write_text("[tool.black]\n")
    assert environment.project_type(str(tmp_path)) == "go"
    assert sessions.detect_project_type(str(tmp_path)) == environment.detect_project_type(str(tmp_path))


def test_marker_in_an_ancestor_counts_in_both_contexts(tmp_path: Path) -> None:
    (tmp_path / "Cargo.toml").write_text("[package]\n")
    nested = tmp_path / "src" / "bin"
    nested.mkdir(parents=True)
    assert environment.project_type(str(nested)) == "rust"
    assert sessions.detect_project_type(str(nested)).value == "rust"


def test_workflow_side_sees_a_project_made_after_the_first_look(tmp_path: Path) -> None:
    # A step that runs `cargo init` must see the new project at the next step: no stale cache.
    assert environment.project_type(str(tmp_path)) is None
    (tmp_path / "Cargo.toml").write_text("[package]\n")
    assert environment.project_type(str(tmp_path)) == "rust"


def test_daemon_uses_the_one_detector() -> None:
    assert sessions.detect_project_type.__wrapped__ is environment.detect_project_type
    assert sessions.tools_on_path.__wrapped__ is environment.tools_on_path
