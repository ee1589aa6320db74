"""The SGF reader's memory stays within a small multiple of the text it reads, whatever the
length of a value (a long comment used to cost hundreds of bytes a character)."""

import tracemalloc

import pytest

from tawla.errors import FormatError
from tawla.formats.sgf import parse_sgf

HEAD = "(;FF[4]GM[6]MI[length:1][game:0][ws:0][bs:0]PW[a]PB[b]RU[]RE[W+1]C["
SIZE = 2_000_000


def _peak(text: str):
    tracemalloc.start()
    try:
        try:
            out = parse_sgf(text)
        except FormatError as e:
            out = e
        return tracemalloc.get_traced_memory()[1], out
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("comment", ["x" * SIZE, "\\]" * (SIZE // 2), "ab\\\\" * (SIZE // 4)])
def test_a_long_comment_costs_a_small_multiple_of_the_text(comment):
    text = HEAD + comment + "]\n;W[31fehe])"
    peak, record = _peak(text)
    assert not isinstance(record, FormatError), record
    assert peak < 4 * len(text), peak / len(text)


def test_an_unclosed_value_is_a_format_error():
    peak, err = _peak(HEAD + "x" * SIZE)
    assert isinstance(err, FormatError) and peak < 4 * SIZE
