"""``Record``: ``typing.NamedTuple`` without the start-up cost of checking annotations.

Every module of dimlint starts with ``from __future__ import annotations``, so each annotation
is a string. ``typing.NamedTuple`` wraps each field's string in a ``ForwardRef``, and creating a
``ForwardRef`` compiles its string: about 3 million instructions for a four-field class. With
twenty record types on the path of ``dimlint check``, that was a third of the instructions of
checking one config (``valgrind --tool=callgrind``: 186 M for the whole run, 60 M of them in
these compilations). ``Record`` builds the same ``collections.namedtuple`` class as
``typing.NamedTuple`` does — fields, defaults, methods, properties, docstring — and keeps the
annotations as the strings they are. For mypy it *is* ``typing.NamedTuple``.
"""

from __future__ import annotations

import collections
from typing import TYPE_CHECKING, Any

__all__ = ["Record"]

if TYPE_CHECKING:
    from typing import NamedTuple as Record
else:
    #: What a record class may not redefine, and what the namespace has that is not a member
    #: (as ``typing.NamedTupleMeta`` has them).
    _PROHIBITED = frozenset(
        {
            "__new__", "__init__", "__slots__", "__getnewargs__", "_fields",
            "_field_defaults", "_make", "_replace", "_asdict", "_source",
        }
    )  # fmt: skip
    _SPECIAL = frozenset({"__module__", "__annotations__", "__name__"})

    class _RecordType(type):
        def __new__(cls, name: str, bases: tuple[type, ...], namespace: dict[str, Any]) -> Any:
            if not bases:  # ``Record`` itself
                return super().__new__(cls, name, bases, namespace)
            if bases != (Record,):
                raise TypeError("a record derives from Record alone")
            annotations: dict[str, Any] = namespace.get("__annotations__", {})
            defaults: list[Any] = []
            for field in annotations:
                if field in namespace:
                    defaults.append(namespace[field])
                elif defaults:
                    raise TypeError(f"field {field} without a default follows one with a default")
            record = collections.namedtuple(
                name, list(annotations), defaults=defaults, module=namespace["__module__"]
            )
            record.__annotations__ = record.__new__.__annotations__ = dict(annotations)
            for key, value in namespace.items():
                if key in _PROHIBITED:
                    raise AttributeError(f"a record cannot redefine {key}")
                if key not in _SPECIAL and key not in record._fields:
                    setattr(record, key, value)
            return record

    class Record(metaclass=_RecordType):
        """The base of dimlint's immutable records (see the module docstring)."""
