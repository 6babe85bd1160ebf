"""Prose whose command changes state is never run without asking (issue 16)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from parsec.routing import Classifier
from parsec.routing.danger import could_do_harm

DATA = Path(__file__).resolve().parent.parent / "data"

DANGEROUS_PROSE = [
    "exit Steam",  # bash exits with status 2
    "kill screen session 23536",  # bash still signals 23536
    'set alias "m" for command "mplayer -loop 0 -shuffle"',  # overwrites $1...
    "unset a secret",  # deletes $a and $secret
    "set password",
    "Set hash function",
    "install a driver",
    "export a cluster",
    "rm foo bar baz quux",
    "sudo kill the stuck agent",
    "shutdown the machine in 10 minutes",
    "chmod the script so it can run",
]
# Real uses of the same commands still run straight away.
DANGEROUS_COMMANDS = [
    "exit",
    "exit 1",
    "kill -9 1234",
    "kill %1",
    "sudo kill -HUP 1",
    "set -euo pipefail",
    "set -o vi",
    "set +x",
    "unset FOO",
    "unset -f myfunc",
    "export PATH=$PATH:/opt/bin",
    "source ~/.bashrc",
    ". venv/bin/activate",
    "rm -rf build",
    "mv a b",
    "cp notes.txt backup/",
    "shutdown now",
    "shutdown -h +10",
    'kill -TERM "$PID"',
    "chmod +x run.sh",
    "chown -R me: /srv",
    "dd if=/dev/zero of=disk.img bs=1M count=100",
    "truncate -s 0 app.log",
]


@pytest.mark.parametrize("line", DANGEROUS_PROSE)
def test_dangerous_prose_is_never_run_without_asking(classifier: Classifier, line: str) -> None:
    decision = classifier.classify(line)
    assert decision.decision != "command", decision


@pytest.mark.parametrize("line", DANGEROUS_COMMANDS)
def test_real_state_changing_commands_run(classifier: Classifier, line: str) -> None:
    assert classifier.classify(line).decision == "command", classifier.classify(line)


@pytest.mark.parametrize("part", ["eval_tuning.jsonl", "eval_frozen.jsonl", "classifier_corpus.jsonl"])
def test_no_dangerous_prose_is_run_in_any_corpus(classifier: Classifier, part: str) -> None:
    from parsec.routing.scoring import analyse

    run = []
    for raw in (DATA / part).read_text().splitlines():
        row = json.loads(raw)
        if row["label"] != "prompt":
            continue
        if not could_do_harm(analyse(row["text"], None, None, classifier.path_index)):
            continue
        if classifier.classify(row["text"]).decision == "command":
            run.append(row["text"])
    assert run == []


def test_plain_words_naming_files_here_are_a_command(classifier: Classifier, tmp_path: Path) -> None:
    (tmp_path / "Makefile").touch()
    (tmp_path / "docs").mkdir()
    assert classifier.classify("mv Makefile docs").decision == "ambiguous"  # no facts: ask
    assert classifier.classify("mv Makefile docs", cwd=str(tmp_path)).decision == "command"


@pytest.mark.parametrize("line", ["set x 1", "set fish_greeting", "set -gx PATH /opt/bin $PATH", "set x 1 2 3"])
def test_fish_set_is_an_assignment_not_prose(classifier, line):
    """fish assigns with `set NAME VALUE…`; the bash reading (`set` overwrites $1, so plain words
    after it are prose) must not apply when the hook says the shell is fish."""
    assert classifier.classify(line, "builtin", shell="fish").decision == "command"


def test_bash_set_with_plain_words_still_asks(classifier):
    assert classifier.classify("set x 1", "builtin", shell="bash").decision != "command"
    assert classifier.classify("set alias m for command mplayer", "builtin", shell="fish").decision != "command"


@pytest.mark.parametrize(
    "line",
    ["set password", "set condense option [default 60]", "set format", "set ap_scan parameter", "set theme dracula"],
)
def test_fish_set_with_a_word_for_a_name_asks(classifier, line):
    """`set password` in fish empties $password (`set -q password` is then true): a description
    typed as a request must not run unasked; nor is an assignment sent to the model unasked."""
    assert classifier.classify(line, "builtin", shell="fish").decision == "ambiguous"


@pytest.mark.parametrize(
    ("line", "shell"),
    [("path exclusion", "fish"), ("string theory", "fish"), ("disable SSL", "zsh"), ("log on", "zsh")],
)
def test_a_builtins_grammar_is_its_shells(classifier, line, shell):
    """fish: `path: exclusion: invalid subcommand`; zsh: `disable: no such hash table element:
    SSL`, `log: too many arguments` — words these builtins never take read as a phrase."""
    assert classifier.classify(line, "builtin", shell=shell).decision != "command"


@pytest.mark.parametrize(
    ("line", "shell"),
    [("path basename /a/b", "fish"), ("string split , a,b", "fish"), ("disable -a ll", "zsh"), ("log", "zsh")],
)
def test_a_builtin_used_as_its_shell_defines_it_runs(classifier, line, shell):
    assert classifier.classify(line, "builtin", shell=shell).decision == "command"


@pytest.mark.parametrize(
    "line",
    [
        "undo `git reset --hard HEAD~1`",
        "is `dd if=/dev/zero of=/dev/sda` safe",
        "meaning of `chmod -R 777 /`",
        "safe to run `sudo rm -rf /var/cache`?",
        "translate `find . -delete` to python",
        "explain `rm -rf build`",
        "difference between `git reset --hard` and `git checkout .`",
        "whats $(rm -rf ~/tmp) for",
    ],
)
def test_prose_quoting_code_in_a_substitution_is_never_run(classifier: Classifier, line: str) -> None:
    """bash runs a command substitution before it looks for the command: run as a command, these
    lines would wipe a disk or a directory, then report "is: command not found"."""
    assert classifier.classify(line, "none", shell="bash").decision != "command"
    assert classifier.classify(line).decision != "command"


@pytest.mark.parametrize(
    "line",
    [
        "X=$(date)",
        "echo `date`",
        "kill `pgrep firefox`",
        "$(which python) -m pip list",
        'kill $(pgrep -f "node server")',
        "export PATH=$(pwd)/bin:$PATH",
        "cd $(git rev-parse --show-toplevel)",
        "echo $((1 + 2))",
    ],
)
def test_commands_with_a_substitution_still_run(classifier: Classifier, line: str) -> None:
    """The words inside `$( )` are the inner command's: `kill` is not given 'pgrep', and
    `$(pwd)/bin` is one word, as it is to the shell."""
    assert classifier.classify(line).decision == "command"


@pytest.mark.parametrize(
    "line", ["help with `git reset --hard`", "sort out `rm -rf` problems", "ls says `ls -l` is slow"]
)
def test_a_sentence_around_a_substitution_asks_even_after_a_command(classifier: Classifier, line: str) -> None:
    """The first word resolves, but the shell would run the quoted code before it: English
    function words around it are enough to ask."""
    assert classifier.classify(line, "builtin" if line.startswith("help") else "file").decision == "ambiguous"


@pytest.mark.parametrize(
    "line", ["summarise > summary.md", "dump the db > backup.sql", "explain foo > bar", "redirect errors 2> errors.log"]
)
def test_prose_redirecting_to_a_file_is_never_run_when_its_first_word_is_no_command(
    classifier: Classifier, line: str
) -> None:
    """bash opens `> summary.md` (emptying it) before it finds no `summarise`."""
    assert classifier.classify(line, "none", shell="bash").decision != "command"


@pytest.mark.parametrize("line", ["mycmd >> out.txt", "mycmd 2>&1", "ls > files.txt", "echo hi &>> log"])
def test_redirections_that_empty_nothing_or_follow_a_command_run(classifier: Classifier, line: str) -> None:
    fact = "file" if line.startswith(("ls", "echo")) else "none"
    assert classifier.classify(line, fact, shell="bash").decision == "command"


# Issue 28: each command of a list is judged on its own arguments. Before, the words of a later
# command counted as the first one's (`kill`'s arguments `rm -f nohup.out`), so these asked.
CHAINED_COMMANDS = [
    "export FOO=bar; echo $FOO",
    "unset FOO; echo $FOO",
    "export X=1; cd dir && ls",
    "kill %1; rm -f nohup.out",
    "kill -9 $(pgrep node); echo done",
    "set | grep X",
    "alias | grep git",
    "export | grep PATH",
    "export PATH=$HOME/bin:$PATH; which python",
    "ls; for f in a b; do rm $f; done",
]


@pytest.mark.parametrize(
    ("line", "shell"),
    [
        (line, shell)
        for line in CHAINED_COMMANDS
        for shell in ("bash", "zsh", "fish")
        if (shell, line[:5]) != ("fish", "unset")
    ],
)
def test_each_command_of_a_list_is_judged_on_its_own_arguments(classifier: Classifier, line: str, shell: str) -> None:
    decision = classifier.classify(line, shell=shell)
    assert decision.decision == "command", decision


@pytest.mark.parametrize(
    "line",
    [
        "make && kill screen session 1",  # kill signals 1
        "cd /srv && sudo kill the stuck agent",  # sudo is looked through in a later command too
        "true; export key/value pairs",
    ],
)
def test_a_later_command_of_a_list_still_asks_about_words_it_never_takes(classifier: Classifier, line: str) -> None:
    assert classifier.classify(line).decision == "ambiguous"


LOOPS_IN_LISTS = [
    "cd /tmp; for f in $(ls); do echo $f; done",
    "export X=1; for f in $(ls); do echo $f; done",
    "select x in a b; do echo $x; break; done",
    "kill %1; for f in a b; do rm $f; done",
    "mkdir out; for f in $(ls *.md); do cp $f out/; done",
    "cd src && for f in $(git ls-files); do wc -l $f; done",
    "rm -f log; while read -r l; do echo $l >> log; done < in.txt",
    "export N=3; while [ $N -gt 0 ]; do N=$((N-1)); done",
    "source venv/bin/activate; for t in unit e2e; do pytest tests/$t; done",
]


@pytest.mark.parametrize("line", LOOPS_IN_LISTS)
def test_a_loops_in_and_do_are_grammar_not_english(classifier: Classifier, line: str) -> None:
    """The words of `for f in ...; do ...; done` after another command are the shell's grammar:
    they were counted as English function words, and these lines asked."""
    assert classifier.classify(line).decision == "command"
