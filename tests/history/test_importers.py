"""The history file parsers, on files shaped like the shells write them."""

from __future__ import annotations

from parsec.store.importers import parse_bash, parse_fish, parse_zsh, unmetafy


def commands(parsed):
    return [e.command for e in parsed.entries]


def test_bash_without_timestamps_one_command_per_line() -> None:
    parsed = parse_bash(b"ls -la\n\ngit status\ncd /tmp && make\n")
    assert commands(parsed) == ["ls -la", "git status", "cd /tmp && make"]
    assert [e.timestamp for e in parsed.entries] == [None, None, None]
    assert [e.line for e in parsed.entries] == [1, 3, 4]
    assert parsed.malformed == 0


def test_bash_with_histtimeformat_timestamps_and_multiline_entries() -> None:
    data = b"#1700000000\nls\n#1700000060\nfor f in *; do\n  echo $f\ndone\n#1700000120\n#notatime\n"
    parsed = parse_bash(data)
    assert commands(parsed) == ["ls", "for f in *; do\n  echo $f\ndone", "#notatime"]
    assert [e.timestamp for e in parsed.entries] == [1700000000, 1700000060, 1700000120]


def test_bash_absurd_timestamp_is_malformed_and_reported() -> None:
    parsed = parse_bash(b"#1700000000\nls\n#99999999999999\npwd\n")
    assert parsed.malformed == 1 and parsed.examples == [(3, "#99999999999999")]
    assert commands(parsed) == ["ls", "pwd"]
    assert parsed.entries[1].timestamp is None


def test_bash_invalid_utf8_and_nul_do_not_lose_the_line() -> None:
    parsed = parse_bash(b"echo caf\xe9\nprintf 'a\x00b'\n")
    assert commands(parsed) == ["echo caf\ufffd", "printf 'a\u2400b'"]


def test_zsh_extended_format_with_durations_and_multiline() -> None:
    data = (
        b": 1700000000:0;git status\n"
        b": 1700000010:12;make test\n"
        b": 1700000030:1;for i in 1 2; do\\\n  echo $i\\\ndone\n"
        b"plain old entry\n"
    )
    parsed = parse_zsh(data)
    assert commands(parsed) == ["git status", "make test", "for i in 1 2; do\n  echo $i\ndone", "plain old entry"]
    assert [e.timestamp for e in parsed.entries] == [1700000000, 1700000010, 1700000030, None]
    assert [e.duration_s for e in parsed.entries] == [0, 12, 1, None]
    assert [e.line for e in parsed.entries] == [1, 2, 3, 6]


def test_zsh_malformed_lines_are_counted_and_skipped() -> None:
    data = b": 1700000000:0;ls\n: garbage\n: 12:0;too old\n: 1700000001:0;\n: 1700000002:0;pwd\n"
    parsed = parse_zsh(data)
    assert commands(parsed) == ["ls", "pwd"]
    assert parsed.malformed == 3
    assert [line for line, _ in parsed.examples] == [2, 3, 4]


def test_zsh_metafied_bytes_are_decoded() -> None:
    # zsh writes 0x83 then byte^0x20 for bytes in 0x83..0xa2: "é" is c3 a9 -> c3 83 89
    raw = ": 1700000000:0;echo caf\xc3\x83\x89\n".encode("latin-1")
    assert unmetafy(b"caf\xc3\x83\x89") == "café".encode()
    assert commands(parse_zsh(raw)) == ["echo café"]


def test_fish_history_with_paths_and_escapes() -> None:
    data = (
        b"- cmd: ls -la\n  when: 1700000000\n"
        b"- cmd: echo a\\\\b\\nsecond line\n  when: 1700000005\n  paths:\n    - /tmp\n    - ~/x\n"
        b"- cmd: no time\n"
    )
    parsed = parse_fish(data)
    assert commands(parsed) == ["ls -la", "echo a\\b\nsecond line", "no time"]
    assert [e.timestamp for e in parsed.entries] == [1700000000, 1700000005, None]
    assert parsed.malformed == 0


def test_fish_malformed_lines() -> None:
    data = b"stray line\n- cmd: ok\n  when: soon\nnot: indented\n- cmd: fine\n  when: 1700000000\n"
    parsed = parse_fish(data)
    assert commands(parsed) == ["ok", "fine"]
    assert parsed.malformed == 3
    assert [line for line, _ in parsed.examples] == [1, 3, 4]


def test_empty_files() -> None:
    for parse in (parse_bash, parse_zsh, parse_fish):
        parsed = parse(b"")
        assert parsed.entries == [] and parsed.malformed == 0
