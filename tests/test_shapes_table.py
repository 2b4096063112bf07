"""``data/shapes.json`` against the installed transformers.

Regenerating the whole table builds every model type dozens of times (an hour on two cores), so
no test regenerates it. What makes it stale is checked on the commit that does it, in
milliseconds: ``shapes.provenance.json`` records hashes of the table and of the generator's code
and the transformers version it was learned from (:mod:`dimlint.tools.provenance`), and each must
still match. A fixed sample of model types (chosen by a hash of their names, the same on every
run) is also rebuilt on the meta device, class by class, and one type is relearned in full, so
that the generator's output is checked against transformers itself. Regenerate with
``python -m dimlint.tools.generate_shapes`` (``--cache FILE`` resumes an interrupted run).
"""

from __future__ import annotations

import hashlib
import json
import time
import warnings

import pytest

from dimlint.memory.parameters import templates

SAMPLE = 8


def _spread(names: list[str]) -> list[str]:
    """``names`` in the order of a hash of each: a fixed sample that is no alphabetical slice."""
    return sorted(names, key=lambda name: hashlib.sha256(name.encode()).hexdigest())


def _sample(offset: int = 0, size: int = SAMPLE) -> list[str]:
    names = [n for n in templates.model_type_names() if (templates.row(n) or {}).get("classes")]
    return _spread(names)[offset * size : (offset + 1) * size]


def test_provenance_matches_the_table_the_generator_and_transformers() -> None:
    """Fails on the commit that edits the table by hand, changes the generator's code without
    regenerating, or installs another transformers."""
    from pathlib import Path

    from dimlint.tools import provenance

    try:
        import transformers
    except ImportError:
        version = None
    else:
        version = transformers.__version__
    table = Path(templates.DATA_FILE)
    assert provenance.stale(table, version) == []
    recorded = json.loads(provenance.provenance_path(table).read_text(encoding="utf-8"))
    assert recorded["transformers_version"] == templates.transformers_version()


def test_rows_parse_and_are_well_formed() -> None:
    """Every row loads alone (lazy lookup) and every tensor entry has the documented form."""
    for name in templates.model_type_names():
        row = templates.row(name)
        assert row is not None
        for record in row.get("classes", {}).values():
            assert isinstance(record["total"], int)
            for tensor in record.get("tensors", []):
                label, count, dims, conditions, *pinned = tensor
                assert all(isinstance(path, str) for path in (pinned[0] if pinned else []))
                assert isinstance(label, str)
                assert isinstance(dims, list)
                assert all(len(condition) == 2 for condition in conditions)
                assert isinstance(count, list)


def test_table_records_installed_transformers() -> None:
    transformers = pytest.importorskip("transformers")
    assert templates.transformers_version() == transformers.__version__


def test_fixed_sample_rebuilds_to_the_record() -> None:
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    from transformers.utils import logging

    logging.set_verbosity_error()
    drift: dict[str, tuple[int, int]] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for model_type in _sample():
            config = transformers.AutoConfig.for_model(model_type)
            for class_name, record in (templates.row(model_type) or {})["classes"].items():
                with torch.device("meta"):
                    model = getattr(transformers, class_name)(config)
                built = sum(parameter.numel() for parameter in model.parameters())
                if built != record["total"]:
                    drift[f"{model_type}/{class_name}"] = (record["total"], built)
    assert not drift, "shapes.json is stale: regenerate it"


def test_fixed_sample_still_does_not_build() -> None:
    """A class recorded as not building from its default config still raises what it raised
    (the ground-truth test names these types); one that builds now means a stale table."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    from transformers.utils import logging

    logging.set_verbosity_error()
    failing = sorted(
        name for name in templates.model_type_names() if (templates.row(name) or {}).get("unbuilt")
    )
    if not failing:
        pytest.skip("no class fails to build")
    changed: dict[str, tuple[str, str]] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for model_type in _spread(failing)[:4]:
            config = transformers.AutoConfig.for_model(model_type)
            for class_name, recorded in (templates.row(model_type) or {})["unbuilt"].items():
                try:
                    with torch.device("meta"):
                        getattr(transformers, class_name)(config)
                except Exception as exc:
                    if type(exc).__name__ != recorded:
                        changed[f"{model_type}/{class_name}"] = (recorded, type(exc).__name__)
                else:
                    changed[f"{model_type}/{class_name}"] = (recorded, "builds")
    assert not changed, "shapes.json is stale: regenerate it"


def test_relearned_type_counts_the_same() -> None:
    """Relearn one sampled type from scratch; its templates must count what the stored ones
    count for the default config (field budgets may differ under load, counts may not)."""
    pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    from dimlint.tools.generate_shapes import learn

    sample = _sample(offset=1, size=1)
    if not sample:
        pytest.skip("empty table")
    model_type = sample[0]
    start = time.monotonic()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fresh = learn(model_type)
    assert time.monotonic() - start < 300
    stored = templates.row(model_type) or {}
    config = transformers.AutoConfig.for_model(model_type)
    document = json.loads(config.to_json_string(use_diff=False))
    # Rows learned before the generator added the exported head classes (QA, token
    # classification, DPR encoders…) hold fewer classes until the table is fully relearned;
    # every class a row holds must still be relearned, with the same count.
    assert set(stored["classes"]) <= set(fresh["classes"])  # type: ignore[arg-type]
    for class_name, record in fresh["classes"].items():  # type: ignore[attr-defined]
        if class_name not in stored["classes"]:
            continue
        assert record["total"] == stored["classes"][class_name]["total"]
        if "tensors" in record and "tensors" in stored["classes"][class_name]:
            document["architectures"] = [class_name]
            ours = templates.template_tensors(document, class_name)
            assert ours is not None
            assert sum(tensor.numel for tensor in ours) == record["total"]
