"""What a swept parameter is, for the axes and legends of figures: a human name from its
path, the quantity it holds (from the scenario's JSON Schema) and its values as numbers in
one readable unit.

A grid path such as ``links.bottleneck.rate`` or ``qdiscs.router.bottleneck.limit`` is
resolved against :func:`airqueue.schema` (the core's types: a ``Rate``, a ``Duration``, a
``Bytes``, a ``Probability``, or a count whose description says it counts packets), with
the sweep's base scenario choosing between a qdisc's kinds. A path the schema does not
know falls back to the values' own units (``"5Mbit"`` is a rate, ``"20ms"`` a duration).

Values are converted as the core reads them (``crates/airqueue/src/conf/units.rs``:
``kbit`` = 1000 bit/s, ``Kibit`` = 1024 bit/s, ``k`` of a size = 1024 B) and shown in one
unit per axis: ``5Mbit`` and ``500kbit`` are 5 and 0.5 Mbit/s.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

#: The quantities a parameter can hold (None: a plain number or a category).
RATE, DURATION, BYTES, PROBABILITY, PACKETS = "rate", "duration", "bytes", "probability", "packets"

_RATE_UNITS = {
    "bit": 1.0,
    "kbit": 1e3,
    "mbit": 1e6,
    "gbit": 1e9,
    "tbit": 1e12,
    "kibit": 1024.0,
    "mibit": 1024.0**2,
    "gibit": 1024.0**3,
}
_DURATION_UNITS = {
    "ns": 1e-9,
    "nsec": 1e-9,
    "us": 1e-6,
    "µs": 1e-6,
    "usec": 1e-6,
    "ms": 1e-3,
    "msec": 1e-3,
    "s": 1.0,
    "sec": 1.0,
    "min": 60.0,
    "h": 3600.0,
}
_BYTE_UNITS = {
    "B": 1.0,
    "b": 1.0,
    "": 1.0,
    "kB": 1e3,
    "KB": 1e3,
    "MB": 1e6,
    "GB": 1e9,
    "KiB": 1024.0,
    "k": 1024.0,
    "kb": 1024.0,
    "K": 1024.0,
    "MiB": 1024.0**2,
    "m": 1024.0**2,
    "mb": 1024.0**2,
    "M": 1024.0**2,
    "GiB": 1024.0**3,
    "g": 1024.0**3,
    "gb": 1024.0**3,
    "G": 1024.0**3,
}
_NUMBER_UNIT = re.compile(r"^\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*([A-Za-zµ%]*)\s*$")
_SCHEMA_TYPES = {"Rate": RATE, "Duration": DURATION, "Bytes": BYTES, "Probability": PROBABILITY}
_NAME_KEYS = ("name", "dev", "node")


def _split(value: Any) -> tuple[float, str] | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value), ""
    m = _NUMBER_UNIT.match(str(value))
    return (float(m.group(1)), m.group(2)) if m else None


def to_base(quantity: str | None, value: Any) -> float | None:
    """A value in its quantity's base unit (bit/s, s, bytes, a fraction; packets and plain
    numbers as they are), or None when it is not one."""
    parts = _split(value)
    if parts is None:
        return None
    num, unit = parts
    if quantity == RATE:
        mult = _RATE_UNITS.get(unit.lower())
    elif quantity == DURATION:
        mult = _DURATION_UNITS.get(unit)
    elif quantity == BYTES:
        mult = _BYTE_UNITS.get(unit)
    elif quantity == PROBABILITY:
        mult = 0.01 if unit == "%" else 1.0 if unit == "" else None
    else:
        mult = 1.0 if unit == "" else None
    return None if mult is None else num * mult


def display_unit(quantity: str | None, largest: float) -> tuple[float, str]:
    """A divisor and unit that show values up to ``largest`` (in the base unit) readably."""
    if quantity == RATE:
        for div, unit in ((1e9, "Gbit/s"), (1e6, "Mbit/s"), (1e3, "kbit/s")):
            if largest >= div:
                return div, unit
        return 1.0, "bit/s"
    if quantity == DURATION:
        if largest < 1e-3:
            return 1e-6, "µs"
        return (1e-3, "ms") if largest <= 1.0 else (1.0, "s")
    if quantity == BYTES:
        if largest < 10 * 1024:
            return 1.0, "B"
        return (1024.0, "KiB") if largest < 10 * 1024**2 else (1024.0**2, "MiB")
    if quantity == PROBABILITY:
        return 0.01, "%"
    if quantity == PACKETS:
        return 1.0, "packets"
    return 1.0, ""


@functools.lru_cache(maxsize=1)
def scenario_schema() -> dict[str, Any]:
    """The scenario format's JSON Schema (from the core), parsed once."""
    from . import _native

    return dict(json.loads(str(_native.schema())))


def _deref(node: Mapping[str, Any], defs: Mapping[str, Any]) -> Mapping[str, Any]:
    seen = 0
    while "$ref" in node and seen < 32:
        node = defs.get(str(node["$ref"]).rsplit("/", 1)[-1], {})
        seen += 1
    return node


def _entry_name(entry: Any) -> str | None:
    if isinstance(entry, Mapping):
        for k in _NAME_KEYS:
            if isinstance(entry.get(k), str):
                return str(entry[k])
    return None


