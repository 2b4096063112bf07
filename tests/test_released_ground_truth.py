"""Released configs against transformers' builds: no false exact, ever (issue 19, item 3).

``tests/data/released_configs`` holds released-model configs (their sources in
``SOURCES.tsv``), split into a ``tune`` and a ``held_out`` half by a hash of their source path
before any was measured (``scripts/collect_released_configs.py``). Each is built on the meta
device as the class its ``architectures`` names (see ``tests/released_ground_truth.py``) and
compared with ``mem``'s count. A count labelled exact that differs from transformers' is the
worst answer dimlint can give and fails the test; counts labelled estimates carry their reason.
The exact share is held at least at its measured floor per half.

``python tests/released_ground_truth.py held_out`` prints the per-type table. A third half,
``unseen``, gathered after the tuning stopped, a fourth, ``unseen2``, gathered after ``unseen``
had been measured, a fifth, ``unseen3``, gathered after ``unseen2`` had been measured, and a
sixth, ``unseen4`` (stop 34), are
measured only by that command for the closing report: no floor here, so nothing in the suite
looks at dimlint's answers on them.
"""

from __future__ import annotations

import pytest
import released_ground_truth as truth

pytest.importorskip("transformers")
pytest.importorskip("torch")

#: The exact share each half reached when this test was written (a floor against regressions,
#: far from the 97% the issue asks for: see the closing note's per-type table). The first 214
#: configs (208 from the corpus, six outside it): tune 66/77, held-out 65/92; learning undeclared
#: names, legacy keys' fallbacks, layer kinds absent from the default and jointly checked fits
#: (tuned on the first tune half only) took them to 75/77 and 72/92. With 168 more from outside
#: the corpus (split by the same hash before any was measured; 65 model types the first 214
#: lacked; their nine false exacts refused by the domain guards of
#: ``tests/test_memory_template_domain.py``): tune 112/153 (73.2%), held-out 110/166 (66.3%).
#: With 132 more from outside the corpus (514 configs of 151 model types; 12 types the 382
#: lacked; split by the same hash and committed before any was measured; their two false exacts,
#: ELECTRA's and CamemBERT's ``classifier.out_proj`` heads, refused by the label-head guard):
#: tune 144/209 (68.9%; the new files alone 32/56), held-out 148/220 (67.3%; new 38/54).
#: Head classes learned with their heads sized by the label count (and the counts at which a
#: head switches structure), string fields that switch the structure learned as conditions or
#: variants, 28 rows relearned.
#: On the 382 alone: tune 131/153 (85.6%), held-out 128/166 (77.1%). All 514 merged (main,
#: stop 29): tune 171/209 (81.8%), held-out 172/220 (78.2%), no false exact.
#: Stop 30: the whole table relearned (string fields, head classes, flag regimes, floored
#: quotients), composites counted tower by tower, flags unchecked in a head refused: tune
#: 189/209 (90.4%), held-out 193/220 (87.7%), no false exact; the ``unseen`` half (137 configs
#: gathered and committed before any was measured) 115/137 (83.9%), no false exact once the
#: one it showed (wav2vec2's ``use_weighted_layer_sum`` in a head) was refused.
#: Stop 34: layer kinds a default plan lacks learned from seed plans, equality regimes, legacy
#: plan spellings folded: tune 204/209 (97.6%), held-out 214/220 (97.3%): the issue's bar is
#: the floor now.
FLOORS = {"tune": 0.97, "held_out": 0.97}


def test_sources_name_the_stored_files() -> None:
    """Every stored config is listed once with a known half, and every listed one is stored."""
    rows = truth.sources()
    assert {row["half"] for row in rows} <= set(truth.HALVES)
    listed = [row["file"] for row in rows]
    assert len(listed) == len(set(listed))
    stored = {str(path.relative_to(truth.ROOT)) for path in truth.ROOT.glob("*/*.json")}
    assert set(listed) == stored


def test_misspelt_half_refused() -> None:
    with pytest.raises(ValueError, match="unknown half"):
        truth.sources("heldout")


@pytest.fixture(scope="module", params=["tune", "held_out"])
def half(request: pytest.FixtureRequest) -> tuple[str, list[truth.Outcome]]:
    return request.param, truth.outcomes(request.param)


def test_no_false_exact(half: tuple[str, list[truth.Outcome]]) -> None:
    _, results = half
    false = [r for r in results if r.status == "FALSE-EXACT"]
    assert not false, "\n".join(
        f"{r.file}: transformers {r.truth}, mem {r.ours} labelled exact" for r in false
    )


def test_estimates_say_why(half: tuple[str, list[truth.Outcome]]) -> None:
    _, results = half
    silent = [r.file for r in results if r.status.startswith("estimate") and not r.why]
    assert not silent


def test_exact_share_floor(half: tuple[str, list[truth.Outcome]]) -> None:
    name, results = half
    built = [r for r in results if r.status != "unbuilt"]
    assert built, "no config of this half builds: the population is missing"
    share = sum(r.status == "exact" for r in built) / len(built)
    print(f"\n{name}: {truth.summary(results)}\n{truth.table(results)}")
    assert share >= FLOORS[name]
