"""Per-layer plans a config class derives when a config states none (OLMo-3, AFMoE, Cohere-2-MoE,
Granite-SWA…), against the ``layer_types`` transformers derives at other depths than the default.

A released config written by hand (MaxText's OLMo-3-7B) states ``sliding_window`` and no
``layer_types``; OLMo-3's class makes every fourth layer full attention. Counting every layer as
sliding put its KV cache at 2.00 GiB for 8,192 tokens instead of 2.50 GiB.
"""

from __future__ import annotations

import warnings

import pytest

from dimlint.config.normalize import specs_for_document
from dimlint.memory.config_view import Cfg
from dimlint.memory.parameters import derived_lists
from dimlint.memory.parameters.layer_kinds import MIXER_KINDS, mixer_kinds

transformers = pytest.importorskip("transformers")


def _periodic_types() -> list[str]:
    """Model types whose class derives a repeating plan (recorded by the generator)."""
    return sorted(
        model_type
        for model_type in derived_lists.TABLE.offsets
        if "rule:layer_types" in derived_lists.defaults(model_type)
    )


def test_the_table_holds_periods() -> None:
    assert {"olmo3", "afmoe", "cohere2_moe", "granite_swa", "mimo_v2_flash"} <= set(
        _periodic_types()
    )


@pytest.mark.parametrize("model_type", _periodic_types())
@pytest.mark.parametrize("layers", [5, 11, 18])
def test_unstated_plan_is_the_one_the_class_derives(model_type: str, layers: int) -> None:
    transformers.logging.set_verbosity_error()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            config = transformers.AutoConfig.for_model(model_type, num_hidden_layers=layers)
        except Exception as error:  # a depth its class refuses (a plan of fixed length)
            pytest.skip(f"{model_type} refuses {layers} layers: {type(error).__name__}")
    derived = getattr(config, "layer_types", None)
    if not isinstance(derived, list) or len(derived) != layers:
        pytest.skip(f"{model_type} does not derive a plan of {layers} layers")
    document = {"model_type": model_type, "num_hidden_layers": layers}
    (spec,) = specs_for_document("config.json", document)[:1]
    ours = mixer_kinds(Cfg(spec))
    expected = [MIXER_KINDS.get(str(kind).lower(), str(kind).lower()) for kind in derived]
    assert ours == expected
