"""Lint a gin file: T5X's and Trax's model bindings (``network.T5Config.emb_dim = 4096``,
``TransformerLM.d_model = 512``).

The bindings are read by :mod:`dimlint.sources.ginfile` into the document the YAML front end
judges (:func:`dimlint.lint.yaml_front.lint_document`), as launch scripts are
(:mod:`dimlint.lint.shell_front`): each configurable that binds two of T5X's model parameters is
a model section, its findings located at the literal that takes effect (the binding's value, or
the macro definition it names) and fixed there.
"""

from __future__ import annotations

from dimlint.lint.results import FileResult
from dimlint.lint.selection import Selection


def lint_gin(path: str, data: bytes, selection: Selection) -> FileResult:
    """Lint the bytes of a gin file named ``path``."""
    from dimlint.sources import ginfile

    result = FileResult(path)
    if not ginfile.may_have_model(data):
        result.skipped = (
            "no model bindings (emb_dim, num_heads, head_dim, mlp_dim, *_layers, EMBED_DIM…;"
            " Trax's d_model, n_heads, d_ff, n_layers)"
        )
        return result
    text = data.decode("utf-8", errors="replace")
    from dimlint.config.spec import T5X
    from dimlint.lint.yaml_front import lint_document

    document = ginfile.load(path, text)
    framework = None if ginfile.trax_only(document) else T5X
    return lint_document(path, document, selection, result, framework)
