"""Generate dimlint's alias/default table from the installed transformers.

dimlint analyses config.json files without importing transformers (slow to import and often
absent where the linter runs), yet it must know what transformers does with each key: which
standard names are aliases of the attribute actually stored, which value applies when a key is
absent, which keys a model type declares and which nested configs it carries. This module reads
those facts off the config classes once and writes them to ``dimlint/data/architectures.json``.

transformers is imported only inside functions, so importing this module costs nothing.

Usage: ``python -m dimlint.tools.generate_architectures [--output PATH] [--check]``
"""

from __future__ import annotations

import argparse
import dataclasses
import inspect
import json
import math
import re
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

DEFAULT_OUTPUT = Path(__file__).resolve().parent.parent / "data" / "architectures.json"

# Keys every config.json may carry that PreTrainedConfig neither declares nor serialises by
# default: `torch_dtype` is the pre-v5 spelling of `dtype` (consumed in `__post_init__`) and
# `auto_map` is written by `save_pretrained` for remote-code models.
_UNDECLARED_BASE_FIELDS = ("auto_map", "torch_dtype")


def _to_json(value: object) -> tuple[bool, object]:
    """Return ``(ok, value)`` with tuples turned into lists, so the table equals its own reload.

    ``ok`` is false for anything dimlint could not compare against a config.json value: dicts,
    nested configs, callables, sentinels and non-finite floats.
    """
    if value is None or isinstance(value, bool | int | str):
        return True, value
    if isinstance(value, float):
        return math.isfinite(value), value
    if isinstance(value, list | tuple):
        items = [_to_json(item) for item in value]
        return all(ok for ok, _ in items), [item for _, item in items]
    return False, None


_KWARGS_READ = re.compile(r"""kwargs\.(?:pop|get)\(\s*["']([A-Za-z_][A-Za-z0-9_]*)["']""")


def _legacy_keys(config_class: Any) -> set[str]:
    """Keys the class reads from ``**kwargs`` (legacy spellings such as DeepSeek-V4's
    ``compress_ratios``): not declared fields, yet not unknown to the model either."""
    try:
        source = inspect.getsource(config_class)
    except (OSError, TypeError):
        return set()
    return set(_KWARGS_READ.findall(source))


#: A rotated fraction the class sets in ``__post_init__`` when none is given, as a literal
#: (GLM's, GLM-4-MoE's, GLM-4V-MoE's, Nemotron's, Moonshine's ``kwargs.setdefault(
#: "partial_rotary_factor", 0.5)``; GPT-NeoX's ``self.rope_parameters.setdefault(
#: "partial_rotary_factor", kwargs.pop("rotary_pct", 0.25))``). It is no dataclass field, yet
#: it is the default every config of the type gets; a fraction computed from other keys
#: (MiniMax-M2's ``rotary_dim / self.head_dim``) is not a literal and is not recorded.
_BC_FRACTION = re.compile(
    r"""(?:kwargs|self\.rope_parameters)\.setdefault\(\s*["']partial_rotary_factor["']\s*,"""
    r"""\s*(?:kwargs\.pop\(\s*["'][A-Za-z_]\w*["']\s*,\s*)?(\d+(?:\.\d+)?)\s*\)"""
)


def _set_fraction(config_class: Any) -> float | None:
    """The literal rotated fraction ``config_class`` itself sets by default, if one."""
    try:
        source = inspect.getsource(config_class)
    except (OSError, TypeError):
        return None
    found = {float(match) for match in _BC_FRACTION.findall(source)}
    if len(found) != 1:
        return None
    (fraction,) = found
    return fraction if 0 < fraction <= 1 else None


def _honours_stated_type(config_class: Any, key: str, default_type: str | None) -> bool:
    """Whether ``config_class`` builds the sub-config ``key`` as the type a config states:
    its spec may say ``AutoConfig`` while ``__post_init__`` converts every dict to one class
    (Cosmos3-Omni's ``vision_config`` is a Qwen3-VL vision config whatever it states). Probed
    with another registered type stated: only a build that succeeds and holds another type
    says no (a class that needs its other sub-configs stated too keeps its spec's word)."""
    stated = "mistral" if default_type == "llama" else "llama"
    try:
        built = getattr(config_class(**{key: {"model_type": stated}}), key, None)
    except Exception:  # the class refuses the probe: its spec says AutoConfig, as recorded
        return True
    return getattr(built, "model_type", stated) == stated


