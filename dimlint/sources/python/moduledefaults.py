"""A ``torch.nn.Module`` class whose ``__init__`` defaults state a model, read as one config.

Model code often states its default architecture as the defaults of the module itself rather
than in a config class: ``class Transformer(nn.Module): def __init__(self, dim=4096,
n_heads=32, n_kv_heads=8, …)``, ``class CLIPViT(nn.Module): def __init__(self, …,
embed_dim=1024, num_heads=16, depth=48)``. The defaults are the model built by ``Transformer()``,
so they are judged like a call with those keywords (``Transformer(dim=4096, n_heads=32)``, which
the linter already reads), with each finding at the default's literal:

* only a class whose base is ``torch.nn.Module`` (``nn.Module``, ``torch.nn.Module``, a
  ``Module`` imported from ``torch.nn``): what the class builds is a model, not settings;
* only the parameters whose default is a known value (a parameter without one is whatever the
  caller passes), and only when those name two kinds of dimension in the names normalization
  knows (width, heads, layers: ``dim``/``n_heads``, ``hidden_size``/``num_attention_heads``,
  ``embed_dim``/``num_heads``…), as for a call;
* no model type and no other framework's defaults: the class is the user's own, so only
  findings that need nothing but the values written can come from it.

A class whose name or base makes it a config (``…Config``, a dataclass) is read by
:class:`dimlint.sources.python.configs.Extractor` as before; the module classes read here are not
bases that a call of the class overrides (``Transformer(dim=…)`` stays a config of its own).
"""

from __future__ import annotations

import libcst as cst

from dimlint.config.spec import OWN_MODULE
from dimlint.sources.python.configs import (
    CONFIG_CLASS_SUFFIXES,
    Candidate,
    has_dimensions,
)
from dimlint.sources.python.dotted import dotted_name
from dimlint.sources.python.scan import Scan, Site
from dimlint.sources.python.values import UNKNOWN, Evaluator, Member


def is_torch_module(base: str, scan: Scan) -> bool:
    """Whether a base class named ``base`` (dotted) is ``torch.nn.Module``."""
    if base in ("nn.Module", "torch.nn.Module"):
        return True
    head, _, last = base.rpartition(".")
    if last != "Module":
        return False
    return head in scan.nn_aliases if head else scan.nn_names.get(base) == "Module"


def module_class(node: cst.ClassDef, scan: Scan) -> bool:
    """A ``torch.nn.Module`` subclass that is not a config by its name."""
    if node.name.value.endswith(CONFIG_CLASS_SUFFIXES):
        return False
    bases = [dotted_name(arg.value) or "" for arg in node.bases if arg.keyword is None]
    return any(is_torch_module(base, scan) for base in bases)


def _init(node: cst.ClassDef) -> cst.FunctionDef | None:
    body = node.body
    if not isinstance(body, cst.IndentedBlock):
        return None
    for statement in body.body:
        if isinstance(statement, cst.FunctionDef) and statement.name.value == "__init__":
            return statement
    return None


def candidates(scan: Scan, evaluator: Evaluator) -> list[Candidate]:
    """The defaults of every module class of the file that state a model."""
    found = []
    for site in scan.classes:
        if module_class(site.node, scan):
            candidate = defaults_candidate(site, evaluator)
            if candidate is not None:
                found.append(candidate)
    return found


def defaults_candidate(site: Site, evaluator: Evaluator) -> Candidate | None:
    """The module's ``__init__`` defaults as a candidate, when they state a model."""
    node: cst.ClassDef = site.node
    function = _init(node)
    if function is None:
        return None
    params = function.params
    members: dict[str, Member] = {}
    for param in (*params.posonly_params, *params.params, *params.kwonly_params):
        if param.default is None:
            continue
        value = evaluator.evaluate(param.default, site.frames)
        if value.value is UNKNOWN or value.value is None:
            continue
        name = param.name.value
        members[name] = Member(name, param.name, "identifier", param.default, value)
    sized = [
        key
        for key, member in members.items()
        if isinstance(member.value.value, int) and not isinstance(member.value.value, bool)
    ]
    if not has_dimensions(sized):
        return None
    candidate = Candidate("class", node.name.value, node.name, members)
    candidate.framework = OWN_MODULE  # its own code: what rules say names no framework
    return candidate
