"""Which learned class answers for the class a config's ``architectures`` names.

A released config may name a class the template never learned: an old spelling of the class
(``LLaMAForCausalLM``, the name before transformers released it), a class its own remote code
defines (``MPTForCausalLM``, ``HubertForSpeechClassification``, ``HF_ColBERT``), or a draft
model built on the type (``LlamaForCausalLMEagle3``). :func:`respelled` finds the learned class
an old spelling can only mean — the count is then exact — and :func:`stand_in` the learned class
nearest to any other name, for an estimate that says which class it counted.
"""

from __future__ import annotations

from typing import Any

from dimlint.config.model_classes import model_types_of


def _spelling(name: str) -> str:
    return name.replace("_", "").lower()


def respelled(learned: dict[str, Any], raw: dict[str, Any], architecture: str) -> str | None:
    """The learned class ``architectures`` names in another spelling (``LLaMAForCausalLM``,
    the name before transformers released it), where that spelling can only mean it: the config
    brings no remote code (``auto_map``), so the auto classes build transformers' own class for
    its model type, and transformers has no class of that spelling."""
    if not architecture or "auto_map" in raw or model_types_of(architecture) is not None:
        return None
    classes: dict[str, Any] = learned.get("classes", {})
    found = [name for name in classes if _spelling(name) == _spelling(architecture)]
    return found[0] if len(found) == 1 else None


def stand_in(learned: dict[str, Any], model_type: str, architecture: str) -> str | None:
    """For an estimate, the learned class nearest to ``architectures``' unlearned one: the same
    class spelled otherwise by remote code (``MPTForCausalLM``, ``PhiMoEForCausalLM``); one with
    the head the name ends with (``LightOnOCRForConditionalGeneration``) or begins
    (``LlamaForCausalLMEagle3``); a sequence classifier for any classification head; the base
    model for a name without a head (``HF_ColBERT``); else the class the row learned first.
    None for a class transformers registers for other model types only (a ``glm`` config naming
    ``Glm4MoeForCausalLM``): this type's template does not describe it."""
    classes: dict[str, Any] = learned.get("classes", {})
    owners = model_types_of(architecture) if architecture else None
    if not classes or (owners is not None and model_type not in owners):
        return None  # another model type's class: this template does not describe it
    for name in classes:
        if _spelling(name) == _spelling(architecture):
            return name
    head = architecture[architecture.find("For") :] if "For" in architecture else ""
    if head:
        heads = [name for name in classes if "For" in name and head.startswith(_head(name))]
        if heads:
            return max(heads, key=len)
        if head.endswith("Classification"):
            for name in classes:
                if name.endswith("ForSequenceClassification"):
                    return name
    else:
        bases = [name for name in classes if "For" not in name and name.endswith("Model")]
        if bases:
            return min(bases, key=len)
    primary = learned.get("primary")
    return primary if isinstance(primary, str) and primary in classes else None


def _head(class_name: str) -> str:
    return class_name[class_name.find("For") :]
