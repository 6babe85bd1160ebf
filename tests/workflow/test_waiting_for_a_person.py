"""Commands that would wait for a person at the terminal (parsec/workflow/risk/needs_a_person.py):
the detector as a table, then `parsec ask --yes` for real against the stub model, where such a
command is not run and the model is asked for another (or, when it insists, the run stops)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from parsec.workflow.execution.sandbox import find_bwrap
from parsec.workflow.risk.needs_a_person import waits_for_a_person
from parsec.workflow.run.outcome import EXIT_CODES

from .conftest import finished_step, plan, queue, run_unattended, step, user_messages

# (command line, the program named as the one that waits)
WAITS = [
    ("vim sorted.txt", "vim"),
    ("crontab -e", "crontab -e"),
    ("visudo", "visudo"),
    ("kubectl edit deploy/web", "kubectl edit"),
    ("systemctl edit nginx", "systemctl edit"),
    ("vi notes.txt", "vi"),
    ("nano notes.txt", "nano"),
    ("emacs notes.txt", "emacs"),
    ("less notes.txt", "less"),
    ("more notes.txt", "more"),
    ("man ls", "man"),
    ("info ls", "info"),
    ("top", "top"),
    ("top -d 1", "top"),
    ("htop", "htop"),
    ("watch -n 1 ls", "watch"),
    ("tmux", "tmux"),
    ("tmux new -s work", "tmux"),
    ("screen", "screen"),
    ("fzf", "fzf"),
    ("mc", "mc"),
    ("python3", "python3"),
    ("python3 -i script.py", "python3"),
    ("node", "node"),
    ("bash", "bash"),
    ("perl", "perl"),
    ("psql", "psql"),
    ("psql -h localhost -U app", "psql"),
    ("sqlite3 app.db", "sqlite3"),
    ("mysql -u root", "mysql"),
    ("ipython", "ipython"),
    ("redis-cli -h localhost", "redis-cli"),
    ("bc -l", "bc"),
    ("gdb ./a.out", "gdb"),
    ("sftp user@host", "sftp"),
    ("at now + 1 minute", "at"),
    ("ssh host", "ssh"),
    ("ssh -p 2222 -i key user@host", "ssh"),
    ("ssh -N -L 8080:localhost:80 host", "ssh -N"),
    ("vim -es notes.txt", "vim"),  # Ex mode with nothing to read but the terminal
    ("ex -s notes.txt", "ex"),
    ("git commit", "git commit"),
    ("git commit --amend", "git commit"),
    ("git commit -a", "git commit"),
    ("git commit -m wip -e", "git commit"),  # -e opens the editor anyway
    ("git -C repo commit", "git commit"),
    ("git rebase -i HEAD~3", "git rebase -i"),
    ("git rebase --interactive main", "git rebase -i"),
    ("git add -p", "git add"),
    ("git add --interactive", "git add"),
    ("git checkout -p", "git checkout"),
    ("git stash push -p", "git stash"),
    ("git clean -i", "git clean"),
    ("git tag -a v1.0", "git tag"),
    ("git mergetool", "git mergetool"),
    ("git log", "git log"),  # no pager setting: less
    ("git -C repo diff", "git diff"),
    # wrappers
    ("sudo vim /etc/hosts", "vim"),
    ("env FOO=1 nice -n 5 less notes.txt", "less"),
    ("timeout 5 htop", "htop"),
    ("nohup top", "top"),
    ("/usr/bin/vim notes.txt", "vim"),
    # anywhere in the line
    ("ls && vim notes.txt", "vim"),
    ("cd src; nano main.c", "nano"),
    ("cat notes.txt | less", "less"),  # a pager at the end of a pipeline
    ("sort notes.txt | uniq | less -S", "less"),
    ("echo $(vim notes.txt)", "vim"),  # the editor still reads the terminal
    ("cat <(man ls) | less", "less"),
    ("if true; then vim notes.txt; fi", "vim"),
    ("for f in *.txt; do nano $f; done", "nano"),
    ("{ less notes.txt; }", "less"),
    ("make || git commit -a", "git commit"),
    # bashlex cannot read these: judged word by word
    ("vim notes.txt 'unclosed", "vim"),
    ("ls | less 'unclosed", "less"),
]

DOES_NOT_WAIT = [
    "crontab -l",
    "kubectl get pods",
    "systemctl status nginx",
    "ls -la",
    "sed -i 's/a/b/' notes.txt",
    "cat notes.txt",
    "less notes.txt > out.txt",  # output not the terminal: less copies it
    "less notes.txt | head",
    "man ls | cat",
    "man -k printf",
    "man -P cat ls",
    "MANPAGER=cat man ls",
    "x=$(less notes.txt) true",  # captured output
    "git --no-pager log",
    "git -P diff",
    "git -c core.pager=cat log",
    "PAGER=cat git log",
    "env GIT_PAGER=cat git log",
    "git log | head",
    "git diff > changes.patch",
    "git status",
    "git commit -m 'fix'",
    "git commit -am 'fix'",
    "git commit --amend --no-edit",
    "git commit -F message.txt",
    "git commit --fixup=HEAD",
    "GIT_EDITOR=true git commit",
    "git -c core.editor=true commit",
    "git rebase main",
    "git tag -a v1.0 -m 'release'",
    "git stash show -p",
    "git log -p -n 3 | cat",
    "python3 script.py",
    "python3 -c 'print(1)'",
    "python3 -m http.server",
    "python3 -V",
    "echo 'print(1)' | python3",  # input from a pipe
    "python3 < script.py",
    "node app.js",
    "node -e 'console.log(1)'",
    "bash script.sh",
    "bash -c 'ls'",
    "echo ls | bash",
    "psql -c 'select 1'",
    "psql -f schema.sql",
    "psql -l",
    "mysql app < dump.sql",
    "sqlite3 app.db .tables",
    "sqlite3 app.db 'select 1'",
    "ipython script.py",
    "redis-cli PING",
    "echo '1+1' | bc",
    "gdb -batch -ex run ./a.out",
    "at -l",
    "vim -es -c '%s/a/b/g' -c wq notes.txt",
    "vim -c '%s/a/b/g | wq' notes.txt",
    "vim +'%s/a/b/' +wq notes.txt",
    "ex -s notes.txt <<EOF\n%s/a/b/\nwq\nEOF",
    "printf '%s\\n' '%s/a/b/' wq | ex -s notes.txt",
    "emacs --batch -l build.el",
    "emacsclient -n notes.txt",
    "vim --version",
    "less --help",
    "top -b -n 1",
    "top -bn1 | head -20",
    "fzf -f query < list.txt",
    "tmux ls",
    "tmux new -d -s work",
    "screen -dmS work make",
    "ssh host ls",
    "ssh host 'uptime; df -h'",
    "ssh host < script.sh",
    "ssh -V",
    "ls 'unclosed",
]


@pytest.mark.parametrize(("line", "program"), WAITS)
def test_waits(line: str, program: str) -> None:
    found = waits_for_a_person(line)
    assert found is not None, line
    assert found.program == program, (line, found)
    assert found.why and "\n" not in found.why


@pytest.mark.parametrize("line", DOES_NOT_WAIT)
def test_does_not_wait(line: str) -> None:
    assert waits_for_a_person(line) is None, (line, waits_for_a_person(line))


def test_the_shells_pager_settings_count() -> None:
    """Under --yes Parsec's shell has PAGER=cat, GIT_PAGER=cat, MANPAGER=cat (start.py): man and
    git log print and return; a pager named outright still waits."""
    env = {"PAGER": "cat", "GIT_PAGER": "cat", "MANPAGER": "cat"}
    assert waits_for_a_person("git log", env) is None
    assert waits_for_a_person("man ls", env) is None
    assert waits_for_a_person("git log", {"GIT_PAGER": "less"}) is not None
    assert waits_for_a_person("less notes.txt", env) is not None
    assert waits_for_a_person("GIT_PAGER=less git log", env) is not None  # the line's own setting wins


def test_nothing_makes_it_raise() -> None:
    for line in ["", "   ", "((", "$(", "`", "|", "<<EOF", "a=1", "'", "vim \\", "\x00"]:
        waits_for_a_person(line)


# --- `parsec ask --yes`, end to end ---------------------------------------------------------------


@pytest.fixture
def work(tmp_path: Path, env: dict[str, str]) -> Path:
    """A project with notes and a fake vim early on PATH that leaves a mark in the project if it
    ever starts (the project is writable inside the sandbox), then exits."""
    if not find_bwrap()[0]:  # without a sandbox --yes declines every medium-risk command first
        pytest.skip(f"no sandbox can start here: {find_bwrap()[1]}")
    directory = tmp_path / "work"
    directory.mkdir()
    (directory / "notes.txt").write_text("apple\nbanana\n")
    fakes = tmp_path / "fakebin"
    fakes.mkdir()
    for name in ("vim", "less", "top"):
        fake = fakes / name
        fake.write_text(f'#!/bin/sh\necho "$0 $*" >> "$PWD/{name}-started"\n')
        fake.chmod(0o755)
    env["PATH"] = f"{fakes}:{env['PATH']}"
    return directory


def test_yes_asks_again_instead_of_starting_vim(stub, env, work: Path) -> None:
    queue(
        stub,
        plan("Replace apple with cherry in notes.txt"),
        step("vim notes.txt"),
        step("sed -i 's/apple/cherry/' notes.txt"),
        finished_step("replaced"),
    )
    result = run_unattended(["ask", "--yes", "--json", "replace apple with cherry"], env, work)
    assert result.returncode == 0, result.stderr
    assert not (work / "vim-started").exists()
    assert (work / "notes.txt").read_text() == "cherry\nbanana\n"
    commands = json.loads(result.stdout)["steps"][0]["commands"]
    assert [(c["command"], c["approval"], c["ran"]) for c in commands] == [
        ("vim notes.txt", "declined", False),
        ("sed -i 's/apple/cherry/' notes.txt", "auto_approved", True),
    ]
    told = [line for line in result.stderr.splitlines() if "Not run:" in line]
    assert len(told) == 1 and "`vim` waits for a person at the terminal" in told[0], result.stderr
    retry = user_messages(stub)[2]  # the request after the refusal says why, and lists the command
    assert "this run is unattended (--yes): give a command that does not wait for input" in retry
    assert "`vim notes.txt`" in retry


def test_yes_stops_when_the_model_offers_only_programs_that_wait(stub, env, work: Path) -> None:
    queue(stub, plan("Look at the notes"), step("vim notes.txt"), step("less notes.txt"), step("top"))
    result = run_unattended(["ask", "--yes", "--json", "look at the notes"], env, work)
    assert result.returncode == EXIT_CODES["declined"], result.stderr
    assert not list(work.glob("*-started"))
    document = json.loads(result.stdout)
    assert document["status"] == "declined"
    message = document["error"]["message"]
    assert message.startswith("declined under --yes: the model's commands for step 1 wait for a person")
    assert "3 in a row" in message and "\n" not in message
    assert [c["ran"] for c in document["steps"][0]["commands"]] == [False, False, False]
    assert len(stub.model_requests()) == 4  # the plan and three step replies: no fourth ask
