"""`airqueue tc import`: a device's `tc` listings to a `[[qdiscs]]` entry (docs/tc.md).

The listings in tests/data/tc were printed by iproute2 6.1 (`tc -j -s -d qdisc show`,
`tc -s -d class show`, `tc -j filter show`) for the tree `airqueue tc export
tests/data/tc/round-trip.toml --node r` puts on r.down; HTB's classes are text in 6.1 even
with `-j`, and u32's JSON repeats the key "match" (both read here).
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from airqueue.tc.import_ import ImportError_, Listing, import_tree
from support import airqueue_cli

DATA = Path(__file__).parent / "data" / "tc"
QDISC = DATA / "htb-qdisc.json"
CLASS = DATA / "htb-class.txt"
FILTER = DATA / "htb-filter.json"
ROUND_TRIP = DATA / "round-trip.toml"


def listing(**over: str) -> Listing:
    base = {
        "qdiscs": QDISC.read_text(),
        "classes": CLASS.read_text(),
        "filters": FILTER.read_text(),
    }
    base.update(over)
    return Listing(**base)


def test_the_recorded_htb_tree_imports_with_names_from_the_scenario() -> None:
    addresses = {0x0A000001: "a", 0x0A000002: "r", 0x0A000003: "b"}
    t = import_tree(listing(), addresses)
    assert t.unrepresented == []
    tree = t.tree
    assert tree is not None
    assert tree["kind"] == "htb" and tree["r2q"] == 5 and tree["default"] == "1:4"
    assert tree["stab"] == {"overhead": 24, "mpu": 64}
    by = {c["name"]: c for c in tree["classes"]}
    assert by["1:1"] == {"name": "1:1", "rate": "10Mbit", "ceil": "10Mbit"}
    voice = by["1:2"]
    assert voice["rate"] == "723200bit" and voice["ceil"] == "2Mbit"
    # The kernel keeps the burst as a time: 10000 B reads back as 9999 B.
    assert abs(voice["burst"] - 10000) <= 8
    assert voice["qdisc"] == {"kind": "bfifo", "limit": 30000}
    assert voice["match"] == {"dscp": [46, 34], "protocol": "udp"}
    web = by["1:3"]
    assert web["quantum"] == 3000
    assert web["match"] == {"dst": "b", "dport": "8000-8015"}
    assert web["qdisc"] == {"kind": "tbf", "rate": "2Mbit", "burst": 5000, "latency": "20ms"}
    bulk = by["1:4"]
    assert bulk["prio"] == 2 and bulk["match"] == {"src": ["a", "r"]}
    assert bulk["qdisc"] == {"kind": "pfifo_head_drop", "limit": 77}


def test_cli_import_into_a_scenario_gives_a_valid_scenario(tmp_path: Path) -> None:
    r = airqueue_cli("tc", "import", QDISC, CLASS, FILTER, "--into", ROUND_TRIP, "--dev", "r.side")
    assert r.returncode == 0, r.stderr
    data = tomllib.loads(r.stdout)
    side = next(q for q in data["qdiscs"] if q["dev"] == "r.side")
    assert side["kind"] == "htb"
    out = tmp_path / "s.toml"
    out.write_text(r.stdout)
    v = airqueue_cli("validate", out)
    assert v.returncode == 0, v.stderr


def test_without_the_scenario_addresses_stay_u32_and_an_or_is_reported() -> None:
    r = airqueue_cli("tc", "import", QDISC, CLASS, FILTER, "--dev", "r.down")
    assert r.returncode == 0, r.stderr
    data = tomllib.loads(r.stdout)
    web = next(c for c in data["qdiscs"][0]["classes"] if c["name"] == "1:3")
    assert web["match"]["u32"] == [{"field": "dst", "value": 0x0A000003, "mask": 0xFFFFFFFF}]
    # src a OR src r: two filters to 1:4 that an AND of raw selectors cannot hold.
    assert "not imported" in r.stderr and "1:4" in r.stderr
    assert "# not imported:" in r.stdout


# ---------------------------------------------------------------------------------------
# Bad input: a clear error naming what and where, exit 2
# ---------------------------------------------------------------------------------------


def _write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def test_truncated_dump(tmp_path: Path) -> None:
    text = QDISC.read_text()
    q = _write(tmp_path, "q.json", text[: len(text) // 2])
    r = airqueue_cli("tc", "import", q, CLASS, FILTER)
    assert r.returncode == 2
    assert "q.json" in r.stderr and "truncated" in r.stderr


def test_malformed_dump(tmp_path: Path) -> None:
    q = _write(tmp_path, "q.json", '[{"kind": "htb", "handle": "1:",, }]')
    r = airqueue_cli("tc", "import", q)
    assert r.returncode == 2
    assert "q.json" in r.stderr and "line 1, column" in r.stderr


def test_not_a_tc_listing(tmp_path: Path) -> None:
    q = _write(tmp_path, "notes.txt", "hello\n")
    r = airqueue_cli("tc", "import", q)
    assert r.returncode == 2 and "notes.txt" in r.stderr


@pytest.mark.parametrize(
    ("kind", "says"), [("foo", "not a qdisc"), ("stfq", "airqueue discipline")]
)
def test_unknown_kind(tmp_path: Path, kind: str, says: str) -> None:
    data = json.loads(QDISC.read_text())
    data[1]["kind"] = kind
    q = _write(tmp_path, "q.json", json.dumps(data))
    r = airqueue_cli("tc", "import", q, CLASS, FILTER)
    assert r.returncode == 2
    assert f'kind "{kind}"' in r.stderr and says in r.stderr and "q.json" in r.stderr


def test_handle_collision(tmp_path: Path) -> None:
    data = json.loads(QDISC.read_text())
    data[2]["handle"] = data[1]["handle"]
    q = _write(tmp_path, "q.json", json.dumps(data))
    r = airqueue_cli("tc", "import", q, CLASS, FILTER)
    assert r.returncode == 2
    assert "handle collision" in r.stderr and data[1]["handle"] in r.stderr


def test_class_without_a_parent(tmp_path: Path) -> None:
    text = CLASS.read_text().replace("class htb 1:4 parent 1:1", "class htb 1:4 parent 1:99")
    c = _write(tmp_path, "c.txt", text)
    r = airqueue_cli("tc", "import", QDISC, c, FILTER)
    assert r.returncode == 2
    assert "c.txt" in r.stderr and "1:99" in r.stderr and "without a parent" in r.stderr


def test_duplicate_class_id(tmp_path: Path) -> None:
    first = CLASS.read_text().splitlines()[0]
    c = _write(tmp_path, "c.txt", CLASS.read_text() + first + "\n")
    with pytest.raises(ImportError_, match="appears twice"):
        import_tree(listing(classes=c.read_text()))


def test_a_cut_class_line(tmp_path: Path) -> None:
    with pytest.raises(ImportError_, match="no value"):
        import_tree(listing(classes="class htb 1:1 root rate\n"))


def test_actions_and_other_classifiers_are_reported_by_name() -> None:
    filters = json.loads(FILTER.read_text())
    filters.append(
        {
            "parent": "1:",
            "protocol": "ip",
            "pref": 9,
            "kind": "flower",
            "chain": 0,
            "options": {"handle": 1, "classid": "1:2", "keys": {"ip_proto": "tcp"}},
        }
    )
    filters[2]["options"]["actions"] = [
        {"order": 1, "kind": "gact", "control_action": {"type": "drop"}}
    ]
    t = import_tree(listing(filters=json.dumps(filters)))
    said = " ".join(w + " " + m for w, m in t.unrepresented)
    assert '"flower"' in said and "pref 9" in said
    assert "actions (gact)" in said


def test_kinds_this_kernel_lacks_import_from_tc_6_1s_json() -> None:
    """prio with fq_codel and sfq bands, and a root netem, as iproute2 6.1 prints them
    (tc/q_prio.c, q_fq_codel.c: target/interval in µs; q_sfq.c: perturb in s; q_netem.c:
    times in s, probabilities as fractions, rates in bytes/s). This kernel has none of
    them, so these listings are written from those printers; the VM harness checks them
    against a kernel that has."""
    qdiscs = [
        {
            "kind": "netem",
            "handle": "fff0:",
            "root": True,
            "options": {
                "limit": 1000,
                "delay": {"delay": 0.01, "jitter": 0.002, "correlation": 0.25},
                "loss-random": {"loss": 0.01, "correlation": 0.1},
                "loss-gemodel": None,
                "rate": {"rate": 625000, "packetoverhead": 14, "cellsize": 48, "celloverhead": 5},
                "slot": {"min-delay": 0.001, "max-delay": 0.003, "packets": 4},
                "ecn": False,
                "gap": 0,
            },
        },
        {
            "kind": "prio",
            "handle": "1:",
            "parent": "fff0:1",
            "options": {
                "bands": 3,
                "priomap": [1, 2, 2, 2, 1, 2, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1],
                "multiqueue": False,
            },
        },
        {
            "kind": "fq_codel",
            "handle": "10:",
            "parent": "1:1",
            "options": {
                "limit": 2000,
                "flows": 1024,
                "quantum": 300,
                "target": 2000,
                "interval": 100000,
                "memory_limit": 33554432,
                "drop_batch": 64,
            },
        },
        {
            "kind": "sfq",
            "handle": "20:",
            "parent": "1:2",
            "options": {
                "limit": 100,
                "quantum": 1514,
                "depth": 20,
                "headdrop": True,
                "flows": 128,
                "divisor": 1024,
                "perturb": 10,
            },
        },
    ]
    qdiscs[0]["options"].pop("loss-gemodel")
    classes = "class prio 1:1 parent 1: leaf 10:\nclass prio 1:2 parent 1: leaf 20:\n"
    t = import_tree(Listing(qdiscs=json.dumps(qdiscs), classes=classes))
    assert t.unrepresented == []
    assert t.impairment == {
        "delay": "10ms",
        "jitter": "2ms",
        "delay_correlation": 0.25,
        "loss": 0.01,
        "loss_correlation": 0.1,
        "rate": "5Mbit",
        "packet_overhead": 14,
        "cell_size": 48,
        "cell_overhead": 5,
        "slot": {"min": "1ms", "max": "3ms", "packets": 4},
    }
    tree = t.tree
    assert tree is not None and tree["kind"] == "prio" and tree["bands"] == 3
    b0, b1, b2 = tree["classes"]
    assert b0["qdisc"] == {
        "kind": "fq_codel",
        "limit": 2000,
        "flows": 1024,
        "quantum": 300,
        "target": "2ms",
        "interval": "100ms",
        "memory_limit": 33554432,
        "ecn": False,
        "drop_batch": 64,
    }
    assert b1["qdisc"] == {
        "kind": "sfq",
        "limit": 100,
        "quantum": 1514,
        "flows": 128,
        "divisor": 1024,
        "depth": 20,
        "perturb": "10s",
        "headdrop": True,
    }
    assert b2 == {"name": "1:3"}


def test_6_1s_fw_filter_json_with_text_options_and_a_prio_inside_htb() -> None:
    """What Linux 6.1 really printed in the kernel VM (tests/data/tc/vm-6.1): fw's options
    as text inside the JSON (``{handle 0x1 classid 1:2 }``: iproute2 6.1's fw_print_opt
    uses fprintf), a prio inside an HTB class with a filter of its own at its handle
    (listed only by ``tc filter show … parent 20:``), and the catch-all u32 key the export
    writes for ``match = {}`` (mask 0)."""
    qdiscs = [
        {"kind": "htb", "handle": "1:", "root": True, "options": {"r2q": 10, "default": "0"}},
        {
            "kind": "prio",
            "handle": "20:",
            "parent": "1:2",
            "options": {"bands": 2, "priomap": [1] * 16, "multiqueue": False},
        },
        {"kind": "pfifo", "handle": "10:", "parent": "20:1", "options": {"limit": 1000}},
        {"kind": "pfifo", "handle": "11:", "parent": "20:2", "options": {"limit": 100}},
        {"kind": "pfifo", "handle": "30:", "parent": "1:3", "options": {"limit": 30}},
    ]
    classes = (
        "class htb 1:1 root rate 12Mbit ceil 12Mbit burst 1599b cburst 1599b\n"
        "class htb 1:2 parent 1:1 leaf 20: prio 0 rate 11Mbit ceil 12Mbit burst 1599b "
        "cburst 1599b\n"
        "class htb 1:3 parent 1:1 leaf 30: prio 0 rate 1Mbit ceil 12Mbit burst 1600b "
        "cburst 1600b\n"
        "class prio 20:1 parent 20: leaf 10:\nclass prio 20:2 parent 20: leaf 11:\n"
    )
    filters = (
        '[{"parent":"1:","protocol":"ip","pref":1,"kind":"fw","chain":0},'
        '{"parent":"1:","protocol":"ip","pref":1,"kind":"fw","chain":0,'
        '"options":{handle 0x1 classid 1:2 }},'
        '{"parent":"1:","protocol":"ip","pref":2,"kind":"fw","chain":0},'
        '{"parent":"1:","protocol":"ip","pref":2,"kind":"fw","chain":0,'
        '"options":{handle 0x2 classid 1:3 }},'
        '{"protocol":"ip","pref":1,"kind":"u32","chain":0,"options":'
        '{"fh":"800::800","order":2048,"key_ht":"800","bkt":"0","flowid":"20:1",'
        '"match":{"value":"b80000","mask":"fc0000","offmask":"","off":0}}},'
        '{"protocol":"ip","pref":2,"kind":"u32","chain":0,"options":'
        '{"fh":"801::800","order":2048,"key_ht":"801","bkt":"0","flowid":"20:2",'
        '"match":{"value":"0","mask":"0","offmask":"","off":0}}}]'
    )
    t = import_tree(
        Listing(qdiscs=json.dumps(qdiscs), classes=classes, filters=filters),
        marks={1: "nap.wlan", 2: "nap.bt"},
    )
    assert t.unrepresented == []
    cls = {c["name"]: c for c in t.tree["classes"]}
    assert cls["1:2"]["match"] == {"dev": ["nap.wlan"]}
    assert cls["1:3"]["match"] == {"dev": ["nap.bt"]}
    bands = {c["name"]: c for c in cls["1:2"]["qdisc"]["classes"]}
    assert bands["20:1"]["match"] == {"dscp": [46]}
    assert bands["20:2"]["match"] == {}
