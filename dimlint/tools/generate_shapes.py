"""Learn every model type's parameter shapes from transformers and write ``data/shapes.json``.

Names guess wrong: a vision config's ``hidden_size`` may be the merger's output (Qwen2-VL), an
MLP may or may not be gated, T5 has two stacks. So instead of recipes per family, this module
asks transformers: for each model type and each class it registers (base model, causal LM,
seq2seq, image-text-to-text, speech, CTC, encoder heads), it builds the default model on the
meta device (no memory), then rebuilds the largest class once per integer or boolean field of
the config and its sub-configs with that field changed, and records which parameter tensors
change shape and how. Each dimension (and each layer-repeated tensor's count) is then fitted as
a small expression over the fields (:mod:`dimlint.tools.shape_fit`); boolean fields that add or
remove tensors (biases, an untied head) become conditions. A field whose change could not be
learned (the build fails, or the tensor layout changes in a way no expression explains) is
listed as ``fixed``: a config that sets it to another value falls back to the hand recipes.

Beyond the declared fields: names the modeling code reads with a fallback although the class
declares none (Qwen3-MoE's ``head_dim``: :mod:`dimlint.tools.undeclared_reads`) are stated at
that fallback and learned like fields (``undeclared``); a zero field that counts layers of a
kind the default has none of is learned from 1 (``rebased``: DeepSeek-V2's
``first_k_dense_replace``); an expression with a negative term is checked once with all its
fields moved (``joint``: a true difference, not a tangent); legacy keys the class reads from
its keyword arguments are recorded at the values it falls back to (``legacy``), and uniform
default lists (``uniform``) so that another item lies outside the domain. Fields the class
overwrites whatever the config states are recorded with the field each is copied from, if one
(``overwritten``: VibeVoice's diffusion-head width is the language model's,
:mod:`dimlint.tools.overwritten_fields`).

The label count and string fields are learned as well. Every class is rebuilt at other label
counts (:func:`label_domain`): a head's rows read ``num_labels``, the counts at which the class
keeps its structure are its ``labels_range``, and past a switch the other regime is learned
from a build there (``label_regimes``). String fields the code compares with literals
(:mod:`dimlint.tools.compared_strings`) are built at each (:func:`learn_strings`): a value that
only sets a learned flag is recorded with it, one that builds another structure is learned as
a ``variants`` row of its own. A secondary class's flags are checked against its own flipped
builds (``unlearned_flags`` lists those its rows do not reproduce). ``--refresh`` recomputes
the config-only parts of a row, not of its variants; among them ``absent``, the sub-configs the
default config leaves unset (Gemma-4's towers), whose sub-models no build had, and
``nested_injected``, the nested sub-configs whose composite default differs from the one their
outer class builds (PI0's ``vlm_config.vision_config``).

Structure the default build never shows is learned too. A default config that does not build
because the code reads a name no config class declares (DBRX's ``attn_config.rope_theta``) is
learned with a class default for it (``required``), kept only when it shapes no tensor. The
tensors a flipped flag adds are refitted from builds with the flag flipped and each field
changed (:func:`refit_toggled`: DINOv2's SwiGLU projections, a class record's ``refit``); a
fractional fit a joint build contradicts by a rounding up to a multiple holds only where the
size is that multiple (``multiple_of``). A field at -1 ("unset") that a positive value
switches is ``fixed`` and learned as a variant row stated positive (``regimes``,
``"path>0"``). Names the code reads with a constant fallback and no declared field
(DeBERTa's ``position_buckets``, ``norm_rel_ebd``) are stated at the fallback and learned;
``reads`` lists them so the run-time refuses a value no build learned. A fitted quotient of
two fields that transformers floors is read as ``a//b`` (:func:`floor_quotients`: SigLIP's
384 / 14 patch grid), and so is a fallback that floors one (Glm4-MoE's ``head_dim``, 4096 // 96:
:func:`~dimlint.tools.shape_fit.fit_floor`).

Keys the class declares no field for are probed too (:mod:`dimlint.tools.legacy_keys`): the
row's ``legacy_keys`` says which legacy keyword arguments are an ``alias`` of one field
(``{key: {"field": F, "wins": bool}}``: BLOOM's ``n_embed``) and which keys, legacy or
undeclared, are ``inert`` (a list: GPT-NeoX's ``rotary_emb_base``, Nemotron-H's ignored
``num_hidden_layers``), proved by meta builds at two values and depths; the run-time reads an
alias as its field and accepts an inert key at any value. A numeric field the class keeps None
and whose model then builds other tensors (DeepSeek-V2-Lite's ``q_lora_rank: null``) is a
regime ``[path, "=", null]`` learned as the variant ``"path=null"``
(:mod:`dimlint.tools.null_regimes`). ``legacy_keys`` and null regimes need builds: ``--refresh``
keeps them from the cached row.

Switches that only matter together (:mod:`dimlint.tools.regime_points`): fields at -1, string
values and flags inert at the default are judged again in each flipped flag's regime
(DeBERTa's ``position_buckets``, ``pos_att_type``, ``share_att_key`` with
``relative_attention`` on); variants are learned within variants, three deep, each combination
once, bounded in number and CPU time; a string field the class splits into a list is learned as
its set of values. Flags the primary ignores are flipped in every other class
(:mod:`dimlint.tools.class_flags`: wav2vec2's ``layer_weights`` in its classifiers, recorded as
``checked_flags`` or rows conditioned on the flag); a number the config leaves None that an
unbuilt class needs is a regime of its own (:mod:`dimlint.tools.unset_numbers`: the CTC
heads' ``vocab_size``).

Each item of a list of integers the class declares is a field of its
own (``depths[2]``, :mod:`dimlint.tools.list_items`; a row's ``items`` names those lists), and
a backbone's stage index stays in tensor names; a width declared None that another field
stands in for is learned with it (:mod:`dimlint.tools.stand_ins`, ``stand_ins``); the field
budget follows the cost of a build (:mod:`dimlint.tools.field_budget`). A stage's width and
its heads (SegFormer's ``hidden_sizes`` over ``num_attention_heads``) are learned where the heads
divide the width (``item_divisions``: outside, attention floors the head width).

Builds of the primary class also record what field learning cannot show, for cached rows too
(``--refresh`` runs them): ``relations``, a derived field moved off its derivation inside a
flipped flag's regime that builds other tensors (wav2vec2's ``output_hidden_size`` with
``add_adapter``, :mod:`dimlint.tools.relation_regimes`), and ``inert_lists``, number fields
whose per-layer lists build the default's tensors (Longformer's ``attention_window``,
:mod:`dimlint.tools.inert_lists`), and ``zero_counts``, expert counts whose zero drops the
expert tensors and nothing else (the dense Granite-4.0, :mod:`dimlint.tools.zero_counts`).

A type no class of which builds at the default because a keyword its config class pops (DETR's
``use_timm_backbone``: timm is not installed) is learned in the regime of that keyword flipped
(:mod:`dimlint.tools.popped_flags`); a default the class declares as a tuple and extends with a
list (VitMatte's ``fusion_hidden_sizes``) is built as the list a saved config reads back. A
field whose first trial lands on another number's value and builds other tensors (MusicGen's
text width at the decoder's: no projection) is learned from a later trial where the values on
either side of the collision build the default's tensors, the pair recorded ``unequal``. The
list items' equality probes go cheapest first, within a budget scaled to a build's cost; pairs
left unprobed are recorded (``unprobed_equalities``) and refused equal at run time. A backbone
sub-config's returned stages are recorded (``stages``): the composite's projection follows the
last one's width.

The run-time side (:mod:`dimlint.memory.parameters.templates`) evaluates the result without
transformers.

Usage: ``python -m dimlint.tools.generate_shapes [--output PATH] [--only TYPE…] [--cache FILE]
[--limit SECONDS] [--refresh]``. A full run builds every model type dozens of times (about
an hour on two busy cores); ``--cache`` keeps each learned row in a JSON-lines file and resumes
from it, ``--only`` relearns the named types into it, ``--refresh`` recomputes the config-only
parts of every cached row and renders the table. Every run that writes the table records its
provenance beside it (``shapes.provenance.json``: hashes of the table and of this generator's
code, and the transformers version), which ``tests/test_shapes_table.py`` checks on every commit.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import functools
import itertools
import json
import re
import sys
import time
import warnings
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

from dimlint.memory.parameters import counted_lists
from dimlint.memory.parameters.list_items import split as item_of
from dimlint.memory.parameters.nested_configs import flat_numbers
from dimlint.memory.parameters.plan_counts import names_mixer_kinds as is_plan
from dimlint.memory.parameters.templates import SIZE_WORD
from dimlint.tools import (
    class_flags,
    companion_flags,
    compared_strings,
    inert_lists,
    item_equalities,
    kind_rebase,
    layer_kind_tags,
    legacy_keys,
    list_items,
    null_regimes,
    numbered_modules,
    plan_kinds,
    popped_flags,
    provenance,
    rederived,
    regime_points,
    relation_regimes,
    shaping_floats,
    stand_ins,
    undeclared_reads,
    unset_numbers,
    zero_counts,
)
from dimlint.tools.field_budget import field_budget
from dimlint.tools.overwritten_fields import overwritten
from dimlint.tools.provenance import SHAPES_GENERATOR
from dimlint.tools.shape_fit import (
    FLOOR,
    evaluate_terms,
    fields_of,
    fit,
    fit_floor,
    floored,
    from_json,
    quotient_pairs,
    to_json,
    unfloored,
)

DEFAULT_OUTPUT = Path(__file__).resolve().parent.parent / "data" / "shapes.json"
#: This module, handed to the helpers that build models with its functions
#: (:mod:`dimlint.tools.list_items`, :mod:`dimlint.tools.stand_ins`), which it imports.
_SELF = sys.modules[__name__]

#: The auto mappings whose classes get a template: the classes ``architectures`` names.
MAPPINGS = (
    "MODEL_MAPPING_NAMES",
    "MODEL_FOR_CAUSAL_LM_MAPPING_NAMES",
    "MODEL_FOR_SEQ_TO_SEQ_CAUSAL_LM_MAPPING_NAMES",
    "MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES",
    "MODEL_FOR_SPEECH_SEQ_2_SEQ_MAPPING_NAMES",
    "MODEL_FOR_CTC_MAPPING_NAMES",
    "MODEL_FOR_MASKED_LM_MAPPING_NAMES",
    "MODEL_FOR_IMAGE_CLASSIFICATION_MAPPING_NAMES",
    "MODEL_FOR_SEQUENCE_CLASSIFICATION_MAPPING_NAMES",
)
_INDEX = re.compile(r"(?<=\.)\d+(?=\.|$)|^\d+(?=\.)")
_SECONDARY_MAPPINGS = frozenset(
    {
        "MODEL_MAPPING_NAMES",
        "MODEL_FOR_IMAGE_CLASSIFICATION_MAPPING_NAMES",
        "MODEL_FOR_SEQUENCE_CLASSIFICATION_MAPPING_NAMES",
    }
)
#: Runtime switches that never shape a parameter (skipped to keep generation fast).
_INERT = frozenset(
    {
        "use_cache", "output_attentions", "output_hidden_states", "return_dict",
        "torchscript", "use_return_dict", "chunk_size_feed_forward", "is_decoder",
        "add_cross_attention_cache", "gradient_checkpointing",
    }
)  # fmt: skip
_ID_FIELD = re.compile(r"(^|_)(id|ids|token_id|index)$")
Groups = dict[tuple[str, int], tuple[tuple[int, ...], int]]


def _collapse(name: str) -> str:
    return _INDEX.sub("*", name)


def _groups(model: Any) -> Groups:
    """``(collapsed name, ordinal) → (shape, count)``: repeated layers fold into one entry;
    distinct shapes under one name get ordinals in order of first appearance."""
    counts: Counter[tuple[str, tuple[int, ...]]] = Counter()
    shapes = [(name, tuple(int(d) for d in p.shape)) for name, p in model.named_parameters()]
    names = numbered_modules.folded(shapes)  # experts.expert_3 → experts.expert_*
    stages = list_items.stage_lists(model)  # a backbone's stages keep their index
    for name, shape in shapes:
        folded = list_items.collapse(names[name], stages) if stages else _collapse(names[name])
        counts[(folded, shape)] += 1
    ordinals: Counter[str] = Counter()
    groups: Groups = {}
    for (name, shape), count in counts.items():
        groups[(name, ordinals[name])] = (shape, count)
        ordinals[name] += 1
    return groups


def _is_scalar(value: object) -> bool:
    return isinstance(value, bool | int)


def _sub_configs(config: Any) -> dict[str, Any]:
    from transformers import PreTrainedConfig

    found: dict[str, Any] = {}
    for key in getattr(config, "sub_configs", {}) or {}:
        value = getattr(config, key, None)
        if isinstance(value, PreTrainedConfig):
            found[key] = value
    return found


def _declared(config_class: Any) -> dict[str, object]:
    if not dataclasses.is_dataclass(config_class):
        return {}
    return {
        field.name: field.default
        for field in dataclasses.fields(config_class)
        if field.default is not dataclasses.MISSING
    }


def _values(config: Any) -> dict[str, int]:
    """Every integer and boolean field of ``config`` and of its direct sub-configs, by path."""
    values: dict[str, int] = {}
    for key, value in config.to_dict().items():
        if _is_scalar(value) and not _token_id(key, value):
            values[key] = value
    for key, sub in _sub_configs(config).items():
        for name, value in sub.to_dict().items():
            if _is_scalar(value) and not _token_id(name, value):
                values[f"{key}.{name}"] = value
    values.update(list_items.item_values(config))  # ``depths[2]``: items learned as fields
    return values


def _token_id(name: str, value: object) -> bool:
    """Whether a field names a token or an index (``pad_token_id``), which sizes nothing; a
    boolean so named is a switch (ERNIE's ``use_task_id`` adds task-type embeddings)."""
    return not isinstance(value, bool) and _ID_FIELD.search(name) is not None


def _derived(config: Any) -> set[str]:
    """Paths whose value ``__post_init__`` computes: declared ``None``, yet set (``head_dim``,
    ``layer_types``), a declared number the class replaced, or a number it sets without
    declaring it (MobileBERT's ``true_hidden_size``)."""
    derived: set[str] = set()
    declared = _declared(type(config))
    aliases = set(getattr(config, "attribute_map", {}) or {})
    for key, value in config.to_dict().items():
        if (
            key in declared
            and declared[key] != value
            and (declared[key] is None or _is_scalar(value))
        ) or (
            key not in declared
            and key not in aliases
            and isinstance(value, int)
            and not isinstance(value, bool)
            and not _ID_FIELD.search(key)
        ):
            derived.add(key)
    for key, sub in _sub_configs(config).items():
        sub_declared = _declared(type(sub))
        for name, value in sub.to_dict().items():
            if name in sub_declared and sub_declared[name] is None and value is not None:
                derived.add(f"{key}.{name}")
        derived |= {f"{key}.{name}" for name in rederived.undeclared_structures(sub)}
    return derived


def _perturbed(
    config: Any,
    path: str,
    value: object,
    derived: set[str],
    extras: Mapping[str, object] | None = None,
) -> Any:
    """A fresh config of the same class with one field changed (sub-config fields through a
    dict of the sub-config's stated fields, so its own derived fields are recomputed); the
    undeclared names learning states (``extras``, see :func:`_stated_extras`) stay stated."""
    return _perturbed_many(config, {path: value}, derived, extras)


def _perturbed_many(
    config: Any,
    changes: Mapping[str, object],
    derived: set[str],
    extras: Mapping[str, object] | None = None,
) -> Any:
    """:func:`_perturbed` with several fields changed at once."""
    changes = dict(changes)
    for partner, field in _TIES.items():  # an equality regime keeps its fields equal
        if partner in changes and field not in changes:
            changes[field] = changes[partner]
    changes = list_items.as_lists(config, changes)
    kwargs = _extra_kwargs(config, extras or {}, derived)
    for path, value in changes.items():
        if "." not in path:
            kwargs[path] = value
            continue
        key, name = path.split(".", 1)
        if not isinstance(kwargs.get(key), dict):
            sub = getattr(config, key)
            kwargs[key] = {
                k: v for k, v in sub.to_dict().items() if f"{key}.{k}" not in derived or k == name
            }
        kwargs[key][name] = value
    # a plan a variant states follows a moved layer count (:mod:`plan_kinds`)
    plan_kinds.resized(kwargs, changes, {p for p, v in (extras or {}).items() if is_plan(v)})
    return type(config)(**kwargs)


def _extra_kwargs(config: Any, extras: Mapping[str, object], derived: set[str]) -> dict[str, Any]:
    """Keyword arguments stating ``extras`` (``head_dim``, ``text_config.head_dim``): top-level
    names as themselves, a sub-config's as the dict of its stated fields with them added."""
    # an item (a regime's ``hidden_sizes[0]``) is stated as its whole list
    extras = list_items.as_lists(config, extras)
    # a stated sub-config (an absent tower's ``{}``) is copied: a change adds to it in place
    kwargs: dict[str, Any] = {
        path: dict(value) if isinstance(value, dict) else value
        for path, value in extras.items()
        if "." not in path
    }
    for path, value in extras.items():
        if "." not in path:
            continue
        key, name = path.split(".", 1)
        if key not in kwargs:
            sub = getattr(config, key)
            kwargs[key] = {k: v for k, v in sub.to_dict().items() if f"{key}.{k}" not in derived}
        kwargs[key][name] = value
    return kwargs


def _trials(value: int, others: Sequence[int] = ()) -> Iterator[int]:
    """Values to change a field to, those that keep its divisibility by and of the config's
    other numbers first (``others``): doubling a 32-wide patch of a 224-wide image makes
    ``224 // 64`` round down, which no rational expression fits; halving it does not."""
    if isinstance(value, bool):
        yield not value
        return
    if value == 0:
        yield 1
        return
    trials = [value * 2]
    if value % 2 == 0 and value > 2:
        trials.append(value // 2)
    trials.append(value + 1)

    def broken(trial: int) -> int:
        return sum(
            1
            for other in others
            if other > 1
            and (
                (other % value == 0 and (trial == 0 or other % trial != 0))
                or (value % other == 0 and trial % other != 0)
            )
        )

    yield from sorted(trials, key=broken)


def _build(model_class: Any, config: Any) -> Any:
    """``model_class`` built on the meta device from a copy of ``config``: some classes write
    into the config they get (T5's encoder-only class sets ``is_encoder_decoder`` and
    ``use_cache`` to False), which would move those fields in every later comparison."""
    import copy

    import torch

    with torch.device("meta"):
        try:
            return model_class(copy.deepcopy(config))
        except TypeError:
            # a default the class declares as a tuple that its code extends with a list
            # (VitMatte's ``[hidden_size] + fusion_hidden_sizes``): a saved config reads back
            # lists, so the build is retried as ``from_pretrained`` would have it
            listed = _tuples_as_lists(copy.deepcopy(config))
            if listed is None:
                raise
            return model_class(listed)


def _tuples_as_lists(config: Any) -> Any | None:
    """``config`` with every tuple value (its own and its direct sub-configs') made a list, as
    JSON holds it; None where it holds no tuple."""
    changed = False
    for holder in (config, *_sub_configs(config).values()):
        for name, value in list(vars(holder).items()):
            if isinstance(value, tuple):
                setattr(holder, name, list(value))
                changed = True
    return config if changed else None


class _Learned:
    """Observations of one model type: the default build and one build per changed field."""

    def __init__(
        self, values: dict[str, int], groups: Groups, extras: Mapping[str, object] | None = None
    ) -> None:
        self.observations: list[tuple[str, dict[str, int], Groups]] = [("", values, groups)]
        self.fixed: set[str] = set()
        self.toggled: dict[str, tuple[int, Groups]] = {}
        #: Fields at a negative default that a positive value switches (see :func:`_switches_on`).
        self.sentinels: dict[str, int] = {}
        self.extras: dict[str, object] = dict(extras or {})
        #: Per field, the values of the fields the code compares it with (tried last: stating
        #: ``embedding_size`` at ELECTRA's ``hidden_size`` drops a projection).
        self.partners: dict[str, set[int]] = {}
        #: A field moved with the lists that count what it counts: ``{path: [default,
        #: {list: default list}]}`` (:mod:`~dimlint.memory.parameters.counted_lists`).
        self.counted: dict[str, list[Any]] = {}
        #: ``[field, other]`` pairs whose equality alone builds other tensors, seen where a
        #: trial landed on the other's value (:func:`_past_collision`): the run-time refuses
        #: a config stating them equal (the row's ``unequal``).
        self.unequal: list[list[str]] = []


def _learn_fields(model_class: Any, config: Any, learned: _Learned, deadline: float) -> None:
    base_values, base_groups = learned.observations[0][1], learned.observations[0][2]
    derived = _derived(config) - set(learned.extras)
    sizes = {size for shape, count in base_groups.values() for size in (*shape, count)}
    numbers = _numbers(base_values)
    # the stated undeclared names first: a field the budget leaves unlearned is ``fixed``
    ordered = sorted(base_values.items(), key=lambda item: item[0] not in learned.extras)
    for path, value in ordered:
        if path.rsplit(".", 1)[-1] in _INERT:
            continue
        # divides no size and no size divides it: no size follows it linearly, yet one may
        # follow it otherwise (Swin's ``(2 * window_size - 1) ** 2`` position rows), so a
        # config stating another value lies outside, unless changing it changes no tensor
        # (Qwen2's ``max_window_layers``, 28 of 32 layers, with sliding windows off)
        unaligned = (
            not isinstance(value, bool)
            and value > 1
            and not any(size % value == 0 or value % size == 0 for size in sizes if size > 1)
        )
        if time.process_time() > deadline:
            learned.fixed.add(path)
            continue
        if (
            not isinstance(value, bool)
            and value < 0
            and _switches_on(model_class, config, path, derived, learned)
        ):
            # -1 for "unset" (DeBERTa's ``position_buckets``): its trials (-2, 0) say nothing of
            # a positive value, which builds other tensors; learned as a regime of its own
            learned.fixed.add(path)
            continue
        outcome: tuple[dict[str, int], Groups] | None = None
        others = [n for p, n in numbers.items() if p != path]
        if item_of(path):
            tried = list_items.item_trials(config, path, value)
        else:
            tried = list(_trials(value, others))
        tried.sort(key=lambda trial: trial in learned.partners.get(path, ()))
        for trial in tried:
            try:
                changed = _perturbed(config, path, trial, derived, learned.extras)
                model = _build(model_class, changed)
            except Exception:  # a value the class rejects: try the next one
                continue
            outcome = (_values(changed), _groups(model))
            if item_of(path) and set(outcome[1]) != set(base_groups):
                # a stage's new width may equal another's (two shapes merge): try the next
                outcome = None
                continue
            if not isinstance(value, bool) and set(outcome[1]) != set(base_groups):
                past = _past_collision(model_class, config, path, trial, tried, numbers, learned)
                if past is not None:
                    outcome = past
            break
        if outcome is None and not isinstance(value, bool):
            outcome = _with_counted_lists(model_class, config, path, value, tried, derived, learned)
        if outcome is None:
            learned.fixed.add(path)
            continue
        values, groups = outcome
        if values.get(path) == value:
            continue  # the class ignores the field
        if unaligned and groups != base_groups:
            series = _unaligned_series(
                model_class, config, path, value, values[path], groups, derived, learned
            )
            if series is None:
                learned.fixed.add(path)
            else:
                learned.observations.extend((path, v, g) for v, g in [(values, groups), *series])
            continue
        if isinstance(value, bool):
            if groups != base_groups:
                learned.toggled[path] = (values[path], groups)
        elif set(groups) == set(base_groups):
            learned.observations.append((path, values, groups))
            if item_of(path) and not list_items.second_trial(
                model_class, config, path, values[path], learned, derived, _SELF
            ):
                learned.observations.pop()  # one build cannot tell a floor from a constant
                learned.fixed.add(path)
        else:
            learned.fixed.add(path)


def _past_collision(
    model_class: Any,
    config: Any,
    path: str,
    trial: int,
    tried: Sequence[int],
    numbers: Mapping[str, int],
    learned: _Learned,
) -> tuple[dict[str, int], Groups] | None:
    """The build of a later trial where ``trial`` landed on another number's value and built
    other tensors than the default: MusicGen projects its T5 text encoder's states to the
    decoder's width only where the two differ (``text_encoder.d_model`` 512, doubled to the
    decoder's 1024, drops ``enc_to_dec_proj``), so the field was ``fixed`` though any other
    width is linear. Taken only where the value on either side of the collision builds the
    default's tensors (an equality, not a threshold); the pair is then recorded ``unequal``."""
    colliding = sorted(
        other for other, number in numbers.items() if other != path and number == trial
    )
    if not colliding:
        return None
    base_names = set(learned.observations[0][2])
    build = _builder(model_class, config, _derived(config) - set(learned.extras), learned.extras)

    def names(value: int) -> set[tuple[str, int]] | None:
        try:
            return set(build({path: value})[1])
        except Exception:  # the class rejects the value: no evidence either way
            return None

    if any(names(value) != base_names for value in (trial - 1, trial + 1)):
        return None
    for later in tried:
        if later == trial or later in numbers.values():
            continue
        try:
            outcome = build({path: later})
        except Exception:  # a value the class rejects: try the next one
            continue
        if set(outcome[1]) != base_names:
            return None
        learned.unequal.extend([path, other] for other in colliding)
        return outcome
    return None


def _with_counted_lists(
    model_class: Any,
    config: Any,
    path: str,
    value: int,
    tried: list[int],
    derived: set[str],
    learned: _Learned,
) -> tuple[dict[str, int], Groups] | None:
    """A field every trial of which the class refused alone, moved with the list fields that
    count what it counts (:mod:`counted_lists`: GPT-Neo's ``attention_types``): the first
    trial that builds, or None."""
    build = _builder(model_class, config, derived, learned.extras)
    for trial in tried:
        lists = counted_lists.companions(config, path, value, trial)
        if not lists:
            continue
        try:
            built = build({path: trial, **lists})
        except Exception:  # a value the class rejects even so: try the next one
            continue
        defaults = config.to_dict()
        learned.counted[path] = [value, {name: defaults[name] for name in sorted(lists)}]
        return built
    return None


#: Builds an unaligned field needs beyond its first trial: with the default, four points for
#: a curve of at most three terms (``4 * w**2 - 4 * w + 1``), so one point checks the fit.
_UNALIGNED_EXTRA = 2


def _unaligned_series(
    model_class: Any,
    config: Any,
    path: str,
    value: int,
    first_value: int,
    first: Groups,
    derived: set[str],
    learned: _Learned,
) -> list[tuple[dict[str, int], Groups]] | None:
    """More builds of a field no size divides (Swin's ``window_size``), when its first trial
    kept every tensor and resized some: the fitter then sees the field at four values, enough
    to tell Swin's ``(2 * window_size - 1) ** 2`` position rows from a line through two
    points. None when the class refuses the values or a build drops or adds a tensor: the
    field stays ``fixed``."""
    base_groups = learned.observations[0][2]
    if set(first) != set(base_groups):
        return None
    build = _builder(model_class, config, derived, learned.extras)
    series: list[tuple[dict[str, int], Groups]] = []
    for trial in (value + 1, value + 2, value + 3, value * 2):
        if len(series) == _UNALIGNED_EXTRA:
            break
        if trial == first_value:
            continue
        try:
            values, groups = build({path: trial})
        except Exception:  # a value the class rejects: try the next one
            continue
        if values.get(path) != trial or set(groups) != set(base_groups):
            return None
        series.append((values, groups))
    return series if len(series) == _UNALIGNED_EXTRA else None


#: CPU seconds a type spends probing its list items at the other numbers' values
#: (:mod:`item_equalities`).
_EQUALITY_BUDGET_S = 30.0
#: CPU seconds those probes may take at most, where one build is slow (DETR's ResNet).
_EQUALITY_BUDGET_MAX_S = 300.0


def _backbone_stages(config: Any) -> dict[str, list[int]]:
    """Per sub-config that is a backbone, the stages it returns (``out_indices``): the
    composite sizes its input projection by the last one's width (DETR's ResNet returns
    stage 4, 2048 wide), so the row holds only for that selection (run-time ``stages``)."""
    found: dict[str, list[int]] = {}
    for key, sub in _sub_configs(config).items():
        indices = getattr(sub, "out_indices", None)
        if isinstance(indices, list | tuple) and all(isinstance(i, int) for i in indices):
            found[key] = list(indices)
    return found


def _no_equality(path: str) -> bool:
    """Fields :mod:`item_equalities` leaves out: inert names and ids."""
    return path.rsplit(".", 1)[-1] in _INERT or bool(_ID_FIELD.search(path))


def _equality_budget(base_values: Mapping[str, int], build: Callable[[], object]) -> float:
    """CPU seconds for :func:`item_equalities.found`: :data:`_EQUALITY_BUDGET_S`, or what its
    probes take at the cost of one build (with a margin), up to :data:`_EQUALITY_BUDGET_MAX_S`."""
    count = item_equalities.count(_numbers(base_values), _no_equality)
    if not count:
        return _EQUALITY_BUDGET_S
    start = time.process_time()
    build()
    cost = time.process_time() - start
    return min(max(_EQUALITY_BUDGET_S, 1.5 * count * cost), _EQUALITY_BUDGET_MAX_S)


#: CPU seconds every non-primary class gets to flip the flags its primary ignores, however
#: much of the shared budget the classes before it spent (:func:`_class_flags`).
_CLASS_FLAGS_FLOOR_S = 15.0
#: Of those pairs, how many are learned as regimes of their own (each a learning run).
_EQUALITY_REGIMES = 2


#: The value a field whose default is negative ("unset") is probed and learned at.
SENTINEL_PROBE = 8


def _switches_on(
    model_class: Any, config: Any, path: str, derived: set[str], learned: _Learned
) -> bool:
    """Whether a field at a negative default builds other tensors at :data:`SENTINEL_PROBE`
    (recorded in ``learned.sentinels`` then)."""
    try:
        changed = _perturbed(config, path, SENTINEL_PROBE, derived, learned.extras)
        groups = _groups(_build(model_class, changed))
    except Exception:  # the class rejects a positive value: nothing to learn there
        return False
    if _values(changed).get(path) != SENTINEL_PROBE or groups == learned.observations[0][2]:
        return False
    learned.sentinels[path] = SENTINEL_PROBE
    return True


def _builder(
    model_class: Any, config: Any, derived: set[str], extras: Mapping[str, object]
) -> Callable[[Mapping[str, object]], tuple[dict[str, int], Groups]]:
    """A build of ``model_class`` from ``config`` with some fields changed (``extras`` kept
    stated): the values it was built with and its tensor groups, as the regime probes
    (:mod:`regime_points`, :mod:`class_flags`, :mod:`layer_kind_tags`) take it."""

    def build(changes: Mapping[str, object]) -> tuple[dict[str, int], Groups]:
        changed = _perturbed_many(config, changes, derived, extras)
        return _values(changed), _groups(_build(model_class, changed))

    return build


def _sentinels_in_flipped(model_class: Any, config: Any, learned: _Learned) -> dict[str, int]:
    """Fields at a negative default that switch tensors only with a flag flipped
    (:func:`regime_points.sentinels_in_flipped`: DeBERTa's ``position_buckets`` with
    ``relative_attention`` on), each at :data:`SENTINEL_PROBE`."""
    derived = _derived(config) - set(learned.extras)

    build = _builder(model_class, config, derived, learned.extras)

    toggled = {path: value for path, (value, _) in learned.toggled.items()}
    skip = set(learned.sentinels) | {
        p for p in learned.observations[0][1] if p.rsplit(".", 1)[-1] in _INERT
    }
    return regime_points.sentinels_in_flipped(
        learned.observations[0][1], toggled, skip, build, SENTINEL_PROBE
    )


def _flags_in_flipped(
    model_class: Any, config: Any, learned: _Learned, rows: list[list[Any]]
) -> None:
    """Condition the rows another flag builds on a flag inert at the default that drops them
    in that flag's regime (:func:`regime_points.flags_in_flipped`: DeBERTa-v2's
    ``share_att_key``); a flag whose flip there adds tensors, or drops one no such row holds,
    is ``fixed`` (a config flipping it lies outside)."""
    derived = _derived(config) - set(learned.extras)

    build = _builder(model_class, config, derived, learned.extras)

    base_values = learned.observations[0][1]
    skip = {p for p in base_values if p.rsplit(".", 1)[-1] in _INERT} | learned.fixed
    drops, unexplained = regime_points.flags_in_flipped(base_values, learned.toggled, skip, build)
    learned.fixed |= unexplained
    for path, regimes in sorted(drops.items()):
        targets: list[list[Any]] = []
        for flag, flipped, dropped in regimes:
            held = [
                row
                for row in rows
                if (str(row[0]), tuple(row[4])) in dropped and [flag, flipped] in row[3]
            ]
            if len(held) != len(dropped):
                learned.fixed.add(path)  # it drops a tensor no row of that regime holds alone
                break
            targets.extend(held)
        else:
            for row in targets:
                if [path, base_values[path]] not in row[3]:
                    row[3].append([path, base_values[path]])


def _numbers(values: Mapping[str, int]) -> dict[str, int]:
    """The integer (not boolean) fields among ``values``."""
    return {path: v for path, v in values.items() if not isinstance(v, bool)}


def _lists(config: Any) -> dict[str, list[object]]:
    """Every list of numbers or strings of ``config`` and its direct sub-configs, by path."""
    found: dict[str, list[object]] = {}
    items = [("", config.to_dict())] + [
        (f"{key}.", sub.to_dict()) for key, sub in _sub_configs(config).items()
    ]
    for prefix, mapping in items:
        for name, value in mapping.items():
            if (
                isinstance(value, list)
                and len(value) > 1
                and all(isinstance(item, int | float | str) for item in value)
            ):
                found[prefix + name] = value
    return found


def guard_lists(
    model_class: Any, config: Any, base: Groups, extras: Mapping[str, object] | None = None
) -> dict[str, list[object]]:
    """Lists whose order shapes the model (DeepSeek-V4's ``compress_ratios``, per-layer MoE
    or attention patterns that change tensors): rotating one by a place changes the tensors.
    A config that states another value for one of them falls back to the family recipes."""
    guarded: dict[str, list[object]] = {}
    derived = _derived(config) - set(extras or {})
    for path, value in _lists(config).items():
        rotated = value[1:] + value[:1]
        if rotated == value:
            continue
        try:
            model = _build(model_class, _perturbed(config, path, rotated, derived, extras))
        except Exception:
            continue  # the class rejects the rotation: its value is validated, not free
        if _groups(model) != base:
            guarded[path] = value
    return guarded


def _fit_group(
    key: tuple[str, int],
    observations: Sequence[tuple[str, dict[str, int], Groups]],
    preferred: frozenset[str],
    cache: dict[tuple[object, ...], object],
) -> list[object] | None:
    """``[count expression, [dim expressions]]`` of one group, or None when one fails."""
    series: list[list[tuple[dict[str, int], int]]] = []
    shape0, _count0 = observations[0][2][key]
    for axis in range(len(shape0) + 1):
        points: list[tuple[dict[str, int], int]] = []
        for _, values, groups in observations:
            shape, count = groups[key]
            if len(shape) != len(shape0):
                return None
            points.append((values, count if axis == 0 else shape[axis - 1]))
        series.append(points)
    fitted: list[object] = []
    for points in series:
        signature = tuple((tuple(sorted(v.items())), t) for v, t in points)
        if signature not in cache:
            terms = fit(points, preferred)
            cache[signature] = None if terms is None else to_json(terms)
        expression = cache[signature]
        if expression is None:
            return None
        fitted.append(expression)
    return [fitted[0], fitted[1:]]


def _near(name: str, value: int, rows: Sequence[list[Any]], axis: int | None) -> object:
    """An expression for a size seen in one build only (a toggled tensor, a head): the fitted
    expression of the same default value on the tensor whose name shares the longest prefix
    (``axis`` None: a layer count), else the constant. A name with no layer index is one
    tensor: its count is 1 whatever field equals 1 at the default (DeepSeek-V2's
    ``first_k_dense_replace``, learned at 1, is no count of its classification head)."""
    if axis is None and "*" not in name:
        return [[value, 1, []]]
    best: tuple[int, object] | None = None
    for row in rows:
        candidates = [(row[5], row[1])] if axis is None else list(zip(row[4], row[2], strict=True))
        for size, expression in candidates:
            if size != value or not fields_of_json(expression):
                continue
            shared = len(_common_prefix(name, row[0]))
            if best is None or shared > best[0]:
                best = (shared, expression)
    return best[1] if best is not None else [[value, 1, []]]


def _common_prefix(a: str, b: str) -> str:
    length = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        length += 1
    return a[:length]


def refit_toggled(
    model_class: Any,
    config: Any,
    learned: _Learned,
    derived: set[str],
    rows: list[list[Any]],
    preferred: frozenset[str],
    cache: dict[tuple[object, ...], object],
) -> None:
    """Fit the tensors only a flipped flag builds, whose sizes that one build alone showed
    (DINOv2's ``use_swiglu_ffn`` gated projections, DeBERTa's ``relative_attention``
    embeddings of ``2 · max_position_embeddings`` rows): the class is built with the flag
    flipped and each field learning changed, changed again, and each such tensor fitted from
    those builds as the default's tensors are. A field at zero or below that a positive value
    moves in that regime only (DeBERTa's undeclared ``position_buckets``) pins the tensor: its
    trials (-2, 0) said nothing. A refitted row is marked (``row[8]``): its sizes, constant
    ones included, held in every build, so the run-time trusts them away from the defaults."""
    for path, (value, flipped) in sorted(learned.toggled.items()):
        # every size of a tensor only the flipped flag builds was matched to a default
        # tensor's expression of the same value (``_near``): a guess where two fields are
        # equal at the default (MOSS's untied head took the audio tower's width), so each is
        # fitted from builds in the regime, not only those whose sizes matched nothing
        targets = [row for row in rows if row[6] and row[3][0][0] == path]
        if not targets:
            continue
        try:
            values0 = _values(_perturbed(config, path, value, derived, learned.extras))
        except Exception:  # the flipped config does not state: nothing to fit
            continue
        observations: list[tuple[str, dict[str, int], Groups]] = [("", values0, flipped)]
        for field, values, _ in learned.observations[1:]:
            try:
                moved = {path: value, field: values[field]}
                changed = _perturbed_many(config, moved, derived, learned.extras)
                observations.append(
                    (field, _values(changed), _groups(_build(model_class, changed)))
                )
            except Exception:  # this field does not build in the regime: its tensors stay seen once
                observations.append((field, values, {}))
        pins: dict[tuple[str, int], list[str]] = {}
        for field, base_value in _numbers(learned.observations[0][1]).items():
            if base_value > 0 or field == path or field.rsplit(".", 1)[-1] in _INERT:
                continue
            try:
                probed = _perturbed_many(
                    config, {path: value, field: SENTINEL_PROBE}, derived, learned.extras
                )
                groups = _groups(_build(model_class, probed))
            except Exception:  # a positive value does not build in the regime
                continue
            for key in flipped:
                if groups.get(key) != flipped[key]:
                    pins.setdefault(key, []).append(field)
        for row in targets:
            keys = [
                key
                for key, (shape, _) in flipped.items()
                if key[0] == row[0] and list(shape) == row[4]
            ]
            if len(keys) != 1 or not all(keys[0] in observed for _, _, observed in observations):
                continue
            fitted = _fit_group(keys[0], observations, preferred, cache)
            if fitted is None:
                continue
            row[1], row[2] = fitted
            rounded = _rounded_fields(model_class, config, learned, derived, {path: value}, row)
            row[7] = sorted(set(row[7]) | set(pins.get(keys[0], [])) | rounded)
            while len(row) < 9:
                row.append(None)
            row[8] = True


#: Multiples a width may be rounded up to (SwiGLU widths round to 8, some to 64 or 256).
_ROUNDINGS = (8, 16, 32, 64, 128, 256)


def _rounded_fields(
    model_class: Any,
    config: Any,
    learned: _Learned,
    derived: set[str],
    stated: Mapping[str, object],
    row: list[Any],
) -> set[str]:
    """The fields of a fitted size with a fractional coefficient over several fields that
    builds with them all moved contradict (empty: it held). Such a size may hide a rounding
    the trials, which keep divisibility, never showed: DINOv2's SwiGLU width is
    ``(int(hidden · ratio · 2/3) + 7) // 8 · 8``, fitted as ``2/3 · hidden · ratio``, wrong at
    hidden 771, ratio 5. Each field is moved to its trials and to its default plus the
    coefficient's denominator; the tensor must have the fitted size wherever that is whole.
    Where every build that contradicts it has the fitted size rounded up to one multiple
    (8 for SwiGLU) and the others agree, the row keeps its fit, valid only where the size is
    that multiple (``row[9]``, the run-time's ``multiple_of``); otherwise the fields pin it."""
    from dimlint.tools.shape_fit import evaluate_terms, from_json

    base_values = learned.observations[0][1]
    for axis, expression in enumerate([row[1], *row[2]]):
        terms = from_json(expression) or []
        fractional = [
            (c, factors) for c, factors in terms if c.denominator > 1 and len(factors) > 1
        ]
        if not fractional:
            continue
        fields = sorted(fields_of_json(expression))
        if any(not isinstance(base_values.get(f), int) for f in fields):
            continue
        denominator = max(c.denominator for c, _ in fractional)
        numbers = list(_numbers(base_values).values())
        options = [
            [*itertools.islice(_trials(base_values[f], numbers), 2), base_values[f] + denominator]
            for f in fields
        ]
        points: list[tuple[Fraction, list[int]]] = []
        for choice in itertools.islice(itertools.product(*options), 16):
            moved = dict(zip(fields, choice, strict=True))
            try:
                changed = _perturbed_many(config, {**stated, **moved}, derived, learned.extras)
                groups = _groups(_build(model_class, changed))
            except Exception:  # the class rejects these values together: try others
                continue
            predicted = evaluate_terms(terms, _values(changed))
            if predicted is None:
                continue
            sizes = [
                count if axis == 0 else shape[axis - 1]
                for (name, _), (shape, count) in groups.items()
                if name == row[0] and len(shape) == len(row[2])
            ]
            points.append((predicted, sizes))
        wrong = [(p, sizes) for p, sizes in points if p.denominator == 1 and int(p) not in sizes]
        if not wrong:
            continue
        for multiple in _ROUNDINGS:
            if all(
                -(-(p.numerator // p.denominator) // multiple) * multiple in sizes
                for p, sizes in points
            ):
                while len(row) < 10:
                    row.append(None)
                row[9] = multiple
                break
        else:
            return set(fields)
    return set()


def floor_quotients(
    model_class: Any,
    config: Any,
    rows: list[list[Any]],
    derived: set[str],
    extras: Mapping[str, object],
) -> None:
    """Read a fitted quotient of two fields as a floor where transformers floors it. Every
    build learning made divides whole (its trials keep the divisibility), so
    ``image_size² / patch_size²`` is exact only where the patch divides the image; a released
    SigLIP at 384 / 14 is no whole number of patches. The class is built with the numerator
    ``b - 1`` past the default (floor, ceiling and rounding then differ) and with the
    denominator one more; where every tensor that reads the quotient has the size its floor
    form gives in both, the expressions read ``a//b`` (the run-time floors it), unless the
    floor changes a size at the default (:func:`unfloor_where_default_differs`)."""
    base_values = _values(config)
    pairs = {
        pair
        for row in rows
        for expression in (row[1], *row[2])
        for pair in quotient_pairs(expression)
    }
    for numerator, denominator in sorted(pairs):
        a, b = base_values.get(numerator), base_values.get(denominator)
        if not isinstance(a, int) or not isinstance(b, int) or isinstance(a, bool) or b < 2:
            continue
        moves = [{numerator: a + b - 1}]
        if a % (b + 1):
            moves.append({denominator: b + 1})
        readers = [
            row
            for row in rows
            if not row[6]
            and any((numerator, denominator) in quotient_pairs(e) for e in (row[1], *row[2]))
        ]
        holds = bool(readers)
        for move in moves:
            try:
                changed = _perturbed_many(config, move, derived, extras)
                groups = _groups(_build(model_class, changed))
            except Exception:  # the class rejects a remainder: keep the exact quotient
                holds = False
                break
            values = _values(changed)
            by_name: dict[str, list[tuple[tuple[int, ...], int]]] = {}
            for (name, _), (built_shape, built_count) in groups.items():
                by_name.setdefault(name, []).append((built_shape, built_count))
            for row in readers:
                sizes = []
                for expression in (row[1], *row[2]):
                    rewritten = floored(expression, (numerator, denominator))
                    terms = from_json(rewritten)
                    value = evaluate_terms(terms, values) if terms else None
                    sizes.append(value)
                if any(v is None or v.denominator != 1 for v in sizes):
                    holds = False
                    break
                predicted = [int(v) for v in sizes if v is not None]
                if (tuple(predicted[1:]), predicted[0]) not in by_name.get(str(row[0]), []):
                    holds = False
                    break
            if not holds:
                break
        if holds:
            for row in readers:
                row[1] = floored(row[1], (numerator, denominator))
                row[2] = [floored(dim, (numerator, denominator)) for dim in row[2]]
    unfloor_where_default_differs(rows, base_values)


def unfloor_where_default_differs(rows: Sequence[Any], values: Mapping[str, int]) -> None:
    """Undo a floor quotient that changes a size at the default config. The rational form was
    fitted on the default build, so it is right there; a floor that moves the default's size
    was placed on the wrong pair of fields (ConvBERT's conv kernel rows are
    ``(heads // head_ratio) · kernel``, 54 at the default, which ``heads · (kernel // head_ratio)``,
    48, passes the remainder builds with). Rows are a class's tensor rows
    ``[name, count, dims, …]``."""
    for row in rows:
        for index, expression in enumerate((row[1], *row[2])):
            if FLOOR not in json.dumps(expression):
                continue
            plain = unfloored(expression)
            floor_terms, plain_terms = from_json(expression), from_json(plain)
            if floor_terms is None or plain_terms is None:
                continue
            if evaluate_terms(floor_terms, values) != evaluate_terms(plain_terms, values):
                if index == 0:
                    row[1] = plain
                else:
                    row[2][index - 1] = plain


def _primary_rows(
    groups: Groups,
    learned: _Learned,
    preferred: frozenset[str],
    cache: dict[tuple[object, ...], object],
) -> tuple[list[list[Any]], list[str]]:
    """Rows ``[name, count, dims, conditions, shape, count, toggled_only]`` of the primary
    class, fitted from the perturbed builds; toggles add conditional rows. A flag whose flip
    keeps a tensor but repeats it another number of times (BridgeTower's
    ``vision_config.remove_last_layer``: one layer fewer) has no row saying so: it is
    ``fixed``, so a config flipping it lies outside."""
    rows: list[list[Any]] = []
    failed: list[str] = []
    for (name, ordinal), (shape, count) in sorted(groups.items()):
        fitted = _fit_group((name, ordinal), learned.observations, preferred, cache)
        if fitted is None:
            # No expression explains it: keep the default sizes, valid only while every field
            # seen to change the tensor keeps its default (``pinned``).
            pinned = sorted(
                path
                for path, _, observed in learned.observations[1:]
                if observed[(name, ordinal)] != (shape, count)
            )
            constant = [[[size, 1, []]] for size in shape]
            rows.append([name, [[count, 1, []]], constant, [], list(shape), count, False, pinned])
            continue
        rows.append([name, fitted[0], fitted[1], [], list(shape), count, False, []])
    base_rows = list(rows)
    for path, (toggled_value, toggled_groups) in sorted(learned.toggled.items()):
        base_value = learned.observations[0][1][path]
        present: Counter[tuple[str, tuple[int, ...]]] = Counter()
        for (name, _), (shape, count) in toggled_groups.items():
            present[(name, shape)] += count
        for row in base_rows:
            if (row[0], tuple(row[4])) not in present:
                row[3].append([path, base_value])
            elif present[(row[0], tuple(row[4]))] != row[5]:
                learned.fixed.add(path)  # a count no condition describes
        for (name, _), (shape, count) in sorted(toggled_groups.items()):
            if any(row[0] == name and row[4] == list(shape) for row in base_rows):
                continue
            rows.append(
                [
                    name,
                    _near(name, count, base_rows, None),
                    [_near(name, size, base_rows, axis) for axis, size in enumerate(shape)],
                    [[path, toggled_value]],
                    list(shape),
                    count,
                    True,
                    [],
                ]
            )
    return rows, failed


def _secondary_rows(
    groups: Groups,
    primary: Sequence[list[Any]],
    toggled: Mapping[str, Groups | None] | None = None,
    guessed: set[tuple[str, tuple[int, ...]]] | None = None,
) -> tuple[list[list[Any]], list[str]]:
    """Rows of another class of the same type: a tensor whose name suffix, shape and count
    match a primary tensor reuses its template; a head tensor matches by value; the primary's
    toggled tensors follow under the module prefix the matches revealed, each only where the
    class built with that flag flipped (``toggled``, by flag) has it: T5's encoder-only class
    gets the encoder's gated projections, not the decoder's. The head tensors matched by value
    alone, and with ``guessed`` the body tensors no primary tensor matches, are added to
    ``guessed`` (see :func:`_refit_guessed`)."""
    index: dict[str, list[Any]] = {}
    for row in primary:
        if row[6]:
            continue
        parts = str(row[0]).split(".")
        for start in range(max(1, len(parts) - 1)):  # suffixes of two parts or more
            index.setdefault(f"{'.'.join(parts[start:])} {row[4]} {row[5]}", row)
    by_name = {f"{row[0]} {row[4]}": row for row in primary if not row[6]}
    rows: list[list[Any]] = []
    failed: list[str] = []
    prefixes: Counter[tuple[str, str]] = Counter()
    for (name, _), (shape, count) in sorted(groups.items()):
        parts = name.split(".")
        match: list[Any] | None = None
        for start in range(max(1, len(parts) - 1)):
            suffix = ".".join(parts[start:])
            match = index.get(f"{suffix} {list(shape)} {count}")
            if match is not None:
                theirs = str(match[0])[: len(str(match[0])) - len(suffix)]
                prefixes[(theirs, name[: len(name) - len(suffix)])] += 1
                break
        same = by_name.get(f"{name} {list(shape)}")
        if match is not None:
            rows.append([name, match[1], match[2], match[3], list(shape), count, False, match[7]])
            if guessed is not None and _elsewhere(str(match[0]), name):
                # the same suffix under an unrelated module (DeBERTa's pooler.dense matched the
                # masked-LM head's cls.predictions.transform.dense, both hidden_size wide at
                # the default, though the pooler is pooler_hidden_size wide): refitted
                guessed.add((name, tuple(shape)))
        elif same is not None and not fields_of_json(same[1]):
            # The same tensor repeated a constant number of other times (UDOP's model builds
            # three relative biases, its generation class two): the class's own count.
            rows.append(
                [name, [[count, 1, []]], same[2], same[3], list(shape), count, False, same[7]]
            )
        elif parts[0] not in _BODY_PREFIXES or guessed is not None:
            # a head's tensor, or (when the caller refits guesses) a body tensor the primary
            # lacks: BartForCausalLM's own decoder.embed_tokens, which the primary ties to
            # model.shared; refitted from this class's own builds (:func:`_refit_guessed`)
            if guessed is not None:
                guessed.add((name, tuple(shape)))
            rows.append(
                [
                    name,
                    _near(name, count, primary, None),
                    [_near(name, size, primary, axis) for axis, size in enumerate(shape)],
                    [],
                    list(shape),
                    count,
                    False,
                    [],
                ]
            )
        else:
            failed.append(name)
    mapping: dict[str, str] = {}
    for (theirs, ours), _ in prefixes.most_common():
        mapping.setdefault(theirs, ours)
    # a tensor the primary adds with a flag flipped that this class holds anyway (the
    # untied decoder embedding a decoder-only class always has) is no tensor the flag adds
    held = {(name, shape) for (name, _), (shape, _) in groups.items()}
    for row in primary:
        if not row[6]:
            continue
        flag = str(row[3][0][0])
        built = (toggled or {}).get(flag)
        present = {(name, shape) for (name, _), (shape, _) in (built or {}).items()}
        for theirs, ours in sorted(mapping.items(), key=lambda item: -len(item[0])):
            if str(row[0]).startswith(theirs):
                name = ours + str(row[0])[len(theirs) :]
                if (name, tuple(row[4])) in held:
                    break
                if toggled is None or (name, tuple(row[4])) in present:
                    rows.append([name, *row[1:]])
                break
    return rows, failed


def _elsewhere(theirs: str, ours: str) -> bool:
    """Whether two tensors with a common name suffix sit under unrelated modules: neither
    module path is the other's with a base-model prefix added or stripped (``bert.encoder``
    and ``encoder`` are one stack; ``cls.predictions.transform`` and ``pooler`` are not)."""
    suffix = _common_suffix(theirs, ours)
    their_module, our_module = theirs[: len(theirs) - len(suffix)], ours[: len(ours) - len(suffix)]
    return not (their_module.endswith(our_module) or our_module.endswith(their_module))


def _common_suffix(a: str, b: str) -> str:
    """The longest run of whole dotted parts that ends both names."""
    common: list[str] = []
    for mine, theirs in zip(reversed(a.split(".")), reversed(b.split(".")), strict=False):
        if mine != theirs:
            break
        common.append(mine)
    return ".".join(reversed(common))


def _condition_dropped(
    groups: Groups,
    rows: list[list[Any]],
    flipped: Mapping[str, Groups | None],
    base_values: Mapping[str, int],
) -> None:
    """Condition each row of a class on the flags whose flipped build of that class drops its
    tensor: a head's own tensor the primary never had (VideoMAE's classifier ``fc_norm``, there
    only while ``use_mean_pooling`` holds) has no row there to carry the condition."""
    present = {(name, shape) for (name, _), (shape, _) in groups.items()}
    for flag, built in sorted(flipped.items()):
        if built is None or not isinstance(base_values.get(flag), bool):
            continue
        kept = {(name, shape) for (name, _), (shape, _) in built.items()}
        for row in rows:
            tensor = (str(row[0]), tuple(row[4]))
            if row[6] or tensor not in present or tensor in kept:
                continue
            if not any(condition[0] == flag for condition in row[3]):
                row[3] = [*row[3], [flag, base_values[flag]]]


def unlearned_flags(
    groups: Groups, rows: Sequence[list[Any]], toggled: Mapping[str, Groups | None]
) -> list[str]:
    """The flags whose flipped build of a class the class's rows do not reproduce: a tensor it
    adds that no row conditioned on the flag yields, or one it drops that no row says it drops
    (or the class does not build with the flag flipped). A config flipping one lies outside."""
    unlearned: list[str] = []
    base = {(name, shape) for (name, _), (shape, _) in groups.items()}
    for flag, built in sorted(toggled.items()):
        if built is None:
            unlearned.append(flag)
            continue
        flipped = {(name, shape) for (name, _), (shape, _) in built.items()}
        added = {(str(row[0]), tuple(row[4])) for row in rows if row[6] and row[3][0][0] == flag}
        dropped = {
            (str(row[0]), tuple(row[4]))
            for row in rows
            if not row[6] and any(condition[0] == flag for condition in row[3])
        }
        if flipped - base != added or base - flipped != dropped:
            unlearned.append(flag)
    return unlearned


#: Leading module names of a model's body (not a head), never matched by value alone.
_BODY_PREFIXES = frozenset({"model", "encoder", "decoder", "layers", "transformer"})


def fields_of_json(expression: object) -> set[str]:
    """Fields read by an expression in its JSON form."""
    from dimlint.tools.shape_fit import from_json

    terms = from_json(expression)
    return fields_of(terms) if terms else set()


_BASE_AND_CLASSIFIERS: set[str] = set()


def _classes(model_type: str) -> list[tuple[str, Any]]:
    import transformers
    from transformers.models.auto import modeling_auto

    names: list[str] = []
    for mapping in MAPPINGS:
        entry = getattr(modeling_auto, mapping).get(model_type)
        for class_name in [entry] if isinstance(entry, str) else list(entry or ()):
            if mapping in _SECONDARY_MAPPINGS:
                _BASE_AND_CLASSIFIERS.add(class_name)
            if class_name not in names:
                names.append(class_name)
    for class_name in _exported_heads(model_type, names):
        _BASE_AND_CLASSIFIERS.add(class_name)
        names.append(class_name)
    classes: list[tuple[str, Any]] = []
    for class_name in names:
        try:
            classes.append((class_name, getattr(transformers, class_name)))
        except Exception:  # an optional dependency missing: the class is not built
            continue
    return classes


#: Exported classes that are no model an ``architectures`` entry names.
_NOT_A_HEAD = re.compile(r"(PreTrainedModel|PretrainedModel|Pretrained[A-Z]\w*|Backbone)$")


def _exported_heads(model_type: str, known: Sequence[str]) -> list[str]:
    """The other model classes the type's modeling module exports (question answering, token
    classification, multiple choice, ``…WithProjection``, ``…EncoderModel``, DPR's encoders):
    released configs name them in ``architectures``, though no auto mapping lists them."""
    import importlib

    import transformers

    try:
        # the config class's own package: a sub-config type (``clip_text_model``) has none
        # of its name, its classes live beside the composite's (``models/clip``)
        config_module = type(_default(model_type)).__module__
        package = config_module.rsplit(".", 1)[0]
        name = package.rsplit(".", 1)[-1]
        module = importlib.import_module(f"{package}.modeling_{name}")
    except Exception:  # no modeling module, or an optional dependency missing
        return []
    found: list[str] = []
    for class_name in getattr(module, "__all__", ()):
        model_class = getattr(transformers, class_name, None)
        if (
            class_name in known
            or _NOT_A_HEAD.search(class_name)
            or model_class is None
            or not isinstance(model_class, type)
            or not issubclass(model_class, transformers.PreTrainedModel)
            or getattr(model_class, "config_class", None) is not type(_default(model_type))
        ):
            continue
        found.append(class_name)
    return found


def _default(model_type: str) -> Any:
    from transformers import AutoConfig

    return AutoConfig.for_model(model_type)


#: Label counts a head class is rebuilt with beside its default: one, a few, and the counts
#: released checkpoints carry (ADE20k's 150, ImageNet's 1000, ImageNet-22k's 21843), so that a
#: head whose structure switches past some count (LayoutLMv3's token classifier at 10) is seen.
_LABEL_TRIALS = (1, 3, 10, 150, 1000, 21843)
#: Halvings spent finding where a head's structure switches between two tried counts.
_LABEL_SEARCH = 8

#: ``(name, default shape)`` of a tensor → its axes sized by the labels, ``[axis, offset]``.
LabelAxes = dict[tuple[str, tuple[int, ...]], list[list[int]]]


def _relabelled(model_class: Any, config: Any, labels: int) -> Groups | None:
    """The class built with ``labels`` labels (``id2label`` as ``from_pretrained`` sets it from
    ``num_labels``), or None when the class rejects the count."""
    stated = {k: v for k, v in config.to_dict().items() if k not in ("id2label", "label2id")}
    try:
        relabelled = type(config).from_dict({**stated, "num_labels": labels})
        return _groups(_build(model_class, relabelled))
    except Exception:  # the class rejects the count
        return None


def label_domain(
    model_class: Any, config: Any, groups: Groups
) -> tuple[LabelAxes, list[int] | None]:
    """How the label count shapes a class: ``(axes, [low, high])``.

    ``axes`` maps a tensor (its name and default shape) to ``[axis, offset]`` pairs: that axis
    is ``num_labels + offset`` (a classifier's rows; DETR-like heads add a no-object class).
    The class is rebuilt with one label more to find them, then at every count of
    :data:`_LABEL_TRIALS`; the counts at which it builds exactly the predicted tensors,
    contiguous around the default, are the learned range (where the structure switches
    between two tried counts, halving finds the last count that keeps it). ``None`` for the
    range: no tried count changes any tensor, so the labels shape nothing. A class whose head
    grows otherwise (several rows per label) or that
    rejects one label more is learned at its default count only."""
    base = int(config.num_labels)
    seen: dict[int, Groups | None] = {base: groups}

    def at(labels: int) -> Groups | None:
        if labels not in seen:
            seen[labels] = _relabelled(model_class, config, labels)
        return seen[labels]

    step = at(base + 1)
    moved: dict[tuple[str, int], list[int]] = {}
    if step is None or set(step) != set(groups):
        return {}, [base, base]
    for key, (shape, count) in groups.items():
        other_shape, other_count = step[key]
        if other_count != count or len(other_shape) != len(shape):
            return {}, [base, base]
        deltas = [b - a for a, b in zip(shape, other_shape, strict=True)]
        if any(delta not in (0, 1) for delta in deltas):
            return {}, [base, base]
        moved[key] = [axis for axis, delta in enumerate(deltas) if delta == 1]

    def predicted(labels: int) -> Groups:
        return {
            key: (
                tuple(
                    size + labels - base if axis in moved[key] else size
                    for axis, size in enumerate(shape)
                ),
                count,
            )
            for key, (shape, count) in groups.items()
        }

    def agrees(labels: int) -> bool:
        return at(labels) == predicted(labels)

    def edge(good: int, bad: int) -> int:
        for _ in range(_LABEL_SEARCH):
            if abs(bad - good) <= 1:
                break
            middle = (good + bad) // 2
            if agrees(middle):
                good = middle
            else:
                bad = middle
        return good

    trials = sorted({*_LABEL_TRIALS, base + 1} - {base})
    high = base
    for labels in [t for t in trials if t > base]:
        if not agrees(labels):
            high = edge(high, labels)
            break
        high = labels
    low = base
    for labels in [t for t in reversed(trials) if t < base]:
        if not agrees(labels):
            low = edge(low, labels)
            break
        low = labels
    axes: LabelAxes = {
        (name, shape): [[axis, shape[axis] - base] for axis in moved[(name, ordinal)]]
        for (name, ordinal), (shape, _count) in groups.items()
        if moved[(name, ordinal)]
    }
    if not axes and low == 1 and high == trials[-1]:
        return {}, None
    return axes, [low, high]


def _refit_guessed(
    model_class: Any,
    config: Any,
    learned: _Learned,
    derived: set[str],
    groups: Groups,
    rows: list[list[Any]],
    guessed: set[tuple[str, tuple[int, ...]]],
    preferred: frozenset[str],
    cache: dict[tuple[object, ...], object],
) -> None:
    """Fit the tensors of another class that matched the primary's by value alone (a head's
    sizes: ViT's pooler, 768 wide as ``encoder_stride² · num_channels`` happens to be, is
    ``hidden_size`` wide) from that class rebuilt with each field the primary learned changed,
    as the primary's own tensors are; one no expression explains keeps its default sizes, valid
    only while the fields that moved it keep theirs (``pinned``)."""
    if not guessed:
        return
    observations: list[tuple[str, dict[str, int], Groups]] = [
        ("", learned.observations[0][1], groups)
    ]
    for path, values, _ in learned.observations[1:]:
        try:
            changed = _perturbed(config, path, values[path], derived, learned.extras)
            observations.append((path, values, _groups(_build(model_class, changed))))
        except Exception:  # the class does not build there: its guesses are pinned below
            observations.append((path, values, {}))
    keys = {(name, shape): key for key, (shape, _) in groups.items() for name in [key[0]]}
    for row in rows:
        key = keys.get((str(row[0]), tuple(row[4])))
        if key is None or (str(row[0]), tuple(row[4])) not in guessed:
            continue
        complete = all(key in observed for _, _, observed in observations)
        fitted = _fit_group(key, observations, preferred, cache) if complete else None
        if fitted is not None:
            row[1], row[2] = fitted
            continue
        row[1] = [[row[5], 1, []]]
        row[2] = [[[size, 1, []]] for size in row[4]]
        moved = [path for path, _, observed in observations[1:] if observed.get(key) != groups[key]]
        row[7] = sorted(moved or [path for path, _, _ in observations[1:]])


def _class_flags(
    model_class: Any,
    config: Any,
    learned: _Learned,
    derived: set[str],
    groups: Groups,
    rows: list[list[Any]],
    flags_by: tuple[float, frozenset[str], dict[tuple[object, ...], object]],
) -> list[str]:
    """The flags the primary ignores, flipped in another class (:mod:`class_flags`): the
    checked ones; each learned flip's rows are appended to ``rows``."""
    deadline, preferred, cache = flags_by

    build = _builder(model_class, config, derived, learned.extras)

    def fit_group(
        key: tuple[str, int], observations: list[tuple[str, dict[str, int], Groups]]
    ) -> list[object] | None:
        return _fit_group(key, observations, preferred, cache)

    skip = class_flags.skipped(learned.observations[0][1], list(learned.toggled), set(_INERT))
    checked, _unlearned = class_flags.learn_class_flags(
        build, groups, learned.observations, skip, rows, fit_group, deadline
    )
    return checked


def _flipped_builds(
    model_class: Any, config: Any, learned: _Learned, derived: set[str]
) -> dict[str, Groups | None]:
    """One build of ``model_class`` per flag field learning flipped (None: it does not build)."""
    flipped: dict[str, Groups | None] = {}
    for path, (value, _groups_seen) in sorted(learned.toggled.items()):
        try:
            changed = _perturbed(config, path, value, derived, learned.extras)
            flipped[path] = _groups(_build(model_class, changed))
        except Exception:  # the class does not build with the flag flipped
            flipped[path] = None
    return flipped


def _label_regime(
    model_class: Any, config: Any, labels: int, rows: Sequence[list[Any]], learned: _Learned
) -> dict[str, object] | None:
    """A class's record from ``labels`` labels on, where its head switched structure: the
    class built there, its tensors matched to the primary's rows as another class's are, its
    own label range from there (None: not learned). Its flags were seen flipped at the
    default label count only, so each that changes a tensor lies outside (``unlearned_flags``)."""
    groups = _relabelled(model_class, config, labels)
    if groups is None:
        return None
    stated = {k: v for k, v in config.to_dict().items() if k not in ("id2label", "label2id")}
    relabelled = type(config).from_dict({**stated, "num_labels": labels})
    axes, labels_range = label_domain(model_class, relabelled, groups)
    if labels_range is None or labels_range[0] != labels:
        return None
    class_rows, failed = _secondary_rows(groups, rows)
    if failed:
        return None
    regime: dict[str, object] = {
        "labels_range": labels_range,
        "tensors": [
            [row[0], row[1], _labelled(row, axes), row[3], *([row[7]] if row[7] else [])]
            for row in class_rows
            if not row[6]
        ],
    }
    flags = sorted(learned.toggled)
    if flags:
        regime["unlearned_flags"] = flags
    return regime


def _labelled(row: Sequence[Any], axes: LabelAxes) -> list[object]:
    """The dimension expressions of a fitted row, each axis the labels size read as
    ``num_labels`` (plus its offset): the run-time evaluates it with the config's label count
    (``id2label``'s size, else ``num_labels``). A tensor only a flipped flag builds keeps
    its own."""
    pairs = [] if row[6] else axes.get((str(row[0]), tuple(row[4])), [])
    dims = list(row[2])
    for axis, offset in pairs:
        dims[axis] = [[1, 1, [["num_labels", 1]]]] + ([[offset, 1, []]] if offset else [])
    return dims


def _moved_by_fields(axes: LabelAxes, learned: _Learned) -> bool:
    """Whether a label axis of the primary class also moved when a field changed (a head of
    ``num_labels × num_queries`` rows): its size is then no label count plus a constant."""
    base = learned.observations[0][2]
    for _, _, observed in learned.observations[1:]:
        for key, (shape, _count) in base.items():
            other = observed.get(key)
            if other is None:
                continue
            for axis, _offset in axes.get((key[0], shape), []):
                if axis < len(other[0]) and other[0][axis] != shape[axis]:
                    return True
    return False


def _built(
    classes: Sequence[tuple[str, Any]], config: Any, row: dict[str, Any]
) -> dict[str, tuple[Any, Groups, int]]:
    """Each class built from ``config``: its tensors and total (a class that fails is listed
    in ``row["unbuilt"]`` with the exception's name)."""
    built: dict[str, tuple[Any, Groups, int]] = {}
    for class_name, model_class in classes:
        try:
            model = _build(model_class, config)
        except Exception as exc:
            row["unbuilt"][class_name] = type(exc).__name__
            continue
        total = sum(int(p.numel()) for p in model.parameters())
        built[class_name] = (model_class, _groups(model), total)
    return built


#: ``'DbrxAttentionConfig' object has no attribute 'rope_theta'``.
_MISSING_ATTRIBUTE = re.compile(r"'(\w+)' object has no attribute '(\w+)'")
#: Two values a required name is stated at: equal tensors at both say it shapes none.
_REQUIRED_TRIALS = (10000.0, 20000.0)


def required_attributes(classes: Sequence[tuple[str, Any]], config: Any) -> dict[str, float]:
    """Names the modeling code reads from the config (or a sub-config) that the config class
    neither declares nor sets, so that the default config does not build: DBRX's attention
    reads ``attn_config.rope_theta``, which every released DBRX config states and
    ``DbrxAttentionConfig`` does not declare. Each name the build fails on (an
    ``AttributeError`` naming the config's class or a sub-config's) is given a class default
    (:func:`_class_defaults`), a float, and kept only when the first class that then builds
    builds the same tensors at a second value: such a name shapes no tensor, so the template
    learned with it holds for every value a config states. Empty when no class builds so, or
    the name shapes tensors."""
    holders = {type(config).__name__: ""}
    holders.update({type(sub).__name__: f"{key}." for key, sub in _sub_configs(config).items()})
    for _class_name, model_class in classes:
        stated: dict[str, float] = {}
        for _ in range(4):  # a few names at most: past that the code wants something else
            try:
                with _class_defaults(config, stated):
                    base = _groups(_build(model_class, type(config)(**config.to_dict())))
            except AttributeError as exc:
                match = _MISSING_ATTRIBUTE.search(str(exc))
                prefix = holders.get(match.group(1)) if match else None
                if match is None or prefix is None or prefix + match.group(2) in stated:
                    break
                stated[prefix + match.group(2)] = _REQUIRED_TRIALS[0]
                continue
            except Exception:  # fails otherwise: not a missing name
                break
            if not stated:
                break  # builds as it is: nothing is required
            try:
                for path in stated:
                    with _class_defaults(config, {**stated, path: _REQUIRED_TRIALS[1]}):
                        other = _groups(_build(model_class, type(config)(**config.to_dict())))
                    if other != base:
                        return {}
            except Exception:  # the second value does not build: not learned
                return {}
            return stated
    return {}


@contextlib.contextmanager
def _class_defaults(config: Any, values: Mapping[str, object]) -> Iterator[None]:
    """The config class (``name``) or a sub-config's class (``key.name``) with each of
    ``values`` as a class attribute while the block runs, so that every config learning
    creates, perturbed or not, carries it; the classes are restored after."""
    subs = _sub_configs(config)
    saved: list[tuple[type, str, object]] = []
    missing = object()
    try:
        for path, value in values.items():
            key, _, name = path.rpartition(".")
            holder = type(subs[key]) if key else type(config)
            saved.append((holder, name, holder.__dict__.get(name, missing)))
            setattr(holder, name, value)
        yield
    finally:
        for holder, name, previous in reversed(saved):
            if previous is missing:
                delattr(holder, name)
            else:
                setattr(holder, name, previous)


def learn(
    model_type: str,
    budget_s: float = 12.0,
    undeclared: bool = True,
    strings: Mapping[str, object] | None = None,
    rebase: Mapping[str, int] | None = None,
) -> dict[str, object]:
    """The shape templates of one model type (its row in the table). With ``undeclared``, the
    names the modeling code reads although the config class declares none (Qwen3-MoE's
    ``head_dim``) are stated at the value the code falls back to and learned like fields
    (recorded as ``undeclared``); if one cannot be learned, the type is learned without them.
    Each string value that switches the structure (:func:`learn_strings`) is learned as a
    variant of its own: the row learned from the default config with that string stated
    (``strings``), kept under ``variants`` as ``"path=value"`` (wav2vec2's
    ``feat_extract_norm=layer`` normalizes every convolution, not the first)."""
    from transformers import AutoConfig

    row: dict[str, object] = {"classes": {}, "unbuilt": {}}
    if not strings:
        _VARIANT_MEMO.clear()
        _VARIANT_COUNT[0] = 0
        _ROOTS.clear()
    try:
        config = AutoConfig.for_model(model_type)
        if strings:
            config = _perturbed_many(config, strings, _derived(config))
    except Exception as exc:
        row["error"] = f"config: {type(exc).__name__}"
        return row
    classes = _classes(model_type)
    built = _built(classes, config, row)
    required = {} if built else required_attributes(classes, config)
    if required:
        # the default config does not build (DBRX's attention reads an ``attn_config.rope_theta``
        # its class never declares): learned with class defaults for the names it requires
        with _class_defaults(config, required):
            row = learn(model_type, budget_s, undeclared, strings)
        row["required"] = required
        return row
    if not built:
        # no class builds at the default (the time-series models need ``prediction_length``):
        # learned only in the regimes of the numbers that make them build
        held0: dict[str, object] = dict(strings or {})
        unset = _unset_regimes(classes, config, row, held0) if len(held0) < _REGIME_DEPTH else []
        if not held0:
            # a keyword the class pops whose default no class builds (DETR's timm backbone)
            unset += [
                (name, "=", not default, not default)
                for name, default in popped_flags.popped_flags(type(config)).items()
            ]
        _ROOTS.update(path for path, _, _, _ in unset)
        unset_variants = _regime_variants(model_type, budget_s, unset, held0)
        if unset_variants:
            row["regimes"] = [[path, op, value] for path, op, value, _ in unset]
            row["variants"] = unset_variants
        return row
    # The first mapping's class that builds, past the base model: the class `architectures`
    # usually names, whose head (an untied LM head) the other classes' heads rarely add to.
    order = [name for name in built if name not in _BASE_AND_CLASSIFIERS] or list(built)
    primary = max(order, key=lambda name: len(built[name][1]))
    plain = config
    # the values a variant states stay stated in every build learning makes from this config
    held: dict[str, object] = dict(strings or {})
    model_class, groups0 = built[primary][0], built[primary][1]
    extras = _stated_extras(model_class, config, groups0, held) if undeclared else {}
    rebased = _rebased(model_class, config, groups0, held) if undeclared else {}
    rebased.update(rebase or {})  # a field adding a layer kind (kind_rebase), from the caller
    # widths declared None that another field's value stands in for (TrOCR's
    # cross_attention_hidden_size), stated at that value and learned as fields
    pairs = (
        stand_ins.learnable(model_class, config, groups0, {**held, **extras}, _SELF)
        if undeclared
        else {}
    )
    stand = stand_ins.values(config, pairs)
    if extras or rebased or stand:
        stated_all = {**held, **extras, **rebased, **stand}
        config = type(config)(**_extra_kwargs(config, stated_all, _derived(config)))
    if rebased:
        # the tensors at the rebased values; the totals stay the default config's (what
        # transformers builds from it, which the tests rebuild)
        for class_name, (model_class, _, total) in list(built.items()):
            try:
                model = _build(model_class, config)
            except Exception as exc:  # builds only at the default: learned without the rebase
                del built[class_name]
                row["unbuilt"][class_name] = type(exc).__name__  # type: ignore[index]
                continue
            built[class_name] = (model_class, _groups(model), total)
        if primary not in built:
            return learn(model_type, budget_s, undeclared=False, strings=strings)
    # a flag the class refuses alone (BERT's ``add_cross_attention``) learned beside its inert
    # companion (``is_decoder``), stated flipped in every build
    companions = companion_flags.stated(
        built[primary][0],
        [model_class for model_class, _, _ in built.values()],
        config,
        {**held, **extras, **rebased, **stand},
        _INERT,
        _SELF,
    )
    if companions:
        stated_all = {**held, **extras, **rebased, **stand, **companions}
        config = type(config)(**_extra_kwargs(config, stated_all, _derived(config)))
    base_values = _values(config)
    learned = _Learned(
        base_values, built[primary][1], {**held, **extras, **rebased, **stand, **companions}
    )
    equal_pairs = _equal_pairs(config, base_values, held)
    for first, second in equal_pairs:
        learned.partners.setdefault(first, set()).add(base_values[second])
        learned.partners.setdefault(second, set()).add(base_values[first])
    budget = field_budget(budget_s, lambda: _build(built[primary][0], config), len(base_values))
    _learn_fields(built[primary][0], config, learned, time.process_time() + budget)
    learned.sentinels.update(_sentinels_in_flipped(built[primary][0], config, learned))
    build_primary = _builder(built[primary][0], config, _derived(config), learned.extras)
    unprobed: list[list[str]] = []
    unequal = item_equalities.found(
        _numbers(base_values),
        built[primary][1],
        lambda changes: build_primary(changes)[1],
        _no_equality,
        time.process_time() + _equality_budget(base_values, lambda: build_primary({})),
        unprobed,
    )
    # names read with a constant fallback may stay fixed (a config stating another value is
    # outside); a shape name the code derives must be learned, or the type is learned without
    reads = set(undeclared_reads.constant_candidates(plain, _sub_configs(plain)))
    if learned.fixed & (set(extras) - reads | set(rebased)):
        return learn(model_type, budget_s, undeclared=False, strings=strings)
    if undeclared and not rebased and not strings:
        kind_row = _kind_rebased(model_type, budget_s, config, built[primary], learned)
        if kind_row is not None:
            return kind_row
    derived = _derived(config) - set(extras) - set(rebased) - set(held) - set(stand)
    preferred = frozenset(set(base_values) - derived)
    cache: dict[tuple[object, ...], object] = {}
    rows, failed = _primary_rows(built[primary][1], learned, preferred, cache)
    refit_toggled(built[primary][0], config, learned, derived, rows, preferred, cache)
    _flags_in_flipped(built[primary][0], config, learned, rows)
    floor_quotients(built[primary][0], config, rows, derived, learned.extras)
    templates: dict[str, object] = {}
    # the flags the primary ignores are flipped in each other class within this CPU time
    flags_by = (time.process_time() + budget_s, preferred, cache)
    for class_name, (model_class, groups, total) in built.items():
        flipped = _flipped_builds(model_class, config, learned, derived)
        if class_name == primary:
            class_rows, class_failed = rows, failed
        else:
            guessed: set[tuple[str, tuple[int, ...]]] = set()
            class_rows, class_failed = _secondary_rows(groups, rows, flipped, guessed)
            _refit_guessed(
                model_class, config, learned, derived, groups, class_rows, guessed, preferred, cache
            )
        # a class reached after the shared time is spent still gets a few seconds: checking
        # that a flag is inert costs one build, and a head left unchecked refuses every config
        # that flips it (VideoMAE's classifier and ``norm_pix_loss``)
        floor = time.process_time() + _CLASS_FLAGS_FLOOR_S
        class_by = (max(flags_by[0], floor), flags_by[1], flags_by[2])
        checked = (
            None
            if class_name == primary
            else _class_flags(model_class, config, learned, derived, groups, class_rows, class_by)
        )
        record: dict[str, object] = {"total": total}
        if checked is not None:
            record["checked_flags"] = checked
        if class_name != primary:
            _condition_dropped(groups, class_rows, flipped, learned.observations[0][1])
        unlearned = unlearned_flags(groups, class_rows, flipped)
        if unlearned:
            record["unlearned_flags"] = unlearned
        axes, labels_range = label_domain(built[class_name][0], config, groups)
        if class_name == primary and _moved_by_fields(axes, learned):
            axes, labels_range = {}, [int(config.num_labels or 2)] * 2
        record["labels_range"] = labels_range  # None: no label count changes a tensor
        record["num_labels"] = config.num_labels
        if labels_range and labels_range[1] < max(_LABEL_TRIALS) and not class_failed:
            regime = _label_regime(model_class, config, labels_range[1] + 1, rows, learned)
            if regime:
                record["label_regimes"] = [regime]
        if class_failed:
            record["unfitted"] = sorted(set(class_failed))[:5]
        else:
            record["tensors"] = [
                [row[0], row[1], _labelled(row, axes), row[3], *([row[7]] if row[7] else [])]
                for row in class_rows
            ]
            pinned = sorted({row[0] for row in class_rows if row[7]})
            if pinned:
                record["pinned"] = pinned[:5]
            refit = sorted({row[0] for row in class_rows if len(row) > 8 and row[8]})
            if refit:
                record["refit"] = refit
            multiple_of = {row[0]: row[9] for row in class_rows if len(row) > 9 and row[9]}
            if multiple_of:
                record["multiple_of"] = multiple_of
            kinds, plans = _layer_kinds(model_class, config, derived, learned, class_rows)
            if kinds:
                record["layer_kinds"] = kinds
                row.setdefault("plans", {}).update(plans)  # type: ignore[attr-defined]
                count_pins = _unpin_kind_shapes(class_rows, kinds, learned, preferred, cache)
                if class_name == primary:  # its rows are the observed ones (copied below)
                    record["kind_counts_at"] = _kind_count_fields(class_rows, kinds, learned)
                record["tensors"] = [
                    [row[0], row[1], _labelled(row, axes), row[3], *([row[7]] if row[7] else [])]
                    for row in class_rows
                ]
                if count_pins:
                    record["count_pins"] = count_pins
        templates[class_name] = record
    _share_kind_counts(templates, primary)
    unexplained = _underived(templates, {k: v for k, v in extras.items() if k not in reads}, plain)
    if unexplained:
        # A name some tensor reads whose fallback no expression derives (Glm4-MoE's head_dim,
        # 4096 // 96 = 42, a floor): a config leaving it out would have no value for it.
        return learn(model_type, budget_s, undeclared=False, strings=strings)
    row["classes"] = templates
    row["primary"] = primary
    stages = _backbone_stages(config)
    if stages:
        row["stages"] = stages
    row["fixed"] = sorted(learned.fixed)
    if learned.counted:
        row["counted_lists"] = learned.counted
    unsound = list_items.unsound_lists(built[primary][0], config, rows, learned, derived, _SELF)
    items = {k: n for k, n in list_items.lengths(base_values).items() if k not in unsound}
    if items:
        row["items"] = items  # lists learned item by item (a stated one of this length)
        divisions = list_items.divisions(list_items.item_lists(config))
        kept = [pair for pair in divisions if set(pair) <= set(items)]
        if kept:
            row["item_divisions"] = kept  # a stated pair must keep each division
    row["lists"] = guard_lists(
        built[primary][0], config, built[primary][1], {**held, **extras, **stand}
    )
    switching = learn_strings(built[primary][0], config, built[primary][1], learned, derived)
    if switching:
        row["strings"] = switching
    variants: dict[str, object] = {}
    if len(held) < _REGIME_DEPTH:
        regimes = _regimes(rows, learned, held)
        skip = {*_INERT, *derived, *extras, *rebased, *filter(_ID_FIELD.search, base_values)}
        nulls = null_regimes.null_switches(
            plain, built[primary][0], _declared(type(plain)), skip, _meta_shapes
        )
        regimes += [(path, "=", None, None) for path in nulls]
        regimes += _unset_regimes(classes, config, row, learned.extras)
        regimes += _switching_unset_regimes(
            built[primary][0], config, built[primary][1], {**held, **stand}, learned.extras
        )
        # a sub-config the default leaves unset (Gemma-4's vision and audio towers): learned
        # stated at its class defaults, as a released config states it
        regimes += [(key, "=", {}, {}) for key in _absent(config) if key not in held]
        regimes += _plan_kind_regimes(
            built[primary][0], config, built[primary][1], held, learned.extras
        )
        # two fields the code compares (ELECTRA's embedding and hidden widths), stated equal
        regimes += [
            (first, "==", second, base_values[second])
            for first, second in equal_pairs
            if first not in learned.fixed and _nests(first, held)
        ]
        # a stage width at another number's value (ResNet-18's first stage at the stem's)
        regimes += [
            (item, "==", other, base_values[other])
            for item, other in unequal[:_EQUALITY_REGIMES]
            if item_of(other) is None and _nests(item, held)
        ]
        if not held:
            lists = [entry.get("switches") for entry in switching.values()]
            singles = sum(len(found) for found in lists if isinstance(found, list))
            _SINGLES_PENDING[0] = singles + len(regimes)
        variants.update(_variants(model_type, budget_s, switching, held))
        if regimes:
            row["regimes"] = [[path, op, value] for path, op, value, _ in regimes]
            variants.update(_regime_variants(model_type, budget_s, regimes, held))
    if variants:
        row["variants"] = variants
    joint = _jointly_checked(
        built[primary][0], config, rows, derived, {**held, **extras, **rebased, **stand}
    )
    if joint:
        row["joint"] = joint
    unequal += [pair for pair in learned.unequal if pair not in unequal]
    if unequal:
        row["unequal"] = unequal
    if unprobed:
        row["unprobed_equalities"] = unprobed
    if extras:
        row["undeclared"] = extras
    if rebased:
        row["rebased"] = rebased
    if pairs:
        row["stand_ins"] = pairs
    if held:
        row["stated"] = held
    refresh(row, plain)
    for second, first in _TIES.items():
        if first in held:  # an equality regime's row: the tied field is read off its partner
            derivations = row.get("derived")
            row["derived"] = {
                **(derivations if isinstance(derivations, dict) else {}),
                first: [[1, 1, [[second, 1]]]],
            }
            row["fixed"] = sorted({*learned.fixed, first})
    learn_built_structures(row, model_type, plain)
    if not strings:
        found = probed_keys(model_type, plain, [entry[0] for entry in built.values()], row)
        if found:
            row["legacy_keys"] = found
    return row


def _kind_rebased(
    model_type: str,
    budget_s: float,
    config: Any,
    primary: tuple[Any, Groups, int],
    learned: _Learned,
) -> dict[str, object] | None:
    """The type learned with a ``fixed`` field that adds a layer kind at twice its default
    (:mod:`dimlint.tools.kind_rebase`: Llama-4's ``interleave_moe_layer_step``), when that row
    reproduces the default build at the default values; else None."""
    model_class, base, _ = primary
    derived = _derived(config) - set(learned.extras)

    def groups_at(path: str, value: int) -> Groups:
        return _groups(
            _build(model_class, _perturbed(config, path, value, derived, learned.extras))
        )

    switches = kind_rebase.switching(learned.fixed, learned.observations[0][1], base, groups_at)
    if not switches:
        return None
    row: dict[str, Any] = learn(model_type, budget_s, strings=None, rebase=switches)
    classes: dict[str, Any] = row.get("classes", {})
    record = classes.get(str(row.get("primary")), {})
    if (
        set(switches) <= set(row.get("rebased", {}))
        and set(switches).isdisjoint(row.get("fixed", []))
        and isinstance(record.get("tensors"), list)
        and kind_rebase.reproduces(record["tensors"], learned.observations[0][1], base)
    ):
        return row
    return None


def _share_kind_counts(templates: Mapping[str, Any], primary: str) -> None:
    """Give every class with layer-kind tags the primary's ``kind_counts_at`` (the fields seen
    to move a kind's count were observed on the primary's builds); without the primary's, a
    class's tags count no stated plan (the run-time requires the record)."""
    moved = templates.get(primary, {}).get("kind_counts_at")
    for record in templates.values():
        if "layer_kinds" in record and moved is not None:
            record["kind_counts_at"] = moved


def _group_of(base: Groups, row: Sequence[Any]) -> tuple[str, int] | None:
    """The default build's tensor group a fitted row ``[name, …, shape, …]`` describes."""
    return next(
        (k for k, (shape, _) in base.items() if k[0] == row[0] and list(shape) == row[4]), None
    )


def _kind_count_fields(
    rows: list[list[Any]], kinds: Mapping[str, Mapping[str, list[str]]], learned: _Learned
) -> dict[str, int]:
    """The fields (with their defaults) whose change moved the count of a tagged layer tensor:
    a stated plan counts a kind's tensors only while these, but for its layer count, keep
    their defaults (Gemma-4's ``num_kv_shared_layers`` drops the keys and values of the last
    layers, whatever their kind)."""
    base_values, base = learned.observations[0][1], learned.observations[0][2]
    keys = []
    for by_row in kinds.values():
        for index in by_row:
            key = _group_of(base, rows[int(index)])
            if key is not None:
                keys.append(key)
    moved: dict[str, int] = {}
    for path, _values_at, groups in learned.observations[1:]:
        if any(groups[key][1] != base[key][1] for key in keys) and path in base_values:
            moved[path] = base_values[path]
    return moved


def _unpin_kind_shapes(
    rows: list[list[Any]],
    kinds: Mapping[str, Mapping[str, list[str]]],
    learned: _Learned,
    preferred: frozenset[str],
    cache: dict[tuple[object, ...], object],
) -> list[int]:
    """Rows of a tagged layer kind whose count no expression fits (Kimi-Linear's
    linear-attention tensors: 21 of 27 layers, 41 of 54, 22 of 28) but whose shape one does:
    their dimensions are refitted alone and their pins narrowed to the fields that moved the
    count, which a stated plan counts instead (the returned indices, ``count_pins``). Without
    a stated plan the pins still hold."""
    base = learned.observations[0][2]
    unpinned: list[int] = []
    tagged = {int(index) for by_row in kinds.values() for index in by_row}
    for index in sorted(tagged):
        row = rows[index]
        if not row[7]:
            continue
        key = _group_of(base, row)
        if key is None:
            continue
        count0 = base[key][1]
        observations: list[tuple[str, dict[str, int], Groups]] = []
        count_fields: list[str] = []
        for path, values, groups in learned.observations:
            shape, count = groups[key]
            if count != count0:
                count_fields.append(path)
            observations.append((path, values, {key: (shape, count0)}))
        fitted = _fit_group(key, observations, preferred, cache)
        if fitted is None:
            continue
        row[2] = fitted[1]
        row[7] = sorted(count_fields)
        unpinned.append(index)
    return unpinned


def _layer_kinds(
    model_class: Any, config: Any, derived: set[str], learned: _Learned, rows: list[list[Any]]
) -> tuple[dict[str, dict[str, list[str]]], dict[str, dict[str, object]]]:
    """The layer kinds each of a class's layer tensors belongs to
    (:mod:`dimlint.tools.layer_kind_tags`), or nothing where a build fails."""
    try:
        return layer_kind_tags.learn(
            rows,
            config,
            _sub_configs(config),
            lambda changed: _build(model_class, changed),
            lambda path, value: _perturbed(config, path, value, derived, learned.extras),
        )
    except Exception:  # the default no longer builds alone (a budget): no tags
        return {}, {}


def probed_keys(
    model_type: str, plain: Any, models: Sequence[Any], row: Mapping[str, Any]
) -> dict[str, object]:
    """The row's ``legacy_keys`` (:mod:`dimlint.tools.legacy_keys`): the keys the class reads
    from its keyword arguments and the shape-like names the code mentions undeclared, each
    found an alias of one field or inert, judged against the fields ``row``'s tensors read."""
    from dimlint.config import architectures

    record = architectures.lookup(model_type)
    if record is None:
        return {}
    examined = set(row.get("examined", []))
    legacy = set(record.fields) - set(record.defaults) - examined - set(record.sub_configs)
    known = set(record.fields) | set(record.aliases) | architectures.base_fields() | examined
    undeclared = {
        name
        for name in [*row.get("mentioned", []), *generic_mentions()]
        if name not in known
        and (undeclared_reads.SHAPE_NAME.search(name) or undeclared_reads.SIZE_NAME.search(name))
        and not name.startswith("_")
    }
    module = type(plain).__module__
    read = set(undeclared_reads.fallbacks(undeclared_reads.model_sources(module)))
    read |= set(undeclared_reads.constant_fallbacks(undeclared_reads.model_sources(module)))
    legacy -= read
    undeclared -= read
    used = set(row.get("defaults", {})) | set(row.get("fixed", [])) | set(row.get("derived", {}))
    used |= set(row.get("declared", {}))

    return legacy_keys.probe(plain, models, legacy, undeclared, used, _derived(plain), _meta_shapes)


def _meta_shapes(model_class: Any, config: Any) -> object:
    """The tensors ``model_class`` builds from ``config`` on the meta device."""
    return _groups(_build(model_class, config))


#: String fields no tensor follows: identifiers, dtypes, runtime choices.
_INERT_STRINGS = frozenset(
    {"model_type", "dtype", "torch_dtype", "transformers_version", "problem_type",
     "tokenizer_class", "prefix", "finetuning_task", "attn_implementation", "name_or_path"}
)  # fmt: skip
#: Builds spent on string fields per model type, at most.
_STRING_BUILDS = 40


def _string_fields(config: Any) -> dict[str, str]:
    """Every string field of ``config`` and of its direct sub-configs, by path."""
    found: dict[str, str] = {}
    items = [("", config.to_dict())] + [
        (f"{key}.", sub.to_dict()) for key, sub in _sub_configs(config).items()
    ]
    for prefix, mapping in items:
        for name, value in mapping.items():
            if isinstance(value, str) and not name.startswith("_") and name not in _INERT_STRINGS:
                found[prefix + name] = value
    return found


def _unset_compared(config: Any, literals: Mapping[str, Mapping[str, Any]]) -> dict[str, None]:
    """Fields at None that the code compares with string literals: DeBERTa's ``pos_att_type``
    (None: no position attention; ``"c2p"`` adds a key projection of the positions unless
    ``share_att_key``). A config stating one states a structure the default never built."""
    found: dict[str, None] = {}
    items = [("", config.to_dict())] + [
        (f"{key}.", sub.to_dict()) for key, sub in _sub_configs(config).items()
    ]
    for prefix, mapping in items:
        compared_here = literals.get(prefix[:-1], {})
        for name, value in mapping.items():
            if value is None and compared_here.get(name) and name not in _INERT_STRINGS:
                found[prefix + name] = None
    return found


def _class_sources(config: Any) -> list[str]:
    """The source of a config class (and its transformers parents) and of its type's
    modeling code."""
    import inspect

    sources: list[str] = []
    for klass in type(config).__mro__:
        if str(getattr(klass, "__module__", "")).startswith("transformers.models."):
            try:
                sources.append(inspect.getsource(klass))
            except (OSError, TypeError):
                continue
    sources.extend(undeclared_reads.model_sources(type(config).__module__))
    return sources


#: An activation's name (``hidden_act``, ``conv_act``, ``hidden_activation``).
_ACTIVATION_NAME = re.compile(r"(?:^|_)act(?:ivation)?$")


def _registry_values(name: str, path: str, learned: _Learned) -> list[str]:
    """Values to try for an undeclared string name the code compares with nothing, where it
    names an activation: the keys of transformers' ``ACT2FN``, which it indexes (DeBERTa's
    ``conv_act``, stated at its fallback ``"tanh"``; released configs state ``"gelu"``). Most
    activations hold no parameter, some do (``prelu``, ``xielu``): builds tell them apart."""
    if path not in learned.extras or not _ACTIVATION_NAME.search(name):
        return []
    from transformers.activations import ACT2FN

    return sorted(ACT2FN)


def _declared_choices(config_class: Any, name: str, known: Sequence[str]) -> list[str]:
    """The values a config class lists for a string field in a class attribute named as its
    plural, less those ``known``: ResNet compares ``layer_type`` with ``"bottleneck"`` only,
    and its other value, ``"basic"`` (ResNet-18 and -34, RT-DETR's R18 backbone), is found in
    ``ResNetConfig.layer_types``, the list its validator checks."""
    choices = getattr(config_class, f"{name}s", None)
    if not isinstance(choices, (list, tuple)):
        return []
    return [value for value in choices if isinstance(value, str) and value not in known]


def learn_strings(
    model_class: Any, config: Any, base: Groups, learned: _Learned, derived: set[str]
) -> dict[str, dict[str, object]]:
    """String fields that switch the structure, each with the values inside the domain.

    Each string field is built at every value the code compares it with
    (:mod:`dimlint.tools.compared_strings`). A value that builds the default's tensors and
    moves no field is inside; so is one whose only effect is to move fields the template
    learned (T5's ``"gated-gelu"`` sets ``is_gated_act``, a flag learned as a condition) when
    stating those values builds the same tensors: the run-time then reads them from the
    string. A field any tried value switches otherwise is recorded with what is inside and
    the values that switch it (``switches``, each learned as a variant row by :func:`learn`);
    a config stating another value (one never tried included) lies outside. A field every value
    leaves alone is not recorded."""
    subs = _sub_configs(config)
    literals = {"": compared_strings.compared(_class_sources(config))}
    for key, sub in subs.items():
        literals[key] = compared_strings.compared(_class_sources(sub))
    base_values = _values(config)
    known = set(learned.toggled) | {path for path, _, _ in learned.observations[1:]}
    builds = 0
    found: dict[str, dict[str, object]] = {}
    toggled = {flag: value for flag, (value, _) in learned.toggled.items()}
    spent = [0]

    build = _builder(model_class, config, derived, learned.extras)

    def alike(path: str, literal: str, moved: Mapping[str, object]) -> bool:
        # inert at the default: judged again where each flipped flag builds more
        return regime_points.alike_in_flipped(path, literal, moved, toggled, build, spent)

    def splits(path: str, value: str) -> bool:
        # the class reads a joined value as a list of its items
        stated = _perturbed(config, path, value, derived, learned.extras)
        return isinstance(_read_back(stated, path), list)

    fields: dict[str, str | None] = dict(_string_fields(config))
    fields.update(_unset_compared(config, literals))
    for path, value in sorted(fields.items()):
        key, _, name = path.rpartition(".")
        inside: dict[str, dict[str, object]] = {}
        switches: list[str] = []
        switched = False
        compared = literals.get(key, {}).get(name, []) or _registry_values(name, path, learned)
        owner = getattr(config, key) if key else config
        for literal in [*compared, *_declared_choices(type(owner), name, compared)]:
            if literal == value:
                continue
            if builds >= _STRING_BUILDS:
                switched = True  # not tried: outside
                break
            builds += 1
            try:
                changed = _perturbed(config, path, literal, derived, learned.extras)
                groups = _groups(_build(model_class, changed))
            except Exception:  # a value the class rejects
                continue
            moved = {p: v for p, v in _values(changed).items() if base_values.get(p) != v}
            if groups == base and not moved and alike(path, literal, {}):
                inside[literal] = {}
                continue
            if (
                moved
                and set(moved) <= known
                and _states_alike(model_class, config, moved, groups, derived, learned.extras)
                and alike(path, literal, moved)
            ):
                inside[literal] = dict(moved)
                continue
            switched = True
            switches.append(literal)
        together = regime_points.joined(path, switches, build, functools.partial(splits, path))
        if together is not None:
            switches.append(together)
        compared = literals.get(key, {}).get(name, [])
        only_default = value in compared and not inside and not switched
        if switched or any(inside.values()) or path in learned.extras or only_default:
            # only_default: the code compares the field with its default alone (ResNet's
            # ``layer_type == "bottleneck"``), so any other value takes a branch never built;
            # an undeclared name stated at its fallback is recorded even where every value
            # tried keeps the tensors: the run-time refuses one it does not list
            found[path] = {"default": value, "inside": inside}
            if switches:
                found[path]["switches"] = switches
            if together is not None:
                found[path]["split"] = True
    return found


def _variants(
    model_type: str,
    budget_s: float,
    switching: Mapping[str, Mapping[str, Any]],
    held: Mapping[str, object] | None = None,
) -> dict[str, object]:
    """The rows learned with each switching string value stated (see :func:`learn`), by
    ``"path=value"``; a value whose row learns no class is left out (outside the domain)."""
    variants: dict[str, object] = {}
    for path, learned_string in sorted(switching.items()):
        for value in learned_string.get("switches", []):
            if not _nests(path, held or {}):
                continue  # the variant's own string, or a combination learned in another order
            variant = _learned_variant(model_type, budget_s, {**(held or {}), path: value})
            if variant.get("classes"):
                variants[f"{path}={value}"] = variant
    return variants


#: The regimes without which no class of the type builds (ESM's ``vocab_size``): every row of
#: the type is learned inside one, so the regimes within it nest whatever their order.
_ROOTS: set[str] = set()


def _nests(path: str, held: Mapping[str, object]) -> bool:
    """:func:`regime_points.nests`, the :data:`_ROOTS` regimes left out of ``held``."""
    return regime_points.nests(path, {k: v for k, v in held.items() if k not in _ROOTS})


#: How many regimes deep variants are learned (one: each variant row is a full copy of the
#: type's row, and nesting multiplies them).
_REGIME_DEPTH = 3
#: Variant rows learned per model type at most (each a full learning run): a type with many
#: switching fields leaves the rest outside its domain rather than stall the table.
_MAX_VARIANTS = 16
#: Variant rows of the model type being learned, by the values they state (one regime reached
#: in two orders is learned once), and how many were learned.
_VARIANT_MEMO: dict[tuple[str, str], dict[str, object]] = {}
_VARIANT_COUNT: list[int] = [0]
#: Single regimes of the type not learned yet (combinations leave room for them), and the CPU
#: time (``time.process_time``) past which no combination of regimes is learned.
_SINGLES_PENDING: list[int] = [0]
_COMBINING_UNTIL: list[float] = [float("inf")]


def _learned_variant(
    model_type: str, budget_s: float, stated: Mapping[str, object]
) -> dict[str, object]:
    """The row of ``model_type`` learned with ``stated`` (memoized; empty past
    :data:`_MAX_VARIANTS`)."""
    key = (model_type, json.dumps(sorted(stated.items())))
    if key not in _VARIANT_MEMO:
        if _VARIANT_COUNT[0] >= _MAX_VARIANTS:
            return {}
        if len(stated) > 1 and (
            _VARIANT_COUNT[0] + _SINGLES_PENDING[0] >= _MAX_VARIANTS
            or time.process_time() > _COMBINING_UNTIL[0]
        ):
            return {}  # a combination: only past the single regimes and within the deadline
        if len(stated) == 1:
            _SINGLES_PENDING[0] = max(0, _SINGLES_PENDING[0] - 1)
        _VARIANT_COUNT[0] += 1
        _VARIANT_MEMO[key] = learn(model_type, budget_s, strings=stated)
    return _VARIANT_MEMO[key]


def regime_key(path: str, op: str, value: object) -> str:
    """The ``variants`` key of a regime: ``relative_attention=true``, ``position_buckets>0``."""
    return f"{path}{op}{json.dumps(value)}"


def _regimes(
    rows: Sequence[list[Any]], learned: _Learned, held: Mapping[str, object]
) -> list[tuple[str, str, object, object]]:
    """Regimes worth a variant of their own, ``(path, op, value, stated value)``: a field at a
    negative default that a positive value switches (:func:`_switches_on`: DeBERTa's
    ``max_relative_positions`` where relative attention is on). A zero that leaves a part out
    stays ``fixed``: learning those as regimes too (tried at stop 34) let DeBERTa's
    ``conv_kernel_size`` and ``type_vocab_size`` take the variant rows (:data:`_MAX_VARIANTS`)
    its released combinations of relative-attention regimes need. Flags are learned in place
    (:func:`refit_toggled`). Fields a variant already states are not learned again."""
    del rows  # the rows say nothing a sentinel's probe did not
    return [
        (path, ">", 0, probe)
        for path, probe in sorted(learned.sentinels.items())
        if path not in held
    ]


def _unset_regimes(
    classes: Sequence[tuple[str, Any]],
    config: Any,
    row: Mapping[str, Any],
    extras: Mapping[str, object],
) -> list[tuple[str, str, object, object]]:
    """Regimes ``(path, ">", 0, probe)`` of the numbers the config class leaves None that a
    class unbuilt at the default builds with (:mod:`unset_numbers`: wav2vec2-conformer's CTC
    head needs ``vocab_size``)."""
    unbuilt = [name for name in row.get("unbuilt", {}) if name in dict(classes)]
    if not unbuilt:
        return []
    by_name = dict(classes)
    derived = _derived(config) - set(extras)

    def skip(name: str) -> bool:
        return (
            name in _INERT
            or _ID_FIELD.search(name) is not None
            or getattr(config, name, None) is not None  # stated (a variant's own value)
        )

    def builds(class_name: str, changes: Mapping[str, object]) -> bool:
        try:
            _build(by_name[class_name], _perturbed_many(config, changes, derived, extras))
        except Exception:  # still rejected: the field is not what the class needs
            return False
        return True

    fields = unset_numbers.unset_numbers(type(config), skip)
    required = unset_numbers.required_numbers(unbuilt, fields, builds, SENTINEL_PROBE)
    return [(path, ">", 0, probe) for path, probe in sorted(required.items())]


def _switching_unset_regimes(
    model_class: Any,
    config: Any,
    base: Groups,
    stated: Mapping[str, object],
    extras: Mapping[str, object],
) -> list[tuple[str, str, object, object]]:
    """Regimes ``(path, ">", 0, probe)`` of the size-named numbers the config class leaves
    None whose stated value changes the tensors of ``model_class`` (built at the default, or
    with one of the config's flags flipped): :func:`unset_numbers.switching_numbers`. Fields
    already stated (stand-ins, a variant's own) are not probed again."""
    derived = _derived(config) - set(extras)

    def skip(name: str) -> bool:
        return (
            name in _INERT
            or name in stated
            or _ID_FIELD.search(name) is not None
            or getattr(config, name, None) is not None
            or not (undeclared_reads.SHAPE_NAME.search(name) or SIZE_WORD.search(name))
        )

    fields = unset_numbers.unset_numbers(type(config), skip)
    if not fields:
        return []
    flags = [
        path
        for path, value in _values(config).items()
        if isinstance(value, bool) and "." not in path and path not in stated
    ]
    build = _builder(model_class, config, derived, extras)
    flipped: dict[str, Groups | None] = {}

    def groups(changes: Mapping[str, object]) -> Groups | None:
        try:
            return build(changes)[1]
        except Exception:  # the class rejects the values stated
            return None

    def changes_tensors(path: str, probe: int) -> bool | None:
        stated_alone = groups({path: probe})
        if stated_alone is None:
            return None
        if stated_alone != base:
            return True
        for flag in flags:
            flip = {flag: not getattr(config, flag)}
            if flag not in flipped:
                flipped[flag] = groups(flip)
            with_probe = groups({**flip, path: probe})
            if None not in (flipped[flag], with_probe) and with_probe != flipped[flag]:
                return True
        return False

    found = unset_numbers.switching_numbers(fields, changes_tensors)
    return [(path, ">", 0, probe) for path, probe in sorted(found.items())]


#: Equality regimes being learned: partner field → the field held equal to it (moved with it).
_TIES: dict[str, str] = {}


def _equal_pairs(
    config: Any, values: Mapping[str, int], held: Mapping[str, object]
) -> list[tuple[str, str]]:
    """``(field, partner)`` pairs of top-level numbers the type's code compares with each
    other (:func:`compared_strings.compared_pairs`), unequal at the default: the first (in
    sorted order) is the one an equality regime states at its partner's value."""
    pairs = compared_strings.compared_pairs(_class_sources(config))
    return [
        (first, second)
        for first, second in sorted(pairs)
        if all(
            isinstance(values.get(name), int) and not isinstance(values.get(name), bool)
            for name in (first, second)
        )
        and values[first] != values[second]
        and first not in held
        and second not in held
    ]


def _plan_kind_regimes(
    model_class: Any,
    config: Any,
    base: Groups,
    held: Mapping[str, object],
    extras: Mapping[str, object],
) -> list[tuple[str, str, object, object]]:
    """Regimes ``(path, "~", kinds, seed plan)`` of the default plans whose missing kinds
    build other tensors (:mod:`plan_kinds`: LFM2's convolution layers, DeepSeek-V4's sliding
    ones), a variant each."""
    derived = _derived(config) - set(extras)
    build = _builder(model_class, config, derived, extras)

    def read_back(changes: Mapping[str, object]) -> object:
        path = next(iter(changes))
        return _read_back(_perturbed_many(config, changes, derived, extras), path)

    found: list[tuple[str, str, object, object]] = []
    candidates = plan_kinds.allowed_kinds()
    for path, plan in sorted(plan_kinds.plans(_lists(config)).items()):
        if path in held or not _nests(path, held):
            continue
        learned = plan_kinds.regime(path, plan, base, build, read_back, candidates)
        if learned is not None:
            kinds, seed = learned
            found.append((path, "~", kinds, seed))
    return found


def _regime_variants(
    model_type: str,
    budget_s: float,
    regimes: Sequence[tuple[str, str, object, object]],
    held: Mapping[str, object],
) -> dict[str, object]:
    """The row learned in each regime (its value stated beside those ``held``), by
    :func:`regime_key`; a regime whose row learns no class is left out (outside the domain)."""
    variants: dict[str, object] = {}
    for path, op, value, stated in regimes:
        if not _nests(path, held):
            continue  # a combination learned along the path that states it in sorted order
        tie = str(value) if op == "==" else None
        if tie is not None:
            _TIES[tie] = path  # a build moving the partner moves the field with it
        try:
            variant = _learned_variant(model_type, budget_s, {**held, path: stated})
        finally:
            if tie is not None:
                _TIES.pop(tie, None)
        # a row with no class of its own may hold the regimes that build one (Dots1 builds
        # with ``n_routed_experts`` and ``n_shared_experts`` both stated, not with one)
        if variant.get("classes") or variant.get("variants"):
            variants[regime_key(path, op, value)] = variant
    return variants


def _states_alike(
    model_class: Any,
    config: Any,
    moved: Mapping[str, int],
    groups: Groups,
    derived: set[str],
    extras: Mapping[str, object],
) -> bool:
    """Whether stating the ``moved`` fields builds ``groups`` (what a string value built)."""
    try:
        stated = _perturbed_many(config, moved, derived, extras)
        return bool(_groups(_build(model_class, stated)) == groups) and all(
            _values(stated).get(path) == value for path, value in moved.items()
        )
    except Exception:  # the class rejects the values stated
        return False


def _rebased(
    model_class: Any, config: Any, base: Groups, held: Mapping[str, object] | None = None
) -> dict[str, int]:
    """Top-level fields that count layers of a kind the default config has none of, each at 1.

    DeepSeek-V2's ``first_k_dense_replace`` is 0 by default: every layer is a mixture of
    experts, and a dense MLP exists in no build, so changing the field adds tensors no
    expression of the default explains (it was ``fixed``). Released configs set it to 1. When
    the field at 1 and at 2 adds the same tensors, one and two of each (a count of layers), the
    type is learned from the field at 1: each layer kind's count is then fitted (``k`` dense,
    ``n - k`` mixture layers), and a config at 0 counts no dense layer."""
    found: dict[str, int] = {}
    derived = _derived(config)
    for path, value in _values(config).items():
        if "." in path or value != 0 or isinstance(value, bool) or path in _INERT:
            continue
        if item_of(path):
            continue  # a list's item: learned as a field of the list, not rebased
        try:
            one = _groups(_build(model_class, _perturbed(config, path, 1, derived, held)))
            two = _groups(_build(model_class, _perturbed(config, path, 2, derived, held)))
        except Exception:  # the class rejects the values: the field stays as learned
            continue
        added = set(one) - set(base)
        if (
            added
            and set(base) <= set(one)
            and set(one) == set(two)
            and all(one[key][1] == 1 and two[key] == (one[key][0], 2) for key in added)
        ):
            found[path] = 1
    return found


def _underived(classes: Mapping[str, Any], extras: Mapping[str, object], plain: Any) -> list[str]:
    """The stated undeclared names a class's template reads and :func:`derive_fallbacks`
    cannot derive from the declared fields."""
    used: set[str] = set()
    for entry in classes.values():
        for fitted in entry.get("tensors", []):
            for expression in (fitted[1], *fitted[2]):
                used |= fields_of_json(expression)
    wanted = sorted(used & set(extras))
    return [path for path in wanted if path not in derive_fallbacks(plain, wanted)]


def _stated_extras(
    model_class: Any, config: Any, base: Groups, held: Mapping[str, object] | None = None
) -> dict[str, object]:
    """The undeclared names the type's code reads (:mod:`undeclared_reads`), each at the value
    the code falls back to, kept only when stating them so builds the same model (beside the
    values a variant states, ``held``). Names of any kind the code reads with a constant
    fallback (:func:`undeclared_reads.constant_candidates`: DeBERTa's ``position_buckets``,
    ``norm_rel_ebd``, ``share_att_key``) are stated at the fallback that builds the default's
    model, so that learning varies them as fields, flags and strings."""
    kept: dict[str, object] = {}
    derived = _derived(config)
    for path, value in undeclared_reads.candidates(config, _sub_configs(config)).items():
        trial = {**kept, path: value}
        try:
            stated = type(config)(**_extra_kwargs(config, {**(held or {}), **trial}, derived))
            if _values(stated).get(path) != value or _groups(_build(model_class, stated)) != base:
                continue
        except Exception:  # the class rejects the name: not learned
            continue
        kept = trial
    constants = undeclared_reads.constant_candidates(config, _sub_configs(config))
    for path, fallbacks in constants.items():
        if path in kept:
            continue
        for fallback in fallbacks:
            trial = {**kept, path: fallback}
            try:
                stated = type(config)(**_extra_kwargs(config, {**(held or {}), **trial}, derived))
                if (
                    _read_back(stated, path) != fallback
                    or _groups(_build(model_class, stated)) != base
                ):
                    continue
            except Exception:  # the class rejects the value: not learned
                continue
            kept = trial  # the fallback that builds the default's model (conv_kernel_size 0)
            break
    return kept


def _read_back(config: Any, path: str) -> object:
    """The value ``config`` holds at ``path`` (``key.name`` in a sub-config)."""
    key, _, name = path.rpartition(".")
    holder = getattr(config, key, None) if key else config
    return getattr(holder, name, None)


def _negative(expression: object) -> bool:
    return isinstance(expression, list) and any(
        isinstance(term, list) and isinstance(term[0], int) and term[0] < 0 for term in expression
    )


def _jointly_checked(
    model_class: Any,
    config: Any,
    rows: Sequence[list[Any]],
    derived: set[str],
    extras: Mapping[str, object],
) -> list[str]:
    """Expressions with a negative term (JSON text) that also hold with all their fields moved
    at once. Fitted from one field moved at a time, such an expression may be the tangent of a
    product at the default (Phi-3's fused QKV, ``3·hidden - 192·heads + 192·kv``) or a true
    difference (MobileBERT's ``hidden_size - embedding_size``); one build with every field moved
    by a different factor tells them apart, and the run-time trusts only the second kind when
    several fields move."""
    from dimlint.tools.shape_fit import evaluate_terms, from_json

    base = _groups(_build(model_class, config))
    base_values = _values(config)
    by_fields: dict[tuple[str, ...], list[tuple[str, int, object]]] = {}
    for row in rows:
        if row[6]:
            continue
        for axis, expression in enumerate([row[1], *row[2]]):
            fields = tuple(sorted(fields_of_json(expression)))
            if _negative(expression) and len(fields) > 1:
                by_fields.setdefault(fields, []).append((str(row[0]), axis, expression))
    checked: dict[str, bool] = {}
    for fields, entries in sorted(by_fields.items()):
        numbers = list(_numbers(base_values).values())
        options = [list(_trials(base_values[field], numbers)) for field in fields]
        for choice in itertools.islice(itertools.product(*options), 12):
            ratios = {Fraction(t, base_values[f]) for f, t in zip(fields, choice, strict=True)}
            if len(ratios) < len(fields):
                continue  # every field moved alike keeps their ratios: a tangent still holds
            try:
                moved = dict(zip(fields, choice, strict=True))
                changed = _perturbed_many(config, moved, derived, extras)
                groups = _groups(_build(model_class, changed))
            except Exception:  # the class rejects these values together: try others
                continue
            values = _values(changed)
            if any(values.get(f) != t for f, t in zip(fields, choice, strict=True)):
                continue
            for name, axis, expression in entries:
                key = json.dumps(expression, sort_keys=True, separators=(",", ":"))
                mine = [k for k in base if k[0] == name]
                theirs = [k for k in groups if k[0] == name]
                terms = from_json(expression)
                if len(mine) != 1 or mine != theirs or terms is None:
                    checked[key] = False
                    continue
                shape, count = groups[theirs[0]]
                observed = count if axis == 0 else shape[axis - 1]
                predicted = evaluate_terms(terms, values)
                checked[key] = checked.get(key, True) and predicted == observed
            break
    return sorted(key for key, holds in checked.items() if holds)


def _tensor_lists(node: object) -> Iterator[list[Any]]:
    """Every ``tensors`` list of a row: its classes', their label regimes', its variants'."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "tensors" and isinstance(value, list):
                yield value
            else:
                yield from _tensor_lists(value)
    elif isinstance(node, list):
        for item in node:
            if isinstance(item, dict):
                yield from _tensor_lists(item)


def _own_nested(config: Any, path: str) -> dict[str, object] | None:
    """The numbers of the nested sub-config ``path`` (``key.inner``) as the outer sub-config's
    class builds it by default, or None where that class does not build alone."""
    key, inner = path.split(".", 1)
    try:
        own = getattr(type(getattr(config, key))(), inner, None)
    except Exception:  # the outer class needs arguments: its own default is unknown
        return None
    if own is None or not hasattr(own, "to_dict"):
        return None
    return dict(flat_numbers(own.to_dict()))


def refresh(row: dict[str, Any], config: Any) -> None:
    """Recompute the parts of ``row`` that need only the config class, no model build: the
    fields its templates read (``defaults``), their class defaults (``declared``), how the
    class derives the derived ones (``derived``), and ``examined``: every top-level number the
    default config holds (declared or set by ``__post_init__``, such as DeepSeek's
    ``qk_head_dim``), each of which field learning changed once, so a config stating it is
    understood; a number outside this list may be read by modeling code unseen; ``uniform``:
    the lists whose every item is one value at the default (Granite-4's ``layer_types``, all
    ``"mamba"``), which rotating cannot test, so another item lies outside the domain. The
    ``undeclared`` names learning stated are stated here too, and how the code derives each
    when a config leaves it out is fitted from its fallback (``head_dim`` from
    ``hidden_size // num_attention_heads``); ``absent``: the sub-configs the default config
    leaves unset, whose sub-models no build had."""
    plain = config
    extras: dict[str, object] = row.get("undeclared", {})
    pairs: dict[str, list[object]] = row.get("stand_ins", {})
    config, stated = _as_learned(row, plain)
    derived = _derived(config) - set(stated)
    base_values = _values(config)
    for tensors in _tensor_lists(row):
        unfloor_where_default_differs(tensors, base_values)
    used: set[str] = set(row.get("fixed", []))
    for entry in row.get("classes", {}).values():
        for fitted in entry.get("tensors", []):
            used |= set(fitted[4]) if len(fitted) > 4 else set()
            used |= fields_of_json(fitted[1])
            for expression in fitted[2]:
                used |= fields_of_json(expression)
            used |= {str(condition[0]) for condition in fitted[3]}
    when: dict[str, list[list[object]]] = {}
    derivations = derive(config, sorted(used & derived), stated, when)
    derivations.update(derive_fallbacks(plain, sorted(used & set(extras))))
    derivations.update({k: v for k, v in stand_ins.derivations(pairs).items() if k in used})
    for expression in derivations.values():
        used |= fields_of_json(expression)
    row["defaults"] = {path: base_values[path] for path in sorted(used) if path in base_values}
    row["declared"] = _declared_of(config, sorted(used))
    replaced = overwritten(
        config,
        row["defaults"],
        base_values,
        lambda base, changes: _perturbed_many(base, changes, derived, stated),
        _values,
        _trials,
    )
    nested = {
        f"{key}.{inner}": dict(flat_numbers(inner_config.to_dict()))
        for key, sub in _sub_configs(config).items()
        for inner, inner_config in _sub_configs(sub).items()
    }
    if nested:
        row["nested"] = nested
    else:
        row.pop("nested", None)
    injected = sorted(
        path for path, numbers in nested.items() if _own_nested(config, path) != numbers
    )
    if injected:
        # the composite gives these nested sub-configs another default than their outer
        # class builds when a config states the outer one without them (PI0's vlm_config)
        row["nested_injected"] = injected
    else:
        row.pop("nested_injected", None)
    if replaced:
        # the run-time reads a copy at its original's value: the original is read too
        row["overwritten"] = replaced
        sources = sorted({source for source in replaced.values() if source is not None})
        found = {source: base_values[source] for source in sources if source in base_values}
        row["defaults"] = dict(sorted({**row["defaults"], **found}.items()))
        row["declared"] = {**row["declared"], **_declared_of(config, sources)}
    else:
        row.pop("overwritten", None)
    for path, value in extras.items():
        if path in used and path not in row["declared"] and _is_scalar(value):
            # a name read with a constant fallback: a config leaving it out has that value
            # (a shape name's fallback is derived instead, below)
            constant = path in undeclared_reads.constant_candidates(plain, _sub_configs(plain))
            if constant:
                row["declared"][path] = value
    row["derived"] = derivations
    if when:
        row["derived_when"] = when
    else:
        row.pop("derived_when", None)
    row["examined"] = sorted(path for path in base_values if "." not in path and not item_of(path))
    row["mentioned"] = mentioned(config)
    uniform = {
        path: value[0]
        for path, value in _lists(config).items()
        if all(item == value[0] for item in value) and path not in row.get("lists", {})
    }
    if uniform:
        row["uniform"] = uniform
    else:
        row.pop("uniform", None)
    legacy = neutral_legacy(plain, row["examined"])
    if legacy:
        row["legacy"] = legacy
    else:
        row.pop("legacy", None)
    constants = undeclared_reads.constant_candidates(plain, _sub_configs(plain))
    if constants:
        row["reads"] = {path: extras.get(path) for path in sorted(constants)}
    else:
        row.pop("reads", None)
    if _builds_text_from_flat_keys(config):
        row["flat_text"] = True
    else:
        row.pop("flat_text", None)
    absent = _absent(config)
    if absent:
        # sub-models the default config leaves unset (Gemma-4's vision and audio towers): no
        # build learned one, so a config stating one lies outside every template of the row
        row["absent"] = absent
    else:
        row.pop("absent", None)


def _as_learned(row: Mapping[str, Any], plain: Any) -> tuple[Any, dict[str, object]]:
    """The config learning built from (``plain`` with the names it stated: undeclared reads,
    rebased fields, stand-ins), and those names."""
    stand = stand_ins.values(plain, row.get("stand_ins", {}))
    stated = {**row.get("stated", {}), **row.get("undeclared", {}), **row.get("rebased", {})}
    stated.update(stand)
    if not stated:
        return plain, stated
    return type(plain)(**_extra_kwargs(plain, stated, _derived(plain))), stated


def learn_built_structures(row: dict[str, Any], model_type: str, plain: Any) -> None:
    """Set what builds of the primary class show beyond field learning: ``relations``
    (:mod:`~dimlint.tools.relation_regimes`: wav2vec2's ``output_hidden_size`` off its
    derivation with ``add_adapter``) and ``inert_lists`` (:mod:`~dimlint.tools.inert_lists`:
    Longformer's per-layer ``attention_window``, EfficientNet's ``depthwise_padding``) and
    ``shaping_floats`` (:mod:`~dimlint.tools.shaping_floats`: EfficientNet's
    ``width_coefficient``) and ``zero_counts`` (:mod:`~dimlint.tools.zero_counts`: Granite-4.0's
    ``num_local_experts: 0``, no mixture of experts). The config is the one learning built."""
    primary = dict(_classes(model_type)).get(str(row.get("primary")))
    relating = relation_regimes.candidates(row)
    listing = (
        inert_lists.candidates(type(plain))
        or inert_lists.float_candidates(type(plain))
        or inert_lists.index_candidates(type(plain))
    )
    floating = shaping_floats.candidates(type(plain))
    zeroing = zero_counts.candidates(row)
    found: dict[str, list[Any]] = {
        "relations": [], "inert_lists": [], "shaping_floats": [], "zero_counts": []
    }  # fmt: skip
    if primary is not None and (relating or listing or floating or zeroing):
        config, stated = _as_learned(row, plain)
        derived = _derived(config) - set(stated)

        def changed(changes: Mapping[str, object]) -> Any:
            return _perturbed_many(config, changes, derived, stated)

        def groups(changes: Mapping[str, object]) -> Groups:
            return _groups(_build(primary, changed(changes)))

        def names(changes: Mapping[str, object]) -> set[str]:
            return {name for name, _ in groups(changes)}

        def values(changes: Mapping[str, object]) -> dict[str, int]:
            return _values(changed(changes))

        if relating:
            found["relations"] = relation_regimes.relations(row, values, names, _trials)
        if listing:
            layers = getattr(config, "num_hidden_layers", None)
            found["inert_lists"] = [
                *inert_lists.inert(type(plain), layers, groups),
                *inert_lists.inert_floats(type(plain), groups),
                *inert_lists.inert_index_lists(type(plain), groups),
            ]
        if floating:
            found["shaping_floats"] = shaping_floats.shaping(type(plain), groups)
        if zeroing:
            found["zero_counts"] = zero_counts.zero_counts(row, groups)
    for key, value in found.items():
        if value:
            row[key] = value
        else:
            row.pop(key, None)


_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _absent(config: Any) -> list[str]:
    """The sub-configs ``config``'s class declares that it leaves unset (no sub-model built)."""
    return sorted(set(getattr(config, "sub_configs", {}) or {}) - set(_sub_configs(config)))


_GENERIC_MODULES = ("transformers.modeling_utils", "transformers.configuration_utils")


def _words(sources: Sequence[str]) -> set[str]:
    return set(_WORD.findall("\n".join(sources)))


@functools.cache
def generic_mentions() -> list[str]:
    """Shape-like names transformers' generic model and config code mentions (any model type
    may have them read): recorded once, beside the rows."""
    import importlib
    import inspect

    sources = [inspect.getsource(importlib.import_module(name)) for name in _GENERIC_MODULES]
    return sorted(
        word for word in _words(sources) if undeclared_reads.SHAPE_NAME.search(word) is not None
    )


def mentioned(config: Any) -> list[str]:
    """Shape-like names (``head_dim``, ``num_nextn_predict_layers``…) that the config class
    does not declare but that its code or the modeling code of its type mentions: the config
    class and its transformers parents, the type's modeling module and the model modules it
    imports (transformers' generic code: :func:`generic_mentions`). A config that states an
    undeclared name outside both lists states something no code reads (Kimi-Linear's
    ``num_nextn_predict_layers``, gpt-oss's ``experts_per_token``): it cannot shape a tensor.
    A name read under a computed spelling (``getattr(config, f"{x}_dim")``) would escape a
    word search; the fragments such code joins are words of the same sources. Words of a size
    (``embedding_size``) are too common in code to count every mention: those the code reads
    off a config (:func:`~dimlint.tools.undeclared_reads.config_reads`) are listed."""
    declared = set(config.to_dict()) | set(_declared(type(config)))
    declared |= set(getattr(config, "attribute_map", {}) or {})
    sources = _class_sources(config)
    generic = set(generic_mentions())
    sized = {
        name
        for name in undeclared_reads.config_reads(sources)
        if undeclared_reads.SIZE_NAME.search(name) is not None
    }
    return sorted(
        word
        for word in _words(sources)
        if word not in declared
        and word not in generic
        and (undeclared_reads.SHAPE_NAME.search(word) is not None or word in sized)
    )


#: Values a legacy key is tried at: the small counts and intervals such keys hold.
_LEGACY_TRIALS = (*range(9), 16, 32, 64, 128)


def neutral_legacy(config: Any, examined: Sequence[str]) -> dict[str, list[object]]:
    """Per legacy key the config class reads from its keyword arguments (DeepSeek-V4's
    ``num_hash_layers``, Qwen3-Next's ``full_attention_interval``, Kimi-Linear's
    ``first_k_dense_replace``: names it declares no field for), the values at which stating it
    gives the config the class builds without it, at the default and with each other
    top-level number changed (a key whose neutral value follows another field, as BLOOM's
    ``n_embed`` follows the width, has none): the value the class falls back to. A released
    config stating such a value states what the template learned; any other value lies
    outside it. A key the modeling code mentions is left out: the class may keep it as an
    attribute (Kimi-Linear reads it with ``kwargs.get``) that the code then reads. A dict or
    list the class itself writes into the default config (Dots3-Note's ``per_layer_config``,
    derived from its layer types) is inside at that value only."""
    from dimlint.config import architectures

    record = architectures.lookup(str(getattr(config, "model_type", "")))
    if record is None:
        return {}
    config_class = type(config)
    depths: list[dict[str, int]] = [{}]
    for path, value in _numbers(_values(config)).items():
        if "." not in path and path.rsplit(".", 1)[-1] not in _INERT and not item_of(path):
            depths.append({path: next(_trials(value))})
    found: dict[str, list[object]] = {}
    keys = set(record.fields) - set(record.defaults) - set(examined) - set(record.sub_configs)
    document = json.loads(config.to_json_string(use_diff=False))
    for key in sorted(keys):
        if isinstance(document.get(key), dict | list):
            found[key] = [document[key]]
    keys -= set(found) | _words(undeclared_reads.model_sources(type(config).__module__))
    for key in sorted(keys):
        neutral = list(_LEGACY_TRIALS)
        for base_kwargs in depths:
            try:
                base = _without(config_class(**base_kwargs).to_dict(), key)
            except Exception:  # the class rejects the depth: judge at the default only
                continue
            neutral = [v for v in neutral if _same_without(config_class, base_kwargs, key, v, base)]
        if neutral and len(neutral) < len(_LEGACY_TRIALS):
            found[key] = list(neutral)
    return found


def _without(document: dict[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in document.items() if k != key}


def _same_without(
    config_class: Any, base_kwargs: dict[str, int], key: str, value: int, base: dict[str, Any]
) -> bool:
    try:
        return bool(_without(config_class(**base_kwargs, **{key: value}).to_dict(), key) == base)
    except Exception:  # the class rejects the value
        return False


def _builds_text_from_flat_keys(config: Any) -> bool:
    """Whether the composite config class builds its ``text_config`` from language-model keys
    stated at the top level (Qwen2-VL and Qwen2.5-VL read their flat hub configs so): a class
    that ignores them builds its default text model instead."""
    subs = _sub_configs(config)
    text = subs.get("text_config")
    if text is None:
        return False
    own = set(_declared(type(config)))
    for name, value in sorted(text.to_dict().items()):
        if name in own or not _is_scalar(value) or isinstance(value, bool) or value < 2:
            continue
        try:
            rebuilt = type(config)(**{name: value + 1})
        except Exception:  # the class rejects the key: try another
            continue
        return bool(getattr(getattr(rebuilt, "text_config", None), name, None) == value + 1)
    return False


def derive(
    config: Any,
    paths: Sequence[str],
    extras: Mapping[str, object] | None = None,
    when: dict[str, list[list[object]]] | None = None,
) -> dict[str, object]:
    """How ``__post_init__`` computes each derived field in ``paths`` (``head_dim`` from
    ``hidden_size // num_attention_heads``, ``num_key_value_heads`` from the heads): fitted
    over configs with one other field changed. Only configs are built, no model. A field no
    expression fits while a boolean moves is fitted without those configs, the booleans kept
    at their default as its conditions (``when``: MobileBERT's ``true_hidden_size`` is
    ``intra_bottleneck_size`` while ``use_bottleneck``)."""
    observations = [(path, _values(changed)) for path, changed in _changed(config, paths, extras)]
    derived = _derived(config) - set(extras or {})
    base_values = _values(config)
    derivations = _fit_derivations(observations, base_values, derived, paths)
    declared = _declared(type(config))
    for path in [p for p in derivations if "." not in p and p not in declared]:
        if not fields_of_json(derivations[path]) or _negative(derivations[path]):
            # A number the class sets undeclared and no perturbed field moves may follow
            # something never perturbed (Reformer's depth: the length of ``attn_layers``);
            # one with a negative term may be the tangent of a floor (PatchTSMixer's patches).
            del derivations[path]
    flags = {path for path, value in base_values.items() if isinstance(value, bool)}
    held = [(path, values) for path, values in observations if path not in flags]
    for path in paths:
        if path in derivations or when is None:
            continue
        moved = sorted(
            flag
            for flag, values in observations
            if flag in flags and values.get(path) != base_values.get(path)
        )
        fitted = _fit_derivations(held, base_values, derived, [path]) if moved else {}
        if path in fitted:
            derivations[path] = fitted[path]
            when[path] = [[flag, base_values[flag]] for flag in moved]
    return derivations


def derive_fallbacks(config: Any, paths: Sequence[str]) -> dict[str, object]:
    """How the modeling code derives each undeclared name in ``paths`` that a config leaves
    out: its fallback (:func:`undeclared_reads.fallback_of`) fitted over the default
    ``config`` with one field changed at a time."""
    observations: list[tuple[str, dict[str, int]]] = []
    for path, changed in _changed(config, (), None):
        subs = _sub_configs(changed)
        found = {p: undeclared_reads.fallback_of(changed, subs, p) for p in paths}
        values = {p: v for p, v in found.items() if v is not None}
        observations.append((path, {**_values(changed), **values}))
    fitted = _fit_derivations(observations, _values(config), _derived(config), paths)
    preferred = frozenset(set(_values(config)) - _derived(config))
    for path in paths:
        if path not in fitted and all(path in vs for _, vs in observations):
            # a fallback that floors a quotient (``hidden_size // num_attention_heads``)
            points = [
                ({k: v for k, v in vs.items() if k != path}, vs[path]) for _, vs in observations
            ]
            floor = fit_floor(points, preferred - {path})
            if floor is not None:
                fitted[path] = floor
    return fitted


def _changed(
    config: Any, paths: Sequence[str], extras: Mapping[str, object] | None
) -> list[tuple[str, Any]]:
    """The default config and one config per other field changed (the first value the class
    accepts), each beside the path it changed."""
    base_values = _values(config)
    derived = _derived(config) - set(extras or {})
    configs: list[tuple[str, Any]] = [("", config)]
    for path, value in base_values.items():
        if path in paths or path.rsplit(".", 1)[-1] in _INERT:
            continue
        for trial in _trials(value):
            try:
                changed = _perturbed(config, path, trial, derived, extras)
            except Exception:  # a value the class rejects: try the next one
                continue
            configs.append((path, changed))
            break
    return configs


def _fit_derivations(
    observations: Sequence[tuple[str, dict[str, int]]],
    base_values: dict[str, int],
    derived: set[str],
    paths: Sequence[str],
) -> dict[str, object]:
    preferred = frozenset(set(base_values) - derived)
    derivations: dict[str, object] = {}
    for path in paths:
        points = [
            ({k: v for k, v in values.items() if k != path}, values[path])
            for _, values in observations
            if path in values
        ]
        if len(points) != len(observations):
            continue
        terms = fit(points, preferred - {path})
        if terms is not None:
            derivations[path] = to_json(terms)
    return derivations


def _declared_of(config: Any, paths: Sequence[str]) -> dict[str, object]:
    """The class default of each path, which applies when a stated sub-config omits it."""
    declared: dict[str, object] = {}
    subs = _sub_configs(config)
    for path in paths:
        if "." in path:
            key, name = path.split(".", 1)
            defaults = _declared(type(subs[key])) if key in subs else {}
        else:
            name, defaults = path, _declared(type(config))
        value = defaults.get(name)
        if _is_scalar(value):
            declared[path] = value
    return declared


class _OverBudget(BaseException):
    """A model type ran past its CPU-time limit. Not an :class:`Exception`: the learning code
    treats an exception of a build as a value the class rejects, and the limit expiring
    inside such a build (VideoMAE's classification class refitted at a moved field) was taken
    for one, pinning the head's sizes, while the type went on learning with no limit left."""


def _bounded_learn(model_type: str, limit_s: float, budget_s: float = 12.0) -> dict[str, object]:
    """:func:`learn` under a hard limit of CPU time (``SIGPROF``, where the platform has it):
    one type whose default builds slowly must not stall the table; it gets an ``error`` row and
    the run-time falls back to the family recipes. CPU time, not wall clock, so that a table
    generated on busy cores learns what one generated on idle cores learns."""
    import signal

    # combinations of regimes are learned within the first half of the limit
    _COMBINING_UNTIL[0] = time.process_time() + (limit_s / 2 if limit_s > 0 else float("inf"))
    if not hasattr(signal, "SIGPROF") or limit_s <= 0:
        return learn(model_type, budget_s)

    def expire(signum: int, frame: object) -> None:
        raise _OverBudget

    previous = signal.signal(signal.SIGPROF, expire)
    signal.setitimer(signal.ITIMER_PROF, limit_s)
    try:
        return learn(model_type, budget_s)
    except _OverBudget:
        return {"classes": {}, "unbuilt": {}, "error": f"over {limit_s:.0f}s"}
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


def generate(
    only: Sequence[str] = (),
    progress: bool = False,
    cache: Path | None = None,
    limit_s: float = 300.0,
    budget_s: float = 12.0,
) -> dict[str, object]:
    """Learn every model type of the installed transformers (or those in ``only``); with
    ``cache``, rows already in that JSON-lines file are reused and new ones appended (a type
    named in ``only`` is relearned and its new row appended, which wins on reading). Each type
    is bounded by ``limit_s`` seconds of CPU time, its field learning by ``budget_s`` (past
    it, the fields not yet changed are ``fixed``: a composite type whose builds are slow, such
    as Gemma-3, needs more to learn its towers' fields)."""
    from transformers.models.auto import configuration_auto
    from transformers.utils import logging

    logging.set_verbosity_error()  # type: ignore[no-untyped-call]
    names = configuration_auto.CONFIG_MAPPING_NAMES  # type: ignore[attr-defined]
    rows: dict[str, object] = {}
    if cache is not None and cache.exists():
        rows.update(_cached(cache))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for model_type in only or sorted(names):
            if model_type in rows and not only:
                continue
            start = time.monotonic()
            rows[model_type] = _bounded_learn(model_type, limit_s, budget_s)
            if cache is not None:
                with cache.open("a", encoding="utf-8") as handle:
                    handle.write(json.dumps([model_type, rows[model_type]]) + "\n")
            if progress:
                print(f"{model_type} {time.monotonic() - start:.1f}s", file=sys.stderr, flush=True)
    return _table(rows)


def _table(rows: dict[str, object]) -> dict[str, object]:
    import transformers

    return {
        "transformers_version": transformers.__version__,
        "generic_mentions": generic_mentions(),
        "model_types": rows,
    }


def _cached(cache: Path) -> dict[str, Any]:
    """The rows of a JSON-lines cache (a later line for a type wins)."""
    rows: dict[str, Any] = {}
    for line in cache.read_text(encoding="utf-8").splitlines():
        name, row = json.loads(line)
        rows[name] = row
    return rows


def refreshed(cache: Path) -> dict[str, object]:
    """The table of the cached rows with :func:`refresh` applied to each: a change to what is
    derived from configs alone reaches every row in minutes, without rebuilding models."""
    from transformers import AutoConfig
    from transformers.utils import logging

    logging.set_verbosity_error()  # type: ignore[no-untyped-call]
    rows = _cached(cache)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for model_type, row in rows.items():
            if row.get("classes"):
                plain = AutoConfig.for_model(model_type)
                refresh(row, plain)
                learn_built_structures(row, model_type, plain)
    return _table(rows)


def reprobed(cache: Path, only: Sequence[str]) -> dict[str, object]:
    """The table of the cached rows with each row's ``mentioned`` names recomputed (its
    variants' too) and, where they changed, its ``legacy_keys`` probed again: a wider notion
    of what code reads off a config reaches every row in the time of a few builds per type,
    without relearning its tensors. ``only``: these model types (every one when empty)."""
    from transformers import AutoConfig
    from transformers.utils import logging

    logging.set_verbosity_error()  # type: ignore[no-untyped-call]
    rows = _cached(cache)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for model_type, row in rows.items():
            if not row.get("classes") or (only and model_type not in only):
                continue
            plain = AutoConfig.for_model(model_type)
            names = mentioned(plain)
            changed = names != row.get("mentioned")
            _set_mentioned(row, names)
            if not changed:
                continue
            models = [model for name, model in _classes(model_type) if name in row["classes"]]
            found = probed_keys(model_type, plain, models, row)
            if found:
                row["legacy_keys"] = found
            else:
                row.pop("legacy_keys", None)
    return _table(rows)


def _set_mentioned(row: dict[str, Any], names: list[str]) -> None:
    """``names`` as the ``mentioned`` of ``row`` and of its variants, at every depth (a variant
    row is learned from the same config class, whose code mentions the same names)."""
    if "mentioned" in row:
        row["mentioned"] = names
    for variant in row.get("variants", {}).values():
        _set_mentioned(variant, names)


def render(table: Mapping[str, object]) -> str:
    """One model type per line, so the reader can parse one row without the rest."""

    def dump(value: object) -> str:
        return json.dumps(value, sort_keys=True, separators=(",", ":"))

    rows = table["model_types"]
    assert isinstance(rows, Mapping)
    lines = ["{"]
    # the keys before the rows (the transformers version first), each on one line
    lines.extend(
        f"  {dump(key)}: {dump(value)}," for key, value in table.items() if key != "model_types"
    )
    lines.append('  "model_types": {')
    lines.append(",\n".join(f"    {dump(name)}: {dump(rows[name])}" for name in sorted(rows)))
    lines.extend(["  }", "}"])
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    parser.add_argument("--only", nargs="*", default=[])
    parser.add_argument("--cache", type=Path, help="JSON-lines file of rows to resume from")
    parser.add_argument("--limit", type=float, default=300.0, help="CPU seconds per model type")
    parser.add_argument(
        "--budget", type=float, default=12.0, help="CPU seconds of field learning per model type"
    )
    parser.add_argument(
        "--refresh",
        action="store_true",
        help="rebuild no model: recompute the config-only parts of the cached rows and render",
    )
    parser.add_argument(
        "--reprobe",
        action="store_true",
        help="rebuild no template: recompute the cached rows' mentioned names and probe their"
        " legacy keys again where those changed, and render",
    )
    parser.add_argument(
        "--record-provenance",
        action="store_true",
        help="rebuild nothing: record the existing table as generated by this code and the"
        " installed transformers (only after regenerating it with them)",
    )
    args = parser.parse_args(argv)
    start = time.monotonic()
    if args.record_provenance:
        import transformers

        written = provenance.record(args.output, transformers.__version__, SHAPES_GENERATOR)
        print(f"wrote {written}")
        return 0
    if args.refresh or args.reprobe:
        if args.cache is None:
            parser.error("--refresh and --reprobe need --cache")
        table = refreshed(args.cache) if args.refresh else reprobed(args.cache, args.only)
    else:
        table = generate(
            args.only, progress=True, cache=args.cache, limit_s=args.limit, budget_s=args.budget
        )
    if args.only and args.cache is None and not args.reprobe:
        print(render(table))
        return 0
    args.output.write_text(render(table), encoding="utf-8")
    version = table["transformers_version"]
    assert isinstance(version, str)
    provenance.record(args.output, version, SHAPES_GENERATOR)
    print(f"wrote {args.output} in {time.monotonic() - start:.0f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
