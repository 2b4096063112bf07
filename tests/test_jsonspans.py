"""Tests for dimlint/sources/jsonspans.py: the JSON reader that knows where every value is.

DESIGN.md asks that its values equal ``json.loads`` on every valid document (a property test
below) and that every key and value span points at exactly the text it came from; the targeted
cases cover what the C parser cannot do (deep nesting, huge integers) and the duplicate keys
and syntax errors the linter reports from it.
"""

from __future__ import annotations

import json
import math
import time
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dimlint.config.values import HugeInt
from dimlint.diagnostics import Position
from dimlint.sources import jsonspans
from dimlint.sources.jsonspans import JsonSyntaxError, LazySpans, Member, parse
from tests.conftest import examples

# --- helpers ----------------------------------------------------------------------------------


def same(a: Any, b: Any) -> bool:
    """Deep equality where NaN equals NaN and types must agree (1 is not 1.0, nor True)."""
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or a == b
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def unescape(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def resolve(value: Any, pointer: str) -> Any:
    """The value at an RFC 6901 pointer."""
    if pointer == "":
        return value
    for token in pointer[1:].split("/"):
        key = unescape(token)
        value = value[int(key)] if isinstance(value, list) else value[key]
    return value


def all_pointers(value: Any, pointer: str = "") -> set[str]:
    found = {pointer}
    if isinstance(value, dict):
        for key, child in value.items():
            found |= all_pointers(child, f"{pointer}/{jsonspans.escape_pointer_token(key)}")
    elif isinstance(value, list):
        for position, child in enumerate(value):
            found |= all_pointers(child, f"{pointer}/{position}")
    return found


# --- the property test ------------------------------------------------------------------------

TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
# Keys with the characters that need care: pointer escapes, quotes, backslashes, controls.
KEYS = st.one_of(TEXT, st.sampled_from(["a/b", "~", "~1", '"', "\\", "\n", "\x00", "é", "😀", ""]))
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=-(10**400), max_value=10**400),  # long, but under int()'s 4300 digits
    st.floats(),  # NaN, ±Infinity, exponents (1e+300, 5e-324)
    TEXT,
)
DOCUMENTS = st.recursive(
    SCALARS,
    lambda children: st.one_of(
        st.lists(children, max_size=5),
        st.dictionaries(KEYS, children, max_size=5),
    ),
    max_leaves=25,
)


@st.composite
def serialised(draw: st.DrawFn) -> tuple[Any, str, bool]:
    value = draw(DOCUMENTS)
    ensure_ascii = draw(st.booleans())
    text = json.dumps(
        value,
        indent=draw(st.sampled_from([None, 0, 1, 2, 4, "\t", " \t"])),
        separators=(
            draw(st.sampled_from([",", ", ", " ,\n\t", ",\r\n"])),
            draw(st.sampled_from([":", ": ", " : ", ":\n", "\t:\t"])),
        ),
        ensure_ascii=ensure_ascii,
        sort_keys=draw(st.booleans()),
    )
    padding = st.sampled_from(["", " ", "\n", "\r\n", "\t \n"])
    return value, draw(padding) + text + draw(padding), ensure_ascii


