"""The risk check, as a table: parsed commands, not substrings."""

from __future__ import annotations

import os
import re

import pytest

from parsec.workflow.risk import assess

HOME = "/home/user"
CWD = "/home/user/project"

CASES = [
    # read-only allowlist
    ("ls -la", "low"),
    ("cat README.md | grep -n parsec", "low"),
    ("find . -name '*.py' -type f", "low"),
    ("git status", "low"),
    ("git log --format=%h -n 5", "low"),  # --format is not format
    ("git diff HEAD~1", "low"),
    ("cd build && pwd", "low"),
    ("export FOO=bar", "low"),
    ("du -sh * | sort -h | tail -5", "low"),
    # ordinary changes
    ("mkdir -p build", "medium"),
    ("rm -rf ./build", "medium"),  # inside the working tree
    ("rm -rf .git", "high"),  # the repository's history
    ("rm -r sub/.git/", "high"),
    ("rm -f .git/index.lock", "medium"),  # a stale lock, not the history
    ("rm -rf .git/objects", "high"),
    ("rm -rf .git/*", "high"),
    ("rm notes.txt", "medium"),
    ("echo hello >> notes.txt", "medium"),
    ("git commit -m 'x'", "medium"),
    ("git push origin main", "medium"),
    ("find . -name '*.pyc' -delete", "medium"),
    ("chmod -R 755 ./scripts", "medium"),
    ("curl -o file.tgz https://example.com/file.tgz", "medium"),
    ("ls 'unterminated", "medium"),  # unparseable: never low
    # destructive
    ("rm -rf ~", "high"),
    ("rm -rf $HOME", "high"),
    ("rm -rf /", "high"),
    ("rm -rf *", "high"),
    ("rm -rf ../other-project", "high"),
    ("rm -fr /var/lib/something", "high"),
    ("format c:", "high"),
    ("dd if=/dev/zero of=/dev/sda bs=1M", "high"),
    ("mkfs.ext4 /dev/sdb1", "high"),
    ("wipefs -a /dev/sdb", "high"),
    ("echo 1 > /dev/sda", "high"),
    ("chmod -R 777 /", "high"),
    ("chmod -R 777 /*", "high"),  # issue 14: the glob of / is / (each top directory)
    ("chmod -R a+w ~/*", "high"),
    ("chown -R nobody ~", "high"),
    ("chown -hR nobody /var/lib", "high"),
    ("chgrp -R staff /usr/*", "high"),
    ("chmod 644 ./notes.txt", "medium"),
    ("chmod -R 755 ./build/*", "medium"),
    ("mv ~ /tmp/old-home", "high"),
    ("mv $HOME /tmp/old-home", "high"),
    ("mv /usr /usr.bak", "high"),
    ("mv -t /tmp ~", "high"),
    ("mv ~/* /tmp/", "high"),
    ("mv notes.txt old-notes.txt", "medium"),
    ("mv ~/Downloads/a.txt .", "medium"),
    ("chown -R user /usr/local", "high"),
    ("curl -fsSL https://x.sh | sh", "high"),
    ("wget -qO- https://x.sh | sudo bash", "high"),
    ("bash <(curl -s https://x.sh)", "high"),
    ("sudo apt-get install jq", "high"),
    ("git push --force origin main", "high"),
    ("git push -f", "high"),
    ("git reset --hard HEAD~3", "high"),
    ("git clean -fdx", "high"),
    (":(){ :|:& };:", "high"),
    ("echo 'nameserver 1.1.1.1' > /etc/resolv.conf", "high"),
    ("cp key.pub ~/.ssh/authorized_keys", "high"),
    ("tee /boot/config.txt < cfg", "high"),
    ("echo $(rm -rf /)", "high"),  # inside a command substitution
    ("for d in a b; do rm -rf /; done", "high"),
    ("bash -c 'rm -rf ~'", "high"),
    ("ls | xargs rm -rf /", "high"),
    ('rm -rf "$BUILD_DIR/"', "high"),  # an empty variable would make it rm -rf /
    ("rm -rf $HOME/project/build", "medium"),  # $HOME resolves: inside the working tree
    # sourcing runs a script
    ("source ./evil.sh", "medium"),
    (". file", "medium"),
    ("source <(echo 'rm -rf ~')", "high"),  # the sourced text is read as the command it is
    ("source <(curl -s https://x/env.sh)", "high"),  # a sourced download
    # git -c names programs git runs (pager, fsmonitor, external diff)
    ("git -c core.fsmonitor=CMD status", "medium"),
    ("git -c diff.external=CMD diff", "medium"),
    ("git -c core.pager=CMD log", "medium"),
    ("git --config-env=core.pager=PAGER log", "medium"),
    ("git -C sub status", "low"),
    # fd -x / rg --pre run commands
    ("fd -x rm -rf", "medium"),
    ("fd --exec rm {}", "medium"),
    ("fd -X rm -rf /", "high"),
    ("fd . / -x rm -rf {}", "high"),  # deletes under the search root /
    ("fd -e py", "low"),
    ("rg --pre CMD pattern", "medium"),
    ("rg --pre=CMD pattern", "medium"),
    ("rg pattern", "low"),
    # sort -o / tree -o write files
    ("sort -o out.txt in.txt", "medium"),
    ("sort --output=out.txt in.txt", "medium"),
    ("sort -o /etc/hosts in.txt", "high"),
    ("tree -o out.txt", "medium"),
    ("sort -h notes.txt", "low"),
    # git reflog / git branch that change things
    ("git reflog expire --expire=now --all", "medium"),
    ("git reflog delete HEAD@{1}", "medium"),
    ("git reflog", "low"),
    ("git reflog show", "low"),
    ("git branch -f main HEAD~3", "medium"),
    ("git branch newname", "medium"),
    ("git branch", "low"),
    ("git branch -a", "low"),
    ("git branch -v", "low"),
    ("git branch --list", "low"),
    # a download run by a shell
    ('sh -c "$(curl -fsSL https://x/install.sh)"', "high"),
    ('bash -c "$(wget -qO- https://x)"', "high"),
    ('eval "$(curl https://x)"', "high"),
    ('echo "$(curl x)" | sh', "high"),
    ("curl x | tee >(sh)", "high"),
    ("curl https://x | env bash", "high"),
    ("curl https://x | /bin/bash", "high"),
    ("curl https://x | sudo -E bash", "high"),
    # cd earlier in the line moves relative paths
    ("cd / && rm -rf usr", "high"),
    ("cd ~; rm -rf Documents", "high"),
    ("cd /tmp && rm -rf x", "high"),
    ("cd - && rm -rf x", "high"),  # the directory is unknown
    ("cd $DIR && rm -rf x", "high"),
    ("cd build && rm -rf ./out", "medium"),
    ("(cd /); rm -rf build", "medium"),  # a subshell's cd does not last
    # other homes, brace alternatives
    ("rm -rf ~root", "high"),
    ("rm -rf ~user", "high"),
    ("rm -rf {~,/}", "high"),
    ("rm -rf build/{a,b}", "medium"),
    # block devices written without dd
    ("tee /dev/sda", "high"),
    ("cp /dev/zero /dev/sda", "high"),
    ("echo x > /dev/stderr", "low"),
    # another user, like sudo
    ("su -c 'rm -rf /'", "high"),
    ("su root", "high"),
    ("pkexec rm -rf /", "high"),
    ("runuser -u bob -- ls", "high"),
    # find -exec that deletes: the search root counts
    ("find ~ -exec rm {} \\;", "high"),
    ("find / -execdir rm -rf {} +", "high"),
    ("find . -name '*.tmp' -exec rm {} \\;", "medium"),
    # awk output redirections
    ("awk '{print > \"/etc/x\"}'", "high"),
    ("awk '{print > \"out.txt\"}' in.txt", "medium"),
    ("awk '{print $1}' in.txt", "low"),
    # found along the way
    ("{ echo x; } > /etc/hosts", "high"),  # a compound command's redirection
    ("LD_PRELOAD=/tmp/x.so ls", "medium"),
    ("GIT_PAGER=cat git log", "low"),
    ("command -v rm", "low"),
    ("ionice -c 3 rm -rf /", "high"),
    ("env -S 'rm -rf /'", "high"),
    ("ls | xargs -n 1 rm -rf", "medium"),
    # odd inputs are analysed, never raised on
    ("env -S", "low"),
    ("env --split-string", "low"),
    ("'' x", "medium"),
    # option values are not flag letters
    ("git branch --sort -committerdate", "low"),
    ("git tag -l 'v*'", "low"),
    ("git tag --list", "low"),
    ("git tag -v v1.0", "low"),
    ("git tag", "low"),
    ("git tag v1.0", "medium"),
    ("git tag -d v1.0", "medium"),
    ("git tag -m 'release' v1.0", "medium"),
    # >& with a file (not a descriptor) is &>
    ("cat /dev/zero >& /dev/sda", "high"),
    (": >& ~/.ssh/authorized_keys", "high"),
    ("echo hi >& out.txt", "medium"),
    ("echo hi 2>&1", "low"),
    ("echo hi >&2", "low"),
    ("echo hi 3>&-", "low"),
    # env -S in all its spellings
    ("env -S'rm -rf ~'", "high"),
    ("env --split-string='rm -rf ~'", "high"),
    ("env -S 'rm -rf ~'", "high"),
    ("env -iS 'rm -rf ~'", "high"),
    # sed: combined flags, scripts that execute or write
    ("sed -ri 's/a/b/' /etc/hosts", "high"),
    ("sed -Ei 's/a/b/' notes.txt", "medium"),
    ("sed -ni 's/a/b/p' notes.txt", "medium"),
    ("sed -Ei 's/a/b/' /etc/hosts", "high"),
    ("sed -ni 's/a/b/p' /etc/hosts", "high"),
    ("sed -i.bak -e 's/a/b/' /etc/hosts", "high"),
    ("sed 'w copy-of-f.txt' f", "medium"),  # a new file in the working tree (CWD does not exist here)
    ("sed 's/a/b/w out.txt' f", "medium"),
    ("sed -n 's/a/b/w /etc/x' f", "high"),
    ("sed '1e rm -rf ~' f", "high"),  # e runs a command: it is checked too
    ("sed 's/.*/date/e' f", "medium"),
    ("sed -f script.sed f", "medium"),
    ("sed -n 's/a/b/p' file", "low"),
    ("sed -e 's/a/b/' -e '/^#/d' file", "low"),
    ("sed ':a;N;$!ba;s/\\n/ /g' file", "low"),
    ("sed '$a text; w /etc/x' file", "low"),  # a's text runs to the end of the line
    ("sed -n '/start/,/end/{/x/p}' file", "low"),
    ("sed --sandbox 's/a/b/' file", "low"),
    # git writes files or runs commands
    ("git diff --output=out.patch", "medium"),
    ("git log --output out.log", "medium"),
    ("git diff --output=/etc/x", "high"),
    ("git grep -O'rm -rf ~'", "medium"),
    ("git grep --open-files-in-pager=vim x", "medium"),
    ("git grep -iO x", "medium"),
    ("git grep -e -O x", "low"),  # -O is the pattern
    ("git grep -n x", "low"),
    ("git config --unset x", "medium"),
    ("git config --unset-all x", "medium"),
    ("git config --remove-section x", "medium"),
    ("git config --rename-section a b", "medium"),
    ("git config -e", "medium"),
    ("git config --global --edit", "medium"),
    ("git config --add a.b c", "medium"),
    ("git config --replace-all a.b c", "medium"),
    ("git config set user.name x", "medium"),
    ("git config user.name x", "medium"),
    ("git config --get user.name", "low"),
    ("git config -l", "low"),
    ("git config --global user.name", "low"),
    ("git config -f other.cfg user.name", "low"),
    # an output operand is a write
    ("uniq a.txt b.txt", "medium"),
    ("uniq a.txt /etc/hosts", "high"),
    ("uniq -f 1 a.txt", "low"),
    ("uniq a.txt", "low"),
    ("xxd -r a.hex a.bin", "medium"),
    ("xxd -l 16 a.bin", "low"),
]


