"""A secret anywhere in the inputs never reaches an assembled context."""

from __future__ import annotations

from datetime import UTC, datetime

from parsec import trust
from parsec.config import ContextCommand
from parsec.context.engine import ContextEngine
from parsec.errors import NotFound
from parsec.models.parsec_model import new_id
from parsec.models.session import DirectCommandExecution, Session
from parsec.store import open_store

from .ctx_helpers import attempt, conversation, finish_step, fixed_clock, settings

GITHUB = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
AWS = "AKIAIOSFODNN7EXAMPLE"
OPENAI = "sk-proj-abcdefghijklmnopqrstuvwxyz012345"
PASSWORD = "hunter2hunter2"
BEARER = "abcdef0123456789abcdef"
SECRETS = [GITHUB, AWS, OPENAI, PASSWORD, BEARER]


class RawHistoryStore:
    """History as an unmasked source would hand it over (an import, an older store): the engine
    must not rely on the store having masked anything."""

    url = "memory://raw"

    def __init__(self, session_id: str) -> None:
        self.session_id = session_id

    def query_executions(self, query):
        commands = [
            f"curl -H 'Authorization: Bearer {BEARER}' https://api.example.com",
            f"export GITHUB_TOKEN={GITHUB}",
            f"mysql -u root --password={PASSWORD}",
            "rg TODO src",
        ]
        return [DirectCommandExecution(session_id=self.session_id, command=c, exit_status=0) for c in commands]

    def load_session(self, session_id, history_limit=1000):
        raise NotFound(f"no session {session_id}")

    def recent_achievements(self, cwd, limit=10):
        return [
            {
                "conversation_id": new_id(),
                "name": f"Deploy with {AWS}",
                "working_directory": cwd,
                "achievements": [f"Configured OPENAI_API_KEY={OPENAI}"],
                "artifacts": [".env"],
                "completed_at": datetime(2026, 1, 1, tzinfo=UTC),
            }
        ]


def _assert_clean(messages) -> None:
    text = "\n".join(m.content for m in messages)
    for secret in SECRETS:
        assert secret not in text, f"secret {secret[:6]}… reached the context"
    assert "[REDACTED:" in text


def test_secrets_in_history_outputs_prompts_and_commands_are_masked(workdir):
    (workdir / "PARSEC.md").write_text(f"deploy key: AWS_SECRET_ACCESS_KEY={PASSWORD}x\n")
    trust.trust(workdir / "PARSEC.md")
    config = settings(
        context_commands=[
            ContextCommand(name="env", command=f"echo GITHUB_TOKEN={GITHUB}").model_dump(),
            ContextCommand(name="dyn", command=f"echo {AWS}", dynamic=True).model_dump(),
        ],
        preferences={"deploy_token": OPENAI},
    )
    conv = conversation(
        ["log in to the registry", f"push with token {GITHUB}", "verify"],
        cwd=str(workdir),
        prompt=f"Deploy with DB_PASSWORD={PASSWORD} and key {AWS}",
    )
    finish_step(
        conv,
        0,
        [
            attempt(
                f"docker login -p {PASSWORD} registry",
                0,
                f"Login Succeeded\nexport OPENAI_API_KEY={OPENAI}\n",
                str(workdir),
            )
        ],
    )
    conv.steps[1].command_attempts.append(
        attempt(f"git push https://user:{PASSWORD}@example.com/repo.git", 128, f"fatal: token {GITHUB} rejected")
    )
    conv.steps[1].error_context = f"auth failed for {GITHUB}"
    store = RawHistoryStore(conv.session_id)
    engine = ContextEngine(config, store, clock=fixed_clock)

    for index in (1, 2):
        messages, step_context, report = engine.step_messages(
            conv,
            index,
            {
                "working_directory": str(workdir),
                "AWS_ACCESS_KEY_ID": AWS,
                "env": {"AWS_PROFILE": f"profile-{AWS}", "GITHUB_TOKEN": GITHUB, "EDITOR": "nvim"},
            },
        )
        _assert_clean(messages)
        assert all(secret not in step_context.model_dump_json() for secret in SECRETS)
        assert all(secret not in d.key + d.reason for d in report.decisions for secret in SECRETS)
        env = step_context.current_environment
        assert "AWS_ACCESS_KEY_ID" not in env, "variables outside [privacy] environment_allowlist stay out"
        assert env["env"] == {"AWS_PROFILE": "profile-[REDACTED:aws_access_key]", "EDITOR": "nvim"}
    _assert_clean(engine.planning_messages(conv, Session(id=conv.session_id, shell="bash")))


def test_secrets_in_a_real_sqlite_history_are_masked(workdir, sqlite_url):
    store = open_store(sqlite_url)
    try:
        session = Session(shell="bash")
        store.save_session(session)
        store.append_executions(
            [
                DirectCommandExecution(session_id=session.id, command=f"export GITHUB_TOKEN={GITHUB}", exit_status=0),
                DirectCommandExecution(session_id=session.id, command="cargo build", exit_status=0),
            ]
        )
        conv = conversation(["build the project"], cwd=str(workdir))
        conv.session_id = session.id
        messages, _, _ = ContextEngine(settings(), store, clock=fixed_clock).step_messages(
            conv, 0, {"working_directory": str(workdir)}
        )
    finally:
        store.close()
    text = "\n".join(m.content for m in messages)
    assert GITHUB not in text
    assert "cargo build" in text, "the session's shell history is part of the step context"
