"""Extract a second secret corpus from trufflehog's detector tests (not gitleaks, so it does not
share gitleaks' idea of what a secret looks like).

    python scripts/gen_trufflehog_corpus.py TRUFFLEHOG_GIT_DIR [--commit REV] > tests/privacy/data/trufflehog_corpus.jsonl

Reads `pkg/detectors/**/<name>_test.go` (the unit pattern tests, not the integration tests) at
REV of a trufflehog clone (a bare git directory is enough; only `git ls-tree` / `git show` are
used), and takes each test case whose `want` is a list of strings: its `input` is text trufflehog
finds that secret in, and each wanted string that occurs in the input is a secret. The small Go
subset those tests use is evaluated here: string literals, constants, `+`, `fmt.Sprintf` and
`strings.Repeat`. Cases using anything else are skipped (counted on stderr).

Each secret becomes several lines, one per context (see CONTEXTS): the test's own input (the
secret next to the detector's keyword), and forms without a keyword a shell session shows --
a positional argument, `echo … | xclip`, `printf '…\\n'`, a JSON "value", a `.netrc` line.
Test inputs over MAX_INPUT characters (whole config files) are left out.
A line records the detector, the context, the secret's shape (`hex`: only hex digits and dashes,
which no masking can tell from a digest or a UUID without its keyword; `random`: the rest) and
the split: a detector whose name hashes into FROZEN_SHARE is in the frozen split, which is never
looked at line by line (tests and benches read its totals only) so masking is not tuned on it.
Output is deterministic for a given REV. Only the extracted strings are written, no Go code.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import subprocess
import sys

FROZEN_SHARE = 5  # one detector in five (by name hash) is frozen
MIN_SECRET = 8  # shorter wanted strings are ids or hosts, not secrets
MAX_INPUT = 2000  # longer test inputs (whole config files) are left out; their secrets keep the other contexts
# A wanted part that is an address, not a secret: a URL, a host name, an e-mail address.
_ADDRESS = re.compile(r"//|@|\.(?:com|net|org|io|cloud|dev|ai|co|app|us|eu|so|sh|me|xyz)(?:$|[/:.])")

# Contexts without a keyword next to the secret: how a key shows up when it is pasted, piped or
# written to a credentials file. `{s}` is the secret.
CONTEXTS = {
    "positional": "vendorctl auth login {s}",
    "clipboard": "echo {s} | xclip -selection clipboard",
    "printf": "printf '{s}\\n' | vendorctl configure --stdin",
    "json_value": 'curl -s -X PUT https://config.example.com/v1/entries/deploy -d \'{{"name": "deploy", "value": "{s}"}}\'',
    "netrc": "machine api.example.com login deploy password {s}",
}

_GO_TOKEN = re.compile(
    r'\s*(?:(?P<str>"(?:[^"\\\n]|\\.)*")|(?P<raw>`[^`]*`)|(?P<num>\d+)|(?P<name>[A-Za-z_][\w.]*)|(?P<op>[+(),]))',
    re.S,
)


class Unsupported(Exception):
    pass


def _go_string(literal: str) -> str:
    if literal.startswith("`"):
        return literal[1:-1]
    body = literal[1:-1]
    return json.loads('"' + re.sub(r"\\x([0-9a-fA-F]{2})", r"\\u00\1", body).replace("\\'", "'") + '"')


def _sprintf(template: str, args: list[str]) -> str:
    values = iter(args)

    def one(match: re.Match) -> str:
        if match.group() == "%%":
            return "%"
        value = next(values)
        return json.dumps(value) if match.group().endswith("q") else value

    try:
        return re.sub(r"%%|%[-+ #0-9.]*[svdq]", one, template)
    except StopIteration:
        raise Unsupported("Sprintf arguments") from None


class Evaluator:
    """Values of the Go string expressions a test file uses."""

    def __init__(self, source: str) -> None:
        self.names: dict[str, str] = {}
        for match in re.finditer(r"^\s*(\w+)\s*(?::=|=)\s*(.+?)\s*$", source, re.M):
            name, expression = match.groups()
            if expression.startswith("`") and expression.count("`") == 1:  # a raw string over lines
                end = source.find("`", match.start(2) + 1)
                expression = source[match.start(2) : end + 1]
            try:
                self.names.setdefault(name, self.value(expression))
            except (Unsupported, IndexError, ValueError):
                continue

    def value(self, expression: str) -> str:
        tokens = [m for m in _tokens(expression)]
        result, rest = self._sum(tokens)
        if rest:
            raise Unsupported("trailing tokens")
        return result

    def _sum(self, tokens: list) -> tuple[str, list]:
        left, tokens = self._term(tokens)
        while tokens and tokens[0] == ("op", "+"):
            right, tokens = self._term(tokens[1:])
            left += right
        return left, tokens

    def _term(self, tokens: list) -> tuple[str, list]:
        kind, text = tokens[0]
        if kind in ("str", "raw"):
            return _go_string(text), tokens[1:]
        if kind == "name" and text in ("fmt.Sprintf", "strings.Repeat") and tokens[1:2] == [("op", "(")]:
            args, tokens = self._args(tokens[2:])
            if text == "strings.Repeat":
                return args[0] * int(args[1]), tokens
            return _sprintf(args[0], args[1:]), tokens
        if kind == "num":
            return text, tokens[1:]
        if kind == "name" and text in self.names:
            return self.names[text], tokens[1:]
        raise Unsupported(text)

    def _args(self, tokens: list) -> tuple[list[str], list]:
        args = []
        while tokens[0] != ("op", ")"):
            value, tokens = self._sum(tokens)
            args.append(value)
            if tokens[0] == ("op", ","):
                tokens = tokens[1:]
        return args, tokens[1:]


def _tokens(expression: str):
    position = 0
    expression = expression.rstrip().rstrip(",")
    while position < len(expression.rstrip()):
        match = _GO_TOKEN.match(expression, position)
        if match is None:
            raise Unsupported(expression[position : position + 20])
        kind = match.lastgroup
        yield kind, match.group(kind)
        position = match.end()


def _after_string(source: str, start: int) -> int:
    """The index just past the Go string literal opening at `start` ("…" with escapes, `…` raw)."""
    quote = source[start]
    end = source.find(quote, start + 1)
    while quote == '"' and source[end - 1] == "\\" and source[end - 2] != "\\":
        end = source.find(quote, end + 1)
    return end + 1


def _balanced(source: str, start: int, opening: str = "{", closing: str = "}") -> str:
    """The text from `start` (an opening bracket) to its closing one, skipping string literals."""
    depth, i = 0, start
    while i < len(source):
        c = source[i]
        if c in '"`':
            i = _after_string(source, i)
            continue
        depth += c == opening
        depth -= c == closing
        if depth == 0:
            return source[start : i + 1]
        i += 1
    raise Unsupported("unbalanced")


def test_cases(source: str) -> tuple[list[tuple[str, list[str]]], int]:
    """((input, wanted strings) of each case with a string `want`, cases skipped)."""
    evaluator = Evaluator(source)
    cases, skipped = [], 0
    for found in re.finditer(r"\binput:\s*", source):
        block_end = source.find("\n\t\t},", found.end())
        block = source[found.start() : block_end if block_end > 0 else len(source)]
        want = re.search(r"\bwant:\s*\[\]string\{", block)
        if want is None:
            continue
        try:
            expression = _expression_at(block, found.end() - found.start())
            text = evaluator.value(expression)
            inner = _balanced(block, want.end() - 1)[1:-1]
            wanted = [evaluator.value(item) for item in _split_items(inner)]
        except (Unsupported, IndexError, ValueError, StopIteration):
            skipped += 1
            continue
        if wanted:
            cases.append((text, wanted))
    return cases, skipped


def _expression_at(block: str, start: int) -> str:
    """The Go expression from `start` to the comma that ends the struct field."""
    depth, i = 0, start
    while i < len(block):
        c = block[i]
        if c in '"`':
            i = _after_string(block, i)
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif (
            c in ",\n"
            and depth == 0
            and block[start:i].strip()
            and (c == "," or not block[start:i].rstrip().endswith("+"))
        ):
            return block[start:i]
        i += 1
    return block[start:]


def _split_items(inner: str) -> list[str]:
    items, depth, current, i = [], 0, "", 0
    while i < len(inner):
        c = inner[i]
        if c in '"`':
            end = inner.find(c, i + 1)
            while c == '"' and inner[end - 1] == "\\" and inner[end - 2] != "\\":
                end = inner.find(c, end + 1)
            current += inner[i : end + 1]
            i = end + 1
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        if c == "," and depth == 0:
            items.append(current)
            current = ""
        else:
            current += c
        i += 1
    items.append(current)
    return [item.strip() for item in items if item.strip()]


def secrets_in(text: str, wanted: list[str]) -> list[str]:
    """The wanted strings (or, for a `key:secret` result, their parts) that the input holds."""
    found: list[str] = []
    for item in wanted:
        parts = [item] if item in text else re.split(r"[:;|,\s]+", item)
        for part in parts:
            if len(part) >= MIN_SECRET and part in text and part not in found and not _ADDRESS.search(part):
                found.append(part)
    # A part inside a longer found secret is the same secret.
    return [s for s in found if not any(s != other and s in other for other in found)]


def shape(secret: str) -> str:
    """`hex`: hex digits and dashes only (a digest or a UUID without its keyword); `repetitive`:
    a test placeholder of few distinct characters (`shippo_aaaa…`); `random`: the rest."""
    if re.fullmatch(r"[0-9a-fA-F-]+", secret):
        return "hex"
    return "repetitive" if len(set(secret)) < 10 else "random"


def split_of(detector: str) -> str:
    return "frozen" if hashlib.sha256(detector.encode()).digest()[0] % FROZEN_SHARE == 0 else "tuning"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("git_dir")
    parser.add_argument("--commit", default="HEAD")
    options = parser.parse_args()

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", "--git-dir", options.git_dir, *args], check=True, capture_output=True, text=True
        ).stdout

    commit = git("rev-parse", options.commit).strip()
    paths = [
        path
        for path in git("ls-tree", "-r", "--name-only", commit, "pkg/detectors").splitlines()
        if path.endswith("_test.go") and not path.endswith("_integration_test.go")
    ]
    seen: set[str] = set()
    lines, skipped, files = [], 0, 0
    for path in paths:
        detector = path.split("/")[-1].removesuffix("_test.go")
        cases, not_evaluated = test_cases(git("show", f"{commit}:{path}"))
        skipped += not_evaluated
        files += bool(cases)
        for text, wanted in cases:
            for secret in secrets_in(text, wanted):
                if secret in seen or any(c in secret for c in "\n'\"$"):
                    continue
                seen.add(secret)
                common = {"secret": secret, "detector": detector, "shape": shape(secret), "split": split_of(detector)}
                if len(text) <= MAX_INPUT:
                    lines.append({**common, "context": "keyword", "text": text})
                for context, template in CONTEXTS.items():
                    lines.append({**common, "context": context, "text": template.format(s=secret)})
    header = {
        "source": "trufflehog pkg/detectors/*/*_test.go (AGPL-3.0; only the test strings are extracted)",
        "repository": "https://github.com/trufflesecurity/trufflehog",
        "commit": commit,
        "generator": "scripts/gen_trufflehog_corpus.py",
        "secrets": len(seen),
        "lines": len(lines),
    }
    sys.stdout.write(json.dumps({"header": header}) + "\n")
    for line in lines:
        sys.stdout.write(json.dumps(line, ensure_ascii=False) + "\n")
    print(f"{len(seen)} secrets from {files} test files, {len(lines)} lines; {skipped} cases skipped", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