def _built_sub_types(config_class: Any) -> dict[str, str]:
    """The model type of each sub-config the default config builds, where it builds: the
    declared default may not be what ``__post_init__`` builds (RF-DETR declares an
    ``rf_detr_vit`` backbone and builds ``rf_detr_dinov2``). A timm backbone is left out:
    no build has one (timm is not installed), and the rows of the types that default to it
    (DETR) are learned where a keyword gives them their declared type instead."""
    try:
        instance = config_class()
    except Exception:  # a default that does not build: the declared types stand
        return {}
    found: dict[str, str] = {}
    for key in config_class.sub_configs:
        model_type = getattr(getattr(instance, key, None), "model_type", None)
        if isinstance(model_type, str) and model_type and model_type != "timm_backbone":
            found[key] = model_type
    return found


def _describe(
    config_class: Any,
    base_fields: frozenset[str],
    base_defaults: Mapping[str, object],
    causal_lm: bool,
) -> dict[str, object]:
    """Describe one config class.

    Defaults come from the declared dataclass fields, not from an instance: ``__post_init__``
    derives values such as llama's ``head_dim`` from other keys, and dimlint has to know that an
    absent key means "derived", not a fixed number. Sub-config keys get no default because an
    absent one means "build the default nested config", not ``None``. Base fields appear in
    ``defaults`` only when the class changes their default (e.g. ``is_encoder_decoder``).
    """
    # AutoConfig has no model_type of its own; the default it builds is in sub_configs_defaults.
    spec_defaults = getattr(config_class, "sub_configs_defaults", None) or {}
    built = _built_sub_types(config_class)
    sub_configs = {
        key: built.get(key)
        or getattr(sub_class, "model_type", "")
        or getattr(spec_defaults.get(key), "model_type", "")
        or None
        for key, sub_class in config_class.sub_configs.items()
    }
    defaults: dict[str, object] = {}
    for field in dataclasses.fields(config_class):
        inherited = field.name in base_fields and field.default == base_defaults.get(field.name)
        if field.name in sub_configs or inherited:
            continue
        ok, value = _to_json(field.default)
        if ok:
            defaults[field.name] = value
    fraction = _set_fraction(config_class)
    if fraction is not None and "partial_rotary_factor" not in defaults:
        defaults["partial_rotary_factor"] = fraction
    return {
        "aliases": dict(config_class.attribute_map),
        "defaults": defaults,
        "fields": sorted(
            (
                {field.name for field in dataclasses.fields(config_class)}
                | _legacy_keys(config_class)
            )
            - base_fields
        ),
        "sub_configs": sub_configs,
        # resolved through AutoConfig by the sub-config's own model_type (a stated type the
        # registry lacks is refused); the others build a fixed class whatever the label says
        "auto_sub_configs": sorted(
            key
            for key, sub_class in config_class.sub_configs.items()
            if not getattr(sub_class, "model_type", "")
            and _honours_stated_type(config_class, key, sub_configs[key])
        ),
        "causal_lm": causal_lm,
    }


def generate() -> dict[str, object]:
    """Build the table from every model type the installed transformers registers.

    A model type whose config class fails to import is recorded under ``skipped`` with the
    reason, so a broken optional module never blocks regeneration but is still visible.
    """
    import transformers
    from transformers import PreTrainedConfig
    from transformers.models.auto import configuration_auto
    from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING_NAMES

    base_defaults = {field.name: field.default for field in dataclasses.fields(PreTrainedConfig)}
    base_fields = frozenset(
        {*base_defaults, *PreTrainedConfig().to_dict(), *_UNDECLARED_BASE_FIELDS}
    )
    model_types: dict[str, object] = {}
    skipped: dict[str, str] = {}
    # configuration_auto rebinds CONFIG_MAPPING_NAMES (adding e.g. gpt-sw3) after importing it
    # from auto_mappings, which mypy reads as a non-exported re-export.
    names = configuration_auto.CONFIG_MAPPING_NAMES  # type: ignore[attr-defined]
    for model_type in sorted(names):
        try:
            config_class = configuration_auto.CONFIG_MAPPING[model_type]
        except Exception as exc:  # any import-time failure of one model must not stop the rest
            skipped[model_type] = f"{type(exc).__name__}: {str(exc).splitlines()[0]}"
            continue
        if not dataclasses.is_dataclass(config_class):
            skipped[model_type] = f"{config_class.__name__} is not a dataclass"
            continue
        causal_lm = model_type in MODEL_FOR_CAUSAL_LM_MAPPING_NAMES
        model_types[model_type] = _describe(config_class, base_fields, base_defaults, causal_lm)
    # The union lets DL004 ask "is this key a field of *any* model" without parsing every row.
    every_field = set(base_fields)
    for record in model_types.values():
        every_field.update(record["fields"])  # type: ignore[index]
    return {
        "transformers_version": transformers.__version__,
        "base_fields": sorted(base_fields),
        "all_fields": sorted(every_field),
        "model_types": model_types,
        "skipped": skipped,
    }


