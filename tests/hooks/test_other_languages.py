"""Issue 28, item 8: a request in another language typed at the prompt goes to Parsec. A Chinese
sentence has no spaces, so it was one unknown word and ran (command not found, with no offer);
French, German and Spanish requests were asked about."""

from __future__ import annotations

import pytest

from .conftest import need
from .harness import Shell

REQUESTS = [
    "查找所有大于1MB的python文件",
    "trouve tous les fichiers python de plus de 1 Mo",
    "zeige mir die zehn größten Dateien hier",
]


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_requests_in_other_languages_go_to_parsec(sandbox, daemon, shell):
    need(shell)
    sh = Shell(shell, sandbox)
    out = "".join(sh.run(line) for line in REQUESTS)
    sh.exit()
    for line in REQUESTS:
        assert f"ASKED<{line}>" in out
    assert "[a] ask Parsec" not in out
