"""The quick per-key checks of DL003 never pass a value jsonschema rejects.

``checks.schema`` answers "valid" without jsonschema when its compiled predicates accept every
key; jsonschema (and its messages) run only on keys they doubt. So a predicate that accepted a
value the schema rejects would hide a DL003 finding: compared here with jsonschema itself, per
schema property, on generated values of every JSON type.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dimlint.checks.schema import _quick_checks, _validator, schema
from dimlint.config.values import HugeInt
from tests.conftest import examples

_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**65), max_value=2**65)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.sampled_from([0, 1, 2, 0.5, 1.0, 4096, 4096.0, "4096", "full_attention", 2**63, 2**63 - 1])
    | st.text(max_size=6),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=3)
    ),
    max_leaves=12,
)


@pytest.mark.parametrize("key", sorted(schema()["properties"]))
@settings(max_examples=examples(60), deadline=None)
@given(value=_VALUES)
def test_quick_check_accepts_only_what_jsonschema_accepts(key: str, value: Any) -> None:
    if _quick_checks()[key](value):
        assert next(_validator().iter_errors({key: value}), None) is None, (key, value)


def test_huge_integers_are_doubted() -> None:
    checks = _quick_checks()
    assert not checks["hidden_size"](HugeInt(40))
    assert not checks["hidden_size"](2**63)
    assert checks["hidden_size"](4096)
    assert not checks["hidden_size"](0)
