"""Regenerate parsec/privacy/data/gitleaks_rules.json from a gitleaks rule file.

Parsec's secret table follows gitleaks' default rule set (MIT licence). To update it:

    python scripts/gen_gitleaks_rules.py path/to/gitleaks.toml --version v8.30.1

`gitleaks.toml` is `config/gitleaks.toml` in the gitleaks repository at that tag (the same text is
embedded in each release binary). The output keeps, per rule, what masking needs: id, regex,
keywords, secret group, entropy threshold and the allowlists that apply to text without a file
path. The source, version, date and the input's SHA-256 are recorded at the top of the file.
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import pathlib
import tomllib

OUTPUT = pathlib.Path(__file__).resolve().parent.parent / "parsec" / "privacy" / "data" / "gitleaks_rules.json"


def _allowlists(rule: dict) -> list[dict]:
    """Allowlists usable on a shell line: those that need a file path can never apply."""
    kept = []
    for allow in rule.get("allowlists", []):
        if allow.get("paths") and (
            allow.get("condition") == "AND" or not (allow.get("regexes") or allow.get("stopwords"))
        ):
            continue
        entry = {"target": allow.get("regexTarget", "secret")}
        if allow.get("regexes"):
            entry["regexes"] = allow["regexes"]
        if allow.get("stopwords"):
            entry["stopwords"] = allow["stopwords"]
        if len(entry) > 1:
            kept.append(entry)
    return kept


def convert(toml_text: str, version: str) -> dict:
    config = tomllib.loads(toml_text)
    rules = []
    for rule in config["rules"]:
        if "regex" not in rule:
            continue  # path-only rules (e.g. pkcs12-file) match file names, not text
        entry = {"id": rule["id"], "regex": rule["regex"], "keywords": rule.get("keywords", [])}
        if rule.get("secretGroup"):
            entry["secret_group"] = rule["secretGroup"]
        if rule.get("entropy"):
            entry["entropy"] = rule["entropy"]
        if allow := _allowlists(rule):
            entry["allowlists"] = allow
        rules.append(entry)
    glob = config.get("allowlist", {})
    return {
        "source": "https://github.com/gitleaks/gitleaks config/gitleaks.toml",
        "version": version,
        "licence": "MIT (gitleaks authors)",
        "generated": datetime.date.today().isoformat(),
        "input_sha256": hashlib.sha256(toml_text.encode()).hexdigest(),
        "allowlist": {"regexes": glob.get("regexes", []), "stopwords": glob.get("stopwords", [])},
        "rules": rules,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("toml", type=pathlib.Path)
    parser.add_argument("--version", required=True, help="the gitleaks tag the file comes from")
    parser.add_argument("-o", "--output", type=pathlib.Path, default=OUTPUT)
    args = parser.parse_args()
    data = convert(args.toml.read_text(), args.version)
    args.output.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    print(f"{len(data['rules'])} rules written to {args.output}")


if __name__ == "__main__":
    main()
