"""The JSON reporter's fast indented writer is byte-identical to ``json.dumps(indent=2)``."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from dimlint.report.json_format import dumps_indented

_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text()
)
_VALUES = st.recursive(
    _SCALARS,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(_VALUES)
def test_same_bytes_as_json_dumps(value: Any) -> None:
    assert dumps_indented(value) == json.dumps(value, indent=2, ensure_ascii=False)


def test_control_characters_quotes_and_non_ascii() -> None:
    value = [{"message": 'a "b" \\ \n\t\x00 é 漢 \u2028 🙂', "fix": None, "edits": [], "n": {}}]
    assert dumps_indented(value) == json.dumps(value, indent=2, ensure_ascii=False)
