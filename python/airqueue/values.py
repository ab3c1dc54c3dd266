"""From whatever a user can write (TOML of every type, a dict built in Python, ``--set``)
to the JSON the core reads, without ever failing on a value.

JSON has no dates, NaN, infinities, integers beyond 64 bits, bytes or non-text keys, and
Python's encoder either raises on them or writes text the core cannot parse. Instead of
raising, :func:`to_core_json` replaces each such value with a marker object
(``{MARKER: "<what is wrong and how to fix it>"}``) that the core's loader reports at the
value's field path, named as every other problem is, together with every other problem in
the scenario. The walk is iterative and stops at :data:`MAX_DEPTH` levels, so neither it
nor the encoder can hit Python's recursion limit.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

#: The key of a marker object; the core's loader (scenario/parse.rs) knows it.
MARKER = "$airqueue-invalid"

#: Deepest nesting of tables and lists passed to the core. The deepest valid scenario (an
#: HTB tree of Linux's 8 levels, each a class list holding a child qdisc) needs about 30.
MAX_DEPTH = 64

#: What a table or list nested deeper than :data:`MAX_DEPTH` is told.
TOO_DEEP = (
    f"is nested more than {MAX_DEPTH} tables and lists deep; no scenario needs that "
    "(Linux's HTB allows 8 levels of classes)"
)

#: The range of whole numbers any setting accepts (seeds are unsigned 64-bit).
INT_MIN = -(2**63)
INT_MAX = 2**64 - 1

#: The largest seed: seeds are unsigned 64-bit integers in the core.
SEED_MAX = 2**64 - 1

#: Whole numbers up to this many bits are written out in messages; longer ones are
#: described by their number of digits (Python refuses to print more than 4300 digits).
_PRINTABLE_BITS = 256


@dataclass(frozen=True)
class LongInteger:
    """A whole number written with more digits than Python reads (see
    :func:`sys.get_int_max_str_digits`; TOML files and ``--set`` values): far outside every
    setting's range, it stands in for the number until :func:`to_core_value` turns it into
    a marker naming its field."""

    digits: int
    negative: bool = False


def int_text(value: int | LongInteger) -> str:
    """``value`` for a message: its digits, or for a very long number how many it has
    (formatting one of more than 4300 digits raises ValueError)."""
    if isinstance(value, LongInteger):
        sign = "negative " if value.negative else ""
        return f"a {sign}whole number of {value.digits:,} digits"
    if value.bit_length() <= _PRINTABLE_BITS:
        return str(value)
    n = abs(value)
    # The digits of 2^(bit_length - 1), plus one if n reaches the next power of ten.
    digits = int((n.bit_length() - 1) * math.log10(2)) + 1
    digits += n >= 10**digits
    return int_text(LongInteger(digits, value < 0))


def out_of_range(value: int | LongInteger, key: Any = None) -> str:
    """The message for a whole number no setting accepts; a ``seed`` is told its own
    range (unsigned 64-bit, as the core takes it)."""
    text = int_text(value)
    if key == "seed":
        return (
            f"{text} is out of range; a seed is a whole number from 0 to {SEED_MAX} "
            "(2^64 - 1, unsigned 64-bit)"
        )
    negative = value.negative if isinstance(value, LongInteger) else value < 0
    return (
        f"{text} is too {'small' if negative else 'large'}; no setting accepts a "
        f"whole number beyond {INT_MAX:,} (2^64 - 1) or below {INT_MIN:,}"
    )


def _marker(message: str) -> dict[str, str]:
    return {MARKER: message}


def _is_unicode(text: str) -> bool:
    """Whether ``text`` is Unicode text UTF-8 can hold: a Python str may carry lone
    surrogates (``"\\ud800"``, or an undecodable byte of a command-line argument), which JSON
    writes as an escape the core's parser refuses, failing the whole scenario."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _shown(text: str) -> str:
    """``text`` for a message, its lone surrogates written as ``\\udcff`` escapes."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


#: What a text holding lone surrogates is told.
NOT_UNICODE = (
    "is not Unicode text: it holds a lone surrogate ({}), which is half of a character "
    "(an undecodable byte, or text cut in two); write the text again as plain characters"
)


def _scalar(value: Any, key: Any = None) -> tuple[bool, Any]:
    """``(True, json_value)`` for a scalar (possibly a marker), ``(False, None)`` for a
    table or a list. ``key`` is the value's key in its table (for messages)."""
    if isinstance(value, str) and not _is_unicode(value):
        bad = next(c for c in value if not _is_unicode(c))
        return True, _marker(NOT_UNICODE.format(_shown(bad)))
    if value is None or isinstance(value, (bool, str)):
        return True, value
    if isinstance(value, LongInteger):
        return True, _marker(out_of_range(value, key))
    if isinstance(value, int):
        if INT_MIN <= value <= INT_MAX:
            return True, value
        return True, _marker(out_of_range(value, key))
    if isinstance(value, float):
        if math.isnan(value):
            return True, _marker("is not a number (nan); write a finite number")
        if math.isinf(value):
            return True, _marker(
                f"is infinite ({value}); write a finite number (there is no 'unlimited' value)"
            )
        return True, value
    if isinstance(value, (dt.datetime, dt.date, dt.time)):
        what = (
            "a date and time"
            if isinstance(value, dt.datetime)
            else ("a date" if isinstance(value, dt.date) else "a time of day")
        )
        return True, _marker(
            f"is {what} ({value.isoformat()}), which no setting takes; durations and times "
            'are quoted strings such as "10s" or "250ms", seeds are whole numbers'
        )
    if isinstance(value, (bytes, bytearray, memoryview)):
        return True, _marker("is raw bytes; write text in quotes instead")
    if isinstance(value, (Mapping, list, tuple)):
        return False, None
    return True, _marker(
        "is not a value a scenario can hold; use text, a number, true/false, a list or a table"
    )


