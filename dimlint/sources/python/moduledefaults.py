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
* a parameter that sets the head width under a name of its own (lucidrains' ``dim_head=64``)
  is the head width; without a default the candidate is not read (the heads need not divide
  the width);
* no model type and no other framework's defaults: the class is the user's own, so only
  findings that need nothing but the values written can come from it.

A class whose base is not provably ``torch.nn.Module`` (another library's mixins: Wan2.1's
``class WanModel(ModelMixin, ConfigMixin)`` under ``@register_to_config``; a class of another
file) may build anything from its defaults, so they are read only where the file's own code
requires the divisibility of exactly the width and head count among them (``assert dim %
num_heads == 0``, :mod:`dimlint.sources.python.asserted`): then a width the heads do not divide
is certainly refused, and judged as a module's.

A class whose name or base makes it a config (``…Config``, a dataclass) is read by
:class:`dimlint.sources.python.configs.Extractor` as before; the module classes read here are not
bases that a call of the class overrides (``Transformer(dim=…)`` stays a config of its own).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import libcst as cst

from dimlint.config.normalize import field_keys
from dimlint.config.spec import OWN_MODULE
from dimlint.sources.python.configs import (
    CONFIG_CLASS_SUFFIXES,
    Candidate,
    has_dimensions,
)
from dimlint.sources.python.dotted import dotted_name
from dimlint.sources.python.scan import Scan, Site
from dimlint.sources.python.specs import MODULE_NAMES
from dimlint.sources.python.values import UNKNOWN, Evaluator, Member

#: The head width under the names normalization knows.
HEAD_DIM_KEYS = field_keys("head_dim")
#: A model's width and head count under the names normalization (and a module's) knows.
_WIDTH_KEYS = field_keys("hidden") | {"width"}
_HEADS_KEYS = field_keys("heads") | {"heads"}
#: A parameter that sets the head width under another name (``dim_head``, ``head_channels``,
#: ``d_head``): heads × that width is the attention, whatever the model width.
_HEAD_WIDTH = re.compile(
    r"(?:head.*(?:dim|size|channel)|(?:dim|size|channel).*head|^d_head$|^d_k$)"
)


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


def candidates(
    scan: Scan, evaluator: Evaluator, asserted: frozenset[tuple[str, str]] = frozenset()
) -> list[Candidate]:
    """The defaults of every module class of the file that state a model, and of every other
    class (not a config by its name) whose width and heads the file's code requires divisible
    (``asserted``: :mod:`dimlint.sources.python.asserted`)."""
    found = []
    for site in scan.classes:
        if module_class(site.node, scan):
            candidate = defaults_candidate(site, evaluator)
        elif asserted and not site.node.name.value.endswith(CONFIG_CLASS_SUFFIXES):
            candidate = defaults_candidate(site, evaluator)
            if candidate is not None and not _asserted_pair(candidate, asserted):
                candidate = None
        else:
            candidate = None
        if candidate is not None:
            found.append(candidate)
    return found


def _asserted_pair(candidate: Candidate, asserted: frozenset[tuple[str, str]]) -> bool:
    """Whether the candidate's one width and one head count are a pair the file's code
    requires divisible (another width or head count beside them: which is the model's is
    not known, and the class is not read)."""
    widths = [key for key in candidate.members if key in _WIDTH_KEYS]
    heads = [key for key in candidate.members if key in _HEADS_KEYS]
    return len(widths) == 1 and len(heads) == 1 and (widths[0], heads[0]) in asserted


def own_head_width(names: Sequence[str], pattern: re.Pattern[str] = _HEAD_WIDTH) -> str | None:
    """The parameter that sizes each head under a name of its own, when ``head_dim`` itself
    is not one: the plainest of those ``pattern`` finds."""
    if any(name in HEAD_DIM_KEYS for name in names):
        return None  # ``head_dim`` itself wins
    widths = [name for name in names if pattern.search(name)]
    return min(widths, key=len) if widths else None


def states_a_model(members: dict[str, Member]) -> bool:
    """Whether the integer defaults among ``members`` name two kinds of model dimension."""
    sized = [
        key
        for key, member in members.items()
        if isinstance(member.value.value, int) and not isinstance(member.value.value, bool)
    ]
    return has_dimensions([MODULE_NAMES.get(key, key) for key in sized])


def defaults_candidate(site: Site, evaluator: Evaluator) -> Candidate | None:
    """The module's ``__init__`` defaults as a candidate, when they state a model."""
    node: cst.ClassDef = site.node
    function = _init(node)
    if function is None:
        return None
    params = function.params
    every = (*params.posonly_params, *params.params, *params.kwonly_params)
    # The module's own head width is the plainest name of those that set one: lucidrains'
    # ``SigLIPVAT(dim_head=64, self_attn_dim_head=32)`` sizes its heads by ``dim_head``, the
    # prefixed one another attention's.
    own_width = own_head_width([p.name.value for p in every])
    members: dict[str, Member] = {}
    for param in every:
        name = param.name.value
        head_width = name == own_width or name in HEAD_DIM_KEYS
        default = param.default
        value = evaluator.evaluate(default, site.frames).value if default else None
        if default is None or value is UNKNOWN or value is None:
            if head_width:
                return None  # a head width the caller passes: the heads need not divide
            continue
        key = "head_dim" if name == own_width else name  # lucidrains' ``dim_head=64``
        evaluated = evaluator.evaluate(default, site.frames)
        members[key] = Member(name, param.name, "identifier", default, evaluated)
    if not states_a_model(members):
        return None
    candidate = Candidate("class", node.name.value, node.name, members)
    candidate.framework = OWN_MODULE  # its own code: what rules say names no framework
    return candidate
