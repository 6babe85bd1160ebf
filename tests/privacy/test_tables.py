"""The pattern tables: gitleaks' rules recorded with their source, every pattern compiles on RE2."""

from __future__ import annotations

from parsec.privacy.gitleaks import rule_data
from parsec.privacy.masking import builtin_patterns
from parsec.privacy.matcher import compile_re2, relaxed


def test_the_gitleaks_table_records_its_source_version_and_date() -> None:
    data = rule_data()
    assert "gitleaks/gitleaks" in data["source"] and data["version"].startswith("v8.")
    assert data["generated"] and len(data["input_sha256"]) == 64
    assert len(data["rules"]) >= 200
    ids = {rule["id"] for rule in data["rules"]}
    for expected in (
        "vault-service-token",
        "doppler-api-token",
        "heroku-api-key-v2",
        "shopify-access-token",
        "telegram-bot-api-token",
        "age-secret-key",
    ):
        assert expected in ids


def test_every_pattern_and_its_relaxed_form_compile_on_re2() -> None:
    patterns = builtin_patterns()
    assert len(patterns) >= len(rule_data()["rules"])
    for pattern in patterns:
        assert pattern.regex is not None, pattern.kind
        compile_re2(relaxed(pattern.source))
