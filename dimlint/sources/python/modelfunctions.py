"""Model constructors written as functions: Trax's ``def TransformerLM(vocab_size, d_model=512,
d_ff=2048, n_layers=6, n_heads=8, …)``, read as one config from their defaults.

Trax (and the combinator libraries like it) builds models with module-level functions named
as classes are, CamelCase (``TransformerLM``, ``ReformerLM``, ``BERT``): calling one returns
the model, so its defaults are the model ``TransformerLM(vocab_size)`` builds, as the defaults
of a ``torch.nn.Module``'s ``__init__`` are (:mod:`dimlint.sources.python.moduledefaults`,
whose rules apply: only parameters with a known default, two kinds of dimension among them, a
parameter that sizes each head — ``d_attention_key``, ``dim_head`` — read as the head width,
and without a default the candidate is not read; no framework's defaults). A lower-case
function is a helper whose keywords may be anything (``def attention(x, dim=-1)``): not read.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from dimlint.config.spec import OWN_MODULE
from dimlint.sources.python.configs import Candidate
from dimlint.sources.python.moduledefaults import HEAD_DIM_KEYS, own_head_width, states_a_model
from dimlint.sources.python.values import UNKNOWN, Evaluator, Member

if TYPE_CHECKING:
    from dimlint.sources.python.scan import Frame, Scan

#: A parameter that sets each head's width under a name of its own (Trax's
#: ``d_attention_key``, lucidrains' ``dim_head``).
_HEAD_WIDTH = re.compile(
    r"(?:head.*(?:dim|size|channel)|(?:dim|size|channel).*head|^d_head$|^d_k$|attention_key)"
)


def candidates(scan: Scan, evaluator: Evaluator) -> list[Candidate]:
    """The defaults of every model function of the module that state a model."""
    found = []
    for frame in scan.model_functions:
        candidate = _candidate(frame, evaluator)
        if candidate is not None:
            found.append(candidate)
    return found


def _candidate(frame: Frame, evaluator: Evaluator) -> Candidate | None:
    own_width = own_head_width(sorted(frame.params), _HEAD_WIDTH)
    members: dict[str, Member] = {}
    for name in frame.defaults:
        default = frame.default(name)
        head_width = name == own_width or name in HEAD_DIM_KEYS
        evaluated = evaluator.evaluate(default, ()) if default is not None else None
        if (
            default is None
            or evaluated is None
            or evaluated.value is UNKNOWN
            or evaluated.value is None
        ):
            if head_width:
                return None  # a head width the caller passes: the heads need not divide
            continue
        key = "head_dim" if name == own_width else name
        members[key] = Member(name, None, None, default, evaluated)
    if own_width is not None and "head_dim" not in members:
        return None  # a head width without a default: the caller's
    if not members or not states_a_model(members):
        return None
    first = next(iter(members.values()))
    candidate = Candidate("dict", f"{frame.name}() defaults", first.use, members)
    candidate.framework = OWN_MODULE  # its own code: what rules say names no framework
    return candidate