def _resolve(
    raw: Mapping[str, Any], parts: Sequence[str], data: Any, defs: Mapping[str, Any]
) -> list[Mapping[str, Any]]:
    """The schema nodes (un-dereferenced, so that a ``$ref`` to ``Rate`` shows) that a
    dotted path reaches, following ``data`` (the scenario) where it names entries and
    kinds, every possibility where it does not."""
    if not parts:
        return [raw]
    node = _deref(raw, defs)
    variants = node.get("oneOf") or node.get("anyOf")
    if variants:
        kind = data.get("kind") if isinstance(data, Mapping) else None
        found: list[Mapping[str, Any]] = []
        for v in variants:
            const = _deref(v, defs).get("properties", {}).get("kind", {}).get("const")
            if kind is not None and const is not None and const != kind:
                continue
            found += _resolve(v, parts, data, defs)
        return found
    if "items" in node and isinstance(node["items"], Mapping):
        entries = data if isinstance(data, list) else []
        for j in range(len(parts), 0, -1):
            name = ".".join(parts[:j])
            for e in entries:
                if _entry_name(e) == name:
                    return _resolve(node["items"], parts[j:], e, defs)
        # Not in the base scenario (a count's copy, or no scenario): any split that resolves.
        for j in range(1, len(parts)):
            found = _resolve(node["items"], parts[j:], None, defs)
            if found:
                return found
        return []
    props = node.get("properties")
    if isinstance(props, Mapping) and parts[0] in props:
        sub = data.get(parts[0]) if isinstance(data, Mapping) else None
        return _resolve(props[parts[0]], parts[1:], sub, defs)
    return []


def _leaf_quantity(raw: Mapping[str, Any], defs: Mapping[str, Any]) -> str | None:
    refs = [raw.get("$ref")] + [v.get("$ref") for v in raw.get("anyOf", []) + raw.get("oneOf", [])]
    for ref in refs:
        if ref and str(ref).rsplit("/", 1)[-1] in _SCHEMA_TYPES:
            return _SCHEMA_TYPES[str(ref).rsplit("/", 1)[-1]]
    node = _deref(raw, defs)
    if node.get("type") in ("integer", "number"):
        first = re.split(r"\.\s|\(", str(raw.get("description", node.get("description", ""))))[0]
        if re.search(r"\bpackets\b", first):
            return PACKETS
        if re.search(r"\bbytes\b", first):
            return BYTES
    return None


def schema_quantity(path: str, scenario: Mapping[str, Any] | None = None) -> str | None:
    """The quantity the scenario format says ``path`` holds (None when the schema does not
    say, or the possible places disagree)."""
    schema = scenario_schema()
    defs = schema.get("$defs", {})
    leaves = _resolve(schema, path.split("."), scenario, defs)
    kinds = {_leaf_quantity(leaf, defs) for leaf in leaves}
    return kinds.pop() if len(kinds) == 1 else None


@dataclass(frozen=True)
class ParamAxis:
    """A swept parameter as a figure shows it."""

    path: str
    #: ``bottleneck rate``: the path without its section, the leaf set apart.
    name: str
    #: ``rate``: the leaf alone (legends, when it names one parameter unambiguously).
    short: str
    quantity: str | None
    #: The unit values are shown in (``Mbit/s``, ``packets``; "" for none).
    unit: str
    #: Each grid value's number in ``unit``; None when the values are categories.
    numbers: dict[Any, float] | None

    @property
    def label(self) -> str:
        """The axis label: ``bottleneck rate (Mbit/s)``."""
        return f"{self.name} ({self.unit})" if self.unit else self.name

    def text(self, value: Any) -> str:
        """A value with its unit: ``5 Mbit/s``, ``20 packets``."""
        if self.numbers is not None and value in self.numbers:
            num = f"{self.numbers[value]:.4g}"
            return f"{num} {self.unit}" if self.unit else num
        if isinstance(value, bool):
            return "true" if value else "false"
        return str(value)


def _human(path: str) -> tuple[str, str]:
    parts = path.split(".")
    leaf = parts[-1].replace("_", " ")
    owner = ".".join(parts[1:-1])
    return (f"{owner} {leaf}" if owner else leaf), leaf


def param_axis(
    path: str, values: Sequence[Any], scenario: Mapping[str, Any] | None = None
) -> ParamAxis:
    """How ``path``'s grid ``values`` are shown: numbers in one unit of the quantity the
    schema says the path holds (or the values' own units say), else categories."""
    name, short = _human(path)
    quantity = schema_quantity(path, scenario)
    if quantity is None and any(isinstance(v, str) for v in values):
        # Not in the schema: the values' own units say what they are.
        quantity = next(
            (q for q in (RATE, DURATION) if all(to_base(q, v) is not None for v in values)), None
        )
    base = [to_base(quantity, v) for v in values]
    if not values or any(b is None for b in base):
        return ParamAxis(path, name, short, quantity, "", None)
    nums = [float(b) for b in base if b is not None]
    div, unit = display_unit(quantity, max(abs(n) for n in nums))
    return ParamAxis(
        path, name, short, quantity, unit, {v: n / div for v, n in zip(values, nums, strict=True)}
    )
