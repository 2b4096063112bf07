"""DL004's edit distance against the textbook optimal-string-alignment table.

``edit_distance`` skips the common prefix and suffix and compares the three moves inline; this
reference builds the whole table with ``min()``. Within the limit the two must agree exactly,
and past it both must say so."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from dimlint.checks.keys import edit_distance
from tests.conftest import examples


def _reference(a: str, b: str) -> int:
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) + 1):
        table[i][0] = i
    for j in range(len(b) + 1):
        table[0][j] = j
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            cost = a[i - 1] != b[j - 1]
            table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
    return table[len(a)][len(b)]


_WORDS = st.text(alphabet="ab_c", max_size=9)


@settings(max_examples=examples(3000), deadline=None)
@given(_WORDS, _WORDS, _WORDS, _WORDS, st.integers(min_value=0, max_value=3))
def test_agrees_with_the_whole_table(prefix: str, a: str, b: str, suffix: str, limit: int) -> None:
    first, second = prefix + a + suffix, prefix + b + suffix
    expected = _reference(first, second)
    found = edit_distance(first, second, limit)
    if expected <= limit:
        assert found == expected
    else:
        assert found > limit


def test_typos_of_real_fields() -> None:
    assert edit_distance("num_hiden_layers", "num_hidden_layers") == 1
    assert edit_distance("hidden_szie", "hidden_size") == 1
    assert edit_distance("intermediate_size", "intermediate_size") == 0
    assert edit_distance("rope_theta", "rope_scaling") > 2
