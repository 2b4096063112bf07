"""Megatron's ``multi_latent_attention`` switch decides whether its latent ranks size anything.

Megatron's arguments carry ``kv_lora_rank`` with a default of 32 whether or not latent attention
is on (``--multi-latent-attention``); a config class mirroring them (alibaba/ChatLearn's
``MegatronModelArchitectureConfig``) states both. With the switch off the rank is inert, so
DL106's "MLA needs its rotary head dims" is not owed; with it on, it still is.
"""

from __future__ import annotations

import pytest

from dimlint.lint.pipeline import lint_bytes
from dimlint.lint.selection import Selection


def _codes(name: str, text: str) -> list[str]:
    return [d.code for d in lint_bytes(name, text.encode(), Selection()).diagnostics]


PYTHON = """\
from dataclasses import dataclass, field


@dataclass
class ArchitectureConfig:
    num_layers: int = 24
    hidden_size: int = 2048
    num_attention_heads: int = 16
    kv_lora_rank: int = field(default=32)
    multi_latent_attention: bool = field(default={switch})
"""

YAML = """\
model:
  num_layers: 24
  hidden_size: 2048
  num_attention_heads: 16
  kv_lora_rank: 32
  multi_latent_attention: {switch}
"""


@pytest.mark.parametrize(("name", "text"), [("arch.py", PYTHON), ("model.yaml", YAML)])
def test_latent_rank_is_inert_with_the_switch_off(name: str, text: str) -> None:
    off = "False" if name.endswith(".py") else "false"
    on = "True" if name.endswith(".py") else "true"
    assert "DL106" not in _codes(name, text.format(switch=off))
    assert "DL106" in _codes(name, text.format(switch=on))
