"""Build the masking corpus: secrets from gitleaks' rules embedded in command lines, and look-alikes.

    python tests/privacy/data/build_corpus.py GITLEAKS_TOML GITLEAKS_BINARY

Secrets are drawn from each rule's own regex, the way gitleaks' rule tests draw theirs
(`secrets.NewSecret(regex)` in cmd/generate/config/rules), then put into a realistic command line.
Each line is kept only if the gitleaks binary itself reports that rule's secret on it: the corpus
is checked by gitleaks, never by Parsec's masking table. Hand-written lines (the formats the
issue lists, real-format examples quoted from gitleaks' rule tests, and the generic shapes) are in
handwritten_secrets.txt / lookalikes.txt beside this script and are copied as they are.
Deterministic for a given seed and rule file.
"""

from __future__ import annotations

import json
import pathlib
import random
import re
import sre_constants as C
import sre_parse
import subprocess
import sys
import tempfile
import tomllib

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))
from parsec.privacy.gitleaks import secret_source  # noqa: E402

ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


def to_python(source: str) -> str:
    source = re.sub(r"\(\?-?i\)", "", source)
    source = re.sub(r"\(\?-?i:", "(?:", source)
    source = source.replace("\\x60", "`")
    return source


def generate(node, rnd: random.Random, ignorecase: bool) -> str:
    out = []
    for op, av in node:
        if op is C.LITERAL:
            ch = chr(av)
            out.append(ch.upper() if ignorecase and rnd.random() < 0.3 else ch)
        elif op is C.NOT_LITERAL:
            out.append(rnd.choice([c for c in ALNUM if ord(c) != av]))
        elif op is C.IN:
            out.append(_pick_class(av, rnd, ignorecase))
        elif op is C.ANY:
            out.append(rnd.choice(ALNUM))
        elif op in (C.MAX_REPEAT, C.MIN_REPEAT):
            lo, hi, sub = av
            hi = lo + 24 if hi == C.MAXREPEAT else hi
            n = rnd.randint(lo, max(lo, min(hi, lo + 24)))
            out.extend(generate(sub, rnd, ignorecase) for _ in range(n))
        elif op is C.SUBPATTERN:
            out.append(generate(av[-1], rnd, ignorecase))
        elif op is C.BRANCH:
            out.append(generate(rnd.choice(av[1]), rnd, ignorecase))
        elif op in (C.AT, C.ASSERT, C.ASSERT_NOT):
            pass
        else:
            raise ValueError(op)
    return "".join(out)


def _pick_class(items, rnd: random.Random, ignorecase: bool) -> str:
    chars: list[str] = []
    negate = False
    for op, av in items:
        if op is C.NEGATE:
            negate = True
        elif op is C.LITERAL:
            chars.append(chr(av))
        elif op is C.RANGE:
            chars.extend(chr(c) for c in range(av[0], av[1] + 1))
        elif op is C.CATEGORY:
            chars.extend(
                {C.CATEGORY_DIGIT: "0123456789", C.CATEGORY_WORD: ALNUM + "_", C.CATEGORY_SPACE: " "}.get(av, "")
            )
    if negate:
        chars = [c for c in ALNUM if c not in chars]
    chars = [c for c in chars if c.isprintable() and c not in "\n\r\t "] or chars or list(ALNUM)
    ch = rnd.choice(chars)
    return ch.upper() if ignorecase and ch.isalpha() and rnd.random() < 0.3 else ch


# Where a secret appears on a command line. {kw}: the rule's keyword (semi-generic rules need it
# before an operator); {s}: the secret.
KEYWORD_TEMPLATES = [
    "export {KW}_TOKEN={s}",
    "docker run -e {KW}_API_KEY={s} ghcr.io/acme/app:latest",
    "echo '{kw}_secret = \"{s}\"' >> config/local.toml",
    "kubectl create secret generic {kw} --from-literal={kw}_key={s}",
    "{KW}_KEY={s} npm run deploy",
    "printf '{kw}: {s}\\n' > ~/.config/app/creds.yml",
]
TOKEN_TEMPLATES = [
    "echo {s} | app login --with-token",
    "curl -sS https://api.example.com/v1/me -H 'Authorization: Bearer {s}'",
    "app config set credential {s}",
    "git commit -am 'rotate' # old one was {s}",
    "cat > .env <<< 'SERVICE_CREDENTIAL={s}'",
    "terraform apply -var 'credential={s}' -auto-approve",
]


def rule_lines(rule: dict, rnd: random.Random) -> list[tuple[str, str]]:
    regex = rule["regex"]
    group = rule.get("secretGroup") or 1
    source = secret_source(regex, group) or regex
    try:
        parsed = sre_parse.parse(to_python(source))
    except Exception:
        return []
    lines = []
    keyword = rule["keywords"][0] if rule.get("keywords") else ""
    semi_generic = "(?:=|>|:{1,3}=" in regex
    templates = KEYWORD_TEMPLATES if semi_generic else TOKEN_TEMPLATES
    for attempt in range(12):
        try:
            secret = generate(parsed, rnd, ignorecase=False)
        except (ValueError, IndexError):
            return []
        if (
            not semi_generic
            and not secret.lower().startswith(keyword.lower())
            and keyword
            and keyword.lower() not in secret.lower()
        ):
            continue
        template = templates[attempt % len(templates)]
        line = template.format(s=secret, kw=keyword.lower(), KW=re.sub(r"\W", "_", keyword.upper()))
        lines.append((line, secret))
    return lines


def gitleaks_findings(binary: str, lines: list[str]) -> set[tuple[int, str]]:
    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp) / "corpus.txt"
        path.write_text("\n".join(lines) + "\n")
        report = pathlib.Path(tmp) / "report.json"
        subprocess.run(
            [binary, "dir", str(path), "--no-banner", "-f", "json", "-r", str(report), "--max-decode-depth", "0"],
            capture_output=True,
        )
        return {(f["StartLine"], f["RuleID"]) for f in json.loads(report.read_text())}


def main() -> None:
    toml_path, binary = sys.argv[1], sys.argv[2]
    config = tomllib.loads(pathlib.Path(toml_path).read_text())
    version = subprocess.run([binary, "version"], capture_output=True, text=True).stdout.strip()
    rnd = random.Random(13)
    candidates = []
    for rule in config["rules"]:
        if "regex" in rule:
            candidates.extend((rule["id"], line, secret) for line, secret in rule_lines(rule, rnd))
    found = gitleaks_findings(binary, [line for _, line, _ in candidates])
    per_rule: dict[str, int] = {}
    out = []
    for number, (rule_id, line, secret) in enumerate(candidates, start=1):
        if (number, rule_id) in found and per_rule.get(rule_id, 0) < 2:
            per_rule[rule_id] = per_rule.get(rule_id, 0) + 1
            out.append({"text": line, "secret": secret, "source": f"gitleaks {version} rule {rule_id}"})
    for line in (HERE / "handwritten_secrets.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            text, secret, source = line.split("\t")
            out.append({"text": text.replace("\\n", "\n"), "secret": secret, "source": source})
    with open(HERE / "secrets_corpus.jsonl", "w") as handle:
        for entry in out:
            handle.write(json.dumps(entry, ensure_ascii=False) + "\n")
    missing = sorted({r["id"] for r in config["rules"] if "regex" in r} - set(per_rule))
    print(f"{len(out)} secret lines ({len(per_rule)} gitleaks rules); rules without a line: {missing}")


if __name__ == "__main__":
    main()
