"""``torch.nn`` layer calls whose dimensions are statically known.

A call is a torch layer when its callee is ``nn.X`` with ``nn`` imported from torch
(``import torch.nn as nn``, ``from torch import nn``), ``torch.nn.X``, or a name imported from
``torch.nn``. Other libraries' ``nn`` modules (flax, mlx) are left alone: their layers take other
arguments. Arguments are read by keyword or by position, in the order of the torch signature.
"""

from __future__ import annotations

import libcst as cst

from dimlint.config.torch_layers import LAYERS, Layer
from dimlint.records import Record
from dimlint.sources.python.dotted import dotted_name
from dimlint.sources.python.scan import Frames, Scan
from dimlint.sources.python.values import Evaluator, KeyKind, Member


class LayerSite(Record):
    """A layer call, its members by synthetic pointer (``/embed_dim``), and the check input."""

    call: cst.Call
    members: dict[str, Member]
    layer: Layer


def layer_kind(call: cst.Call, scan: Scan) -> str | None:
    """The torch.nn class a call builds, if it is one the layer checks know."""
    name = dotted_name(call.func)
    if name is None:
        return None
    module, _, last = name.rpartition(".")
    if module:
        is_torch = module == "torch.nn" or module in scan.nn_aliases
        return last if is_torch and last in LAYERS else None
    imported = scan.nn_names.get(last)
    return imported if imported in LAYERS else None


def layer_site(call: cst.Call, kind: str, frames: Frames, evaluator: Evaluator) -> LayerSite:
    params = LAYERS[kind].params
    members: dict[str, Member] = {}
    for index, arg in enumerate(call.args):
        if arg.star:
            break
        if arg.keyword is None:
            if index >= len(params):
                break
            name, key_node = params[index], None
        else:
            name, key_node = arg.keyword.value, arg.keyword
        value = evaluator.evaluate(arg.value, frames)
        kind_of_key: KeyKind | None = "identifier" if key_node is not None else None
        members[f"/{name}"] = Member(name, key_node, kind_of_key, arg.value, value)
    stated: dict[str, int] = {}
    editable: set[str] = set()
    for member in members.values():
        value = member.value.value
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            stated[member.key] = value
            if member.value.edit is not None:
                editable.add(member.key)
    return LayerSite(call, members, Layer(kind, stated, frozenset(editable)))
