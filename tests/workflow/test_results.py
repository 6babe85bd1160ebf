"""Artifacts (git status inside a repository, a file snapshot outside) and environment changes."""

from __future__ import annotations

import subprocess

from parsec.workflow.execution.results import _work_tree_top, artifacts_between, environment_changes, take_snapshot
from parsec.workflow.run.handoff import append_history, write_final_directory


def test_snapshot_outside_git(tmp_path) -> None:
    (tmp_path / "old.txt").write_text("a")
    (tmp_path / "gone.txt").write_text("b")
    before = take_snapshot(str(tmp_path))
    (tmp_path / "old.txt").write_text("changed")
    (tmp_path / "gone.txt").unlink()
    (tmp_path / "new").mkdir()
    (tmp_path / "new" / "file.txt").write_text("c")
    changes = {
        (a.path.rsplit("/", 2)[-1] if "new/" in a.path else a.path.rsplit("/", 1)[-1], a.change)
        for a in artifacts_between(before, take_snapshot(str(tmp_path)), 0)
    }
    assert changes == {("old.txt", "modified"), ("gone.txt", "deleted"), ("new", "created"), ("file.txt", "created")}


def test_git_status_inside_a_repository(tmp_path) -> None:
    run = lambda *args: subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True)  # noqa: E731
    run("init", "-q")
    (tmp_path / "tracked.txt").write_text("1")
    run("-c", "user.email=t@t", "-c", "user.name=t", "add", "tracked.txt")
    run("-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "init")
    before = take_snapshot(str(tmp_path))
    assert before.git == {}
    (tmp_path / "tracked.txt").write_text("2")
    (tmp_path / "added.txt").write_text("new")
    found = {(a.path.rsplit("/", 1)[-1], a.change) for a in artifacts_between(before, take_snapshot(str(tmp_path)), 1)}
    assert found == {("tracked.txt", "modified"), ("added.txt", "created")}


def test_the_work_tree_found_without_git_is_the_one_git_finds(tmp_path, monkeypatch) -> None:
    """results.py looks for `.git` itself (a snapshot runs before and after every command); its
    answer, against `git rev-parse --show-toplevel`, from a repository, a subdirectory, a linked
    worktree (a `.git` file), a symlink into a repository and a plain directory."""
    monkeypatch.delenv("GIT_DIR", raising=False)
    monkeypatch.delenv("GIT_WORK_TREE", raising=False)
    git = lambda *args: subprocess.run(["git", *args], cwd=tmp_path, capture_output=True, text=True)  # noqa: E731
    repo, plain = tmp_path / "repo", tmp_path / "plain"
    (repo / "sub" / "deeper").mkdir(parents=True)
    plain.mkdir()
    git("init", "-q", str(repo))
    (repo / "f").write_text("1")
    git("-C", str(repo), "add", "f")
    git("-C", str(repo), "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "init")
    git("-C", str(repo), "worktree", "add", "-q", str(tmp_path / "linked"))
    (tmp_path / "linked" / "inner").mkdir()
    (tmp_path / "link").symlink_to(repo / "sub")
    places = [repo, repo / "sub" / "deeper", tmp_path / "linked" / "inner", tmp_path / "link", plain]
    for place in places:
        asked = git("-C", str(place), "rev-parse", "--show-toplevel")
        expected = asked.stdout.strip() if asked.returncode == 0 else None
        assert _work_tree_top(str(place)) == expected, place
    assert take_snapshot(str(plain)).git is None
    assert take_snapshot(str(tmp_path / "linked" / "inner")).git == {}
    monkeypatch.setenv("GIT_DIR", str(repo / ".git"))  # git alone knows where that leads
    assert _work_tree_top(str(plain)) == ""


def test_environment_changes_mask_secrets() -> None:
    changes = environment_changes(
        "/a",
        "/b",
        {"PATH": "/bin", "X": "1"},
        {"PATH": "/venv/bin:/bin", "TOKEN": "s3cret"},
        2,
        mask=lambda v: "[REDACTED]" if v == "s3cret" else v,
    )
    assert [(c.kind, c.name, c.old_value, c.new_value) for c in changes] == [
        ("cwd", "", "/a", "/b"),
        ("path", "PATH", "/bin", "/venv/bin:/bin"),
        ("env_var", "TOKEN", None, "[REDACTED]"),
        ("env_var", "X", "1", None),
    ]


def test_handoff_files(tmp_path) -> None:
    env = {"PARSEC_CD_FILE": str(tmp_path / "cd"), "HISTFILE": str(tmp_path / "hist")}
    assert write_final_directory("/srv/app", env)
    assert (tmp_path / "cd").read_text() == "/srv/app\n"
    (tmp_path / "zsh_history").write_text(": 1700000000:0;ls\n")
    assert append_history(["make", "make test"], env)
    assert (tmp_path / "hist").read_text() == "make\nmake test\n"
    assert append_history(["pwd"], {"HISTFILE": str(tmp_path / "zsh_history")})
    assert (tmp_path / "zsh_history").read_text().splitlines()[-1].endswith(":0;pwd")
    assert not write_final_directory("/x", {})


def test_a_virtualenv_and_directories_are_artifacts_inside_and_outside_git(tmp_path) -> None:
    """Issue 14 item 6: `.venv` is recorded (not walked into); created directories count in a repository too."""
    for root in (tmp_path / "plain", tmp_path / "repo"):
        root.mkdir()
        if root.name == "repo":
            subprocess.run(["git", "init", "-q"], cwd=root, check=True)
        before = take_snapshot(str(root))
        (root / ".venv" / "bin").mkdir(parents=True)
        (root / ".venv" / "bin" / "python").write_text("")
        (root / "empty-dir").mkdir()
        created = {a.path for a in artifacts_between(before, take_snapshot(str(root)), 0) if a.change == "created"}
        assert {str(root / ".venv"), str(root / "empty-dir")} <= created, root
        assert str(root / ".venv" / "bin" / "python") not in created or root.name == "repo"


def test_handoff_never_follows_a_planted_symlink(tmp_path) -> None:
    """Another user's symlink in place of the cd file must not truncate the file it points to."""
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    victim = tmp_path / "precious"
    victim.write_text("keep me\n")
    (runtime / "cd-42").symlink_to(victim)
    assert not write_final_directory("/srv/app", {"PARSEC_CD_FILE": str(runtime / "cd-42")})
    assert victim.read_text() == "keep me\n"


def test_handoff_refuses_a_directory_others_may_enter(tmp_path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    assert not write_final_directory("/srv/app", {"PARSEC_CD_FILE": str(shared / "cd-42")})
    assert not (shared / "cd-42").exists()
    shared.chmod(0o700)
    assert write_final_directory("/srv/app", {"PARSEC_CD_FILE": str(shared / "cd-42")})
    assert (shared / "cd-42").stat().st_mode & 0o777 == 0o600
