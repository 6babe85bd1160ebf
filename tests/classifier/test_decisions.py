"""Table-driven checks of the classifier's decisions: hard cases both ways, overrides, shell facts."""

from __future__ import annotations

import pytest

from parsec.routing import Classifier, Decision

# Prose that starts with a command name, or carries paths, globs and flags: must never be run.
HARD_PROSE = [
    "find all python files",
    "make the tests pass",
    "touch up the readme",
    "kill all the node processes",
    "rm the old logs",
    "sort out the imports in this project",
    "cat the file and count the words",
    "git rid of all the merged branches",
    "which version of python is installed",
    "who is logged in right now",
    "time how long the build takes",
    "what's taking up all my disk space",
    "how do I undo a git rebase",
    "please delete the temporary files",
    "Find all *.txt files under /tmp and print their names",
    "Delete files older than 30 days in /tmp",
    "how to use find with -exec",
    "is rm -rf / dangerous?",
    "for each file in the folder print its size",
    "do it again but verbose",
    "sudo make me a sandwich",
    "hello",
    "thanks, that worked",
]
# Real commands, many with English words in them: must never go to the LLM.
HARD_COMMANDS = [
    'git commit -m "fix the bug in the parser"',
    "git commit -am 'make the tests pass again'",
    'echo "hello there how are you"',
    "echo hello there how are you",
    "./configure --prefix=/usr/local",
    "make",
    "make all",
    "make install",
    "find . -name '*.py' | xargs wc -l",
    "touch README.md",
    "kill -9 1234",
    "which python",
    "time make",
    'for f in *.txt; do echo "$f"; done',
    "if [ -f x ]; then echo yes; fi",
    "FOO=bar ./run.sh",
    "sort file.txt | uniq -c | sort -rn | head",
    "cd ..",
    "ls",
    "mv a b",
    'git log --since "two weeks ago"',
    'grep -rn "the quick brown fox" .',
    "sudo apt update && sudo apt upgrade -y",
    "kubectl get pods -n kube-system",
    "tar -czf {{target.tar.gz}} {{path/to/file}}",
    "git bisect reset   # quit the bisect session",
    "(cd /tmp && ls)",
]


@pytest.mark.parametrize("line", HARD_PROSE)
def test_hard_prose_is_a_prompt(classifier: Classifier, line: str) -> None:
    decision = classifier.classify(line)
    assert decision.decision == "prompt", decision


@pytest.mark.parametrize("line", HARD_COMMANDS)
def test_hard_commands_are_commands(classifier: Classifier, line: str) -> None:
    decision = classifier.classify(line)
    assert decision.decision == "command", decision


@pytest.mark.parametrize(
    ("line", "expected", "reason_part"),
    [
        ("?ls -la", "prompt", "'?'"),
        ("? what does ls do", "prompt", "'?'"),
        ("\\find all python files", "command", "'\\'"),
        ("command make the tests pass", "command", "'command'"),
        ("   ?make", "prompt", "'?'"),
    ],
)
def test_explicit_overrides_win(classifier: Classifier, line: str, expected: str, reason_part: str) -> None:
    decision = classifier.classify(line)
    assert (decision.decision, decision.confidence) == (expected, 1.0)
    assert reason_part in decision.reason


@pytest.mark.parametrize(
    ("line", "fact", "without", "with_fact"),
    [
        ("gti status", "alias", None, "command"),  # the user's alias for a typo-prone command
        ("list files", "function", None, "command"),
        ("find all python files", "none", "prompt", "prompt"),
        ("deploy", "alias", None, "command"),
    ],
)
def test_shell_facts_change_the_decision(
    classifier: Classifier, line: str, fact: str, without: str | None, with_fact: str
) -> None:
    baseline = classifier.classify(line)
    informed = classifier.classify(line, first_word=fact)
    if without is not None:
        assert baseline.decision == without
    assert informed.decision == with_fact, informed
    if fact == "none":  # "not a command" can only add prose evidence
        assert informed.prose_score >= baseline.prose_score
    else:
        assert informed.prose_score <= baseline.prose_score


def test_a_shell_alias_fact_lowers_the_prose_score(classifier: Classifier) -> None:
    as_word = classifier.classify("tidy the workspace", first_word="none")
    as_alias = classifier.classify("tidy the workspace", first_word="alias")
    assert as_alias.prose_score < as_word.prose_score
    assert "alias" in as_alias.reason


