"""Which stated dimension is under the cursor, in a config.json, a training YAML or Python code,
and the model whose figures the hover shows.

JSON and YAML: the specs of the document, each field located by its pointer's key and value
spans. Python: the config candidates the Python front end finds (the same extraction ``check``
runs), each member located by its key (keyword, dict key, class attribute) and the value written
there. These readings only *place* the cursor: the figures are computed from the one reading of a
model (:func:`dimlint.lint.model_input.read_text`, what ``check`` lints and ``mem`` counts), the
model read there with the hovered spec — so a hover shows the numbers ``mem`` prints for the same
text, in every file kind, and labels a model with error-level findings as invalid.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from dimlint.commands.server.hover import Hit, describe, field_at, json_respec, set_value
from dimlint.config.normalize import looks_like_model_config, specs_for_document
from dimlint.config.spec import ModelSpec
from dimlint.errors import DimlintError
from dimlint.sources import jsonfile

if TYPE_CHECKING:
    from dimlint.deploy.targets import Deployment
    from dimlint.lint.model_input import ModelInput
    from dimlint.lint.settings import Settings


def _json_hit(path: str, text: str, offset: int) -> tuple[list[ModelSpec], Hit] | None:
    document, _ = jsonfile.load(path, text.encode("utf-8", "surrogatepass"))
    if document is None or not isinstance(document.value, dict):
        return None
    if not looks_like_model_config(document.value):
        return None
    specs = specs_for_document(path, document.value)

    def spans(pointer: str) -> list[tuple[int, int]]:
        found = [document.key_span(pointer), document.value_span(pointer)]
        return [(span.start, span.end) for span in found if span is not None]

    hit = field_at(specs, spans, offset)
    return (specs, hit) if hit is not None else None


def _yaml_hit(path: str, text: str, offset: int) -> tuple[list[ModelSpec], Hit] | None:
    from dimlint.lint.yaml_front import may_have_model, specs_of
    from dimlint.sources import yamlfile

    data = text.encode("utf-8", "surrogatepass")
    if not may_have_model(data):
        return None
    document, _ = yamlfile.load(path, data)
    if document is None:
        return None
    specs = specs_of(path, document.value)

    def spans(pointer: str) -> list[tuple[int, int]]:
        found = [document.key_span(pointer), document.value_span(pointer)]
        return [(span.start, span.end) for span in found if span is not None]

    hit = field_at(specs, spans, offset)
    return (specs, hit) if hit is not None else None


def _yaml_respec(path: str, text: str, pointer: str) -> Callable[[int], list[ModelSpec] | None]:
    """The YAML document's specs with the value at ``pointer`` replaced."""
    from dimlint.lint.yaml_front import specs_of
    from dimlint.sources import yamlfile

    document, _ = yamlfile.load(path, text.encode("utf-8", "surrogatepass"))
    root = document.value if document is not None else None

    def respec(value: int) -> list[ModelSpec] | None:
        if not isinstance(root, dict):
            return None
        try:
            return specs_of(path, set_value(root, pointer, value))
        except Exception:  # a section the change makes unreadable: no neighbour there
            return None

    return respec


def _python_hit(path: str, text: str, offset: int) -> tuple[list[ModelSpec], Hit] | None:
    from dimlint.sources.jsonfile import InputProblem
    from dimlint.sources.python import configs as pyconfigs
    from dimlint.sources.python import file as pyfile
    from dimlint.sources.python import scan as pyscan
    from dimlint.sources.python import specs as pyspecs
    from dimlint.sources.python.prefilter import may_have_configs
    from dimlint.sources.python.values import Evaluator

    if not may_have_configs(text.encode("utf-8", "surrogatepass")):
        return None
    module = pyfile.parse(text)
    if isinstance(module, InputProblem):
        return None
    scan = pyscan.scan(module)
    extractor = pyconfigs.Extractor(scan, Evaluator(scan, None))
    candidates = extractor.class_candidates() + extractor.site_candidates(lambda call: False)
    for candidate in candidates:
        found = pyspecs.specs_of(path, candidate)
        members = {
            pointer: member
            for pointer, member in found.members.items()
            if pointer not in found.inherited
        }
        nodes = [n for m in members.values() for n in (m.key_node, m.use) if n is not None]
        located = pyfile.locate(module, nodes)

        def spans(pointer: str) -> list[tuple[int, int]]:
            member = members.get(pointer)  # noqa: B023 (called before the loop moves on)
            if member is None:
                return []
            places = [located.of(n) for n in (member.key_node, member.use) if n is not None]  # noqa: B023
            return [place for place in places if place is not None]

        hit = field_at(found.specs, spans, offset)
        if hit is not None:
            return found.specs, hit
    return None


def hover_model(
    path: str, text: str, offset: int, settings: Settings | None = None
) -> tuple[Hit, ModelInput | None] | None:
    """The dimension under the cursor and the model the hover computes from: ``text`` read as
    ``mem`` reads the file (:func:`~dimlint.lint.model_input.read_text` under ``settings``,
    default the nearest settings file, as ``mem``'s), the model holding the hovered spec; None
    for the model when that reading gives no numbers (an unreadable input, no model)."""
    from dimlint.lint.model_input import read_text, settings_for

    yaml = path.endswith((".yaml", ".yml"))
    finder = _python_hit if path.endswith(".py") else _yaml_hit if yaml else _json_hit
    found = finder(path, text, offset)
    if found is None:
        return None
    _, hit = found
    data = text.encode("utf-8", "surrogatepass")
    try:
        chosen = settings if settings is not None else settings_for(path)
        # force: a model with error-level findings still gets its figures, labelled invalid
        model = read_text(path, data, chosen, force=True, like=hit.spec)
    except DimlintError:  # findings that leave nothing to read, or no model: constraints only
        return hit, None
    return hit, model


def hover_text(
    path: str,
    text: str,
    offset: int,
    deployment: Deployment | None,
    settings: Settings | None = None,
) -> tuple[str, int, int] | None:
    """Markdown for a hover at character ``offset`` and the range it describes, or None."""
    found = hover_model(path, text, offset, settings)
    if found is None:
        return None
    hit, model = found
    specs = model.specs if model is not None else []
    respec = None
    if hit.located.pointer is not None and specs:
        if path.endswith((".yaml", ".yml")):
            respec = _yaml_respec(path, text, hit.located.pointer)
        else:
            respec = json_respec(path, specs[0].raw, hit.located.pointer)
    errors = model.errors if model is not None else ()
    return describe(path, specs, hit, deployment, respec, errors), hit.start, hit.end
