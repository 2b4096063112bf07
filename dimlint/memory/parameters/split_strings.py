"""String fields a config class splits into a list: a stated list or ``|``-joined string in
the form the shape generator learned it.

DeBERTa's ``pos_att_type`` is stated as ``"p2c|c2p"`` or ``["p2c", "c2p"]``; the class splits
a string on ``|`` and the code only asks which values the list holds. The generator
(:func:`dimlint.tools.regime_points.joined`) learns the set of values as one variant, keyed by
its values sorted and joined (``"c2p|p2c"``), and marks the field ``split`` in the row's
``strings``; here a stated value is put in that form, so that both spellings find the variant.
"""

from __future__ import annotations


def normalized(stated: object) -> object:
    """``stated`` as the generator keyed a split field's values: a list of strings or a
    ``|``-joined string as its items stripped, sorted and joined; anything else unchanged."""
    if isinstance(stated, list) and stated and all(isinstance(item, str) for item in stated):
        items = [str(item) for item in stated]
    elif isinstance(stated, str):
        items = stated.split("|")
    else:
        return stated
    return "|".join(sorted(item.strip() for item in items))
