"""Quantities in ``tc``'s own units, read from a scenario and written as ``tc`` prints them.

A scenario writes rates, sizes and durations as strings (``"10Mbit"``, ``"10KB"``,
``"437.5ms"``, docs/scenario-reference.md, "Units"); these are read here to whole numbers
(bit/s, bytes, nanoseconds) with :func:`airqueue.quantities.to_base`, the core's own
multipliers (``KB`` = 1000 B in a scenario, where ``tc`` reads ``KB`` as 1024 B: a size is
therefore never passed through as written).

Written back, each value takes the form iproute2's printing gives it (``lib/json_print.c``
``print_color_rate``: ``12Mbit``, ``723200bit``; ``lib/json_print_math.c``
``sprint_size``: ``10Kb``, ``1597b``; ``lib/utils.c`` ``print_time``: ``50ms``), except
that a value those printers would round is written exactly (``437.5ms``, ``723.2kbit``),
which ``tc`` parses as well: exporting never changes a number.

The kernel keeps an HTB or TBF burst as a time in scheduler ticks
(``tc/tc_core.c`` ``tc_calc_xmittime``/``tc_calc_xmitsize``, ``/proc/net/psched``), so
what ``tc`` reads back differs from the burst given by a byte or so (``10240`` → ``10239``);
:func:`burst_as_read_back` computes that value.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from airqueue.quantities import BYTES, DURATION, PROBABILITY, RATE, to_base

#: ``TIME_UNITS_PER_SEC`` of iproute2 (tc's times are microseconds).
TIME_UNITS_PER_SEC = 1_000_000


class UnitError(ValueError):
    """A value that is not the quantity it should be."""


def rate_bps(value: Any) -> int:
    """A rate (``"10Mbit"``, or a number of bit/s) in whole bits per second."""
    v = to_base(RATE, value) if isinstance(value, str) else value
    if v is None or isinstance(v, bool):
        raise UnitError(f"{value!r} is not a rate")
    return round(float(v))


def size_bytes(value: Any) -> int:
    """A size (``1500``, ``"10KB"``, ``"64KiB"``) in whole bytes."""
    v = to_base(BYTES, value) if isinstance(value, str) else value
    if v is None or isinstance(v, bool):
        raise UnitError(f"{value!r} is not a size")
    return round(float(v))


def duration_ns(value: Any) -> int:
    """A duration (``"20ms"``) in whole nanoseconds."""
    v = to_base(DURATION, value) if isinstance(value, str) else value
    if v is None or isinstance(v, bool):
        raise UnitError(f"{value!r} is not a duration")
    return round(float(v) * 1e9) if isinstance(value, str) else round(float(v))


def probability(value: Any) -> float:
    """A probability (``0.01`` or ``"1%"``) as a fraction."""
    v = to_base(PROBABILITY, value)
    if v is None:
        raise UnitError(f"{value!r} is not a probability")
    return float(v)


def _g(x: float) -> str:
    """A number without a trailing ``.0`` and without exponent for ordinary values."""
    if x == int(x):
        return str(int(x))
    return f"{x:.9f}".rstrip("0").rstrip(".")


def tc_rate(bps: int) -> str:
    """A rate as ``tc`` prints it (``print_color_rate``: SI steps while the value divides
    exactly, or is at least 1000 of the next unit), exact: where tc's printer would
    truncate (``12345678bit`` → ``12Mbit``) the decimal is kept (``12.345678Mbit``)."""
    units = ["", "K", "M", "G", "T"]
    rate = bps
    i = 0
    while i < len(units) - 1:
        if rate < 1000:
            break
        if rate % 1000 != 0 and rate < 1000 * 1000:
            break
        rate //= 1000
        i += 1
    exact = bps / (1000**i)
    return f"{_g(exact)}{units[i]}bit"


def tc_rate_printed(bytes_per_s: int) -> str:
    """Exactly what ``tc`` 6.1 prints for a rate the kernel holds (bytes/s), truncation
    included: the form ``tc class show`` gives and the round trip compares."""
    units = ["", "K", "M", "G", "T"]
    rate = bytes_per_s * 8
    i = 0
    while i < len(units) - 1:
        if rate < 1000:
            break
        if rate % 1000 != 0 and rate < 1000 * 1000:
            break
        rate //= 1000
        i += 1
    return f"{rate}{units[i]}bit"


def tc_size(n: int) -> str:
    """A size as ``tc`` prints it (``sprint_size``: ``Gb``/``Mb``/``Kb`` of 1024 when
    within tc's tolerance, else bytes), exact: a multiple is used only when it is exact."""
    for mult, unit in ((1024**3, "Gb"), (1024**2, "Mb"), (1024, "Kb")):
        if n >= mult and n % mult == 0:
            return f"{n // mult}{unit}"
    return f"{n}b"


def tc_size_printed(n: int) -> str:
    """Exactly what ``tc``'s ``sprint_size`` prints (``10239`` → ``10Kb``)."""
    for mult, unit, tol in ((1024**3, "Gb", 1024), (1024**2, "Mb", 1024), (1024, "Kb", 16)):
        if n >= mult and abs(mult * round(n / mult) - n) < tol:
            return f"{_g(float(round(n / mult)))}{unit}"
    return f"{n}b"


def tc_time(ns: int) -> str:
    """A duration in tc's units (``s``, ``ms``, ``us`` as ``print_time`` chooses them), exact
    to the microsecond tc keeps (``437.5ms``)."""
    us = ns / 1000
    if us >= TIME_UNITS_PER_SEC:
        return f"{_g(us / TIME_UNITS_PER_SEC)}s"
    if us >= 1000:
        return f"{_g(us / 1000)}ms"
    return f"{_g(us)}us"


def tc_percent(p: float) -> str:
    """A probability as netem writes it (``1%``); to 6 decimals of a percent, as the kernel
    keeps it (a fraction of 2^32 - 1, which reads 25% back as 24.999999988%)."""
    return f"{_g(round(p * 100, 6))}%"


def psched_tick_in_usec(path: Path = Path("/proc/net/psched")) -> float:
    """``tick_in_usec`` of ``tc_core_init`` (t2us / us2t * clock_factor); 15.625 on every
    current kernel (the values iproute2 falls back to when the file is absent)."""
    try:
        t2us, us2t, clock_res, _ = (int(x, 16) for x in path.read_text().split()[:4])
    except (OSError, ValueError):
        return 1000 / 64
    clock_factor = (clock_res / TIME_UNITS_PER_SEC) if clock_res != 1000000000 else 1
    return t2us / us2t * clock_factor


def burst_as_read_back(rate_bytes_per_s: int, size: int) -> int:
    """The burst ``tc`` prints back for ``size`` bytes at ``rate`` (``tc_calc_xmittime``
    then ``tc_calc_xmitsize``: the kernel keeps the time in ticks)."""
    if rate_bytes_per_s <= 0:
        return size
    tick = psched_tick_in_usec()
    ticks = math.ceil(tick * TIME_UNITS_PER_SEC * (size / rate_bytes_per_s))
    return int(rate_bytes_per_s * (ticks / tick) / TIME_UNITS_PER_SEC)


def parse_tc_rate(text: str) -> int:
    """A rate as tc prints it (``12Mbit``, ``723200bit``, ``1Gibit``) in bit/s."""
    return rate_bps(text)


def parse_tc_size(text: str) -> int:
    """A size as tc prints it (``10Kb``, ``1597b``, ``1Mb``: 1024-based; ``-d`` appends the
    cell size, ``1597b/1``) in bytes."""
    t = text.strip().split("/")[0]
    for suffix, mult in (("Gb", 1024**3), ("Mb", 1024**2), ("Kb", 1024), ("b", 1)):
        if t.endswith(suffix):
            try:
                return round(float(t[: -len(suffix)]) * mult)
            except ValueError:
                break
    try:
        return int(t)
    except ValueError:
        raise UnitError(f"{text!r} is not a size as tc prints it (e.g. 10Kb, 1597b)") from None


def parse_tc_time(text: str) -> int:
    """A time as tc prints it (``50ms``, ``1.5s``, ``250us``) in nanoseconds."""
    t = text.strip()
    for suffix, mult in (("us", 1e3), ("ms", 1e6), ("sec", 1e9), ("s", 1e9)):
        if t.endswith(suffix):
            try:
                return round(float(t[: -len(suffix)]) * mult)
            except ValueError:
                break
    raise UnitError(f"{text!r} is not a time as tc prints it (e.g. 50ms)")


def scenario_time(ns: int) -> str:
    """A duration in nanoseconds as a scenario writes it (``"50ms"``)."""
    for mult, unit in ((1_000_000_000, "s"), (1_000_000, "ms"), (1000, "us")):
        if ns >= mult and ns % mult == 0:
            return f"{ns // mult}{unit}"
    if ns >= 1_000_000:
        return f"{_g(ns / 1e6)}ms"
    return f"{ns}ns"


def scenario_rate(bps: int) -> str:
    """A rate in bit/s as a scenario writes it (``"12Mbit"``)."""
    return tc_rate(bps)
