"""One config from any source: a path, a Hub id, a ``dict``, or a transformers config object.

The front end of the commands that work on one config (``mem``, ``plan``, ``shapes``:
:mod:`dimlint.lint.model_input`) and the Python API (:mod:`dimlint.api`) read what is not a local
file here, so a Hub id or an in-memory config is accepted wherever a path is. A ``dict`` or a
``PretrainedConfig`` becomes the JSON text ``json.dumps(…, indent=2)`` would write, so its
findings have lines and columns in that text (what ``save_pretrained`` writes, give or take key
order); transformers is never imported: an object with a callable ``to_dict`` is a config.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from dimlint.errors import UsageError
from dimlint.records import Record

if TYPE_CHECKING:
    from dimlint.sources.hub import HubSnapshot


@runtime_checkable
class ConfigObject(Protocol):
    """What dimlint needs of a transformers ``PretrainedConfig`` (duck-typed)."""

    def to_dict(self) -> dict[str, Any]: ...


#: What the API accepts as a source.
Source = str | os.PathLike[str] | Mapping[str, Any] | ConfigObject


class Loaded(Record):
    """A config that is not a local file: the path its findings name and its bytes."""

    path: str
    data: bytes
    #: The Hub model it came from (its files beside the config); None for in-memory configs.
    snapshot: HubSnapshot | None = None


def to_json(value: Mapping[str, Any]) -> bytes:
    """The text an in-memory config is checked as (values JSON cannot hold become strings)."""
    try:
        return json.dumps(dict(value), indent=2, default=str).encode("utf-8")
    except (TypeError, ValueError) as error:  # circular, or keys that are not strings
        raise UsageError(f"the config cannot be written as JSON: {error}") from None


def describe(source: object) -> str:
    """The path findings on an in-memory config name: ``<dict>``, ``<LlamaConfig>``."""
    if isinstance(source, Mapping):
        return "<dict>"
    return f"<{type(source).__name__}>"


def load_source(source: Source, *, weights: bool = False) -> Loaded | None:
    """Read a Hub id or an in-memory config; None for a local path (the caller reads those,
    with its settings and its errors). A :class:`UsageError` (or its subclass ``HubError``)
    when ``source`` cannot be read.

    ``weights``: for a Hub model, also fetch the safetensors headers (``check`` reads them)."""
    if isinstance(source, Mapping):
        return _in_memory(source, describe(source))
    if not isinstance(source, (str, os.PathLike)) and isinstance(source, ConfigObject):
        value = source.to_dict()
        if not isinstance(value, Mapping):
            raise UsageError(f"{describe(source)}.to_dict() did not return a dict")
        return _in_memory(value, describe(source))
    if not isinstance(source, (str, os.PathLike)):
        raise UsageError(
            f"cannot read a config from a {type(source).__name__}: pass a path, a Hub id"
            " (hf://org/name), a dict or a transformers PretrainedConfig"
        )
    hub_id = _hub_id(os.fspath(source))
    if hub_id is None:
        return None
    from dimlint.sources.hub import fetch

    snapshot = fetch(hub_id, weights=weights)
    data = snapshot.config_bytes()
    return Loaded(snapshot.display("config.json"), data, snapshot)


def _hub_id(text: str) -> Any:
    if not text.startswith("hf://") and os.path.lexists(text):
        return None  # an existing path never costs the Hub module's import
    from dimlint.sources.hub import parse_hub_id

    return parse_hub_id(text)


def _in_memory(value: Mapping[str, Any], name: str) -> Loaded:
    return Loaded(name, to_json(value))
