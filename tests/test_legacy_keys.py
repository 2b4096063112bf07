"""The probes that find what a config class does with keys it declares no field for.

Synthetic classes stand in for transformers' (a class reading a legacy spelling from its
keyword arguments, a model reading a kept attribute), so each verdict is checked against a
behaviour the test controls; a real BLOOM, GPT-NeoX and Nemotron-H probe follows when
transformers is installed.
"""

from __future__ import annotations

from typing import Any

import pytest

from dimlint.tools import legacy_keys


class _Config:
    """Like a transformers config: declared fields, legacy kwargs mapped in ``__init__``, any
    other keyword kept as an attribute."""

    def __init__(self, hidden_size: int = 16, num_layers: int = 2, **kwargs: Any) -> None:
        self.hidden_size = kwargs.pop("n_embed", hidden_size)  # the legacy spelling wins
        self.num_layers = num_layers
        self.rope = {"theta": kwargs.pop("rotary_base", 10000)}  # only a rotary table
        if kwargs.pop("ignored_layers", None) is not None:
            pass  # read and dropped
        for key, value in kwargs.items():
            setattr(self, key, value)
        self.extra = dict(kwargs)

    def to_dict(self) -> dict[str, object]:
        return {"hidden_size": self.hidden_size, "num_layers": self.num_layers,
                "rope": self.rope, **self.extra}  # fmt: skip


def _plain(config: Any) -> object:
    return {"w": (config.hidden_size, config.hidden_size), "layers": config.num_layers}


def _reads_proj(config: Any) -> object:
    """A model reading an undeclared attribute with a fallback (Glm4-MoE's ``head_dim``)."""
    return {**_plain(config), "proj": getattr(config, "proj_dim", config.hidden_size)}  # type: ignore[dict-item]


def _shapes(model: Any, config: Any) -> object:
    return model(config)


def _probe(models: list[Any], legacy: set[str], undeclared: set[str]) -> dict[str, object]:
    used = {"hidden_size", "num_layers"}
    return legacy_keys.probe(_Config(), models, legacy, undeclared, used, (), _shapes)


def test_a_legacy_spelling_of_a_field_is_its_alias_and_says_which_wins() -> None:
    found = _probe([_plain], {"n_embed"}, set())
    assert found == {"alias": {"n_embed": {"field": "hidden_size", "wins": True}}}


def test_keys_that_move_no_read_field_are_inert() -> None:
    found = _probe([_plain], {"rotary_base", "ignored_layers"}, {"num_heads"})
    assert found == {"inert": ["ignored_layers", "num_heads", "rotary_base"]}


def test_a_kept_attribute_some_model_reads_is_not_inert() -> None:
    # the plain model ignores proj_dim; the second class reads it: the probe builds both
    found = _probe([_plain, _reads_proj], set(), {"proj_dim", "num_heads"})
    assert found == {"inert": ["num_heads"]}


def test_a_key_moving_a_field_tensors_read_is_not_inert() -> None:
    def probe(used: set[str]) -> dict[str, object]:
        return legacy_keys.probe(_Config(), [_plain], {"n_embed"}, set(), used, (), _shapes)

    assert probe({"num_layers"}) == {}  # sets hidden_size, yet no tensor reads it: neither


def test_depths_move_the_first_layer_count() -> None:
    assert legacy_keys.depths(_Config(), ()) == [{}, {"num_layers": 3}]
    assert legacy_keys.depths(_Config(), ("num_layers",)) == [{}]


@pytest.mark.parametrize(
    ("model_type", "key", "verdict"),
    [
        ("bloom", "n_embed", {"field": "hidden_size", "wins": True}),
        ("gpt_neox", "rotary_emb_base", "inert"),
        ("nemotron_h", "num_hidden_layers", "inert"),
        ("glm4_moe", "head_dim", None),
    ],
)
def test_real_classes(model_type: str, key: str, verdict: object) -> None:
    pytest.importorskip("transformers")
    from transformers import AutoConfig

    from dimlint.memory.parameters.templates import row
    from dimlint.tools import generate_shapes

    learned = row(model_type)
    if learned is None:
        pytest.skip(f"no {model_type} row")
    config = AutoConfig.for_model(model_type)
    classes = dict(generate_shapes._classes(model_type))
    primary = classes[learned["primary"]]
    found: dict[str, Any] = generate_shapes.probed_keys(model_type, config, [primary], learned)
    if verdict == "inert":
        assert key in found.get("inert", [])
    elif verdict is None:
        assert key not in found.get("inert", [])
        assert key not in found.get("alias", {})
    else:
        assert found["alias"][key] == verdict
