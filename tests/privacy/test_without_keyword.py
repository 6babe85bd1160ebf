"""Secrets with no keyword beside them (issue 27 item 6): prefixes, credential files, random tokens."""

from __future__ import annotations

import pytest

from parsec.privacy.entropy import looks_random
from parsec.privacy.masking import mask
from parsec.privacy.memory import SessionMasker

NRAK = "NRAK-" + "7Q2ZKX9LM4PB8T1VW6YC3HJ5RDN"
GLSA = "glsa_" + "Zq8VfR2mXk41pLsT9wYcBn7uJe3dHa6G_0a1b2c3d"
RANDOM = "Zq8VfR2mXk41pLsT9wYcBn7uJe3dHa6G"


@pytest.mark.parametrize("secret", [NRAK, GLSA, "sbp_" + "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c", RANDOM])
@pytest.mark.parametrize(
    "line",
    [
        "vendorctl auth login {s}",
        "echo {s} | xclip -selection clipboard",
        "printf '{s}\\n' | vendorctl configure --stdin",
        'curl -d \'{{"name": "deploy", "value": "{s}"}}\' https://config.example.com',
    ],
)
def test_a_key_alone_is_masked(line: str, secret: str) -> None:
    assert secret not in mask(line.format(s=secret))


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("machine api.example.com login deploy password plainword", "plainword"),
        ("machine api.example.com\n  login deploy\n  password plainword\n", "plainword"),
        ("default login anonymous password guest@example.org", "guest@example.org"),
        ("db.example.com:5432:shop:app:plainword", "plainword"),
        ("[pypi]\nusername = __token__\npassword = plainword\n", "plainword"),
    ],
)
def test_credential_file_lines_are_masked(text: str, secret: str) -> None:
    assert secret not in mask(text)


def test_a_known_secret_glued_to_an_escape_is_masked() -> None:
    session = SessionMasker()
    session("export DB_PASSWORD=plainword7")
    assert session("printf 'plainword7\\n' | psql") == "printf '[REDACTED:known_secret]\\n' | psql"


@pytest.mark.parametrize(
    "token",
    [
        "3f2a9c1b2d4e5f60718293a4b5c6d7e8f9012345",
        "550e8400-e29b-41d4-a716-446655440000",
        "getUserAccountSettingsById",
        "Base64EncodedSha256Digest",
        "SGVsbG8sIHdvcmxkISBUaGlzIGlzIGEgdGVzdC4=",
        "AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl",
        "api-server-5f9c7b8d4-q8wzt",
        "/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30",
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
        "01JD8Z5E6B0V9R4Q2M7K3C1T8N",
    ],
)
def test_what_looks_random_but_is_not_a_secret(token: str) -> None:
    assert not looks_random(token.encode())
    assert mask(f"echo {token}") == f"echo {token}"


def test_ulids_are_ids_not_secrets() -> None:
    """Parsec's own ids (sessions, conversations) are ULIDs: about one in ten looked random and
    was stored as `[REDACTED:random_token]`, which the store then refused as an id."""
    from ulid import ULID

    ids = [str(ULID()) for _ in range(2000)]
    assert [i for i in ids if looks_random(i.encode())] == []
    assert mask(f"parsec ask --resume {ids[0]}") == f"parsec ask --resume {ids[0]}"
    assert mask(f'{{"conversation_id": "{ids[1]}"}}') == f'{{"conversation_id": "{ids[1]}"}}'


def test_random_token_check_gives_up_quietly_on_a_flood_of_candidates() -> None:
    """Past its own budget the check stops: the text is not withheld as masking_limit."""
    flood = "\n".join(f"/srv/data/file-number-{i:06d}-of-the-export.csv" for i in range(5000))
    assert mask(flood + f"\ntoken={RANDOM}").endswith("token=[REDACTED:credential]")
    assert "masking_limit" not in mask(flood)


def test_a_token_in_a_url_keeps_the_url_around_it() -> None:
    token = "ghp_" + "Q7w8E9r0T1y2U3i4O5p6A7s8D9f0G1h2J3k4"
    assert (
        mask(f"git clone https://{token}@github.com/x/y") == "git clone https://[REDACTED:github_token]@github.com/x/y"
    )
