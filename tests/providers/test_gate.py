"""One gate: whatever field of a request a secret sits in, it never reaches the server.

Each request goes to the local stub server over real HTTP; what the server received is checked
whole (body, query string, headers other than the key's own)."""

from __future__ import annotations

import json

import pytest
from pydantic import BaseModel, Field

from parsec.models.chat import ChatMessage
from parsec.privacy.memory import SecretValues

from .conftest import KEY, PROVIDERS

GH = "ghp_" + "Q7w8E9r0T1y2U3i4O5p6A7s8D9f0G1h2J3k4"
VAULT = "hvs.CAESIJlU9JMYEhOPYv4igdhm9PnZDrabYTobQ4Ymnlq1qY-LGh4KHGh2cy5WbmJzRjBvaGd6N2FhRzJ3VVFXcFVMN3Y"
PASSWORD = "Hunter2secret"  # a bare value: only the session's memory knows it is a secret
SECRETS = {
    "system": f"env: GITHUB_TOKEN={GH}",
    "user": f"why does `vault login {VAULT}` fail?",
    "assistant": f"I ran mysql -u root -p{PASSWORD} and it answered",
    "prose": f"the db root password is {PASSWORD}",
}


class Answer(BaseModel):
    text: str = Field(description=f"never repeat {GH}")  # the schema is a field of the request too


def _messages() -> list[ChatMessage]:
    return [
        ChatMessage(role="system", content=SECRETS["system"]),
        ChatMessage(role="user", content=SECRETS["user"]),
        ChatMessage(role="assistant", content=SECRETS["assistant"]),
        ChatMessage(role="user", content=SECRETS["prose"]),
    ]


def _everything_sent(stub) -> str:
    parts = []
    for request in stub.model_requests():
        headers = {k: v for k, v in request.headers.items() if KEY not in v}
        parts.append(json.dumps([request.path, request.query, headers, request.body]))
    return "\n".join(parts)


@pytest.mark.parametrize("name", PROVIDERS)
def test_a_secret_in_any_field_never_reaches_the_server(stub, make_provider, name):
    provider = make_provider(name)
    values = SecretValues()
    values.remember(PASSWORD)  # seen earlier in the session, e.g. `export DB_PASSWORD=…`
    provider.use_secret_values(values)
    provider.chat(_messages())
    list(provider.stream(_messages()))
    stub.reply(json={"text": "ok"})
    provider.structured(_messages(), Answer)
    sent = _everything_sent(stub)
    assert len(stub.model_requests()) >= 3
    for secret in (GH, VAULT, PASSWORD):
        assert secret not in sent
    assert "[REDACTED:" in sent and "why does `vault login" in sent


def test_without_the_session_memory_a_bare_value_is_only_masked_by_shape(stub, make_provider):
    """The gate is what applies the memory: the same prose without it keeps the bare value."""
    make_provider("openai").chat([ChatMessage(role="user", content="my nickname is Hunter2secret")])
    assert PASSWORD in _everything_sent(stub)


def _step_context(stub) -> dict:
    """The JSON block of the last request's user message, as the server received it."""
    body = json.dumps(stub.model_requests()[-1].body)
    content = next(m for m in stub.model_requests()[-1].body["messages"] if m["role"] == "user")["content"]
    assert GH not in body
    return json.loads(content.split("Step context (JSON):\n", 1)[1].split("\n\n", 1)[0])


def test_json_in_a_message_is_masked_string_by_string_and_stays_valid(stub, make_provider):
    """Issue 27 item 7: masking the serialised JSON let `token is set","…` swallow the fields
    after it. Each string is masked on its own; the document the server gets still parses."""
    from parsec.context.items import to_json

    context = {
        "current_step": "Check the token is set",
        "cwd": "in the project directory",
        "last_attempt": {"command": 'curl -H "Authorization: Bearer $API_TOKEN" https://api.example.com', "exit": 0},
        "environment": {"DEPLOY_TOKEN": "Zx81mq7Pw0", "EDITOR": "vim"},
        "output": f"export GITHUB_TOKEN={GH}",
        "attempt": 1,
    }
    content = "Step context (JSON):\n" + to_json(context) + "\n\nIt is 01:00."
    make_provider("openai").chat([ChatMessage(role="user", content=content)])
    received = _step_context(stub)
    assert received["current_step"] == "Check the token is set"
    assert received["cwd"] == "in the project directory" and received["attempt"] == 1
    assert received["last_attempt"]["command"] == context["last_attempt"]["command"]
    assert received["environment"] == {"DEPLOY_TOKEN": "[REDACTED:credential]", "EDITOR": "vim"}
    assert received["output"] == "export GITHUB_TOKEN=[REDACTED:github_token]"
