"""The session memory of secret values: keyed hashes only, masked wherever the value reappears."""

from __future__ import annotations

import pickle

from parsec.privacy.memory import SecretValues, SessionMasker
from parsec.workflow.execution.results import environment_changes

VALUE = "Hunter2secret"


def test_a_remembered_value_is_masked_as_a_word_and_after_a_name():
    values = SecretValues()
    values.remember(VALUE)
    assert values.mask(f"the db root password is {VALUE}.") == "the db root password is [REDACTED:known_secret]."
    assert values.mask(f"DB_PASSWORD={VALUE}\nother=1") == "DB_PASSWORD=[REDACTED:known_secret]\nother=1"
    assert values.mask(f"'{VALUE}'") == "'[REDACTED:known_secret]'"
    assert values.mask("Hunter2secretX and Hunter2secre") == "Hunter2secretX and Hunter2secre"


def test_the_value_is_never_kept_in_clear():
    values = SecretValues()
    values.remember(VALUE)
    assert VALUE.encode() not in pickle.dumps(values.__dict__ | {"_lock": None})
    assert len(values) == 1


def test_short_values_and_references_are_not_remembered():
    values = SecretValues()
    for value in ("root", "12345", "$DB_PASSWORD", "[REDACTED:credential]"):
        values.remember(value)
    assert len(values) == 0


def test_a_session_masker_learns_from_what_it_masks():
    masker = SessionMasker()
    assert VALUE not in masker(f"mysql -u root -p{VALUE} shop")
    assert masker(f"output: access denied for {VALUE}") == "output: access denied for [REDACTED:known_secret]"


def test_workflow_environment_changes_hide_secret_named_values_and_remember_them():
    masker = SessionMasker()
    changes = environment_changes(
        "/a", "/a", {}, {"SERVICE_API_TOKEN": "plainlooking42", "EDITOR": "vim"}, 1, mask=masker
    )
    shown = {change.name: change.new_value for change in changes}
    assert shown == {"SERVICE_API_TOKEN": "[REDACTED:credential]", "EDITOR": "vim"}
    assert masker("printenv says plainlooking42") == "printenv says [REDACTED:known_secret]"


def test_environment_a_workflow_sees_is_remembered():
    masker = SessionMasker()
    masker.remember_environment({"AWS_SECRET_ACCESS_KEY": "abcDEF123456ghi", "AWS_REGION": "eu-west-1", "KEYMAP": "us"})
    assert masker("got abcDEF123456ghi region eu-west-1 us") == "got [REDACTED:known_secret] region eu-west-1 us"
