"""What the mutant tests (tests/test_mutants.py) and the standalone fuzzer
(tools/fuzz_scenarios.py) mutate: the seed scenarios, the sections of the scenario format
(from its JSON Schema) and where each seed carries them, and the one-value mutation.

A *section* is a label for a part of the format a mutant can reach: every top-level key of
the schema (``run``, ``cells`` for Wi-Fi, ``piconets``, ``spectrum``, ``propagation``,
``bridges``, ``at``, …), ``netem`` (a link's ``impairment``), each qdisc kind
(``qdisc:htb``, wherever it sits in a tree), each application kind (``app:web``) and each
kind of ``[[at]]`` change (``at:link``). :func:`roots` says where in one scenario each
section it carries sits, so that a mutation can be aimed at a section.

The seeds are the shipped scenarios (``scenarios/``), the core's golden fixtures (what the
shipped ones do not exercise: impairment, static routes) and ``tests/mutant_seeds/``
(small scenarios for the sections neither carries; they cannot be shipped scenarios without
re-blessing the golden hashes of every shipped scenario's results).
"""

from __future__ import annotations

import copy
import functools
import json
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import airqueue

REPO = Path(__file__).resolve().parents[1]

SHIPPED = sorted((REPO / "scenarios").rglob("*.toml"))
FIXTURES = sorted((REPO / "crates" / "airqueue" / "tests" / "golden").glob("*.toml"))
EXTRA = sorted((REPO / "tests" / "mutant_seeds").glob("*.toml"))
#: Every scenario mutants start from.
SEEDS = SHIPPED + FIXTURES + EXTRA

Path_ = tuple[Any, ...]


@functools.cache
def schema() -> dict[str, Any]:
    return dict(json.loads(airqueue.schema()))


def _kinds(definition: str) -> list[str]:
    """The ``kind`` values of a tagged union of the schema (``QdiscSpec``, ``AppSpec``)."""
    out = []
    for alt in schema()["$defs"][definition]["oneOf"]:
        kind = alt.get("properties", {}).get("kind", {})
        out.extend([kind["const"]] if "const" in kind else kind.get("enum", []))
    return out


@functools.cache
def qdisc_kinds() -> tuple[str, ...]:
    return tuple(_kinds("QdiscSpec"))


@functools.cache
def sections() -> tuple[str, ...]:
    """Every section of the format, from the schema (see the module's docstring)."""
    top = sorted(schema()["properties"])
    at = sorted(k for k in schema()["$defs"]["AtSpec"]["properties"] if k != "at")
    return (
        *top,
        "netem",
        *(f"qdisc:{k}" for k in qdisc_kinds()),
        *(f"app:{k}" for k in _kinds("AppSpec")),
        *(f"at:{k}" for k in at),
    )


@functools.cache
def required_keys() -> frozenset[str]:
    """Every key some table of the format requires (``name``, ``kind``, ``between``, …)."""
    found: set[str] = set()

    def walk(v: Any) -> None:
        if isinstance(v, dict):
            if isinstance(v.get("required"), list):
                found.update(str(k) for k in v["required"])
            for x in v.values():
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)

    walk(schema())
    return frozenset(found)


def roots(data: dict[str, Any]) -> dict[str, list[Path_]]:
    """Where each section ``data`` carries sits in it (paths of dict keys and list indexes)."""
    out: dict[str, list[Path_]] = {}

    def add(label: str, path: Path_) -> None:
        out.setdefault(label, []).append(path)

    for key in data:
        add(str(key), (key,))
    kinds = set(qdisc_kinds())

    def qdiscs(v: Any, path: Path_) -> None:
        if isinstance(v, dict):
            kind = v.get("kind")
            if isinstance(kind, str) and kind in kinds:
                add(f"qdisc:{kind}", path)
            for k, x in v.items():
                qdiscs(x, (*path, k))
        elif isinstance(v, list):
            for i, x in enumerate(v):
                qdiscs(x, (*path, i))

    qdiscs(data.get("qdiscs"), ("qdiscs",))
    for section, per_entry in (("links", "impairment"), ("flows", "app")):
        entries = data.get(section)
        for i, entry in enumerate(entries if isinstance(entries, list) else []):
            if not isinstance(entry, dict) or per_entry not in entry:
                continue
            if section == "links":
                add("netem", (section, i, per_entry))
            elif isinstance(app := entry[per_entry], dict) and isinstance(app.get("kind"), str):
                add(f"app:{app['kind']}", (section, i, per_entry))
    changes = data.get("at")
    for i, entry in enumerate(changes if isinstance(changes, list) else []):
        for k in entry if isinstance(entry, dict) else ():
            if k != "at":
                add(f"at:{k}", ("at", i))
    return out


@functools.cache
def seed(i: int) -> dict[str, Any]:
    """The ``i``-th seed as read from its file, without its ``[sweep]`` table (which
    never reaches the core)."""
    return airqueue.load_scenario(SEEDS[i]).data


@functools.cache
def seed_roots(i: int) -> dict[str, list[Path_]]:
    return roots(seed(i))


@functools.cache
def carriers() -> dict[str, tuple[int, ...]]:
    """For each section, the seeds that carry it (indexes into :data:`SEEDS`)."""
    out: dict[str, list[int]] = {s: [] for s in sections()}
    for i in range(len(SEEDS)):
        for label in seed_roots(i):
            if label in out:
                out[label].append(i)
    return {k: tuple(v) for k, v in out.items()}


def slots(value: Any, path: Path_ = ()) -> Iterator[Path_]:
    """Every place in a scenario a value sits at (dict keys and list indexes), from ``path``
    (itself included when it is not the root)."""
    if path:
        yield path
    if isinstance(value, dict):
        for k, v in value.items():
            yield from slots(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from slots(v, (*path, i))


def get(data: Any, path: Path_) -> Any:
    for k in path:
        data = data[k]
    return data


#: The mutation of test_mutants: replace a value (three times as often), delete a key or
#: entry, or add an unknown key to a table (a value elsewhere is replaced).
ACTIONS = ("replace", "replace", "replace", "delete", "add")


def mutate(
    data: dict[str, Any],
    pick: Callable[[Sequence[Any]], Any],
    new_value: Callable[[], Any],
    new_key: Callable[[], str],
    under: Path_ = (),
    actions: Sequence[str] = ACTIONS,
) -> tuple[dict[str, Any], str, Path_]:
    """One mutation of a copy of ``data`` at a slot under ``under`` (anywhere if empty),
    drawn with ``pick``; returns the mutant, the action and the slot's path."""
    data = copy.deepcopy(data)
    places = list(slots(get(data, under), under))
    path = pick(places)
    parent: Any = get(data, path[:-1])
    key = path[-1]
    action = pick(actions)
    if action == "replace":
        parent[key] = new_value()
    elif action == "delete":
        del parent[key]
    elif isinstance(parent[key], dict):
        parent[key][new_key()] = new_value()
    else:
        parent[key] = new_value()
    return data, action, path
