"""The daemon's exit-127 answer and its ambiguous answers, over the real socket (issue 16)."""

from __future__ import annotations


def test_after_127_offers_prose_and_not_typos(sandbox):
    sandbox.run()

    def after_127(text: str) -> str:
        with sandbox.client() as client:
            return client.call("classify", text=text, first_word="none", after_127=True)["decision"]

    assert after_127("whats using port 8080") == "prompt"
    assert after_127("list containers") == "prompt"
    assert after_127("gti status") == "command"
    assert after_127("sl") == "command"


def test_ambiguous_replies_say_which_way_they_lean(sandbox):
    sandbox.run()
    with sandbox.client() as client:
        reply = client.call("classify", text="unset a secret", first_word="builtin")
    assert reply["decision"] == "ambiguous" and reply["leans"] == "command"
