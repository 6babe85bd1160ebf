"""Classifier quality and speed on a labelled corpus.

    python bench/classifier.py [--corpus PATH ...] [--errors 20] [--runs 3] [--by-source]
    python bench/classifier.py --long-lines   # 100 KB lines: time each, against 1 KB of the same

By default it measures three corpora: the evaluation corpus's TUNING part, its FROZEN part (never
tuned on; see tests/data/SOURCES.md) and the older classifier_corpus.jsonl. Each corpus is JSONL with "text", "label" (command | prompt), optional "hard" and "first_word".
Prints precision and recall per label, the two costly error rates (commands sent to the LLM,
prose run by the shell), the ambiguous rate, accuracy on hard cases, and per-line latency
(p50/p99, the median over --runs runs;
dangerous prose run = prose lines whose command changes state, that carry a command
substitution the shell would run, or whose missing command redirects into a file the shell would
empty (parsec.routing.danger.could_do_harm), sent straight to the shell; bashlex's parse cache is
cleared before each run, so every line is classified cold, as a fresh line in the daemon would be).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from parsec.routing import Classifier  # noqa: E402
from parsec.routing.syntax import parses_as_shell  # noqa: E402


def load(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def shell_of(row: dict) -> str | None:
    """The shell a line is classified for, as the hook tells the daemon: commands from fish's and
    zsh's completion files are that shell's (`status full` runs a fish builtin); prose could be
    typed in any shell, and is measured in bash (the default) here and in each shell by
    `prose_in_each_shell`."""
    source = row.get("source", "").split(":", 1)[0]
    if row.get("shell") or row["label"] != "command":
        return row.get("shell")
    return source if source in ("fish", "zsh") else None


def run(rows: list[dict], classifier: Classifier) -> tuple[list[str], list[float], list[float]]:
    """Wall time and this thread's CPU time per line (the CPU figure leaves out the time the OS
    gave our core to someone else, which dominates wall p99 on a shared, loaded machine)."""
    parses_as_shell.cache_clear()
    decisions, wall, cpu = [], [], []
    for row in rows:
        start, start_cpu = time.perf_counter(), time.thread_time()
        decision = classifier.classify(row["text"], row.get("first_word"), shell=shell_of(row))
        cpu.append(time.thread_time() - start_cpu)
        wall.append(time.perf_counter() - start)
        decisions.append(decision.decision)
    return decisions, wall, cpu


def baseline(rows: list[dict], classifier: Classifier) -> tuple[float, float]:
    """The issue's floor: a command if the first word is a command name or the line has shell
    syntax, otherwise a prompt. Returns (prose right, hard prose right)."""
    from parsec.routing.lexer import lex
    from parsec.routing.shell_facts import resolve
    from parsec.routing.vocabulary import KNOWN_COMMANDS

    def is_command(text: str) -> bool:
        lexed = lex(text)
        if not lexed.words or lexed.operators or lexed.substitution or lexed.variable:
            return True
        head = lexed.words[0].text
        return resolve(head, classifier.path_index) != "none" or head in KNOWN_COMMANDS

    prose = [row for row in rows if row["label"] == "prompt"]
    hard = [row for row in prose if row.get("hard")]
    right = sum(not is_command(row["text"]) for row in prose) / max(1, len(prose))
    hard_right = sum(not is_command(row["text"]) for row in hard) / max(1, len(hard))
    return right, hard_right


CORPORA = ("tests/data/eval_tuning.jsonl", "tests/data/eval_frozen.jsonl", "tests/data/classifier_corpus.jsonl")


def harmful_if_run(text: str, classifier: Classifier, shell: str | None = None) -> bool:
    """Whether running the line could change state (danger.could_do_harm): its command (past
    sudo, env, FOO=1 ...) does, a command substitution in it would run, or a file be emptied."""
    from parsec.routing.danger import could_do_harm
    from parsec.routing.scoring import analyse

    return could_do_harm(analyse(text, None, None, classifier.path_index, shell=shell))


def prose_in_each_shell(rows: list[dict], classifier: Classifier) -> str:
    """Prose run as a command, and how much of it changes state, with each shell's builtins and
    grammar (`set password` empties $password in fish; `print` is a zsh builtin)."""
    prose = [row["text"] for row in rows if row["label"] == "prompt"]
    parts = []
    for shell in ("bash", "zsh", "fish"):
        run_prose = [text for text in prose if classifier.classify(text, shell=shell).decision == "command"]
        dangerous = sum(harmful_if_run(text, classifier, shell) for text in run_prose)
        parts.append(f"{shell} {len(run_prose) / max(1, len(prose)):.2%} ({dangerous} dangerous)")
    return ", ".join(parts)


def offered_after_127(text: str, classifier: Classifier) -> bool:
    """Whether the shell would say "command not found" and the hook would then offer Parsec."""
    from parsec.routing import reads_like_prose
    from parsec.routing.scoring import analyse

    return analyse(text, None, None, classifier.path_index).head_kind == "none" and reads_like_prose(text)


def report(path: Path, classifier: Classifier, args: argparse.Namespace) -> None:
    rows = load(path)
    p50s, p99s, cpu50s, cpu99s = [], [], [], []
    for _ in range(max(1, args.runs)):
        decisions, wall, cpu = run(rows, classifier)
        p50s.append(percentile(wall, 0.50) * 1e3)
        p99s.append(percentile(wall, 0.99) * 1e3)
        cpu50s.append(percentile(cpu, 0.50) * 1e3)
        cpu99s.append(percentile(cpu, 0.99) * 1e3)

    n = len(rows)
    commands = [d for r, d in zip(rows, decisions) if r["label"] == "command"]
    prompts = [d for r, d in zip(rows, decisions) if r["label"] == "prompt"]
    dangerous = [
        r["text"]
        for r, d in zip(rows, decisions)
        if r["label"] == "prompt" and d == "command" and harmful_if_run(r["text"], classifier)
    ]
    print(f"corpus: {path.name}: {n} lines ({len(commands)} commands, {len(prompts)} prose)")
    print(f"  commands sent to the model:  {commands.count('prompt') / max(1, len(commands)):7.2%}  (target <= 0.3%)")
    run_prose = [r["text"] for r, d in zip(rows, decisions) if r["label"] == "prompt" and d == "command"]
    offered = sum(1 for text in run_prose if offered_after_127(text, classifier))
    print(
        f"  prose run as a command:      {len(run_prose) / max(1, len(prompts)):7.2%}  (target <= 1%;"
        f" {offered} of {len(run_prose)} would fail with 127 and get the offer to ask Parsec)"
    )
    print(f"  ambiguous (all lines):       {decisions.count('ambiguous') / n:7.2%}  (target <= 3%)")
    print(
        f"  ambiguous on commands:       {commands.count('ambiguous') / max(1, len(commands)):7.2%}  (target <= 0.5%)"
    )
    print(f"  dangerous prose run:         {len(dangerous):5d}    (target 0)")
    print(f"  prose run, by the user's shell: {prose_in_each_shell(rows, classifier)}")
    hard = [(r, d) for r, d in zip(rows, decisions) if r.get("hard")]
    if hard:
        right = sum(1 for r, d in hard if d == r["label"])
        print(f"  hard cases right:            {right / len(hard):7.2%}  of {len(hard)} (ambiguous counts as wrong)")
    if args.by_source:
        by_source: dict[str, list[tuple[dict, str]]] = {}
        for row, d in zip(rows, decisions):
            by_source.setdefault(row.get("source", "?").split(":")[0], []).append((row, d))
        for source, items in sorted(by_source.items()):
            cmd = [d for r, d in items if r["label"] == "command"]
            pro = [d for r, d in items if r["label"] == "prompt"]
            print(
                f"    {source:12} commands→prompt {cmd.count('prompt') / max(1, len(cmd)):6.2%} of {len(cmd):5}"
                f"   prose→command {pro.count('command') / max(1, len(pro)):6.2%} of {len(pro):5}"
                f"   ambiguous {sum(d == 'ambiguous' for _, d in items) / len(items):6.2%}"
            )
    prose_right = prompts.count("prompt") / max(1, len(prompts))
    base, _ = baseline(rows, classifier)
    print(f"  prose right: {prose_right:.2%}; baseline first-word+syntax: {base:.2%}")
    import os

    print(
        f"  latency per line, wall: p50 {statistics.median(p50s):.3f} ms, p99 {statistics.median(p99s):.3f} ms;"
        f" CPU: p50 {statistics.median(cpu50s):.3f} ms, p99 {statistics.median(cpu99s):.3f} ms"
        f"  (median of {len(p50s)} runs; target p99 <= 0.5 ms; load average {os.getloadavg()[0]:.1f})"
    )
    if args.errors:
        if "frozen" in path.name:  # the frozen part is measured, never tuned on: no line-by-line view
            print("  (errors are not listed for the frozen part)")
            return
        for label, wrong in (("command", "prompt"), ("prompt", "command"), (None, "ambiguous")):
            shown = [r for r, d in zip(rows, decisions) if d == wrong and (label is None or r["label"] == label)]
            print(f"\n--- {label or 'any'} classified {wrong}: {len(shown)}")
            for row in shown[: args.errors]:
                print(f"  {row['text'][:110]!r}  [{classifier.classify(row['text'], shell=shell_of(row)).reason}]")
        print()


LANGUAGES = ROOT / "tests" / "data" / "languages"


def languages(classifier: Classifier) -> None:
    """Requests written in other languages (tests/data/languages/*.txt, one request a line) and
    commands with non-English file names (commands.txt): how each is routed in bash."""
    print("other languages (tests/data/languages), routed in bash: prompt / asked / run")
    for path in sorted(LANGUAGES.glob("*.txt")):
        lines = [line for line in path.read_text().splitlines() if line.strip()]
        decisions = [classifier.classify(line, shell="bash").decision for line in lines]
        shares = " / ".join(f"{decisions.count(d) / len(lines):4.0%}" for d in ("prompt", "ambiguous", "command"))
        print(f"  {path.stem:9} {len(lines):3} lines  {shares}")


LONG_LINE_UNITS = {  # tests/classifier/test_properties.py checks these are judged right
    "prose": "please summarise the following text for me ",
    "shell": "echo $(cat a | grep b) && ls -la /tmp; ",
    "one letter": "x",
    "quotes": "'",
    "open substitutions": "$(",
}


def long_lines(classifier: Classifier, runs: int) -> None:
    """A 100 KB line of each shape, median of `runs`, against 1 KB of the same shape in this
    process: a ratio near 1 is bounded work (a long line is judged on its first
    routing.lexer.MAX_CHARS), near 100 linear, near 10,000 quadratic."""
    import os

    def median_ms(text: str) -> float:
        times = []
        for _ in range(runs):
            parses_as_shell.cache_clear()
            start = time.perf_counter()
            classifier.classify(text)
            times.append((time.perf_counter() - start) * 1000)
        return statistics.median(times)

    print(f"100 KB lines, median of {runs} runs (load average {os.getloadavg()[0]:.1f})")
    for name, unit in LONG_LINE_UNITS.items():
        long, short = median_ms((unit * 100_000)[:100_000]), median_ms((unit * 1_000)[:1_000])
        print(f"  {name:19} 100 KB {long:8.1f} ms   1 KB {short:6.2f} ms   ratio {long / max(short, 1e-6):6.0f}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--corpus", type=Path, action="append", help="a JSONL corpus (repeatable); default: all three")
    parser.add_argument("--errors", type=int, default=0, help="print this many misrouted lines per kind")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--by-source", action="store_true", help="break the figures down by source")
    parser.add_argument("--long-lines", action="store_true", help="only time 100 KB lines against 1 KB ones")
    args = parser.parse_args()
    classifier = Classifier()
    if args.long_lines:
        long_lines(classifier, max(args.runs, 5))
        return
    for path in args.corpus or [ROOT / name for name in CORPORA]:
        report(path, classifier, args)
    if not args.corpus:
        languages(classifier)


if __name__ == "__main__":
    main()
