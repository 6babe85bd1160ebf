"""Masking structured text: strings are masked before they are serialised, never the JSON text."""

from __future__ import annotations

import json

from parsec.privacy.masking import mask, mask_json, mask_string

GH = "ghp_" + "Q7w8E9r0T1y2U3i4O5p6A7s8D9f0G1h2J3k4"


def test_masking_the_serialised_text_is_what_broke_it() -> None:
    """The failure issue 27 item 7 saw, kept as the reason for mask_string."""
    text = json.dumps({"step": "Check the token is set", "cwd": "in the project directory"}, separators=(",", ":"))
    assert "cwd" not in mask(text)
    assert json.loads(mask_string(text, mask)) == json.loads(text)


def test_each_document_starting_a_line_is_masked_string_by_string() -> None:
    document = {"cmd": f"git push https://x:{GH}@github.com/a/b", "note": "the password is set", "n": [1, "ok"]}
    text = "Planning context (JSON):\n" + json.dumps(document) + "\nthe password is Hunter2secret\n"
    masked = mask_string(text, mask)
    head, line, tail, _ = masked.split("\n")
    assert head == "Planning context (JSON):" and tail == "the password is [REDACTED:credential]"
    decoded = json.loads(line)
    assert GH not in line and decoded["note"] == "the password is set" and decoded["n"] == [1, "ok"]


def test_unchanged_documents_keep_their_bytes_and_changed_strings_their_escaping() -> None:
    text = '{"a": "caf\\u00e9",\n  "b": "x"}'
    assert mask_string(text, mask) == text
    masked = mask_string('{"a": "caf\\u00e9 token=' + GH + '"}', mask)
    assert masked == '{"a": "caf\\u00e9 token=[REDACTED:github_token]"}'


def test_a_credential_named_field_is_masked_whole_but_references_are_kept() -> None:
    value = {"env": {"DB_PASSWORD": "plainword", "API_TOKEN": "$API_TOKEN", "EDITOR": "vim", "password_file": "./pw"}}
    assert mask_json(value, mask) == {
        "env": {
            "DB_PASSWORD": "[REDACTED:credential]",
            "API_TOKEN": "$API_TOKEN",
            "EDITOR": "vim",
            "password_file": "./pw",
        }
    }
    assert json.loads(mask_string(json.dumps(value), mask)) == mask_json(value, mask)


def test_a_json_string_inside_a_json_string_is_masked_as_json_too() -> None:
    inner = json.dumps({"step": "Check the token is set", "cwd": "/srv"}, separators=(",", ":"))
    outer = json.dumps({"output": inner + "\n", "secret_note": None})
    decoded = json.loads(mask_string(outer, mask))
    assert json.loads(decoded["output"]) == {"step": "Check the token is set", "cwd": "/srv"}


def test_broken_or_deep_documents_fall_back_to_text_masking_in_linear_time() -> None:
    assert mask_string("{ echo hi; }\n[ok] token=" + GH, mask) == "{ echo hi; }\n[ok] token=[REDACTED:github_token]"
    deep = "[" * 100_000 + "\n" + "{\n" * 20_000 + f"password={GH}"
    masked = mask_string(deep, mask)
    assert GH not in masked and masked.startswith("[" * 100_000)
