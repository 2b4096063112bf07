"""What transformers does, per model type, with values the rules judge: ``data/behaviour.json``.

Two facts the rules need and the class defaults do not show:

* ``head_divisibility``: what happens to a hidden size its heads do not divide (below);
* ``nullable``: the integer fields a config class types ``int | None``, so that a ``null`` in
  config.json is accepted (Wav2Vec2's ``vocab_size``: only its CTC head needs it) — DL003 does
  not report those.

DL101 is an error whatever the framework, but what happens differs by model type: some config
classes refuse it (Llama's ``validate_architecture``), some attention modules refuse to be
built (BERT's "hidden size is not a multiple of the number of attention heads"), and many
decoders floor-divide (``head_dim = hidden // heads``) and run with an attention narrower than
the model (Glm4Moe). This script asks the installed transformers once per model type — the
default config with the hidden size nudged off a multiple of the heads and one layer, built on
the meta device, and for causal LMs one forward of four tokens (meta tensors check every
shape); the rules read the table without importing transformers.

Outcomes: ``config`` (the config class refuses it), ``build`` (the model class refuses it),
``forward`` (it builds; the first forward fails), ``runs`` (it builds and a forward runs with
the floor-divided head dim), ``built`` (it builds; no causal LM class to run a forward),
``accepted`` (the config loads; no model class was built).

Usage: ``python -m dimlint.tools.generate_behaviour [--output PATH]`` (about two minutes on
two busy cores).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import signal
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

DEFAULT_OUTPUT = Path(__file__).resolve().parent.parent / "data" / "behaviour.json"

#: Seconds one model type may take to build or run (a slow class must not stall the table).
LIMIT_S = 20


class _OverTime(Exception):
    """A build or forward ran past :data:`LIMIT_S`."""


def _expire(signum: int, frame: object) -> None:
    raise _OverTime


def _outcome(model_type: str) -> str | None:
    """What transformers does with ``model_type``'s default config made indivisible."""
    import torch
    import transformers
    from transformers import AutoConfig
    from transformers.models.auto import modeling_auto

    try:
        config = AutoConfig.for_model(model_type)
        heads = getattr(config, "num_attention_heads", None)
        hidden = getattr(config, "hidden_size", None)
    except Exception:  # no default config, or per-layer heads: nothing to ask
        return None
    if not isinstance(heads, int) or not isinstance(hidden, int) or heads < 2:
        return None
    nudged = hidden + 1 if (hidden + 1) % heads else hidden + 2
    kwargs: dict[str, Any] = {"hidden_size": nudged, "num_attention_heads": heads}
    if isinstance(getattr(config, "num_hidden_layers", None), int):
        kwargs["num_hidden_layers"] = 1
    try:
        changed = type(config)(**kwargs)
    except Exception:  # the config class's validators refuse it
        return "config"
    causal = modeling_auto.MODEL_FOR_CAUSAL_LM_MAPPING_NAMES.get(model_type)
    base = modeling_auto.MODEL_MAPPING_NAMES.get(model_type)
    class_name = causal if isinstance(causal, str) else base
    if not isinstance(class_name, str) or not hasattr(transformers, class_name):
        return "accepted"
    signal.alarm(LIMIT_S)
    try:
        try:
            with torch.device("meta"):
                model = getattr(transformers, class_name)(changed)
        except _OverTime:
            return "accepted"
        except Exception:  # the attention module checks the divisibility
            return "build"
        if class_name != causal:
            return "built"
        try:
            model(input_ids=torch.zeros((1, 4), dtype=torch.long, device="meta"))
        except _OverTime:
            return "built"
        except Exception:  # a view or matmul of mismatched widths
            return "forward"
        return "runs"
    finally:
        signal.alarm(0)


def _nullable(model_type: str) -> list[str]:
    """The integer fields of ``model_type``'s config class annotated ``int | None``."""
    from transformers.models.auto import configuration_auto

    try:
        config_class = configuration_auto.CONFIG_MAPPING[model_type]
    except Exception:  # an optional dependency missing: no class to read
        return []
    if not dataclasses.is_dataclass(config_class):
        return []
    return sorted(
        field.name
        for field in dataclasses.fields(config_class)
        if str(field.type).replace(" ", "") in ("int|None", "None|int", "Optional[int]")
    )


def generate() -> dict[str, object]:
    """The outcomes and nullable fields of every model type of the installed transformers."""
    import transformers
    from transformers.models.auto import configuration_auto

    transformers.logging.set_verbosity_error()  # type: ignore[no-untyped-call]
    previous = signal.signal(signal.SIGALRM, _expire)
    outcomes: dict[str, str] = {}
    nullable: dict[str, list[str]] = {}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for model_type in sorted(configuration_auto.CONFIG_MAPPING_NAMES):  # type: ignore[attr-defined]
                outcome = _outcome(model_type)
                if outcome is not None:
                    outcomes[model_type] = outcome
                fields = _nullable(model_type)
                if fields:
                    nullable[model_type] = fields
    finally:
        signal.signal(signal.SIGALRM, previous)
    return {
        "transformers_version": transformers.__version__,
        "head_divisibility": outcomes,
        "nullable": nullable,
    }


def render(table: dict[str, object]) -> str:
    """One model type per line (small diffs when transformers changes)."""
    lines = ["{", f'  "transformers_version": {json.dumps(table["transformers_version"])},']
    sections = [key for key in table if key != "transformers_version"]
    for index, section in enumerate(sections):
        rows = table[section]
        assert isinstance(rows, dict)
        lines.append(f"  {json.dumps(section)}: {{")
        lines.append(
            ",\n".join(f"    {json.dumps(k)}: {json.dumps(rows[k])}" for k in sorted(rows))
        )
        lines.append("  }" + ("," if index < len(sections) - 1 else ""))
    lines.append("}")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    args = parser.parse_args(argv)
    args.output.write_text(render(generate()), encoding="utf-8")
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
