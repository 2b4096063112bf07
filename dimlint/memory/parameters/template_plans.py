"""Lists a shape template never learned (issue 19: exact only inside the learned domain).

The generator learns a model type from its default config, changing one number or boolean at a
time; a list is only rotated by one place (the row's ``lists`` keeps those whose rotation
changed the tensors). That tells nothing when every default layer has one kind: LFM2's default
layers are all ``full_attention``, its released configs make 10 of 16 layers ``conv``, and the
learned count expressions (every layer attention) count another model. So a stated list, at the
top level or inside a sub-config (``text_config``), is judged here against what the template
itself shows it learned:

- a per-layer plan of kinds (``layer_types``, ``layers_block_type``, ``mlp_layer_types``…)
  mixing layers of different weights (full, sliding and chunked attention share one set;
  conv, linear attention, Mamba, dense and sparse feed-forwards each have their own) is inside
  only when the template repeats some layer tensor as many times as the plan has layers of
  each kind: a template learned on uniform layers repeats every tensor once per layer;
- an all-attention plan is outside a template that reads a state-space, linear or conv mixer's
  fields (``mamba_d_state``: Granite-4-hybrid's default layers are all Mamba);
- any other top-level list the config class declares with a non-empty list default (per-stage
  widths, layer index lists) was learned at that default only (a sub-config's lists are built
  by the composite class, whose values the table does not record, so they are not judged this
  way): a stated list is inside when it equals it, or, for
  a list of layer indices, selects as many layers (Qwen3-VL-2B's ``deepstack_visual_indexes``
  [5, 11, 17] against the default [8, 16, 24]: one merger per entry).

The same holds inside sub-configs (at any depth: Qwen2.5-Omni's ``thinker_config.vision_config``),
judged against the sub-config class's declared default. A list the class derives in
``__post_init__`` or its model class reads with no declared default (``None`` or empty: Mllama's
``cross_attention_layers``, Llama-4's ``moe_layers``, SmolLM3's ``no_rope_layers``, Qwen-MoE's
``mlp_only_layers``) has no learned value to compare with, so the template's own tensors must
show it: a list of layer indices (or of 0/1 flags) is inside only when some layer tensor is
repeated as many times as it selects (or leaves out) layers; any other such list is outside. A
mixed plan whose kinds' counts the template repeats must also give each kind the count the
class derives for it by default (:mod:`~dimlint.memory.parameters.layer_kinds`), or swapping the
kinds' counts would pass. A stated dict the config class declares with no default (DeepSeek-V4's
``compress_rates`` other than the class's own, once :mod:`~dimlint.memory.legacy_fields` folded
the legacy rates in) holding numbers was never learned either.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any, Protocol

from dimlint.config import architectures
from dimlint.memory.parameters import derived_lists, list_items, split_strings
from dimlint.memory.parameters.layer_kinds import MIXER_KINDS

#: Mixer kinds whose layers hold the same attention weights (only the mask differs).
_ATTENTION = frozenset({"full", "sliding", "chunked"})
#: Kinds that are no mixer of their own, or attention.
_NOT_MIXERS = frozenset({"attention", "mlp", "moe"})
#: Feed-forward kinds of ``mlp_layer_types`` (DeepSeek-like dense layers before sparse ones).
_FFN_KINDS = {"dense": "mlp", "sparse": "moe"}
#: Field names of mixers that are not attention: a template reading one learned such layers.
_OTHER_MIXER = re.compile(r"^(mamba|ssm|linear_|conv_|lru|recurrent|state_|time_step)")
#: Names of lists of layer indices (entries select layers; their count is what shapes).
_INDEX_LIST = re.compile(r"(layers|idx|idxs|indexes|indices)$")
#: Names that never shape a tensor: token ids, and which stages a backbone returns (older
#: ``save_pretrained`` wrote them as the private ``_out_features`` / ``_out_indices``).
_INERT_LIST = re.compile(r"(^|_)(ids?|token_ids?|tokens|index)$|^_?out_(indices|features)$")


class _Repeated(Protocol):
    """What this module reads of a template tensor (``templates.Tensor``)."""

    @property
    def name(self) -> str: ...

    @property
    def repeats(self) -> int: ...

    @property
    def fields(self) -> frozenset[str]: ...


def _inert(key: str) -> bool:
    """Token ids and returned stages: no tensor's shape (a layer's ids are no token ids: the
    ``target_layer_ids`` whose hidden states an assistant model reads are its input width)."""
    return _INERT_LIST.search(key) is not None and "layer" not in key


def _kind(item: str) -> str | None:
    kind = MIXER_KINDS.get(item.lower()) or _FFN_KINDS.get(item.lower())
    if kind is None:
        return None
    return "attention" if kind in _ATTENTION else kind


def is_plan(value: object) -> bool:
    """A list of layer kinds: strings that all name one (not stage names or languages)."""
    return (
        isinstance(value, list)
        and len(value) > 1
        and all(isinstance(item, str) and _kind(item) is not None for item in value)
    )


def _is_list(value: object) -> bool:
    """A non-empty list of numbers, flags or strings (a list of dicts is a sub-structure)."""
    if not isinstance(value, list) or not value:
        return False
    return all(isinstance(item, int | float | str) for item in value)


def _objects(
    raw: dict[str, Any], model_type: str, prefix: str = "", depth: int = 0
) -> list[tuple[str, dict[str, Any], str]]:
    """``(prefix, config object, model type)`` of the config and of its sub-configs, nested
    ones included (a few levels: Qwen2.5-Omni's ``thinker_config.vision_config``)."""
    found = [(prefix, raw, model_type)]
    record = architectures.lookup(model_type)
    if depth >= 3:
        return found
    for key, default_type in (record.sub_configs if record is not None else {}).items():
        sub = raw.get(key)
        if isinstance(sub, dict):
            stated = sub.get("model_type")
            # older saves wrote a sub-config's model_type as "" (SAM's towers)
            sub_type = stated if isinstance(stated, str) and stated else default_type
            if sub_type:
                found += _objects(sub, sub_type, f"{prefix}{key}.", depth + 1)
    return found


def _own(field: str, prefix: str) -> bool:
    """Whether ``field`` (a template path) is a field of the object at ``prefix``."""
    return field.startswith(prefix) and "." not in field[len(prefix) :]


def _repeats(tensors: Iterable[_Repeated]) -> set[int]:
    """How many times the template repeats each of its layer tensors (a template learned with
    its layer count fixed has constant counts and no fields, so every tower's are taken)."""
    return {tensor.repeats for tensor in tensors if "*" in tensor.name}


def _other_mixer_field(learned: dict[str, Any], prefix: str) -> str | None:
    """A field of the object at ``prefix`` that the template reads and that only a mixer
    other than attention has, or None."""
    for path in learned.get("defaults", {}):
        if _own(path, prefix) and _OTHER_MIXER.search(path[len(prefix) :]) is not None:
            return str(path)
    return None


def _plan_counts(value: list[str]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for item in value:
        kind = _kind(item) or item
        counts[kind] = counts.get(kind, 0) + 1
    return counts


def _described(counts: dict[str, int]) -> str:
    return ", ".join(f"{count} {kind}" for kind, count in sorted(counts.items()))


def _plan_outside(
    path: str,
    value: list[str],
    repeats: set[int],
    other_mixer: str | None,
    default: dict[str, int] | None,
) -> str | None:
    counts = _plan_counts(value)
    described = _described(counts)
    if len(counts) > 1:
        unseen = [kind for kind, count in sorted(counts.items()) if count not in repeats]
        if unseen:
            seen = ", ".join(str(count) for count in sorted(repeats)) or "none"
            return (
                f"{path} states {described} layers: the template repeats no layer tensor"
                f" {counts[unseen[0]]} times (it learned layer groups of {seen}), so it was"
                " learned on another plan"
            )
        if default != counts:
            # The counts alone cannot tell which kind's tensors a group holds (23 heavily and
            # 20 sparsely compressed layers pass as 20 and 23): the class's own plan can.
            learned = _described(default) if default else "unknown"
            return (
                f"{path} states {described} layers; the class's default plan has {learned}:"
                " the template cannot tell which kind its layer groups belong to"
            )
        return None
    if set(counts) == {"attention"} and other_mixer is not None:
        return (
            f"{path} states attention layers only; the template reads {other_mixer}: it was"
            " learned on layers of another mixer"
        )
    return None


#: Keys of per-layer plans: left out when the class's default plan is derived.
_PLAN_KEYS = ("layer_types", "layers_block_type", "block_types", "attention_layers")


def _default_plan(
    obj: dict[str, Any], obj_type: str, value: list[str], recorded: object
) -> dict[str, int] | None:
    """How many layers of each kind of ``value`` the config class gives ``obj`` when it states
    no plan: the recorded default plan when it has as many layers (the plan the template was
    learned on), else :mod:`~dimlint.memory.parameters.layer_kinds`' derivation where it knows
    the same kinds (where it knows other kinds it does not know this type's plan: the counts
    are not compared), or None when that cannot be derived."""
    if isinstance(recorded, list) and is_plan(recorded) and len(recorded) == len(value):
        return _plan_counts(recorded)
    derived = _derived_plan(obj, obj_type, value)
    if derived is None or set(derived) != set(_plan_counts(value)):
        return _plan_counts(value)
    return derived


def _derived_plan(obj: dict[str, Any], obj_type: str, value: list[str]) -> dict[str, int] | None:
    from dimlint.config.normalize import normalize
    from dimlint.memory.config_view import Cfg
    from dimlint.memory.parameters import layer_kinds

    plain = {key: item for key, item in obj.items() if key not in _PLAN_KEYS}
    plain.pop("mlp_layer_types", None)
    try:
        cfg = Cfg(normalize("<template>", "", plain, obj_type))
        if all(_kind(item) in ("mlp", "moe") for item in value):
            moe = layer_kinds.moe_count(cfg)
            counts = {"moe": moe, "mlp": cfg.layers - moe}
        else:
            counts = {}
            for kind, count in layer_kinds.mixer_counts(cfg).items():
                merged = _kind(kind) or ("attention" if kind in _ATTENTION else kind)
                counts[merged] = counts.get(merged, 0) + count
    except ValueError:  # too irregular to group: no default to compare with
        return None
    return {kind: count for kind, count in counts.items() if count}


def _list_outside(path: str, key: str, value: list[Any], default: object) -> str | None:
    # An empty declared list, like None, is one the class fills in ``__post_init__``.
    if not isinstance(default, list) or not default or value == default:
        return None
    if _is_index_list(key, value) and len(default) == len(value):
        return None  # which layers, not how many (Reformer's local/LSH kinds are no indices)
    return f"{path} = {_short(value)} differs from the only value learned ({_short(default)})"


def _is_index_list(key: str, value: object) -> bool:
    """Whether ``value`` stated at ``key`` is a list of layer indices: integers under an index
    name, and not per-layer 0/1 flags (0/1 entries beyond two are flags: SmolLM3's
    ``no_rope_layers``)."""
    if not isinstance(value, list) or not value or _INDEX_LIST.search(key) is None:
        return False
    if not all(isinstance(item, int) and not isinstance(item, bool) for item in value):
        return False
    return not (all(item in (0, 1) for item in value) and len(value) > 2)


def _default_indices_outside(
    prefix: str,
    obj: dict[str, Any],
    record: architectures.Architecture | None,
    guarded: set[str],
) -> str | None:
    """Why a list of layer indices the object leaves at its class default no longer names one
    layer per entry, or None: SAM's default ``global_attn_indexes`` [2, 5, 8, 11] over a
    stated 6 layers names two global layers, where the template (learned at 12 layers and
    more) repeats four."""
    if record is None:
        return None
    layers = _layer_count(obj, record)
    for key, default in record.defaults.items():
        path = f"{prefix}{key}"
        if key in obj or path in guarded or _inert(key):
            continue
        if _is_index_list(key, default):
            why = _unselected(path, default, default, layers)
            if why is not None:
                return f"{why} (the class default, left unstated)"
    return None


def _layer_count(obj: dict[str, Any], record: architectures.Architecture | None) -> int | None:
    """How many layers the config object at hand has (stated, else its class's default), or
    None where neither says."""
    if record is None:
        return None
    key = record.attribute("num_hidden_layers")
    count = obj.get(key, record.defaults.get(key))
    return count if isinstance(count, int) and not isinstance(count, bool) else None


def _unselected(
    path: str, value: list[int], learned: list[Any] | None, layers: int | None
) -> str | None:
    """Why a list of layer indices does not select one layer per entry, or None. A template
    learned such a list at its default, where each index names a layer of its own: SAM's
    ``global_attn_indexes`` [7, 15, 23, 31] over 16 layers names two (the model tests
    ``layer_idx in global_attn_indexes``), and a repeated index names its layer once. Negative
    indices count from the end only where the learned list held one."""
    if layers is None:
        return None  # no layer count to read: judged by how many the list selects
    negatives = learned is not None and any(isinstance(item, int) and item < 0 for item in learned)
    low = -layers if negatives else 0
    named = {item % layers for item in value if low <= item < layers}
    if len(named) == len(value):
        return None
    return (
        f"{path} = {_short(value)} names {len(named)} distinct layers of {layers}, not one per"
        " entry: no build learned an index beyond the layers or a repeated one"
    )


def _emptied(
    path: str, key: str, derived: dict[str, Any], record: architectures.Architecture | None
) -> str | None:
    """Why an empty list stated where the class has a non-empty one by default (declared, or
    derived in ``__post_init__``) is outside, or None. A class may keep it (Llama-4's
    ``moe_layers: []`` builds no MoE layer) or fill it in as it fills in None: no build
    learned which."""
    default = derived.get(path)
    if not (isinstance(default, list) and default) and record is not None:
        default = record.defaults.get(key)
    if isinstance(default, list) and default:
        return f"{path} = [] where the class has {_short(default)}: no build learned an empty one"
    return None


def _learned_stated(learned: dict[str, Any], path: str, value: object) -> bool:
    """Whether a variant row was learned with ``value`` stated at ``path`` (DeBERTa's
    ``pos_att_type`` ``["p2c", "c2p"]``, learned as ``"c2p|p2c"``)."""
    stated = learned.get("stated", {})
    if not isinstance(stated, dict) or "|" not in str(stated.get(path, "")):
        return False  # only a joined set of values (a split string field) reads as a list
    return bool(split_strings.normalized(stated[path]) == split_strings.normalized(value))


def _derived_outside(path: str, key: str, value: list[Any], repeats: set[int]) -> str | None:
    """Why a stated list the class declares with no default (it derives one, or the model
    reads it only when given) is not shown learned by the template's tensors, or None."""
    seen = ", ".join(str(count) for count in sorted(repeats)) or "none"
    if _is_index_list(key, value):
        selected = len(set(value))  # a repeated index selects its layer once
        if selected in repeats:
            return None
        return (
            f"{path} selects {selected} layers: the template repeats no layer tensor"
            f" {selected} times (it learned layer groups of {seen}); the class derives"
            " this list, so no build learned another"
        )
    if all(item in (0, 1) for item in value):  # per-layer flags
        ones = sum(1 for item in value if item)
        groups = [count for count in (ones, len(value) - ones) if count]
        if all(count in repeats for count in groups):
            return None
        return (
            f"{path} marks {ones} of {len(value)} layers: the template repeats no layer tensor"
            f" {' or '.join(str(count) for count in groups)} times (it learned layer groups"
            f" of {seen}); the class derives this list, so no build learned another"
        )
    numbered = _numbered(value)
    if numbered is not None:
        if numbered in repeats:
            return None  # the names of the stages the template counts, as the class derives them
        return (
            f"{path} names {numbered} numbered stages: the template repeats no layer tensor"
            f" {numbered} times (it learned layer groups of {seen})"
        )
    return f"{path} = {_short(value)} is a list the class derives; no build learned a stated one"


def _numbered(value: list[Any]) -> int | None:
    """How many stages a list of names numbers from 1 (``["stem", "stage1", …, "stage24"]``,
    the ``stage_names`` a backbone-capable config derives from its layer count), or None for
    any other list: such a list says nothing but that count."""
    if not value or not all(isinstance(item, str) for item in value):
        return None
    names = value[1:] if not value[0][-1:].isdigit() else value
    prefix = names[0].rstrip("0123456789") if names else ""
    expected = [f"{prefix}{index}" for index in range(1, len(names) + 1)]
    return len(names) if names and prefix and names == expected else None


def _other_kinds(path: str, value: list[str], recorded: object) -> str | None:
    """Why a stated plan holds other kinds than the plan the class derives by default (the one
    the template learned), or None: all MoE layers where the class makes the first dense."""
    if not (isinstance(recorded, list) and is_plan(recorded)):
        return None
    stated, learned = _plan_counts(value), _plan_counts(recorded)
    if set(stated) == set(learned):
        return None
    return (
        f"{path} states {_described(stated)} layers; the template was learned on"
        f" {_described(learned)}"
    )


def _other_length(
    path: str, value: list[Any], recorded: object, record: Any, key: str
) -> str | None:
    """Why a list the template saw holding one value in every place (``uniform``) has another
    length than it learned (Hiera's ``image_size`` of one side, D-FINE's decoder levels), or
    None: each entry may build a stage, so their number shapes the model."""
    declared = record.defaults.get(key) if record is not None else None
    learned = recorded if isinstance(recorded, list) else declared
    if not isinstance(learned, list) or len(learned) == len(value):
        return None
    return f"{path} has {len(value)} entries; the template learned {len(learned)}"


def _same(value: object, recorded: object) -> bool:
    """Whether a stated list or dict equals the recorded one (JSON reads a tuple as a list and
    ``save_pretrained`` writes an infinite float as ``{"__float__": "Infinity"}``)."""
    if isinstance(value, list) and isinstance(recorded, list):
        return len(value) == len(recorded) and all(map(_same, value, recorded))
    if isinstance(value, dict) and set(value) == {"__float__"}:
        try:
            return float(str(value["__float__"])) == recorded
        except ValueError:
            return False
    if isinstance(recorded, dict) and set(recorded) == {"__float__"}:
        return _same(recorded, value)  # the table's spelling, a config's ``Infinity``
    return value == recorded


#: Dict fields that shape no tensor (rotary tables, quantization, labels, generation).
_INERT_DICTS = re.compile(
    r"^(rope_\w+|quantization_config|id2label|label2id|task_specific_params|auto_map"
    r"|.*_token_ids?|.*generation.*|.*_map)$"
)


def _dict_outside(path: str, value: dict[str, Any]) -> str | None:
    """Why a stated dict holding numbers that the class declares with no default is outside
    (DeepSeek-V4's ``compress_rates`` other than its class's value), or None."""
    if not any(isinstance(item, int) and not isinstance(item, bool) for item in value.values()):
        return None
    return f"{path} = {_short(value)}: the template learned the class's own value only"


def unlearned_list(
    raw: dict[str, Any],
    model_type: str,
    learned: dict[str, Any],
    tensors: Sequence[_Repeated],
    counted: frozenset[str] = frozenset(),
) -> str | None:
    """Why a stated list of ``raw`` or of one of its sub-configs lies outside what
    ``model_type``'s template learned (see the module doc), or None. ``tensors`` are the
    template's tensors for ``raw``; the row's guarded ``lists`` and ``uniform`` ones are
    compared elsewhere, and the plans in ``counted`` were counted layer kind by layer kind
    (:mod:`~dimlint.memory.parameters.plan_counts`)."""
    guarded = set(learned.get("lists", {})) | counted
    derived = derived_lists.defaults(model_type)
    uniform = set(learned.get("uniform", {}) or {})  # a plan among them is judged here
    base = architectures.base_fields()
    repeats = _repeats(tensors)
    for prefix, obj, obj_type in _objects(raw, model_type):
        # Only the kinds' own plan says attention only (not an indexer plan beside it).
        other_mixer = _other_mixer_field(learned, prefix)
        if other_mixer is not None and any(
            is_plan(value) and any(_kind(item) not in _NOT_MIXERS for item in value)
            for value in obj.values()
        ):
            other_mixer = None
        record = architectures.lookup(obj_type)
        # A stated per-layer plan is what the class builds from; index lists it would derive
        # one from are then only read for it (LFM2's full_attn_idxs beside its layer_types).
        planned = any(is_plan(value) for value in obj.values())
        if not planned and (why := _default_indices_outside(prefix, obj, record, guarded)):
            return why
        layers = None if planned else _layer_count(obj, record)
        for key, value in obj.items():
            path = f"{prefix}{key}"
            if path in guarded or key in base or _inert(key):
                continue
            if _is_index_list(key, value):
                declared = record.defaults.get(key) if record is not None else None
                learned_list = declared if isinstance(declared, list) else None
                unselected = _unselected(path, value, learned_list, layers)
                if unselected is not None:
                    return unselected
            if path in learned.get("inert_lists", ()) and _is_list(value):
                continue  # per-layer lists built the default's tensors (attention_window)
            if list_items.within(learned, path, value):
                continue  # learned item by item: each item is judged as a field
            if path in derived and _same(value, derived[path]):
                continue  # the value the class derives by default: the one learned
            if _learned_stated(learned, path, value):
                continue  # the value the variant row was learned with
            if value == [] and (emptied := _emptied(path, key, derived, record)) is not None:
                return emptied
            if is_plan(value):
                why = _other_kinds(path, value, derived.get(path))
                mixed = len(_plan_counts(value)) > 1
                default = _default_plan(obj, obj_type, value, derived.get(path)) if mixed else None
                why = why or _plan_outside(path, value, repeats, other_mixer, default)
            elif path in uniform and isinstance(value, list):
                why = _other_length(path, value, derived.get(path), record, key)
            elif record is not None and key in record.sub_configs:
                continue  # judged as an object of its own (_objects)
            elif path not in derived and (record is None or key not in record.fields):
                continue
            elif _is_list(value):
                declared = record.defaults.get(key) if record is not None else None
                if isinstance(declared, list) and declared:
                    why = _list_outside(path, key, value, declared)
                elif list_items.read_as_pair(learned, path, value, declared):
                    why = None  # a number as (height, width): a tensor reading it refuses
                else:
                    why = _derived_outside(path, key, value, repeats)
            elif isinstance(value, dict) and (record is None or record.defaults.get(key) is None):
                why = None if _INERT_DICTS.search(key) else _dict_outside(path, value)
            else:
                continue
            if why is not None:
                return why
    return None


def _short(value: object) -> str:
    text = str(value)
    return text if len(text) <= 40 else text[:37] + "..."
