"""`nodes.*.address`: a node's own IPv4 address instead of the plan's (10.0.0.0/8 + node index
+ 1): packets carry it, `tc export` matches on it, and bad or clashing addresses are refused
naming the field (docs/scenario-reference.md). Live mode's use of it: tests/test_live.py."""

from __future__ import annotations

from typing import Any

import pytest

import airqueue
from airqueue.tc.export import context_of


def scenario(**addresses: str) -> dict[str, Any]:
    nodes = []
    for name in ("a", "r", "b"):
        n: dict[str, Any] = {"name": name}
        if name == "r":
            n["kind"] = "router"
        if name in addresses:
            n["address"] = addresses[name]
        nodes.append(n)
    return {
        "run": {"duration": "1s"},
        "nodes": nodes,
        "links": [
            {"name": "l1", "between": ["a", "r"], "rate": "10Mbit"},
            {"name": "l2", "between": ["r", "b"], "rate": "10Mbit"},
        ],
        "flows": [
            {
                "name": "f",
                "from": "a",
                "to": "b",
                "app": {"kind": "cbr", "rate": "1Mbit", "size": 1000},
            }
        ],
    }


def test_a_written_address_is_the_nodes_and_the_others_keep_the_plan() -> None:
    sc = airqueue.load_scenario(scenario(b="192.168.7.2"))
    ctx = context_of(sc.data)
    # a is node 0 of the plan (10.0.0.1), r node 1 (10.0.0.2); b wrote its own.
    assert ctx.addresses == {"a": 0x0A000001, "r": 0x0A000002, "b": 0xC0A80702}
    r = airqueue.run(sc)
    assert r.flows.set_index("flow").loc["f", "rx_packets"] > 0


@pytest.mark.parametrize(
    ("addresses", "path", "words"),
    [
        ({"b": "10.0.0.1"}, "nodes.b.address", 'node "a"'),  # a's planned address
        ({"a": "192.168.0.9", "b": "192.168.0.9"}, "nodes.b.address", 'node "a"'),
        ({"b": "224.0.0.5"}, "nodes.b.address", "not a unicast"),
        ({"b": "127.0.0.1"}, "nodes.b.address", "not a unicast"),
        ({"b": "10.0.0.300"}, "nodes.b.address", ""),
    ],
)
def test_a_clashing_or_non_unicast_address_is_refused_by_field(
    addresses: dict[str, str], path: str, words: str
) -> None:
    with pytest.raises(airqueue.ScenarioError) as e:
        airqueue.load_scenario(scenario(**addresses)).check()
    assert path in str(e.value) and words in str(e.value), str(e.value)


def test_an_address_on_a_count_entry_is_refused() -> None:
    s = scenario()
    s["nodes"].append({"name": "h{i}", "count": 3, "address": "192.168.1.1"})
    with pytest.raises(airqueue.ScenarioError) as e:
        airqueue.load_scenario(s).check()
    assert "nodes.h{i}.address" in str(e.value) and "count" in str(e.value)
