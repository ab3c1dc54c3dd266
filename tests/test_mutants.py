"""Property test (hypothesis) over mutated shipped scenarios: whatever one value of a
shipped scenario is replaced with, removed or added, validating it ends cleanly — the
scenario is accepted, or a ScenarioError lists problems each with a field path and a message
free of Rust, serde or Python type names. Any other exception, a crash or a hang is a
failure (issue 18). CI runs ``MUTANTS`` examples (default 2 000, derandomized) within a
bounded time; set ``AIRQUEUE_MUTANTS`` for a longer local run.
"""

from __future__ import annotations

import copy
import functools
import os
from collections.abc import Iterator
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import airqueue
from support import REPO
from test_robustness import SMALL_BUDGET, TYPE_WORDS

MUTANTS = int(os.environ.get("AIRQUEUE_MUTANTS", "2000"))

SHIPPED = sorted((REPO / "scenarios").rglob("*.toml"))


@functools.cache
def shipped(i: int) -> dict[str, Any]:
    return airqueue.load_scenario(SHIPPED[i]).data


def slots(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every place in a scenario a value sits at (dict keys and list indexes)."""
    if path:
        yield path
    if isinstance(value, dict):
        for k, v in value.items():
            yield from slots(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from slots(v, (*path, i))


#: Anything a TOML file, a dict or --set can put in a scenario.
scalars = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from([0, 1, -1, 2**32, 2**63, 2**64 - 1, 2**64, 100_000, 100_001]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.text(max_size=12),
    st.sampled_from(
        ["10Mbit", "1ns", "720h", "0s", "-1s", "1bit", "pfifo", "htb", "tcp", "a.b", "{i}"]
    ),
    st.dates(),
    st.datetimes(),
    st.times(),
    st.binary(max_size=4),
    st.none(),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.text(max_size=6), inner, max_size=3),
    ),
    max_leaves=6,
)


def mutate(data: dict[str, Any], draw: Any) -> dict[str, Any]:
    """One mutation: replace a value, delete a key or entry, or add an unknown key."""
    data = copy.deepcopy(data)
    places = list(slots(data))
    path = draw(st.sampled_from(places))
    parent: Any = data
    for k in path[:-1]:
        parent = parent[k]
    key = path[-1]
    action = draw(st.sampled_from(["replace", "replace", "replace", "delete", "add"]))
    if action == "replace":
        parent[key] = draw(values)
    elif action == "delete":
        del parent[key]
    elif isinstance(parent[key], dict):
        parent[key][draw(st.text(min_size=1, max_size=8))] = draw(values)
    else:
        parent[key] = draw(values)
    return data


@st.composite
def mutants(draw: Any) -> dict[str, Any]:
    base = shipped(draw(st.integers(0, len(SHIPPED) - 1)))
    data = mutate(base, draw)
    if draw(st.booleans()):
        data = mutate(data, draw)
    return data


def test_the_shipped_scenarios_are_there() -> None:
    assert len(SHIPPED) >= 8


@settings(
    max_examples=MUTANTS,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(mutants())
def test_every_mutant_of_a_shipped_scenario_ends_cleanly(data: dict[str, Any]) -> None:
    try:
        airqueue.load_scenario(data).check(max_memory=SMALL_BUDGET)
    except airqueue.ScenarioError as e:
        assert e.problems, str(e)
        for path, message in e.problems:
            assert path and message, e.problems
            assert not TYPE_WORDS.search(message), f"{path}: {message}"