@settings(max_examples=examples(250), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(serialised())
def test_parse_equals_json_loads_and_every_span_is_exact(case: tuple[Any, str, bool]) -> None:
    """Values equal json.loads; each span slices back to its value and its key."""
    _, text, ensure_ascii = case
    expected = json.loads(text)
    value, index = parse(text)
    assert same(value, expected)
    assert set(index.members) == all_pointers(expected)
    assert index.duplicates == []
    for pointer, member in index.members.items():
        assert same(
            json.loads(text[member.value_start : member.value_end]), resolve(value, pointer)
        )
        if pointer == "" or isinstance(resolve(value, pointer.rpartition("/")[0]), list):
            assert member.key_start is None
            assert member.key_end is None
        else:
            assert member.key_start is not None
            assert member.key_end is not None
            key = unescape(pointer.rpartition("/")[2])
            raw_key = text[member.key_start : member.key_end]
            assert raw_key == json.dumps(key, ensure_ascii=ensure_ascii)
            assert json.loads(raw_key) == key


@settings(max_examples=examples(200), deadline=None)
@given(serialised())
def test_lazy_spans_agree_with_the_full_index(case: tuple[Any, str, bool]) -> None:
    """LazySpans finds the same member as parse() for every pointer, in any order of asking."""
    _, text, _ = case
    _, index = parse(text)
    lazy = LazySpans(text)
    for pointer in sorted(index.members, key=len, reverse=True):  # deepest first
        assert lazy.member(pointer) == index.members[pointer], pointer
    fresh = LazySpans(text)
    for pointer in index.members:
        assert fresh.member(pointer) == index.members[pointer], pointer
    assert lazy.member("/no such key/0") is None
    assert lazy.member("/0/no such key") is None
    # with the parsed value, keys are found by searching the text where that is safe
    value, _, _ = case
    searched = LazySpans(text, value)
    for pointer in sorted(index.members, key=len):  # parents first
        assert searched.member(pointer) == index.members[pointer], pointer
    assert searched.member("/no such key") is None


# --- numbers and literals ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "token",
    ["0", "-0", "-0.0", "1E5", "1e-5", "1.5E+3", "0.5e+10", "-12.25e-2", "1e400", "-1e400",
     "123456789012345678901234567890", "5e-324", "1.7976931348623157e308", "2.5"],
)  # fmt: skip
def test_number_tokens_match_json_loads(token: str) -> None:
    value, index = parse(f"[{token}]")
    assert same(value, json.loads(f"[{token}]"))
    assert index.value_span("/0") is not None


def test_nan_and_infinities() -> None:
    value, index = parse('{"a": NaN, "b": Infinity, "c": -Infinity, "d": [NaN]}')
    assert math.isnan(value["a"])
    assert value["b"] == math.inf
    assert value["c"] == -math.inf
    assert math.isnan(value["d"][0])
    text = index.text
    assert text[index.members["/c"].value_start : index.members["/c"].value_end] == "-Infinity"


def test_integer_of_5000_digits_is_a_huge_int() -> None:
    """Longer than int() converts: kept as a digit count instead of raising."""
    digits = "7" * 5000
    value, index = parse(f'{{"hidden_size": {digits}, "neg": -{digits}}}')
    assert isinstance(value["hidden_size"], HugeInt)
    assert value["hidden_size"].digits == 5000
    assert isinstance(value["neg"], HugeInt)
    assert value["neg"].digits == 5000
    span = index.value_span("/hidden_size")
    assert span is not None
    assert span.end - span.start == 5000


def test_integer_at_the_int_limit_is_a_plain_int() -> None:
    digits = "1" * jsonspans.max_int_digits()
    value, _ = parse(f"[{digits}]")
    assert type(value[0]) is int
    assert value == json.loads(f"[{digits}]")


# --- deep nesting -----------------------------------------------------------------------------

DEPTH = 200_000


def _depth(value: Any) -> int:
    """Nesting depth, iteratively (a recursive walk would itself hit the recursion limit)."""
    depth = 0
    while isinstance(value, list | dict) and value:
        value = value[0] if isinstance(value, list) else next(iter(value.values()))
        depth += 1
    return depth


@pytest.mark.parametrize(
    ("opening", "closing", "leaf"),
    [("[", "]", "1"), ('{"k": ', "}", "1")],
    ids=["arrays", "objects"],
)
def test_nesting_200000_levels_deep(opening: str, closing: str, leaf: str) -> None:
    text = opening * DEPTH + leaf + closing * DEPTH
    started = time.perf_counter()
    value, index = parse(text)
    elapsed = time.perf_counter() - started
    assert _depth(value) == DEPTH
    # Spans stop at MAX_INDEXED_DEPTH: a pointer per level would cost quadratic memory.
    assert max(p.count("/") for p in index.members) == jsonspans.MAX_INDEXED_DEPTH
    assert index.members[""] == Member(None, None, 0, len(text))
    # Not a benchmark: a guard against quadratic behaviour (it takes about a second).
    assert elapsed < 30


