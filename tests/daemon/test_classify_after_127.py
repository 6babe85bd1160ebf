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


def test_the_shell_named_in_the_request_decides_a_builtins_grammar(sandbox):
    """fish's hook says it is fish: `set x 1` is then an assignment, not bash's `set` overwriting $1."""
    sandbox.run()
    with sandbox.client() as client:
        fish = client.call("classify", text="set x 1", first_word="builtin", shell="fish")
        bash = client.call("classify", text="set x 1", first_word="builtin", shell="bash")
        odd = client.request("classify", text="set x 1", first_word="builtin", shell="tcsh" * 5)
    assert fish["decision"] == "command"
    assert bash["decision"] != "command"
    assert odd["ok"] is False  # an over-long shell name is a bad request, like any bad field
