"""The qdisc zoo end to end: ``scenarios/examples/qdisc-zoo.toml`` is listed with its
description, validates against the schema, and one run compares five trees on mirrored
traffic in one flow table (the detailed per-tree checks are in
``crates/airqueue/tests/qdisc_zoo.rs``)."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import jsonschema
import pytest

import airqueue
from support import EXAMPLES, airqueue_cli

ZOO = EXAMPLES / "qdisc-zoo.toml"
TREES = ("pfifo", "fq_codel", "htb_sfq", "prio_tbf", "stfq")
#: Seconds measured: duration 40 s minus warm-up 10 s.
WINDOW_S = 30.0


@pytest.fixture(scope="module")
def zoo() -> airqueue.Result:
    return airqueue.run(ZOO)


def test_list_scenarios_describes_the_zoo() -> None:
    proc = airqueue_cli("list", "scenarios", EXAMPLES)
    assert proc.returncode == 0, proc.stderr
    assert "qdisc-zoo.toml" in proc.stdout
    assert "qdisc zoo" in proc.stdout


@pytest.mark.parametrize("example", [ZOO, EXAMPLES / "nap-imq-htb.toml"], ids=lambda p: p.stem)
def test_the_schema_validates_the_classful_examples(example: Path) -> None:
    # Both name flows or interfaces in `match` tables by a single string (`flow = "x"`).
    proc = airqueue_cli("schema")
    assert proc.returncode == 0, proc.stderr
    jsonschema.Draft202012Validator(json.loads(proc.stdout)).validate(
        tomllib.loads(example.read_text())
    )


def test_one_flow_table_holds_the_same_traffic_under_every_tree(zoo: airqueue.Result) -> None:
    assert zoo.conservation_ok
    flows = zoo.flows.set_index("flow")
    for tree in TREES:
        names = [f"{tree}_bulk{i}" for i in range(4)] + [f"{tree}_voice", f"{tree}_udp"]
        assert set(names) <= set(flows.index), tree
        # The voice call is 50 packets/s whatever the tree: none lost.
        assert flows.loc[f"{tree}_voice", "drops"] == 0


def test_the_trees_differ_as_their_references_say(zoo: airqueue.Result) -> None:
    flows = zoo.flows.set_index("flow")
    # RFC 8290: the sparse voice flow bypasses the bulk queues under fq_codel, while the
    # 1000-packet FIFO makes it wait behind the standing queue (hundreds of ms).
    voice_p99 = flows.loc[["fq_codel_voice", "pfifo_voice"], "delay_p99_ms"]
    assert voice_p99["fq_codel_voice"] * 5 < voice_p99["pfifo_voice"]
    # HTB (ceil = rate) and TBF hold their saturated classes at the configured rates.
    classes = zoo.classes.set_index(["queue", "class"])
    for (dev, cls), rate in {
        ("router.htb_sfq", "udp"): 1.5e6,
        ("router.htb_sfq", "bulk"): 7.5e6,
        ("router.prio_tbf", "udp"): 1.5e6,
        ("router.prio_tbf", "bulk"): 8e6,
    }.items():
        got = classes.loc[(dev, cls), "dequeued_bytes"] * 8 / WINDOW_S
        assert got == pytest.approx(rate, rel=0.02), (dev, cls)
    # STFQ: weights 3 : 1 between the two bulk classes.
    a = flows.loc[["stfq_bulk0", "stfq_bulk1"], "goodput_bps"].sum()
    b = flows.loc[["stfq_bulk2", "stfq_bulk3"], "goodput_bps"].sum()
    assert a / b == pytest.approx(3.0, rel=0.03)
