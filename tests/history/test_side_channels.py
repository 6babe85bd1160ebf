"""Nothing raw on the side (issue 13): `parsec forget` reaches the classifier's learned lines, and
`parsec export -o FILE` is readable by its owner only. Real `parsec` in a subprocess, real SQLite."""

from __future__ import annotations

import os
import stat

from parsec.store import open_store

from .test_cli import db_url, recorded, run  # noqa: F401  (fixtures)


def test_forget_reaches_learned_classifier_choices(env, recorded) -> None:  # noqa: F811
    store = open_store(db_url(env))
    store.set_preference("classifier", "deploy|ww|2", {"choice": "command", "example": "deploy staging fastly9"})
    store.set_preference("classifier", "make|dww|3", {"choice": "command", "example": "make the tests pass"})
    store.close()
    done = run(env, "forget", "fastly9", "--yes")
    assert done.returncode == 0, done.stderr
    assert "1 learned choice" in done.stdout
    store = open_store(db_url(env))
    assert list(store.get_preferences("classifier")) == ["make|dww|3"]
    store.close()


def test_forget_reaches_the_sessions_environment_snapshots(env, recorded) -> None:  # noqa: F811
    from pathlib import Path

    from parsec.models.session import GlobalContext, Session

    store = open_store(db_url(env))
    session = Session(
        shell="bash",
        global_context=GlobalContext(
            working_directory="/srv", environment_snapshot={"DEPLOY_TARGET": "edge-fastly9zq", "LANG": "C.UTF-8"}
        ),
    )
    store.save_session(session)
    store.close()
    done = run(env, "forget", "fastly9zq", "--yes")
    assert done.returncode == 0, done.stderr
    assert "1 environment value" in done.stdout
    store = open_store(db_url(env))
    assert store.load_session(session.id).global_context.environment_snapshot == {"LANG": "C.UTF-8"}
    store.close()
    database = Path(db_url(env).removeprefix("sqlite:///"))
    for path in (database, database.with_name(database.name + "-wal")):
        assert not path.exists() or b"fastly9zq" not in path.read_bytes()


def test_export_to_a_file_is_private(env, recorded, tmp_path) -> None:  # noqa: F811
    target = tmp_path / "history.jsonl"
    target.write_text("old")
    os.chmod(target, 0o644)  # an existing file keeps no looser mode either
    done = run(env, "export", "-o", str(target))
    assert done.returncode == 0, done.stderr
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    fresh = tmp_path / "fresh.jsonl"
    assert run(env, "export", "-o", str(fresh)).returncode == 0
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o600 and fresh.read_text().count("\n") >= 40


def test_export_never_writes_into_what_another_user_planted(env, recorded) -> None:  # noqa: F811
    """In a directory others can write (a shared /tmp, a group project directory): a file another
    user made first (to read the history from it) and a symlink they planted (to make the export
    overwrite a file of ours) are replaced, never written through. A real second user."""
    import shutil

    from other_user import as_attacker, shared_tmp

    shared = shared_tmp()
    try:
        shared.chmod(0o777)  # no sticky bit: a group directory
        precreated, planted = shared / "history.jsonl", shared / "linked.jsonl"
        ours = shared / "ours"
        ours.mkdir(mode=0o700)
        (ours / "notes.txt").write_text("mine\n")
        made = as_attacker(
            [
                "sh",
                "-c",
                f"touch {precreated} && chmod 666 {precreated} && ln {precreated} {shared}/keep"
                f" && ln -s {ours / 'notes.txt'} {planted}",
            ]
        )
        assert made.returncode == 0, made.stderr
        for target in (precreated, planted):
            done = run(env, "export", "-o", str(target))
            assert done.returncode == 0, done.stderr
            info = os.lstat(target)
            assert stat.S_ISREG(info.st_mode) and info.st_uid == os.getuid() and stat.S_IMODE(info.st_mode) == 0o600
            assert target.read_text().count("\n") >= 40
        assert (shared / "keep").read_text() == ""  # the attacker's own file got nothing
        assert (ours / "notes.txt").read_text() == "mine\n"  # nor did the symlink's target
        assert sorted(p.name for p in shared.iterdir()) == ["history.jsonl", "keep", "linked.jsonl", "ours"]
    finally:
        shutil.rmtree(shared, ignore_errors=True)