def test_deep_nesting_inside_an_object_keeps_shallow_spans() -> None:
    text = '{"hidden_size": 4096, "x": ' + "[" * DEPTH + "]" * DEPTH + ', "after": 1}'
    value, index = parse(text)
    assert value["hidden_size"] == 4096
    assert value["after"] == 1
    span = index.value_span("/after")
    assert span is not None
    assert text[span.start : span.end] == "1"


def test_unclosed_deep_nesting_is_a_syntax_error() -> None:
    with pytest.raises(JsonSyntaxError) as caught:
        parse("[" * DEPTH)
    assert caught.value.offset == DEPTH


# --- duplicate keys ---------------------------------------------------------------------------


def test_duplicate_key_recorded_with_the_earlier_member_and_removal_range() -> None:
    text = '{\n  "a": 1,\n  "b": 2,\n  "a": 3\n}'
    value, index = parse(text)
    assert value == json.loads(text) == {"a": 3, "b": 2}
    [duplicate] = index.duplicates
    assert duplicate.pointer == "/a"
    first = text.index('"a"')
    second = text.rindex('"a"')
    assert duplicate.earlier == Member(first, first + 3, first + 5, first + 6)
    assert duplicate.later == Member(second, second + 3, second + 5, second + 6)
    assert duplicate.next_start == text.index('"b"')
    assert index.members["/a"] == duplicate.later  # the effective member is the later one
    removed = text[: duplicate.earlier.key_start] + text[duplicate.next_start :]
    assert removed == '{\n  "b": 2,\n  "a": 3\n}'
    assert json.loads(removed) == value


def test_adjacent_and_escaped_duplicates() -> None:
    text = '{"a":1,"\\u0061":2 , "a" : 3}'
    value, index = parse(text)
    assert value == {"a": 3}
    assert [d.pointer for d in index.duplicates] == ["/a", "/a"]
    first, second = index.duplicates
    assert text[first.earlier.key_start : first.next_start] == '"a":1,'
    assert text[second.earlier.key_start : second.next_start] == '"\\u0061":2 , '


def test_nested_duplicate_pointer() -> None:
    text = '{"text_config": {"hidden_size": 4100, "hidden_size": 4096}}'
    value, index = parse(text)
    assert value == {"text_config": {"hidden_size": 4096}}
    [duplicate] = index.duplicates
    assert duplicate.pointer == "/text_config/hidden_size"
    fixed = text[: duplicate.earlier.key_start] + text[duplicate.next_start :]
    assert json.loads(fixed) == value


def test_members_describe_the_effective_value_after_a_duplicate() -> None:
    """The earlier (ignored) value's children must not stay in the index as live pointers."""
    text = '{"a": {"x": 1, "y": [5, 6]}, "a": {"x": 2}}'
    value, index = parse(text)
    assert value == {"a": {"x": 2}}
    assert set(index.members) == all_pointers(value)


# --- syntax errors ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "offset"),
    [
        ('{"a": 1,}', 8),  # trailing comma: at the closing brace
        ("[1, 2,]", 6),
        ('{"a" 1}', 5),  # missing colon
        ('{"a": "abc', 6),  # unterminated string: where it starts
        ('{"a": 1} x', 9),  # extra data
        ('{"a": 1}{}', 8),
        ("", 0),  # empty input
        ("  \n ", 4),
        ('{"a": 1', 7),
        ("[1 2]", 3),
        ('{"a":}', 5),
        ("tru", 0),
        ("{'a': 1}", 1),
    ],
)
def test_syntax_error_offset_matches_json(text: str, offset: int) -> None:
    with pytest.raises(JsonSyntaxError) as caught:
        parse(text)
    assert caught.value.offset == offset
    with pytest.raises(json.JSONDecodeError) as stdlib:
        json.loads(text)
    assert stdlib.value.pos == offset