def render(table: Mapping[str, object]) -> str:
    """Serialise ``table`` deterministically, one model type per line, for reviewable diffs."""

    def dump(value: object) -> str:
        return json.dumps(value, sort_keys=True, allow_nan=False)

    model_types = table["model_types"]
    if not isinstance(model_types, Mapping):
        raise TypeError("table['model_types'] must be a mapping")
    # The version leads so a reader sees at once which transformers the file describes.
    keys = sorted(
        set(table) - {"model_types"}, key=lambda key: (key != "transformers_version", key)
    )
    header = [f"  {dump(key)}: {dump(table[key])}," for key in keys]
    rows = [f"    {dump(name)}: {dump(model_types[name])}" for name in sorted(model_types)]
    return "\n".join(["{", *header, '  "model_types": {', ",\n".join(rows), "  }", "}"]) + "\n"


def differing_entries(old: Mapping[str, object], new: Mapping[str, object]) -> list[str]:
    """Name what differs between two tables: header keys, and model types added/removed/changed.

    Used by ``--check`` and the drift test, so a failure names model types instead of dumping
    a megabyte of JSON.
    """
    changes = [
        key for key in sorted({*old, *new} - {"model_types"}) if old.get(key) != new.get(key)
    ]
    old_types = old.get("model_types")
    new_types = new.get("model_types")
    old_types = old_types if isinstance(old_types, Mapping) else {}
    new_types = new_types if isinstance(new_types, Mapping) else {}
    for name in sorted({*old_types, *new_types}):
        if name not in old_types:
            changes.append(f"model_types.{name} (added)")
        elif name not in new_types:
            changes.append(f"model_types.{name} (removed)")
        elif old_types[name] != new_types[name]:
            changes.append(f"model_types.{name} (changed)")
    return changes


def check(path: Path) -> int:
    """Compare ``path`` with what the installed transformers generates.

    Returns 0 when identical, 1 when it differs (or is missing/unreadable) and 2 when the
    installed transformers is not the version the file was generated from, since then a
    difference says nothing about the file being stale.
    """
    import transformers

    try:
        text = path.read_text(encoding="utf-8")
        recorded = json.loads(text)
    except (OSError, ValueError) as exc:
        print(f"{path}: cannot read table: {exc}", file=sys.stderr)
        return 1
    recorded_version = recorded.get("transformers_version") if isinstance(recorded, dict) else None
    if recorded_version != transformers.__version__:
        print(
            f"{path} was generated from transformers {recorded_version}, "
            f"but {transformers.__version__} is installed",
            file=sys.stderr,
        )
        return 2
    expected = render(generate())
    if text == expected:
        return 0
    changes = differing_entries(recorded, json.loads(expected)) or ["formatting only"]
    print(f"{path} is stale ({len(changes)} differences):", file=sys.stderr)
    for change in changes:
        print(f"  {change}", file=sys.stderr)
    return 1


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point: regenerate the table, or verify it with ``--check``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT, help="table to write")
    parser.add_argument(
        "--check", action="store_true", help="verify the table instead of writing it"
    )
    args = parser.parse_args(argv)
    path: Path = args.output
    if args.check:
        return check(path)
    table = generate()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render(table), encoding="utf-8")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
