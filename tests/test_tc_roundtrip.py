"""The `tc` round trip on this machine's kernel: export → apply on veths in a namespace
of the test's own (`aqtc-<pid>-<n>`, removed after) → `tc -j -s -d qdisc show`,
`tc -d class show`, `tc -j filter show` → import → the same tree (docs/tc.md).

Reference: the kernel and iproute2 themselves (what `tc` prints back). This kernel has
pfifo/bfifo/pfifo_head_drop/pfifo_fast/tbf/htb and u32; for the other kinds (sfq,
fq_codel, prio, drr, red, cake, netem, fw) the test checks that `tc` parsed every command
and only the kernel refused ("kind is unknown"), never that tc could not read it; the
kernel VM harness (tools/kernel-vm) runs the same round trip where they exist.

Needs root and iproute2's `ip` and `tc`: skipped (saying so) only where they are absent.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from airqueue import load_scenario, shipped
from airqueue.tc.roundtrip import PREFIX, have_tools, kind_of, namespace, roundtrip, summary
from support import airqueue_cli

WHY = have_tools()
pytestmark = pytest.mark.skipif(WHY is not None, reason=f"tc round trip: {WHY or ''}")

ROUND_TRIP = Path(__file__).parent / "data" / "tc" / "round-trip.toml"
EVERY_KIND = Path(__file__).parent / "data" / "tc" / "every-kind.toml"
#: The kinds this kernel has (the rest must be parsed and refused by the kernel only).
HERE = {"pfifo", "bfifo", "pfifo_head_drop", "pfifo_fast", "tbf", "htb"}


def _our_namespaces() -> list[str]:
    """This process's round-trip namespaces (``aqtc-<pid>-<n>``)."""
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    mine = f"{PREFIX}{os.getpid()}-"
    return [ln.split()[0] for ln in out.splitlines() if ln.startswith(mine)]


def test_htb_tbf_fifos_pfifo_fast_with_u32_come_back_the_same() -> None:
    res = roundtrip(load_scenario(ROUND_TRIP).resolved(), "round-trip")
    assert _our_namespaces() == []  # the namespace was removed
    s = summary(res)
    assert s["exported"] == 4 and s["parsed"] == s["commands"] == s["applied"], s
    for d in res.devs:
        assert d.equal, (d.dev, d.import_error, d.differences)
        assert d.unrepresented == []
    kinds = {k for d in res.devs for k in d.kinds}
    assert kinds == {"htb", "bfifo", "tbf", "pfifo_head_drop", "pfifo_fast"}


def test_tc_parses_every_kind_and_only_the_kernel_refuses_what_it_lacks() -> None:
    """drr, codel, red, cake, prio, fq_codel, sfq, tbf over a child with an ATM stab, and
    netem with every impairment: tc parses each command; where the kernel has no module
    it says "Specified qdisc kind is unknown." (after parsing), and whatever hangs below
    such a qdisc is refused for want of its parent, never unparsed."""
    res = roundtrip(load_scenario(EVERY_KIND).resolved(), "every-kind")
    assert _our_namespaces() == []
    for d in res.devs:
        for c in d.commands:
            assert c.status != "unparsed", (d.dev, c.argv, c.stderr)
        if not d.applied:
            first = next(c for c in d.commands if c.status != "applied")
            assert first.status == "no module", (d.dev, first.argv, first.stderr)
            assert "kind is unknown" in first.stderr
            assert kind_of(first.argv) not in HERE
        elif d.kinds:
            assert d.equal, (d.dev, d.differences)


def test_a_changed_tree_is_seen_as_different() -> None:
    """The comparison is not vacuous: a rate the kernel did not get is a difference."""
    from airqueue.tc.roundtrip import _single_tree_export, compare_objects, with_kernel_defaults

    res = load_scenario(ROUND_TRIP).resolved()
    tree = res["qdiscs"][0]
    other = with_kernel_defaults(tree)
    other["classes"][2]["rate"] = "3100kbit"
    other["classes"][3]["qdisc"]["limit"] = 78
    w = _single_tree_export(res, "r.down", with_kernel_defaults(tree), "aq0")
    g = _single_tree_export(res, "r.down", other, "aq0")
    diffs = compare_objects(w, g)
    assert any("rate 3Mbit read back as 3100Kbit" in d for d in diffs), diffs
    assert any("limit 77 read back as 78" in d for d in diffs), diffs


def test_every_shipped_scenario_parses_and_what_this_kernel_has_round_trips() -> None:
    root = shipped.scenarios_dir()
    equal = applied = 0
    for p in sorted(root.rglob("*.toml")):
        res = roundtrip(load_scenario(p).resolved(), p.name)
        for d in res.devs:
            for c in d.commands:
                # tc parsed it: only the kernel may refuse (no module, or a parent it lacks).
                assert c.status != "unparsed", (p, c.argv, c.stderr)
            if d.applied and d.kinds:
                applied += 1
                assert d.equal, (p, d.dev, d.import_error, d.differences)
                equal += 1
            elif d.kinds:
                lacking = {k for k in d.kinds if k not in HERE}
                fw = any("fw" in c.argv for c in d.commands if c.status == "no module")
                assert lacking or fw, (p, d.dev, [(c.argv, c.stderr) for c in d.commands])
    assert _our_namespaces() == []
    # docs/tc.md's table: 38 of the 49 exported trees apply whole here, all 38 equal. A
    # new shipped scenario with a tree this kernel holds adds to both (and to the table).
    assert equal == applied >= 38


def test_the_batch_form_applies_with_tc_batch(tmp_path: Path) -> None:
    """`--batch` is the input of `tc -batch` (tc(8)): every line applies."""
    r = airqueue_cli("tc", "export", ROUND_TRIP, "--node", "r", "--only-trees", "--batch")
    assert r.returncode == 0, r.stderr
    batch = tmp_path / "tc.batch"
    batch.write_text(r.stdout)
    with namespace() as ns:
        for dev in ("down", "side", "fast"):
            subprocess.run(
                [
                    "ip",
                    "-n",
                    ns,
                    "link",
                    "add",
                    "name",
                    dev,
                    "type",
                    "veth",
                    "peer",
                    "name",
                    f"p{dev}",
                ],
                check=True,
            )
        p = subprocess.run(
            ["ip", "netns", "exec", ns, "tc", "-batch", str(batch)],
            capture_output=True,
            text=True,
        )
        assert p.returncode == 0, p.stderr
        shown = subprocess.run(
            ["ip", "netns", "exec", ns, "tc", "qdisc", "show"], capture_output=True, text=True
        ).stdout
    assert "qdisc htb 1: dev down root" in shown and "qdisc tbf 1: dev side root" in shown
    assert _our_namespaces() == []
