"""Template-generated corpus lines (written for Parsec, public domain).

Prose: questions, requests and imperative task descriptions whose verbs are often command names.
Commands: everyday invocations whose arguments carry English text (commit messages, echo text).
Kept deliberately varied so that no single template dominates the corpus.
"""

from __future__ import annotations

import random

OBJECTS = [
    "python files", "log files", "the readme", "my home directory", "the docker containers",
    "the node processes", "the test suite", "the config file", "all the images", "the build output",
    "the database", "this repository", "the current branch", "old backups", "the nginx config",
    "every markdown file", "the cache", "the downloads folder", "temporary files", "the web server",
    "the ssh keys", "the cron jobs", "the environment variables", "the git history", "large files",
    "the unit tests", "the api server", "the virtual environment", "the csv file", "my dotfiles",
    "the kubernetes pods", "the open ports", "the disk usage", "the memory usage", "the firewall rules",
]
PLACES = [
    "in this folder", "in the src directory", "on the server", "under /var/log", "in my home directory",
    "in the repo", "on staging", "from last week", "since yesterday", "in the current directory",
    "on this machine", "in the background", "on port 8080", "older than 30 days", "bigger than 1 GB",
    "that contain the word error", "without asking", "recursively", "by size", "by date",
]
VERBS = [
    "find", "list", "show", "delete", "remove", "copy", "move", "compress", "archive", "count",
    "sort", "check", "clean up", "update", "restart", "stop", "kill", "watch", "search", "print",
    "backup", "rename", "convert", "split", "merge", "diff", "test", "fix", "install", "upgrade",
    "download", "upload", "sync", "mount", "format", "open", "close", "build", "deploy", "run",
    "make", "touch up", "tidy", "refactor", "summarize", "explain", "describe", "monitor", "scan",
]
QUESTIONS = [
    "how do I {v} {o} {p}", "how can I {v} {o}", "what is the best way to {v} {o} {p}",
    "what command will {v} {o}", "is it possible to {v} {o} {p}", "can you {v} {o} for me",
    "could you {v} {o} {p}", "why can't I {v} {o}", "where do I {v} {o}", "which tool should I use to {v} {o}",
    "how would you {v} {o} {p}?", "what's the fastest way to {v} {o}?", "do you know how to {v} {o}",
    "is there a command to {v} {o} {p}", "why does it fail when I {v} {o}", "when should I {v} {o}",
]
REQUESTS = [
    "{v} {o} {p}", "{v} {o}", "please {v} {o}", "{v} all {o} {p}", "{v} every one of {o} {p}",
    "I want to {v} {o} {p}", "I need to {v} {o}", "help me {v} {o} {p}", "let's {v} {o}",
    "{V} {o} {p}.", "{V} {o} and then {v2} {o2}", "{v} {o} and {v2} {o2} {p}", "go ahead and {v} {o}",
    "{v} {o} but keep {o2}", "{v} {o} if it is older than a week", "{V} the {n} largest of {o} {p}",
    "first {v} {o}, then {v2} {o2}", "{v} {o} so that {o2} still work", "{v} {o} {p} please",
]
FREE_TEXT = [
    "fix the bug in the parser", "make the tests pass", "update the readme with the new steps",
    "remove all the old logs", "add a test for the empty input case", "this is the first release",
    "the build is finished", "hello world", "it works on my machine", "clean up the imports",
    "bump the version to 2.0", "do not merge yet", "deploy finished at noon", "all done for today",
    "refactor the store so that it is easier to test", "revert the change that broke the build",
    "the quick brown fox jumps over the lazy dog", "backup of the database is complete",
]
COMMANDS = [
    'git commit -m "{t}"', "git commit -am '{t}'", 'echo "{t}"', "echo {t}", 'printf "%s\\n" "{t}"',
    'git tag -a v{n}.0 -m "{t}"', 'notify-send "{t}"', 'logger -t deploy "{t}"', 'git stash push -m "{t}"',
    'gh pr create --title "{T}" --body "{t}"', 'echo "{t}" >> notes.txt', 'echo "{t}" | tee -a log.txt',
    'git commit --amend -m "{T}"', 'svn commit -m "{t}"', 'hg commit -m "{t}"', "say '{t}'",
    'grep -rn "{t}" .', 'grep -c "{t}" app.log', 'docker build -t app:{n} --label "note={t}" .',
    "sed -i 's/{w}/{w2}/g' {f}", "grep -rl {w} src/", "find . -name '*.{e}' -newer {f}",
    "ls -lh {d}", "du -sh {d}", "tar czf backup-{n}.tar.gz {d}", "cp -r {d} /tmp/{w}",
    "mv {f} {d}", "rm -f {f}", "chmod 644 {f}", "wc -l {f}", "head -n {n} {f}", "tail -n {n} {f}",
    "kubectl describe pod {w}-{n}", "kubectl delete pod {w}-{n} -n {w2}", "docker logs -f {w}",
    "docker exec -it {w} sh", "systemctl restart {w}", "journalctl -u {w} -n {n}",
    "ssh {w}@{w2}.example.com", "curl -sS https://{w}.example.com/api/v1/{w2}", "pip install {w}",
    "npm install {w}", "cargo add {w}", "go get github.com/{w}/{w2}", "make {w}", "python3 {w}.py",
    "./{w}.sh --{w2}", "git checkout {w}", "git branch -d {w}", "git log --author={w}", "vim {f}",
    "code {d}", "less {f}", "open {f}", "psql -d {w} -c 'select count(*) from {w2}'",
]
WORDS = ["api", "web", "worker", "parser", "cache", "db", "auth", "proxy", "queue", "data", "build", "main"]
FILES = ["main.py", "README.md", "app.log", "config.yaml", "index.js", "notes.txt", "setup.cfg", "Makefile"]
DIRS = ["src/", "./build", "~/Downloads", "/var/log", "docs", "../lib", "/tmp", "tests/"]
EXTS = ["py", "log", "md", "txt", "json", "c"]


def _fill(template: str, rng: random.Random) -> str:
    verb, verb2 = rng.choice(VERBS), rng.choice(VERBS)
    text = rng.choice(FREE_TEXT)
    return template.format(
        v=verb, V=verb.capitalize(), v2=verb2, o=rng.choice(OBJECTS), o2=rng.choice(OBJECTS),
        p=rng.choice(PLACES), n=rng.randint(2, 50), t=text, T=text.capitalize(), w=rng.choice(WORDS),
        w2=rng.choice(WORDS), f=rng.choice(FILES), d=rng.choice(DIRS), e=rng.choice(EXTS),
    ).replace("  ", " ").strip()


def generated_lines(rng: random.Random) -> list[dict]:
    rows = []
    for _ in range(700):
        rows.append({"text": _fill(rng.choice(QUESTIONS), rng), "label": "prompt", "source": "generated"})
    for _ in range(1100):
        rows.append({"text": _fill(rng.choice(REQUESTS), rng), "label": "prompt", "source": "generated"})
    for _ in range(2500):
        rows.append({"text": _fill(rng.choice(COMMANDS), rng), "label": "command", "source": "generated"})
    return rows
