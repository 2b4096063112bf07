"""``evaluate`` works its widths out inline; here it is checked against the same predicates
written with :class:`Dims`' own properties and :func:`alignment_targets`, on generated dims."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from dimlint.config.geometry import (
    ALIGN_BEST,
    ALIGN_MIN,
    MAX_KERNEL_HEAD_DIM,
    VOCAB_MULTIPLE,
    Dims,
    Problem,
    alignment_targets,
    evaluate,
)
from dimlint.diagnostics import Severity

_SIZES = st.none() | st.integers(min_value=1, max_value=20_000) | st.sampled_from([64, 4096, 128])
_DIMS = st.builds(
    Dims,
    hidden=_SIZES,
    heads=st.none() | st.integers(min_value=1, max_value=128),
    kv_heads=st.none() | st.integers(min_value=1, max_value=128),
    head_dim=st.none() | st.integers(min_value=1, max_value=600),
    ffn=_SIZES,
    expert_ffn=_SIZES,
    vocab=_SIZES,
    rotary_fraction=st.none() | st.sampled_from([0.25, 0.5, 0.9, 1.0, 0.375]),
    rotary_dim=st.none() | st.integers(min_value=1, max_value=300),
    mla=st.booleans(),
)


def _reference(d: Dims) -> frozenset[Problem]:
    found: set[Problem] = set()
    if d.hidden and d.heads and d.head_dim is None and not d.mla and d.hidden % d.heads:
        found.add(Problem("DL101", "hidden", Severity.ERROR))
    if d.heads and d.kv_heads and not d.mla and (d.heads % d.kv_heads or d.kv_heads > d.heads):
        found.add(Problem("DL102", "kv_heads", Severity.ERROR))
    if d.rotary_width is not None and d.rotary_width % 2:
        found.add(Problem("DL103", "rotary", Severity.ERROR))
    width = d.head_width
    if width is not None and not d.mla and (width > MAX_KERNEL_HEAD_DIM or width % ALIGN_MIN):
        found.add(Problem("DL104", "head_dim", Severity.WARNING))
    for name, value in alignment_targets(d):
        if value % ALIGN_MIN:
            found.add(Problem("DL201", name, Severity.WARNING))
        elif value % ALIGN_BEST:
            found.add(Problem("DL201", name, Severity.INFO))
    if d.vocab and d.vocab % VOCAB_MULTIPLE:
        found.add(Problem("DL202", "vocab", Severity.INFO))
    return frozenset(found)


@settings(max_examples=2000, deadline=None)
@given(_DIMS)
def test_evaluate_matches_the_property_formulation(dims: Dims) -> None:
    assert evaluate(dims) == _reference(dims)
