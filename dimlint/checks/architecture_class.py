"""DL606: the class named in ``architectures`` belongs to another model type than ``model_type``.

Loaders that pair the config class ``model_type`` selects with the model class ``architectures``
names (vLLM, transformers pipelines, ``AutoConfig`` + the named class) hand that class a config
of the wrong kind. When the class is registered for other model types only, the config lacks
what the class reads — a ``qwen3_5_moe_text`` config naming
``Qwen3_5MoeForConditionalGeneration`` has no ``vision_config`` — and the model cannot be built.
A warning, not an error: ``XForY.from_pretrained`` re-reads the file with the class's own config
class and may still load it (with transformers' "model of type … to instantiate a model of type
…" warning), so whether it crashes depends on the loader.

Which class serves which type comes from the generated :mod:`dimlint.config.model_classes` table;
classes transformers does not ship (remote code, ``auto_map``) are not judged.
"""

from __future__ import annotations

from collections.abc import Iterator

from dimlint.checks.registry import Finding, rule
from dimlint.config import architectures
from dimlint.config.spec import ModelSpec
from dimlint.diagnostics import Severity

#: Class-name endings of heads that wrap any base model (not registered per model type).
_GENERIC = ("ForRewardModel", "RewardModel")


@rule(
    "DL606",
    "architecture-class",
    Severity.WARNING,
    "architectures names a model class of another model type than model_type.",
)
def check_architecture_class(spec: ModelSpec) -> Iterator[Finding]:
    raw = spec.raw
    model_type = raw.get("model_type")
    names = raw.get("architectures")
    if not isinstance(model_type, str) or not isinstance(names, list) or "auto_map" in raw:
        return
    if architectures.lookup(model_type) is None:
        return  # a remote-code type: its classes are its own
    from dimlint.config.model_classes import classes_of, model_types_of

    for position, name in enumerate(names):
        if not isinstance(name, str) or name.endswith(_GENERIC):
            continue
        types = model_types_of(name)
        if types is None or model_type in types:
            continue
        owners = ", ".join(sorted(types))
        own = [cls for cls in classes_of(model_type) if cls.startswith(name[:4])][:3]
        instead = f" (e.g. {', '.join(own)})" if own else ""
        yield Finding(
            "DL606",
            f"architectures names {name}, a class of {owners}, but model_type is {model_type}:"
            f" loaders that pair the {model_type} config class with the named class (vLLM,"
            f" pipelines, AutoConfig + {name}) hand it a config it cannot be built from. Name a"
            f" class of {model_type}{instead}, or set model_type to {sorted(types)[0]}.",
            f"{spec.pointer}/architectures/{position}",
        )
