"""Scenarios: loading TOML (or a dict), applying ``--set`` overrides, validating.

A scenario stays a plain dict of the TOML's contents until it is handed to the core,
which parses, expands ``count`` and validates it, and returns the resolved form.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import _native, shipped
from .errors import InternalError, ScenarioError
from .values import LongInteger, _is_unicode, copy_tables, to_core_json, to_core_value

#: The top-level table that describes a sweep; handled here, never passed to the core.
SWEEP_SECTION = "sweep"

#: The key that names the entries of each list section, for ``--set`` paths.
NAME_KEYS = ("name", "dev", "node")


#: ``duration = 10s``: a number with a unit, not quoted (TOML reads only the number).
_UNQUOTED_UNIT = re.compile(
    r"^\s*([\w.\-\"]+)\s*=\s*(-?\d[\d_.]*(?:[eE]-?\d+)?\s*[A-Za-zµ%][\w%/]*)"
)
_ERROR_LINE = re.compile(r"at line (\d+)")


def unquoted_unit_hint(text: str, error: Exception) -> str:
    """A hint for the commonest TOML mistake in scenarios, a value with a unit written
    without quotes (``duration = 10s``): TOML has no such values, they are strings."""
    m = _ERROR_LINE.search(str(error))
    lines = text.splitlines()
    if m is None or not 1 <= int(m.group(1)) <= len(lines):
        return ""
    line = lines[int(m.group(1)) - 1]
    # Inline tables: look at every `key = value` of the line.
    for part in re.split(r"[{,]", line):
        u = _UNQUOTED_UNIT.match(part)
        if u is not None:
            key, value = u.group(1), u.group(2).strip()
            return f'; hint: a value with a unit is a string in TOML: write {key} = "{value}"'
    return ""


#: A decimal integer literal (signed, with underscores) that is not part of a float, a
#: date or a dotted key; only the ones too long for Python to read are looked at.
_DECIMAL_INTEGER = re.compile(r"(?<![\w.+\-:])([+-]?)(\d(?:_?\d)*)(?![\w.:\-])")
#: The float literal that stands in for the N-th too long integer (see :func:`loads_toml`).
_STAND_IN = "0.{}e-0042424242"
_STAND_IN_RE = re.compile(r"0\.(\d+)e-0042424242")


def loads_toml(text: str) -> dict[str, Any]:
    """``tomllib.loads(text)``, except that a whole number with more digits than Python
    reads (``sys.get_int_max_str_digits()``, 4300) does not raise ValueError: the file is
    read again with each such number replaced by a :class:`~airqueue.values.LongInteger`
    and returned with markers in its place (:func:`~airqueue.values.to_core_value`),
    which the core reports at the number's field path with the setting's range."""
    import tomllib  # here: the core reads scenario files; Python only where it must

    try:
        return tomllib.loads(text)
    except ValueError as e:
        if isinstance(e, tomllib.TOMLDecodeError) or "digits" not in str(e):
            raise
    limit = sys.get_int_max_str_digits()
    found: list[LongInteger] = []

    def stand_in(m: re.Match[str]) -> str:
        digits = len(m.group(2).replace("_", ""))
        if digits <= limit:
            return m.group(0)
        found.append(LongInteger(digits, m.group(1) == "-"))
        return _STAND_IN.format(len(found) - 1)

    def parse_float(literal: str) -> Any:
        m = _STAND_IN_RE.fullmatch(literal)
        return found[int(m.group(1))] if m else float(literal)

    data = tomllib.loads(_DECIMAL_INTEGER.sub(stand_in, text), parse_float=parse_float)
    return dict(to_core_value(data))


def _undecodable(path: Path, e: UnicodeDecodeError) -> ScenarioError:
    """Where a file that is not UTF-8 has its first bad byte, and what to do about it."""
    raw = e.object if isinstance(e.object, bytes) else bytes(e.object)
    line_start = raw.rfind(b"\n", 0, e.start) + 1
    line = raw.count(b"\n", 0, e.start) + 1
    column = len(raw[line_start : e.start].decode("utf-8", errors="replace")) + 1
    return ScenarioError.single(
        str(path),
        f"is not UTF-8 text: line {line}, column {column} has the byte "
        f"0x{raw[e.start]:02X}, which UTF-8 does not allow there; save the file as UTF-8 "
        "(an editor's 'save with encoding', or iconv -f latin1 -t utf-8 if it is Latin-1)",
    )


@dataclass
class Scenario:
    """A scenario as written (after overrides), with where it came from."""

    data: dict[str, Any]
    source: Path | None = None
    overrides: dict[str, Any] = field(default_factory=dict)
    #: The file's ``[sweep]`` table (grid and seeds for ``airqueue sweep``), taken out of
    #: ``data``: the core only ever sees one run's scenario, and ``run`` runs the base point.
    sweep: dict[str, Any] | None = None

    def to_json(self) -> str:
        """The scenario as JSON for the core; values JSON cannot hold become markers that
        the core reports with their field path (see :mod:`airqueue.values`)."""
        return to_core_json(self.data)

    def resolved(self) -> dict[str, Any]:
        """Validates the scenario and returns it resolved (counts expanded, defaults filled in).

        Raises :class:`ScenarioError` listing every problem with its field path.
        """
        return json.loads(call_native(_native.validate, self.to_json()))

    def check(self, max_memory: int | None = None) -> tuple[dict[str, Any], list[tuple[str, str]]]:
        """Validates and builds the scenario (with the memory budget ``max_memory`` in
        bytes, default the core's: half of what the tightest of this machine's memory, its
        cgroup's limit and ``ulimit -v`` leaves) and returns it resolved, with its
        warnings as (path, message) pairs. Raises :class:`ScenarioError` like
        :meth:`resolved`."""
        text, warnings = call_native(_native.check, self.to_json(), max_memory)
        return json.loads(text), [(str(p), str(m)) for p, m in warnings]

    def counts(self, max_memory: int | None = None) -> tuple[dict[str, int], list[tuple[str, str]]]:
        """Validates and builds the scenario as :meth:`check` does and returns the number
        of entries in each list section after ``count`` expansion (``{"nodes": 3, "flows":
        5, ...}``; empty sections left out) with the warnings, without the resolved
        scenario (what ``airqueue validate`` prints; cheap for very large scenarios)."""
        counts, warnings = call_native(_native.check_counts, self.to_json(), max_memory)
        return {str(k): int(n) for k, n in counts}, [(str(p), str(m)) for p, m in warnings]

    def resolved_toml(self) -> str:
        import tomli_w

        return tomli_w.dumps(self.resolved())

    @property
    def has_sweep(self) -> bool:
        """Whether the file has a ``[sweep]`` table (see :attr:`sweep`)."""
        return self.sweep is not None

    @property
    def description(self) -> str:
        return str(self.data.get("description", ""))


class _CoreRead(Scenario):
    """A scenario file the core parsed, overrides applied (issue 37: Python's ``tomllib``
    and the value-by-value copy for the core took most of ``airqueue validate``'s time on
    a 10 000-host file). The core's JSON is what :meth:`to_json` gives; :attr:`data` and
    :attr:`sweep` are read with Python's parser on first use (a sweep, the API), and once
    :attr:`data` was handed out (and may have been changed), :meth:`to_json` is made
    from it."""

    def __init__(
        self,
        text: str,
        source: Path,
        overrides: dict[str, Any],
        core_json: str,
        has_sweep: bool,
    ) -> None:
        self._text = text
        self.source = source
        self.overrides = overrides
        self._core_json: str | None = core_json
        self._has_sweep = has_sweep
        self._read: tuple[dict[str, Any], dict[str, Any] | None] | None = None

    def _python_read(self) -> tuple[dict[str, Any], dict[str, Any] | None]:
        if self._read is None:
            data, sweep = _parse_text(self._text, self.source)
            for k, v in self.overrides.items():
                set_path(data, k, v)
            self._read = (data, sweep)
        return self._read

    @property  # type: ignore[override]
    def data(self) -> dict[str, Any]:
        self._core_json = None
        return self._python_read()[0]

    @data.setter
    def data(self, value: dict[str, Any]) -> None:
        self._core_json = None
        self._read = (value, self._python_read()[1])

    @property  # type: ignore[override]
    def sweep(self) -> dict[str, Any] | None:
        return self._python_read()[1]

    @sweep.setter
    def sweep(self, value: dict[str, Any] | None) -> None:
        self._read = (self._python_read()[0], value)
        self._has_sweep = value is not None

    @property
    def has_sweep(self) -> bool:
        return self._has_sweep if self._read is None else self._read[1] is not None

    def to_json(self) -> str:
        return self._core_json if self._core_json is not None else super().to_json()


def call_native(fn: Any, *args: Any, **kwargs: Any) -> Any:
    """Calls into the core, turning its exceptions into this package's classes."""
    try:
        return fn(*args, **kwargs)
    except _native.ScenarioError as e:
        raise ScenarioError(*e.args) from None
    except _native.InternalError as e:
        raise InternalError(*e.args) from None


def parse_value(text: str, key: str = "v") -> Any:
    """Reads an override value as TOML would (numbers, booleans, arrays, inline tables,
    quoted strings); anything else is taken as a bare string (``1Gbit``, ``10s``). ``key``
    (the last part of the path it is set at) names the setting in what is said about a
    number out of every range (a ``seed`` is told its own)."""
    import tomllib

    name = key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else "v"
    try:
        return loads_toml(f"{name} = {text}")[name]
    except (tomllib.TOMLDecodeError, RecursionError):
        return text


def _entry_key(entry: Any) -> str | None:
    if isinstance(entry, Mapping):
        for k in NAME_KEYS:
            if isinstance(entry.get(k), str):
                return str(entry[k])
    return None


def _copy_of_counted(items: list[Any], name: str) -> str | None:
    """If ``name`` is one of the copies of an entry with ``count``, the template's name."""
    for e in items:
        if not isinstance(e, Mapping) or "count" not in e or not isinstance(e.get("name"), str):
            continue
        template = e["name"]
        pattern = (
            re.escape(template).replace(re.escape("{i}"), r"\d+")
            if "{i}" in template
            else re.escape(template) + r"\d+"
        )
        if re.fullmatch(pattern, name):
            return str(template)
    return None


def set_path(data: dict[str, Any], path: str, value: Any) -> None:
    """Sets ``value`` at a dotted ``path`` that addresses list entries by name (or ``dev``,
    or index): ``links.bottleneck.rate``, ``qdiscs.router.bottleneck.limit``, ``flows.0.start``;
    ``*`` addresses every entry (``flows.*.app.rate``, ``piconets.*.flow_control.buffer``).
    Missing tables along the way are created."""
    parts = path.split(".")
    if not path or any(p == "" for p in parts):
        raise ScenarioError.single(f"--set {path}", "is not a dotted path such as run.duration")
    node: Any = data
    i = 0
    walked: list[str] = []
    while i < len(parts):
        last = i == len(parts) - 1
        if isinstance(node, list) and parts[i] == "*":
            # Every entry of the list: `flows.*.app.rate` sets all flows' rates at once.
            if last:
                raise ScenarioError.single(
                    f"--set {path}", "addresses whole entries; name one of their keys after *"
                )
            for entry in node:
                set_path(entry, ".".join(parts[i + 1 :]), value)
            return
        if isinstance(node, list):
            # Longest run of segments that names an entry (names like router.bottleneck).
            match = None
            for j in range(len(parts), i, -1):
                cand = ".".join(parts[i:j])
                for e in node:
                    if _entry_key(e) == cand:
                        match = (e, j)
                        break
                if match:
                    break
            if match is None and parts[i].isdigit() and int(parts[i]) < len(node):
                match = (node[int(parts[i])], i + 1)
            where = ".".join(walked)
            if match is None:
                counted = _copy_of_counted(node, parts[i])
                hint = (
                    f"it is a copy of {where}.{counted} (count); set {where}.{counted}.… "
                    "to change all copies"
                    if counted
                    else "known: " + ", ".join(k for e in node if (k := _entry_key(e)))
                )
                raise ScenarioError.single(
                    f"--set {path}", f'no entry "{parts[i]}" in {where}; {hint}'
                )
            entry, j = match
            walked.append(".".join(parts[i:j]))
            if j == len(parts):
                raise ScenarioError.single(
                    f"--set {path}", "addresses a whole entry; name one of its keys"
                )
            node, i = entry, j
            continue
        if not isinstance(node, dict):
            raise ScenarioError.single(
                f"--set {path}", f"{'.'.join(walked)} is a value, not a table"
            )
        key = parts[i]
        walked.append(key)
        if last:
            node[key] = value
            return
        if key not in node:
            node[key] = {}
        node = node[key]
        i += 1


def parse_assignments(items: Iterable[str]) -> dict[str, Any]:
    """``["a.b=1", "c=x"]`` → ``{"a.b": 1, "c": "x"}``."""
    out: dict[str, Any] = {}
    for item in items:
        if "=" not in item:
            raise ScenarioError.single(f"--set {item}", "write PATH=VALUE, e.g. run.duration=10s")
        k, v = item.split("=", 1)
        path = k.strip()
        out[path] = parse_value(v.strip(), path.rsplit(".", 1)[-1])
    return out


def _exists(path: Path) -> bool:
    """``path.exists()``, false for a name the system cannot even look up (too long, a NUL
    byte): reading it then says why."""
    try:
        return path.exists()
    except (OSError, ValueError):
        return False


def load_scenario(
    source: str | Path | Mapping[str, Any],
    set: Mapping[str, Any] | Iterable[str] | None = None,
) -> Scenario:
    """Loads a scenario from a TOML file path or a dict, and applies overrides.

    ``set`` maps dotted paths to values (``{"links.bottleneck.rate": "1Gbit"}``) or is a
    list of ``PATH=VALUE`` strings as on the command line. Raises :class:`ScenarioError`
    for unreadable files, TOML syntax errors and bad override paths; the scenario's own
    problems are reported by :meth:`Scenario.resolved` or :func:`airqueue.run`.
    """
    path: Path | None = None
    if isinstance(source, Mapping):
        data = copy_tables(source)
    else:
        if isinstance(source, str) and "\n" in source:
            raise ScenarioError.single(
                "scenario",
                "is a string with line breaks, i.e. TOML text, where a file path was expected; "
                "pass the file's path, or the parsed table (`tomllib.loads(text)`)",
            )
        path = _read_path(source)
        text = _read_text(path)
        try:
            overrides = _overrides(set)
        except ScenarioError:
            _parse_text(text, path)  # the file's own syntax error is reported first
            raise
        core = _core_read(text, overrides)
        if core is not None:
            return _CoreRead(text, path, overrides, *core)
        data, sweep = _parse_text(text, path)
        for k, v in overrides.items():
            set_path(data, k, v)
        return Scenario(data=data, source=path, overrides=overrides, sweep=sweep)
    sweep = data.pop(SWEEP_SECTION, None)
    overrides = _overrides(set)
    for k, v in overrides.items():
        set_path(data, k, v)
    return Scenario(data=data, source=path, overrides=overrides, sweep=sweep)


def _overrides(set: Mapping[str, Any] | Iterable[str] | None) -> dict[str, Any]:
    """``load_scenario``'s ``set`` as a dict of dotted path to value."""
    if set is None:
        return {}
    return dict(set) if isinstance(set, Mapping) else parse_assignments(set)


def _read_path(source: str | Path) -> Path:
    """The file ``source`` names: as given, or the shipped scenario of that name."""
    path = Path(source)
    if not _exists(path) and (found := shipped.find(path)) is not None:
        path = found
    return path


def _read_text(path: Path) -> str:
    """A scenario file's text, or a :class:`ScenarioError` saying why it cannot be read."""
    try:
        # utf-8-sig: a byte order mark (which some Windows editors write) is not part
        # of the text, as for the core's TOML parser; tomllib would call it an
        # "Invalid statement (at line 1, column 1)".
        return path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise ScenarioError.single(
            str(path),
            "no such file, and no scenario shipped with airqueue has this name "
            "(`airqueue list scenarios` lists them, e.g. examples/udp-bottleneck)",
        ) from None
    except UnicodeDecodeError as e:
        raise _undecodable(path, e) from None
    except (OSError, ValueError) as e:
        raise ScenarioError.single(str(path), f"cannot be read: {e}") from None


def _parse_text(text: str, path: Path) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """A scenario file's tables read with Python's parser, and its ``[sweep]`` table
    (taken out)."""
    import tomllib

    try:
        data = loads_toml(text)
    except tomllib.TOMLDecodeError as e:
        raise ScenarioError.single(
            str(path), f"is not valid TOML: {e}{unquoted_unit_hint(text, e)}"
        ) from None
    except RecursionError:
        raise ScenarioError.single(
            str(path), "nests tables or lists too deeply to read; no scenario needs that"
        ) from None
    return data, data.pop(SWEEP_SECTION, None)


def _core_read(text: str, overrides: dict[str, Any]) -> tuple[str, bool] | None:
    """The core's reading of a scenario file's text with ``overrides`` applied: (the
    scenario's JSON for the core, whether it has a ``[sweep]`` table), or None where the
    answer is Python's to give (see ``prepare_toml`` in crates/airqueue/src/scenario/text.rs:
    TOML 1.1 syntax, dates, NaN, an override path Python refuses)."""
    if not all(isinstance(k, str) and _is_unicode(k) for k in overrides):
        return None
    # Each value as Python's walk of the whole scenario makes it, under its key (a
    # `seed` out of range is told its own range).
    pairs = [
        [k, to_core_value({(key := k.rsplit(".", 1)[-1]): v})[key]] for k, v in overrides.items()
    ]
    return call_native(_native.prepare_toml, text, json.dumps(pairs, allow_nan=False))
