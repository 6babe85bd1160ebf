from hypothesis import given
from hypothesis import strategies as st

from parsec.models.text import TruncatedText, clean_text


def test_short_text_is_kept_whole():
    text = TruncatedText.from_output("hello\nworld\n", limit=100)
    assert not text.truncated
    assert text.render() == "hello\nworld\n"
    assert (text.original_bytes, text.original_lines) == (12, 2)


def test_long_text_keeps_head_and_tail_around_a_marker():
    lines = "".join(f"line {i}\n" for i in range(1000))
    text = TruncatedText.from_output(lines, limit=200)
    rendered = text.render()
    assert rendered.startswith("line 0\n")
    assert rendered.endswith("line 999\n")
    assert f"{text.omitted_bytes} bytes" in rendered
    assert text.original_lines == 1000
    assert text.original_bytes == len(lines.encode())
    assert len(text.head.encode()) + len(text.tail.encode()) <= 200
    assert text.omitted_bytes == text.original_bytes - len(text.head.encode()) - len(text.tail.encode())


def test_never_splits_a_multibyte_character():
    text = TruncatedText.from_output("é" * 1000 + "😀" * 1000, limit=101)
    # Both halves decode and contain only whole characters.
    assert set(text.head) == {"é"}
    assert set(text.tail) == {"😀"}


def test_invalid_utf8_and_nul_bytes_are_accepted():
    text = TruncatedText.from_output(b"ok \xff\xfe and \x00 nul", limit=1024)
    assert "\ufffd" in text.head
    assert "\x00" not in text.render()
    assert "\u2400" in text.render()


def test_ten_megabytes_is_cut_to_the_limit():
    big = b"x" * (10 * 1024 * 1024)
    text = TruncatedText.from_output(big, limit=1024)
    assert text.original_bytes == len(big)
    assert len(text.head) + len(text.tail) == 1024


@given(st.binary(max_size=4000), st.integers(min_value=0, max_value=600))
def test_any_bytes_give_valid_text_within_the_limit(data, limit):
    text = TruncatedText.from_output(data, limit=limit)
    kept = len(text.head.encode()) + len(text.tail.encode())
    assert kept <= max(limit, 0) or not text.truncated
    assert text.original_bytes == len(clean_text(data).encode())
    # A round trip through JSON (what the store does) loses nothing.
    assert TruncatedText.model_validate_json(text.model_dump_json()) == text
