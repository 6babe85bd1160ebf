"""`parsec classify --learn/--forget` reach a daemon that is already running."""

from __future__ import annotations


def test_learn_and_forget_reach_the_running_daemon(sandbox):
    sandbox.run()

    def decision(text: str) -> str:
        with sandbox.client() as client:
            return client.call("classify", text=text)["decision"]

    assert decision("deploy staging now") != "command"  # also loads the daemon's classifier
    learned = sandbox.cli("classify", "--learn", "command", "deploy staging now")
    assert learned.returncode == 0, learned.stderr
    assert decision("deploy staging now") == "command"
    forgot = sandbox.cli("classify", "--forget", "deploy staging now")
    assert forgot.returncode == 0 and "forgot the choice" in forgot.stdout
    assert decision("deploy staging now") != "command"
