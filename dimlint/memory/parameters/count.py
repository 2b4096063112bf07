"""Exact parameter counts from a config, without building the model.

:func:`count_parameters` counts one (sub-)config with its family's recipe;
:func:`model_parameters` counts a whole document — a plain config, or a composite one (vision
or audio towers beside a language model, encoder + decoder) — the way the class named in
``architectures`` builds it: ``…ForConditionalGeneration`` holds every tower, while most
``…ForCausalLM`` classes of a multimodal config hold only the language model.

The counts match ``sum(p.numel() for p in model.parameters())`` of the model transformers
builds on the meta device (tied weights once); ``tests/test_memory_ground_truth.py`` checks this
for every causal-LM model type of the installed transformers.
"""

from __future__ import annotations

from dimlint.config.spec import ModelSpec
from dimlint.memory.config_view import Cfg
from dimlint.memory.parameters.count_dispatch import built_parts, count_spec
from dimlint.memory.parameters.param_tally import Tally
from dimlint.memory.parameters.templated import estimated_parameters, templated_parameters
from dimlint.memory.parameters.templates import Refusal
from dimlint.records import Record


class Parameters(Record):
    """Parameter counts of one model (or of a whole document, summed over its sub-models).

    ``active`` is what one token touches: everything but the routed experts it does not
    select (= ``total`` for dense models). ``embedding`` is the input embeddings, an untied
    output head and learned positions. ``components`` breaks ``total`` down by sub-model
    (``("model", total)`` for a plain config); ``notes`` says what had to be assumed.
    """

    total: int
    active: int
    embedding: int
    components: tuple[tuple[str, int], ...]
    notes: tuple[str, ...]
    #: False when some part was estimated (a model type dimlint does not know)
    exact: bool = True


#: Where composite configs keep their language model (whose head the wrapper ties).
LANGUAGE_POINTERS = frozenset({"/text_config", "/llm_config", "/language_config"})


def architecture_of(spec: ModelSpec) -> str:
    """The class ``architectures`` names (first entry), or ``""``."""
    names = spec.raw.get("architectures")
    if isinstance(names, list) and names and isinstance(names[0], str):
        return names[0]
    return ""


def _from_tally(tally: Tally, name: str = "model") -> Parameters:
    components = tuple(tally.parts) if tally.parts else ((name, tally.total),)
    return Parameters(
        tally.total,
        tally.total - tally.inactive,
        tally.embedding,
        components,
        tuple(tally.notes),
        tally.exact,
    )


def count_parameters(spec: ModelSpec) -> Parameters:
    """Parameters of one config object, its nested sub-configs excluded."""
    return _from_tally(count_spec(Cfg(spec), architecture_of(spec)))


def _has_layers(spec: ModelSpec) -> bool:
    return spec.hidden is not None


def _component_name(spec: ModelSpec, top: ModelSpec) -> str:
    if spec is top:
        return spec.model_type or "model"
    return spec.pointer.lstrip("/") or spec.model_type or "model"


def model_parameters(specs: list[ModelSpec]) -> Parameters:
    """Parameters of a whole document: its top-level config plus the sub-configs its class
    builds, with a ``components`` breakdown."""
    if not specs:
        return Parameters(0, 0, 0, (), ())
    top = specs[0]
    # A document's count does not change: plan and budget checks ask for it once per layout.
    key = f"model_parameters:{len(specs)}"
    known: Parameters | None = top.memo.get(key)
    if known is None:
        known = top.memo[key] = _model_parameters(specs)
    return known


def _model_parameters(specs: list[ModelSpec]) -> Parameters:
    top = specs[0]
    architecture = architecture_of(top)
    learned = templated_parameters(specs, architecture)
    if not isinstance(learned, Refusal):
        return Parameters(*learned)
    if not learned.learned:
        return _recipe_parameters(specs, architecture)
    # transformers has a template for this model type, but the config lies outside what it
    # learned: the template, evaluated there, is the estimate (one mechanism for every
    # templated type); a hand recipe only where the template cannot be evaluated at all
    estimate = estimated_parameters(specs, architecture)
    if not isinstance(estimate, Refusal):
        return Parameters(*estimate, exact=False)
    why = learned.reason
    if estimate.reason != why:
        why += f" (and the template cannot be evaluated: {estimate.reason})"
    counted = _recipe_parameters(specs, architecture, refused=why)
    # the hand recipe that answers instead was verified only inside that domain, and an
    # estimate says why the template could not answer, whatever else the recipe says.
    note = f"estimated by a hand recipe: {why}"
    return counted._replace(exact=False, notes=(*counted.notes, note))


def _recipe_parameters(
    specs: list[ModelSpec], architecture: str, refused: str | None = None
) -> Parameters:
    """The document counted config object by config object (:func:`count_spec`): where no
    template answers for the whole document (remote-code composites, a native one its template
    cannot evaluate), each sub-config is counted by its own model type's template or recipe.
    ``refused``: why the document's template did not answer (the top-level config is then not
    tried on it again)."""
    top = specs[0]
    cfg = Cfg(top)
    children = [spec for spec in specs[1:] if spec.pointer.count("/") == 1]
    included = built_parts(cfg, architecture, [spec.pointer for spec in children])
    parts: list[tuple[str, Tally]] = []
    if _has_layers(top):
        parts.append((_component_name(top, top), count_spec(cfg, architecture, refused)))
    wrapper_tie = top.tie_word_embeddings if not _has_layers(top) else None
    for spec in children:
        if spec.pointer in included:
            tie = wrapper_tie if spec.pointer in LANGUAGE_POINTERS else None
            parts.append((_component_name(spec, top), count_spec(Cfg(spec, tie), "")))
    if len(parts) == 1:
        name, tally = parts[0]
        return _from_tally(tally, "model" if name == _component_name(top, top) else name)
    total = sum(tally.total for _, tally in parts)
    inactive = sum(tally.inactive for _, tally in parts)
    embedding = sum(tally.embedding for _, tally in parts)
    notes: list[str] = []
    for _, tally in parts:
        notes.extend(note for note in tally.notes if note not in notes)
    components = tuple((name, tally.total) for name, tally in parts)
    exact = all(tally.exact for _, tally in parts)
    return Parameters(total, total - inactive, embedding, components, tuple(notes), exact)
