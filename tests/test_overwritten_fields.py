"""Fields a config class overwrites whatever the config states (``tools/overwritten_fields``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from dimlint.tools.overwritten_fields import overwritten


class _Composite:
    """A composite config that copies the language model's width into its head, as
    VibeVoice's ``__post_init__`` does, and refuses an odd head count."""

    def __init__(self, width: int = 64, head_width: int = 64, heads: int = 4) -> None:
        if heads % 2:
            raise ValueError("heads must be even")
        self.width = width
        self.head_width = width  # the stated head_width is replaced
        self.heads = heads
        del head_width


def _perturbed(config: Any, changes: dict[str, int]) -> Any:
    return _Composite(**{**vars(config), **changes})


def _values(config: Any) -> dict[str, object]:
    return dict(vars(config))


def _trials(value: int) -> Iterator[int]:
    yield value + 1


def test_a_copied_field_is_overwritten_and_a_read_one_is_not() -> None:
    config = _Composite()
    found = overwritten(
        config, ["width", "head_width"], _values(config), _perturbed, _values, _trials
    )
    assert found == {"head_width": "width"}


def test_a_value_the_class_refuses_is_not_judged() -> None:
    config = _Composite()
    assert overwritten(config, ["heads"], _values(config), _perturbed, _values, _trials) == {}


def test_vibevoice_diffusion_head_width_is_overwritten() -> None:
    pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    from dimlint.tools import generate_shapes

    config = transformers.AutoConfig.for_model("vibevoice")
    values = generate_shapes._values(config)
    paths = ["diffusion_head_config.hidden_size", "diffusion_head_config.num_hidden_layers"]
    found = overwritten(
        config,
        paths,
        values,
        lambda base, changes: generate_shapes._perturbed_many(base, changes, set()),
        generate_shapes._values,
        generate_shapes._trials,
    )
    assert found == {"diffusion_head_config.hidden_size": "text_config.hidden_size"}