@pytest.mark.parametrize("line", ["ls the biggest files", "diff between two folders", "ls all files bigger than 1GB"])
@pytest.mark.parametrize("shell", ["bash", "zsh"])
def test_an_alias_over_a_program_weighs_as_the_program(classifier: Classifier, line: str, shell: str) -> None:
    """Debian's default .bashrc aliases `ls` to `ls --color=auto`: the hook then sends "alias",
    which is no sign the user chose the word, so the line routes as it would for the program."""
    program = classifier.classify(line, first_word="file", shell=shell)
    aliased = classifier.classify(line, first_word="alias", shell=shell)
    assert aliased.decision == program.decision == "prompt", aliased


def test_a_line_the_shell_cannot_parse_leans_to_prose(classifier: Classifier) -> None:
    parsed = classifier.classify("build docs site", parses=True)
    unparsed = classifier.classify("build docs site", parses=False)
    assert unparsed.prose_score > parsed.prose_score


def test_unknown_fact_values_are_ignored(classifier: Classifier) -> None:
    assert classifier.classify("ls -la", first_word="banana").decision == "command"


def test_the_reason_names_the_evidence(classifier: Classifier) -> None:
    assert "function words" in classifier.classify("kill all the node processes").reason
    assert "flag" in classifier.classify("ls -la /tmp").reason
    assert "|" in classifier.classify("cat x | grep y").reason


def test_thresholds_come_from_settings() -> None:
    from parsec.config import Settings

    settings = Settings.model_validate({"classifier": {"command_threshold": 0.05, "prompt_threshold": 0.999}})
    strict = Classifier(settings=settings)
    assert strict.classify("find all python files").decision == "ambiguous"
    assert strict.classify("ls -la | wc -l").decision == "command"


def test_disabled_classifier_sends_everything_to_the_shell_except_overrides() -> None:
    from parsec.config import Settings

    off = Classifier(settings=Settings.model_validate({"classifier": {"enabled": False}}))
    assert off.classify("how do I undo a git rebase").decision == "command"
    assert off.classify("?how do I undo a git rebase").decision == "prompt"


def test_decision_is_a_frozen_value() -> None:
    decision = Decision("command", 0.9, "why")
    with pytest.raises(AttributeError):
        decision.decision = "prompt"  # type: ignore[misc]
    assert decision.as_dict() == {"decision": "command", "leans": "command", "confidence": 0.9, "reason": "why"}


def test_an_ambiguous_decision_says_which_way_it_leans(classifier: Classifier) -> None:
    decision = classifier.classify("unset a secret")
    assert decision.decision == "ambiguous" and decision.leans == "command"
    assert decision.describe().startswith("ambiguous, leans command (")
    assert Decision("ambiguous", 0.6, "why", 0.6).leans == "prompt"


def test_arguments_naming_files_in_the_users_directory_count(classifier: Classifier, tmp_path) -> None:
    (tmp_path / "notes").write_text("x")
    (tmp_path / "draft").write_text("x")
    elsewhere = classifier.classify("tidy notes draft", first_word="none")
    here = classifier.classify("tidy notes draft", first_word="none", cwd=str(tmp_path))
    assert here.prose_score < elsewhere.prose_score
    assert "existing files" in here.reason


# Issue 16: the hook runs a one-word line whose word resolves without asking the daemon
# (`__parsec_plain_command`); the classifier, and so `parsec classify`, must say the same.
# When the hook says the word does not resolve (first_word="none"), a reply word is prose and
# `true` stays the well-known command it is.
@pytest.mark.parametrize(
    ("word", "unresolved"), [("yes", "prompt"), ("nice", "prompt"), ("continue", "prompt"), ("true", "command")]
)
def test_one_word_that_resolves_is_a_command_as_in_the_hook(classifier: Classifier, word: str, unresolved: str) -> None:
    assert classifier.classify(word).decision == "command"
    assert classifier.classify(word, first_word="none").decision == unresolved


def test_one_word_reply_that_does_not_resolve_is_a_prompt(classifier: Classifier) -> None:
    assert classifier.classify("hello", first_word="none").decision == "prompt"
    assert classifier.classify("thanks").decision == "prompt"


