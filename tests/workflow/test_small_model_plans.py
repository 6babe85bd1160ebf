"""What small local models do with the plan/step protocol, seen in a real-model run: plans whose
steps are command lines (a pipeline cut in pieces, a `cd` to where the commands already run), and a
step reply that gives the command that has just succeeded once more. Real processes, stub server."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from parsec.workflow.planning.reply_checks import CommandFacts

from .conftest import finished_step, load_conversation, plan, queue, run_unattended, step, user_messages


def test_a_plan_of_command_lines_becomes_the_request_as_its_one_step(stub, env, work: Path) -> None:
    queue(
        stub,
        plan("ls -lh", "sort -hr", "head -3"),  # each piece alone would list, then wait on stdin
        step("ls -S | head -3"),
        finished_step("listed the three biggest files"),
    )
    for name, size in (("big.bin", 3000), ("mid.bin", 2000), ("small.bin", 1000), ("tiny.txt", 1)):
        (work / name).write_bytes(b"x" * size)
    result = run_unattended(["ask", "--yes", "--json", "show the three biggest files"], env, work)
    assert result.returncode == 0, result.stderr
    assert "plan is command lines, not steps (`ls -lh`)" in result.stderr + result.stdout
    data = json.loads(result.stdout)
    assert [s["description"] for s in data["steps"]] == ["show the three biggest files"]
    assert [c["command"] for c in data["steps"][0]["commands"]] == ["ls -S | head -3"]
    step_request = user_messages(stub)[1]
    assert "show the three biggest files" in step_request
    assert "sort -hr" not in step_request  # the pieces are not sent on as the step
    assert len(stub.model_requests()) == 3  # no repair call: the plan itself was fine JSON


def test_a_plan_of_sentences_keeps_its_steps_even_when_a_sentence_starts_with_a_command_name(
    stub, env, work: Path
) -> None:
    queue(
        stub,
        plan("find the largest file in this directory", "Write its name to largest.txt"),
        step("ls -S | head -1 > name.txt"),
        finished_step("found it"),
        step("cp name.txt largest.txt"),
        finished_step("written"),
    )
    (work / "a.bin").write_bytes(b"x" * 10)
    result = run_unattended(["ask", "--yes", "--json", "note the largest file in largest.txt"], env, work)
    assert result.returncode == 0, result.stderr
    steps = json.loads(result.stdout)["steps"]
    assert [s["description"] for s in steps] == [
        "find the largest file in this directory",
        "Write its name to largest.txt",
    ]
    assert "command lines, not steps" not in result.stderr + result.stdout


def test_a_command_given_again_after_it_succeeded_completes_the_step_without_running_twice(
    stub, env, work: Path
) -> None:
    once = "echo ran >> log.txt"
    queue(
        stub,
        plan("Append a line to the log"),
        # The model guesses an output the command never prints: the result is sent back to it...
        {
            "json": {
                "candidates": [{"command": once, "explanation": "appends", "expect": {"output_contains": "appended"}}],
                "summary": "appended a line",
            }
        },
        # ...and it gives the same command again, with nothing else left to do.
        step(once, summary="appended a line"),
    )
    result = run_unattended(["ask", "--yes", "--json", "append a line to the log"], env, work)
    assert result.returncode == 0, result.stderr
    assert (work / "log.txt").read_text() == "ran\n"
    assert f"`{once}` already ran and succeeded: step 1 is done" in result.stderr + result.stdout
    data = json.loads(result.stdout)
    assert data["steps"][0]["outcome"] == "complete"
    assert [c["command"] for c in data["steps"][0]["commands"]] == [once]
    assert load_conversation(env).steps[0].summary == "appended a line"
    assert len(stub.model_requests()) == 3


def test_under_yes_a_command_given_again_after_it_failed_is_not_run_again(stub, env, work: Path) -> None:
    """A small model gives the line that has just failed, unchanged, again and again: under --yes
    nobody is there to judge a plain retry, so it is not run; the model is told and asked for a
    different command."""
    queue(
        stub,
        plan("Show the notes"),
        step("cat notes.txt"),
        step("cat notes.txt"),
        step("ls"),
        finished_step("there are no notes"),
    )
    result = run_unattended(["ask", "--yes", "--json", "show the notes"], env, work)
    assert result.returncode == 0, result.stderr
    commands = json.loads(result.stdout)["steps"][0]["commands"]
    assert [c["command"] for c in commands] == ["cat notes.txt", "ls"]
    said = "`cat notes.txt` has just failed here (exit status 1) and would fail the same way"
    assert said in result.stderr + result.stdout
    assert said in user_messages(stub)[3]
    assert "already ran and succeeded" not in result.stderr + result.stdout


@pytest.mark.parametrize(
    ("line", "is_command"),
    [
        ("ls -lh", True),
        ("sort -hr", True),
        ("head -3", True),
        ("cd /tmp/work", True),
        ("find . -type f -exec wc -l {} +", True),
        ("tar czf out.tgz --exclude=.git .", True),
        ("git log --oneline -5", True),
        ("python3 -m venv .venv", True),
        ("List the three biggest files", False),
        ("find the biggest files in the directory", False),
        ("Count lines per file type", False),
        ("sort the files by size", False),
        ("Create a virtual environment and install requests", False),
        ("Show the last five commits", False),
        ("Archive the project without .git", False),
    ],
)
def test_command_lines_are_told_from_sentences_as_the_router_tells_them(line: str, is_command: bool) -> None:
    facts = CommandFacts(os.environ.get("PATH", ""), "bash")
    assert facts.is_command_line(line) is is_command


def test_a_step_that_only_needs_no_command_is_dropped(stub, env, work: Path) -> None:
    queue(
        stub,
        plan(f"Navigate to the working directory using `cd {work}`", "Count the lines of notes.txt"),
        step("wc -l notes.txt"),
        finished_step("2 lines"),
    )
    (work / "notes.txt").write_text("a\nb\n")
    result = run_unattended(["ask", "--yes", "--json", "count the lines of the notes"], env, work)
    assert result.returncode == 0, result.stderr
    assert "Dropped 'Navigate to the working directory" in result.stderr + result.stdout
    steps = json.loads(result.stdout)["steps"]
    assert [s["description"] for s in steps] == ["Count the lines of notes.txt"]
    assert len(stub.model_requests()) == 3


@pytest.mark.parametrize(
    ("step_text", "dropped"),
    [
        ("Navigate to the working directory using `cd {cwd}`", True),
        ("Navigate to the working directory", True),
        ("Go to the current directory.", True),
        ("`cd {cwd}`", True),
        ("Change into {cwd}", True),
        ("Navigate to `{cwd}`", True),
        ("Navigate to the directory using `cd .`", True),
        ("Go to the src directory", False),
        ("Navigate to the directory using `cd`", True),
        ("Go to the directory src", False),
        ("Change to the directory `src`", False),
        ("Navigate to the directory using `cd /var`", False),
        ("Change to the working directory and list the files", False),
        ("Move the files to backup", False),
        ("Change the extension of every .txt file to .md", False),
        ("List the files in the working directory", False),
        ("Change directory to {cwd}", True),
        ("Change the permissions of the working directory", False),
        ("Change the working directory's permissions to 755", False),
        ("Change the encoding of files in the current directory", False),
        ("Enter the working directory's virtual environment", False),
        ("Go to the current directory's parent", False),
        ("Change directory to {cwd}/src", False),
        ("Navigate to {cwd}-other", False),
        ("Go to the working directory's subfolder build", False),
        ("Open the terminal.", True),
        ("Open a terminal window", True),
        ("Open the file in an editor", False),
    ],
)
def test_steps_that_only_go_to_the_working_directory_are_told_apart(
    tmp_path: Path, step_text: str, dropped: bool
) -> None:
    from parsec.workflow.planning.reply_checks import needs_no_command

    assert needs_no_command(step_text.format(cwd=tmp_path), str(tmp_path)) is dropped


def test_the_next_step_may_begin_with_the_command_the_step_before_ended_with(stub, env, work: Path) -> None:
    """Only a step's own last command counts as given again: the next step may well look again
    (`ls`) at what the one before it left, and is not completed by it."""
    queue(
        stub,
        plan("Make a notes file", "Delete the notes file"),
        step("touch notes.txt"),
        step("ls"),
        finished_step("made it"),
        step("ls"),
        step("rm notes.txt"),
        finished_step("deleted it"),
    )
    result = run_unattended(["ask", "--yes", "--json", "make a notes file, then delete it"], env, work)
    assert result.returncode == 0, result.stderr
    steps = json.loads(result.stdout)["steps"]
    assert [c["command"] for c in steps[1]["commands"]] == ["ls", "rm notes.txt"]
    assert not (work / "notes.txt").exists()
    assert "already ran and succeeded" not in result.stderr + result.stdout


def test_an_expectation_met_word_for_word_completes_the_step_without_another_call(stub, env, work: Path) -> None:
    """The model expects the names on one line; `ls -1` prints one per line: met, no re-ask."""
    for name in ("b.txt", "a.txt"):
        (work / name).write_text(name)
    queue(
        stub,
        plan("List the text files"),
        {
            "json": {
                "candidates": [
                    {"command": "ls -1", "explanation": "lists", "expect": {"output_contains": "a.txt, b.txt."}}
                ],
                "summary": "listed a.txt and b.txt",
            }
        },
    )
    result = run_unattended(["ask", "--yes", "--json", "list the text files"], env, work)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["steps"][0]["outcome"] == "complete"
    assert len(stub.model_requests()) == 2


@pytest.mark.parametrize(
    ("wanted", "output", "met"),
    [
        ("huge.bin large.bin", "huge.bin\nlarge.bin\n", True),
        ("a.txt b.txt", "./a.txt\n./b.txt\n", True),  # find's ./
        ("tmp/work/ports", "/tmp/work/ports\n", True),  # a path as written, part of a longer one
        ("5.1", "3.5.1\n", False),
        ("Huge.bin, large.bin.", "total 3\nhuge.bin\nlarge.bin\n", True),
        ("huge.bin large.bin", "90000 huge.bin\n60000 large.bin\n", False),  # not one run of words
        ("huge.bin large.bin medium.bin", "90000 huge.bin\n60000 large.bin\n", False),
        ("the biggest files in this directory", "90000 huge.bin\n", False),
        ("3", "13\n", False),
        ("3", "3.5\n", False),
        ("file.txt", "file.txt.bak\n", False),
        ("0 failed", "10 failed, 0 passed\n", False),
        ("no errors", "errors: 5, no warnings\n", False),
        ("200 OK", "404 Not Found ok 200\n", False),
        ("a.txt b.txt", "b.txt\na.txt\n", False),  # in order
        ("", "anything", True),
    ],
)
def test_an_expectations_text_is_met_by_the_same_whole_words_in_order(wanted: str, output: str, met: bool) -> None:
    from parsec.workflow.planning.schemas import Expectation, meets

    assert meets(Expectation(output_contains=wanted), 0, output) is met
    assert not meets(Expectation(exit_status=1, output_contains=wanted), 0, output)


def test_a_first_command_that_only_goes_where_the_shell_is_is_not_run(stub, env, work: Path) -> None:
    """A small model lists its sequence as candidates: `cd` to the working directory, then
    `rm -rf .git`, then `tar`. The `cd` is not run (it would meet its expect and end the step
    having done nothing), nor is what follows it: the model is asked again, told why."""
    (work / "a.txt").write_text("a")
    queue(
        stub,
        plan("Archive the directory as out.tar.gz"),
        {
            "json": {
                "candidates": [
                    {"command": f"cd {work}", "expect": {"exit_status": 0}},
                    {"command": "rm -f a.txt", "expect": {"exit_status": 0}},
                ]
            }
        },
        step("tar czf out.tar.gz a.txt"),
        finished_step("archived"),
    )
    result = run_unattended(["ask", "--yes", "--json", "archive this directory as out.tar.gz"], env, work)
    assert result.returncode == 0, result.stderr
    assert (work / "a.txt").exists() and (work / "out.tar.gz").exists()
    commands = [c["command"] for c in json.loads(result.stdout)["steps"][0]["commands"]]
    assert commands == ["tar czf out.tar.gz a.txt"]
    assert f"`cd {work}` changes nothing: commands already run in {work}" in user_messages(stub)[2]


def test_a_plans_own_numbering_is_taken_off_its_steps() -> None:
    from parsec.workflow.planning.schemas import PlanReply

    steps = ["1. Open a terminal.", "Step 2: Run git status", "- List the files", "3) Count them", "2026 was a year"]
    assert PlanReply(steps=steps).steps == [
        "Open a terminal.",
        "Run git status",
        "List the files",
        "Count them",
        "2026 was a year",
    ]


@pytest.mark.parametrize(
    ("reply", "lines"),
    [
        ("```bash\necho hi > hi.txt\n```", ["echo hi > hi.txt"]),
        ("```console\n$ ls\n```", ["ls"]),
        ("To count them, run:\n```\nwc -l *.py\n```\nThis prints the total.", ["wc -l *.py"]),
        ("`wc -l *.py`", ["wc -l *.py"]),
        ("```bash\ncd src\nmake\n```", ["cd src", "make"]),
        ("```python\nprint(1)\n```", ["print(1)"]),  # then no command here: refused by its first word
        ("", []),
    ],
)
def test_a_plain_replys_command_lines_are_read_from_its_code_fence(reply: str, lines: list[str]) -> None:
    from parsec.workflow.planning.stepgen import plain_command_lines

    assert plain_command_lines(reply) == lines


@pytest.mark.parametrize(
    ("line", "program"),
    [
        ("sort -hr", "sort"),
        ("head -n 3", "head"),
        ("wc -l", "wc"),
        ("grep foo", "grep"),
        ("awk '{print $1}'", "awk"),
        ("tr a-z A-Z", "tr"),
        ("sort -k 5 -n", "sort"),
        ("sort -hr sizes.txt", ""),
        ("head -3 notes.txt", ""),
        ("ls -l | sort -k5 -n", ""),
        ("grep foo notes.txt", ""),
        ("grep -e foo notes.txt", ""),
        ("tr a b < notes.txt", ""),
        ("sort <<< 'b a'", ""),
        ("wc -l *.py", ""),
        ("head -n 3 && ls", ""),
        ("echo hi", ""),
        ("sort 'unclosed", ""),
    ],
)
def test_a_filter_given_nothing_to_read_is_told_apart(line: str, program: str) -> None:
    from parsec.workflow.risk.reads_no_input import reads_no_input

    assert reads_no_input(line) == program


def test_under_yes_a_piece_of_a_pipeline_given_alone_is_not_run(stub, env, work: Path) -> None:
    """The plan's steps say what to do and which piece of a pipeline does it ("Sort them by size:
    sort -hr"): command lines, so the request is the one step. The model's `sort -hr` alone would
    read an empty input and exit 0: it is not run, and the model is asked for the whole line."""
    for name, size in (("big.bin", 3000), ("mid.bin", 2000), ("small.bin", 1000), ("tiny.txt", 1)):
        (work / name).write_bytes(b"x" * size)
    queue(
        stub,
        plan("List the files: ls -l", "Sort them by size: sort -hr", "Keep the first three: head -n 3"),
        step("sort -hr"),
        step("ls -S | head -n 3"),
        finished_step("listed"),
    )
    result = run_unattended(["ask", "--yes", "--json", "show the three biggest files"], env, work)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert [s["description"] for s in data["steps"]] == ["show the three biggest files"]
    assert [c["command"] for c in data["steps"][0]["commands"]] == ["ls -S | head -n 3"]
    assert "`sort -hr` gives sort nothing to read" in user_messages(stub)[2]


def test_a_cd_to_where_the_shell_is_given_twice_completes_a_step_that_only_goes_there(stub, env, work: Path) -> None:
    """ "Go to the root of the project" is kept (the place is not plainly the working directory);
    the model's `cd` there is held back once, and given again it means the step is done."""
    (work / "a.txt").write_text("a")
    queue(
        stub,
        plan("Go to the root of the project", "List the files"),
        step(f"cd {work}"),
        step(f"cd {work}"),
        {"json": {"candidates": [{"command": "ls", "expect": {"exit_status": 0, "output_contains": "a.txt"}}]}},
    )
    result = run_unattended(["ask", "--yes", "--json", "list the files of the project"], env, work)
    assert result.returncode == 0, result.stderr
    steps = json.loads(result.stdout)["steps"]
    assert [s["outcome"] for s in steps] == ["complete", "complete"]
    assert steps[0]["commands"] == [] and steps[0]["summary"] == f"done without a command: already in {work}"
    assert [c["command"] for c in steps[1]["commands"]] == ["ls"]
    assert len(stub.model_requests()) == 4