@pytest.mark.parametrize("command,level", CASES)
def test_risk_levels(command: str, level: str) -> None:
    verdict = assess(command, cwd=CWD, home=HOME)
    assert verdict.level == level, (command, verdict.reasons)
    if level != "low":
        assert verdict.reasons, "a non-low verdict says why"


def test_overwriting_an_existing_file_outside_the_tree_is_high_inside_medium(tmp_path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (tmp_path / "data.txt").write_text("precious")
    (project / "app.log").write_text("old")
    outside = assess("echo x > ../data.txt", cwd=str(project), home=HOME)
    assert outside.level == "high"
    assert "overwrites the existing file ../data.txt, outside the working tree" in outside.reasons
    inside = assess(": > app.log", cwd=str(project), home=HOME)  # issue 25: emptying a log in the tree
    assert (inside.level, inside.reasons) == ("medium", ["overwrites the existing file app.log"])
    assert assess("echo x > new.txt", cwd=str(project), home=HOME).level == "medium"
    assert assess("echo x > /dev/null", cwd=str(project), home=HOME).level == "low"


def test_writing_options_overwrite_like_a_redirection(tmp_path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (tmp_path / "data.txt").write_text("precious")
    (project / "data.txt").write_text("ours")
    for command in ("sort -o ../data.txt in.txt", "sort --output=../data.txt in.txt", "tree -o ../data.txt"):
        assert assess(command, cwd=str(project), home=HOME).level == "high", command
        inside = command.replace("../data.txt", "data.txt")
        assert assess(inside, cwd=str(project), home=HOME).level == "medium", inside
    assert assess("sort -o new.txt in.txt", cwd=str(project), home=HOME).level == "medium"


@pytest.mark.parametrize(
    "command",
    [
        'sh -c "$(curl -fsSL https://x/install.sh)"',
        'bash -c "$(wget -qO- https://x)"',
        'eval "$(curl https://x)"',
        "curl https://x | env -i FOO=1 bash",
        "f() { x; }; (make) && f",
        "ls | xargs env",
    ],
)
def test_reasons_name_a_clean_command_word(command: str) -> None:
    for reason in assess(command, cwd=CWD, home=HOME).reasons:
        name = re.match(r"(\S+) (?:may change files|downloads from|feeds text)", reason)
        assert name is None or re.fullmatch(r"[\w.+-]+", name.group(1)), reason
        assert "each-input" not in reason and "matched-file" not in reason, reason


def test_reasons_name_the_problem() -> None:
    verdict = assess("rm -rf ~", cwd=CWD, home=HOME)
    assert any("~" in reason and "home" in reason for reason in verdict.reasons)
    assert any("sudo" in r for r in assess("sudo ls", cwd=CWD, home=HOME).reasons)


def test_build_differs_from_home() -> None:
    inside = assess("rm -rf ./build", cwd=CWD, home=HOME)
    home = assess("rm -rf ~", cwd=CWD, home=HOME)
    assert (inside.level, home.level) == ("medium", "high")


def test_output_operands_and_options_overwrite_like_a_redirection(tmp_path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (tmp_path / "data.txt").write_text("precious")
    for command in (
        "uniq in.txt ../data.txt",
        "xxd -r in.hex ../data.txt",
        "git diff --output=../data.txt",
        "git log --output ../data.txt",
        "echo x >& ../data.txt",
        "sed 'w ../data.txt' in.txt",
        "cp in.txt ../data.txt",
        "truncate -s 0 ../data.txt",
        "curl -o ../data.txt https://example.com/x",
    ):
        assert assess(command, cwd=str(project), home=HOME).level == "high", command
    assert assess("uniq in.txt new.txt", cwd=str(project), home=HOME).level == "medium"


ODD_INPUTS = [
    "env -S",
    "env --split-string",
    "env -S ''",
    "env -u",
    "git -c",
    "git",
    "git -C",
    "sudo",
    "sudo -u",
    "find -exec",
    "find . -exec",
    "fd -x",
    "xargs",
    "xargs -I",
    "awk",
    "awk -f",
    "sed",
    "sed -i",
    "sed -e",
    "sed 's/a'",
    "sed 'w'",
    "sed '\\'",
    "''",
    '""',
    "'' ''",
    "timeout",
    "nice -n",
    "su -c",
    "runuser -u",
    "cd",
    "pushd",
    "kill",
    "sh -c",
    "eval",
    "uniq",
    "xxd -r",
    "git grep -O",
    "git config",
    "git tag -l",
    "echo >&",
    "echo 2>&",
    "x=",
    "$(",
    "<(ls)",
    "f() { f; }",
    "!",
    "&",
    ";",
    "|",
    "{ ; }",
]


@pytest.mark.parametrize("command", ODD_INPUTS)
def test_odd_input_is_analysed_without_raising(command: str) -> None:
    verdict = assess(command, cwd=CWD, home=HOME)
    assert verdict.level in ("low", "medium", "high")
    assert "could not be analysed; check it by eye" not in verdict.reasons, command


def test_an_unexpected_error_gives_a_medium_verdict(monkeypatch) -> None:
    from parsec.workflow import risk

    def broken(*args, **kwargs):
        raise IndexError("a bug")

    monkeypatch.setattr(risk._Checker, "_command", broken)
    verdict = assess("ls", cwd=CWD, home=HOME)
    assert (verdict.level, verdict.reasons) == ("medium", ["could not be analysed; check it by eye"])
    monkeypatch.setattr(risk._Checker, "check", broken)  # outside the tree walk too
    assert assess("ls", cwd=CWD, home=HOME).level == "medium"


def test_an_error_keeps_what_was_found_before_it(monkeypatch) -> None:
    from parsec.workflow import risk

    def broken(self, rest, verdict):
        raise IndexError("a bug")

    monkeypatch.setattr(risk._Checker, "_cmd_ls", broken, raising=False)
    assert assess("rm -rf /; ls", cwd=CWD, home=HOME).level == "high"


SHELL_PIECES = [
    "env",
    "-S",
    "-iS",
    "--split-string=",
    "git",
    "-c",
    "-C",
    "tag",
    "branch",
    "config",
    "grep",
    "-O",
    "--output",
    "sed",
    "-i",
    "-ri",
    "-e",
    "'1e ls'",
    "'w x'",
    "s/a/b/",
    "awk",
    "find",
    "-exec",
    "{}",
    "\\;",
    "xargs",
    "sudo",
    "timeout",
    "1",
    "uniq",
    "xxd",
    "rm",
    "-rf",
    "~",
    "/",
    "cd",
    "..",
    "sh",
    "-c",
    "eval",
    "'",
    '"',
    "$",
    "$(",
    ")",
    "(",
    "{",
    "}",
    ";",
    "|",
    "&",
    "&&",
    ">",
    ">&",
    "2>&1",
    "<",
    "<(",
    "=",
    "X=",
    "*",
    "--",
    "-",
    "",
]


def test_random_shell_text_never_raises_and_is_always_analysed() -> None:
    pytest.importorskip("hypothesis")
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    pieces = st.lists(st.sampled_from(SHELL_PIECES), max_size=12)
    joiners = st.sampled_from([" ", "", " ; ", "\n"])

    @settings(max_examples=300, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(pieces, joiners)
    def check(words: list[str], joiner: str) -> None:
        verdict = assess(joiner.join(words), cwd=CWD, home=HOME)
        assert verdict.level in ("low", "medium", "high")
        assert verdict.level == "low" or verdict.reasons
        assert "could not be analysed; check it by eye" not in verdict.reasons, words

    check()


def test_default_cwd_is_the_process_cwd(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert assess("rm -rf sub").level == "medium"
    assert assess(f"rm -rf {os.path.dirname(tmp_path)}").level == "high"