@pytest.mark.parametrize(
    "line",
    [
        "for f in *; do case $f in *.txt) echo text;; *) echo other thing;; esac; done",
        'while read -r line; do case "$line" in the*) echo starts with the;; esac; done < notes.txt',
        "for x in one two three; do case $x in one) echo first;; *) echo not the first;; esac; done",
    ],
)
def test_case_inside_a_loop_is_a_command(classifier: Classifier, line: str) -> None:
    decision = classifier.classify(line)
    assert decision.decision == "command", decision


@pytest.mark.parametrize("line", ["touch here", "cat this", "ls there"])
def test_a_resolved_command_with_one_file_like_word_does_not_ask(classifier: Classifier, line: str) -> None:
    assert classifier.classify(line).decision == "command", classifier.classify(line)


def test_watch_with_words_is_the_command_word(classifier: Classifier) -> None:
    """`watch the logs` is about watch, not a command called `the`; `watch -n 5 df` runs df."""
    from parsec.routing.scoring import analyse

    assert analyse("watch the logs", None, None, classifier.path_index).head == "watch"
    assert analyse("watch -n 5 df -h", None, None, classifier.path_index).head == "df"
    assert analyse("sudo -u bob ls", None, None, classifier.path_index).head == "ls"


# Shapes from issue 16's table.
@pytest.mark.parametrize(
    "line",
    [
        "Enable/Disable ufw",  # a slash compound is no path to a program
        "Read/Write mode",
        "what does `set -euo pipefail` mean",  # backticks quote code inside a sentence
        "print the value of `date +%s` in the log",
        "replace <name> with my username in config.yml",  # <placeholder>, not redirections
        "enable debug mode",  # bash: "enable: debug: not a shell builtin"
        "help with git rebase",
        "clear dead sessions",
    ],
)
def test_prose_shapes_are_not_run(classifier: Classifier, line: str) -> None:
    decision = classifier.classify(line)
    assert decision.decision != "command", decision


@pytest.mark.parametrize(
    "line",
    [
        "bin/rails server",
        "kill `cat /run/app.pid`",
        "cd `dirname $0`",
        "cat $FILE",
        "$EDITOR notes.txt",
        "enable -n echo",
        "help cd",
        "clear",
        "sort <in >out",
        "echo $HOME",
    ],
)
def test_the_same_syntax_in_commands_still_runs(classifier: Classifier, line: str) -> None:
    assert classifier.classify(line).decision == "command", classifier.classify(line)


# Issue 16: commands whose sub-commands are English words, and programs that cannot be resolved
# but are written like program names, are not sent to the model.
@pytest.mark.parametrize(
    "line",
    [
        "ip a show up",
        "ufw allow from 192.168.1.0/24 to any port 22",
        "sudo ufw allow in on eth0 to any port 80",
        "consul kv put key value",
        "VBoxManage list vms",
        "sudo ufw status verbose",
    ],
)
def test_commands_with_english_sub_commands_are_not_sent_to_the_model(classifier: Classifier, line: str) -> None:
    assert classifier.classify(line).decision == "command", classifier.classify(line)


# Shapes of the tuning corpus that ran as commands: descriptions of what a command does.
@pytest.mark.parametrize(
    "line",
    [
        "a pager",  # an article first: a noun phrase, whatever `a` might be on PATH
        "print # of in errors",  # "# of" is "number of", not a shell comment
        "skip #! line, disable debugger",  # a shebang named in a sentence
        "Don\u2019t map uid/gid values by user/group name",  # a typographic apostrophe is an apostrophe
        "echo commands to stderr",  # the stream named in words, where a command redirects
        "echo the config value on stdout",
        "file name matches regex",  # an English first word with words typical of descriptions
    ],
)
def test_descriptions_are_not_run(classifier: Classifier, line: str) -> None:
    decision = classifier.classify(line)
    assert decision.decision != "command", decision


@pytest.mark.parametrize(
    "line",
    [
        "ls -la  # list everything",  # a real comment stays a comment
        "make  # of course",  # "#" glued to nothing but followed by "of course": still a comment
        "echo error >&2",
        "echo hello to you",  # free text that names no stream
        "killall node",  # an English-looking program name is not a description's first word
        'chown "$pid_user" "$pipe" || exit 1',  # a statistical nudge alone does not stop chown
    ],
)
def test_their_command_look_alikes_still_run(classifier: Classifier, line: str) -> None:
    assert classifier.classify(line).decision == "command", classifier.classify(line)