#: What :func:`_rebuild` asks of each entry ``(key, value, in_a_table)``: the key and
#: value to put in the copy, and whether the value is a table or list to copy in turn.
EntryRule = Callable[[Any, Any, bool], tuple[Any, Any, bool]]


def _rebuild(data: Any, entry: EntryRule, shared: bool) -> Any:
    """A copy of the table or list ``data``, made without recursion: each entry as
    ``entry`` says, and a table or list nested deeper than :data:`MAX_DEPTH` replaced by a
    marker. With ``shared``, a table or list met twice is copied once (as
    :func:`copy.deepcopy` does); without, each time (a cycle is cut at the depth limit)."""
    root: Any = {} if isinstance(data, Mapping) else []
    copies: dict[int, Any] = {id(data): root}
    # (source container, its copy, depth)
    stack: list[tuple[Any, Any, int]] = [(data, root, 1)]
    while stack:
        src, dst, depth = stack.pop()
        table = isinstance(src, Mapping)
        for k, v in src.items() if table else enumerate(src):
            key, value, nested = entry(k, v, table)
            if nested:
                if depth >= MAX_DEPTH:
                    value = _marker(TOO_DEEP)
                elif shared and id(v) in copies:
                    value = copies[id(v)]
                else:
                    value = {} if isinstance(v, Mapping) else []
                    if shared:
                        copies[id(v)] = value
                    stack.append((v, value, depth + 1))
            if isinstance(dst, dict):
                dst[key] = value
            else:
                dst.append(value)
    return root


def _core_entry(key: Any, value: Any, in_table: bool) -> tuple[Any, Any, bool]:
    if in_table and not isinstance(key, str):
        return str(key), _marker(f"the key {key!r} is not text; table keys are names"), False
    if in_table and not _is_unicode(key):
        bad = next(c for c in key if not _is_unicode(c))
        return _shown(key), _marker(f"the key {NOT_UNICODE.format(_shown(bad))}"), False
    ok, out = _scalar(value, key)
    return key, out, not ok


def to_core_value(data: Any) -> Any:
    """A JSON-safe copy of ``data`` with markers in place of values JSON cannot hold."""
    ok, out = _scalar(data)
    return out if ok else _rebuild(data, _core_entry, shared=False)


def _copy_entry(key: Any, value: Any, in_table: bool) -> tuple[Any, Any, bool]:
    return key, value, isinstance(value, (Mapping, list, tuple))


def copy_tables(data: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``data``'s tables and lists (as :func:`copy.deepcopy` makes, shared and
    repeated parts included) without recursion: a table or list nested deeper than
    :data:`MAX_DEPTH` becomes a marker, which the core reports at its path as it does for
    a TOML file (where :func:`to_core_value` puts the same marker), instead of a
    RecursionError. Other values are taken as they are."""
    return dict(_rebuild(data, _copy_entry, shared=True))


def to_core_json(data: Any) -> str:
    """The scenario ``data`` as JSON text for the core (see the module docstring)."""
    return json.dumps(to_core_value(data), allow_nan=False)


def check_seed(seed: Any, where: str) -> int:
    """``seed`` as an int if it is a valid seed (a whole number from 0 to 2^64 - 1), else a
    :class:`ScenarioError` at ``where``."""
    from .errors import ScenarioError

    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ScenarioError.single(where, f"must be a whole number from 0 to {SEED_MAX}")
    if not 0 <= seed <= SEED_MAX:
        raise ScenarioError.single(
            where,
            f"{int_text(seed)} is out of range; a seed is a whole number from 0 to {SEED_MAX}",
        )
    return seed


_MEMORY_UNITS = {
    "": 1,
    "b": 1,
    "kb": 10**3,
    "mb": 10**6,
    "gb": 10**9,
    "tb": 10**12,
    "kib": 2**10,
    "mib": 2**20,
    "gib": 2**30,
    "tib": 2**40,
}


def parse_memory(text: str | int, where: str = "--max-memory") -> int:
    """A memory size in bytes from ``"2GB"``, ``"512MiB"`` or a number of bytes."""
    from .errors import ScenarioError

    if isinstance(text, int) and not isinstance(text, bool):
        if text <= 0:
            raise ScenarioError.single(where, "must be more than zero bytes")
        return text
    m = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([a-zA-Z]*)\s*", str(text))
    unit = m.group(2).lower() if m else ""
    if m is None or unit not in _MEMORY_UNITS:
        raise ScenarioError.single(
            where, f'"{text}" is not a memory size; write e.g. "2GB" or "512MiB"'
        )
    size = float(m.group(1)) * _MEMORY_UNITS[unit]  # inf for too many digits
    n = int(size) if size <= 2**64 - 1 else 0
    if n <= 0:
        raise ScenarioError.single(where, f'"{text}" is out of range; write e.g. "2GB"')
    return n
