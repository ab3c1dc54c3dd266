"""Property test (hypothesis) over mutated seed scenarios: whatever one value of a
shipped scenario is replaced with, removed or added, validating it ends cleanly — the
scenario is accepted, or a ScenarioError lists problems each with a field path and a message
free of Rust, serde or Python type names. Any other exception, a crash or a hang is a
failure (issue 18). CI runs ``MUTANTS`` examples (default 2 000, derandomized) within a
bounded time; set ``AIRQUEUE_MUTANTS`` for a longer local run.

The examples are spread over the sections of the format (issue 33): each draws a section
(tests/mutation.py: every top-level key of the schema, netem, each qdisc, application and
``[[at]]`` change kind), then a seed scenario carrying it, then a slot under it, so that a
section only one small scenario carries is reached as often as ``flows``.
tools/fuzz_scenarios.py is the longer, standalone version (more operators, the CLI).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import airqueue
import mutation
from mutation import SEEDS, SHIPPED, carriers, mutate, sections, seed, seed_roots
from test_robustness import SMALL_BUDGET, TYPE_WORDS

MUTANTS = int(os.environ.get("AIRQUEUE_MUTANTS", "2000"))

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


@st.composite
def mutants(draw: Any) -> dict[str, Any]:
    """A section, a seed carrying it, one mutation under it; half the time one more
    anywhere in the scenario."""

    def pick(xs: Sequence[Any]) -> Any:
        return draw(st.sampled_from(xs))

    def new_value() -> Any:
        return draw(values)

    def new_key() -> str:
        return str(draw(st.text(min_size=1, max_size=8)))

    section = pick(sections())
    i = pick(carriers()[section])
    data, _, _ = mutate(seed(i), pick, new_value, new_key, under=pick(seed_roots(i)[section]))
    if draw(st.booleans()):
        data, _, _ = mutate(data, pick, new_value, new_key)
    return data


def test_the_shipped_scenarios_are_there() -> None:
    assert len(SHIPPED) >= 8
    assert len(SEEDS) > len(SHIPPED)


def test_every_section_of_the_format_has_a_seed_carrying_it() -> None:
    """Otherwise no mutant reaches it. The sections come from the schema, so a new
    top-level section, qdisc, application or change kind fails here until a shipped
    scenario, or a file in tests/mutant_seeds/, carries it."""
    missing = [s for s, found in carriers().items() if not found]
    assert not missing, f"no seed scenario carries {missing}"
    assert {"cells", "piconets", "spectrum", "propagation", "bridges", "at", "netem"} <= set(
        sections()
    )
    assert {"qdisc:pfifo", "qdisc:htb", "qdisc:cake", "app:bulk"} <= set(sections())


def test_the_extra_seeds_are_valid_scenarios() -> None:
    """A seed that does not validate would only exercise its own error."""
    for path in mutation.EXTRA + mutation.FIXTURES:
        airqueue.load_scenario(path).check(max_memory=SMALL_BUDGET)


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
