"""The README's first lines are the set-up commands, and CI runs exactly its test command."""

from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def readme_commands() -> list[str]:
    lines = (REPO / "README.md").read_text().splitlines()
    start = lines.index("```bash") + 1
    return [line.split("  #")[0].strip() for line in lines[start : start + 2]]


def test_readme_starts_with_the_two_commands():
    main_job, tests = readme_commands()
    assert "parsec daemon start" in main_job
    assert "pytest" in tests


def test_ci_runs_the_readme_test_command():
    _, tests = readme_commands()
    ci = (REPO / ".ci" / "run").read_text().splitlines()
    assert tests in [line.strip() for line in ci]
