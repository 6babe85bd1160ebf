"""`parsec init bash --uninstall` removes the login file's PATH block wherever the install put it."""

from __future__ import annotations

from parsec.cli.shell import rc_file


def test_uninstall_finds_the_login_block_after_a_bash_profile_appeared(tmp_path, monkeypatch):
    """Installed with no login file, the PATH line went to a new ~/.profile; a ~/.bash_profile
    made since (bash then reads only that one) must not leave the block behind at uninstall."""
    monkeypatch.setenv("HOME", str(tmp_path))
    hook = tmp_path / "hook.bash"
    hook.write_text("")
    rc_file.install("bash", hook, str(tmp_path / "bin" / "parsec"))
    assert rc_file.BEGIN in (tmp_path / ".profile").read_text()
    (tmp_path / ".bash_profile").write_text("# the user's own login file\n")

    done = rc_file.uninstall("bash", hook)

    assert not (tmp_path / ".profile").exists(), done  # it held only Parsec's lines
    assert (tmp_path / ".bash_profile").read_text() == "# the user's own login file\n"
    assert rc_file.BEGIN not in (tmp_path / ".bashrc").read_text()


def test_an_rc_file_that_cannot_be_written_is_one_line_not_an_internal_error(tmp_path):
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if not k.startswith("PARSEC_")}
    env.update(HOME=str(tmp_path), XDG_CONFIG_HOME=str(tmp_path / "c"), XDG_DATA_HOME=str(tmp_path / "d"))
    (tmp_path / ".bashrc").mkdir()  # not a file: no user can write it
    done = subprocess.run(
        [sys.executable, "-m", "parsec.cli.entry", "init", "bash", "--install"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert done.stderr == f"parsec: cannot update {tmp_path / '.bashrc'}: Is a directory\n"