@pytest.mark.parametrize(
    ("text", "offset"),
    [('["ab\\x"]', 4), ('["a\tb"]', 3)],
    ids=["invalid-escape", "raw-control-character"],
)
def test_syntax_error_inside_a_string_points_at_the_bad_character(text: str, offset: int) -> None:
    """json.loads points at the bad escape / control character, not at the opening quote."""
    with pytest.raises(json.JSONDecodeError) as stdlib:
        json.loads(text)
    assert stdlib.value.pos == offset
    with pytest.raises(JsonSyntaxError) as caught:
        parse(text)
    assert caught.value.offset == offset


@pytest.mark.parametrize(
    ("text", "wanted", "unwanted"),
    [
        ('{"a":}', "value", "','"),  # nothing follows a comma here
        ('{"a": "abc', "string", None),  # not just "unexpected character '\"'"
        ('{"a": 1,}', "}", None),
    ],
    ids=["missing-value", "unterminated-string", "trailing-comma"],
)
def test_syntax_error_messages_describe_the_problem(
    text: str, wanted: str, unwanted: str | None
) -> None:
    with pytest.raises(JsonSyntaxError) as caught:
        parse(text)
    assert wanted in caught.value.message
    if unwanted is not None:
        assert unwanted not in caught.value.message


# --- positions --------------------------------------------------------------------------------


def test_line_and_column_count_code_points() -> None:
    text = '{\n  "名前": "日本語😀é", "hidden_size": 4100\n}'
    _, index = parse(text)
    span = index.value_span("/hidden_size")
    assert span is not None
    line = '  "名前": "日本語😀é", "hidden_size": 4100'
    assert span.start_pos == Position(2, line.index("4100") + 1)
    assert span.end_pos == Position(2, line.index("4100") + 5)
    key = index.key_span("/名前")
    assert key is not None
    assert key.start_pos == Position(2, 3)
    assert key.end_pos == Position(2, 7)


def test_positions_with_crlf_and_tabs() -> None:
    text = '{\r\n\t"a": 1,\r\n\t"b": [\r\n\t\t2\r\n\t]\r\n}'
    _, index = parse(text)
    assert index.value_span("/a") == index.span(text.index("1"), text.index("1") + 1)
    span = index.value_span("/b/0")
    assert span is not None
    assert span.start_pos == Position(4, 3)
    assert index.position(0) == Position(1, 1)
    assert index.position(len(text)) == Position(6, 2)


def test_lazy_spans_positions_match_the_full_index() -> None:
    text = '{"ü": "😀😀", "text_config": {"hidden_size": 4100, "k": [1, {"x": 2}]}}'
    _, index = parse(text)
    lazy = LazySpans(text)
    for pointer in ("/text_config/hidden_size", "/text_config/k/1/x", "/ü"):
        member = lazy.member(pointer)
        assert member == index.members[pointer]
        assert lazy.index.value_span(pointer) == index.value_span(pointer)


@pytest.mark.parametrize(
    "text",
    [
        '{"names": ["hidden_size"], "hidden_size": 8}',
        '{"text_config": {"hidden_size": 4}, "hidden_size": 8}',
        '{"hidden_size": 8, "text_config": {"hidden_size": 4}}',
        '{"a": "hidden_size", "hidden_size" : 8}',
        '{"model_type": "x", "x": {"x": "x"}}',
        '{"hidden\\u005fsize": 8, "note": "\\"hidden_size\\": 9"}',
        '{"a/b": 1, "~": {"a/b": 2}, "": 3}',
        '{"list": [{"k": 1}, {"k": 2}], "k": 3}',
    ],
)
def test_searched_keys_land_on_the_member_itself(text: str) -> None:
    """Keys whose name also appears elsewhere (nested, as a value, escaped) are never taken
    for the member: the search gives up and the scan decides."""
    value, index = parse(text)
    searched = LazySpans(text, value)
    for pointer in sorted(index.members, key=len):
        assert searched.member(pointer) == index.members[pointer], pointer
