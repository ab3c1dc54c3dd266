"""Seed 001 (Venugopal 2006, TCP over Bluetooth piconets and scatternets): the catalog's
surface reproductions run in their quick form, draw the thesis's surfaces, and keep the
shape the thesis reports where one short seed can show it (docs/reproductions/
venugopal-2006.md has the full runs beside the thesis's numbers)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import airqueue
from airqueue import catalog
from airqueue.catalog import venugopal_2006
from support import REPO

NAMES = [r.name for r in venugopal_2006.ENTRIES if r.runner is None]


@pytest.mark.parametrize("name", NAMES)
def test_quick_surface_runs_every_grid_point(name: str, tmp_path: Path) -> None:
    """Every (offered load, second parameter) point of the thesis's figure runs once and
    lands in the comparison table and the figure; a quick run checks nothing."""
    rep = catalog.REGISTRY[name]
    res = catalog.reproduce(name, tmp_path, jobs=2, quick=True)
    assert res.passed is None
    assert len(res.table) == len(rep.values) * len(rep.values2)
    assert res.table["ours"].notna().all() and (res.table["ours"] >= 0).all()
    assert (tmp_path / "figure.png").read_bytes()[:4] == b"\x89PNG"
    # The thesis's numbers sit at their grid points (NaN elsewhere).
    refs = res.table[res.table["reference"].notna()]
    assert len(refs) == sum(
        1
        for v in rep.values
        for w in rep.values2
        if rep.expected_xy is not None and rep.expected_xy(rep.x_of(v), rep.y_of(w)) > 0
    )


def test_piconet_goodput_rises_with_the_token_buffer(tmp_path: Path) -> None:
    """Reference: thesis §6.1.1, Fig. 6.1: "Increase in S from 5 to 25 improves the goodput
    by decreasing the timeouts". Checked on the quick form (one 60 s seed) at the loads
    that fill the piconet (160 kb/s and more per slave): S = 25 carries more than S = 5."""
    res = catalog.reproduce("venugopal-fig6-1", tmp_path, jobs=2, quick=True)
    high = res.table[res.table["x"] >= 160]
    by_s = high.groupby("y")["ours"].mean()
    assert by_s[25] > by_s[5], by_s


def test_scatternet_carries_less_than_the_piconet(tmp_path: Path) -> None:
    """Reference: thesis §6.2.1: the scatternet's goodput is below the 2-slave piconet's
    (4 hops and a bridge that is in each piconet about half the time). Quick forms, S = 25,
    offered 160 kb/s per slave."""
    pico = catalog.reproduce("venugopal-fig6-1", tmp_path / "p", jobs=2, quick=True).table
    scat = catalog.reproduce("venugopal-fig6-7", tmp_path / "s", jobs=2, quick=True).table

    def at(t: pd.DataFrame) -> float:
        return float(t.loc[(t["x"] == 160) & (t["y"] == 25), "ours"].iloc[0])

    assert 0 < at(scat) < at(pico)


def test_a_bridge_that_leaves_after_its_visit_carries_more(tmp_path: Path) -> None:
    """docs/reproductions/venugopal-2006.md, the scatternet's residence: a bridge that
    leaves after its own visit has shorter rounds with the same M_b = 5 packets each way,
    so at saturation (S = 25, 180 kb/s offered, quick forms) it carries more than the
    one-cycle bridge (full runs: 146.5 against 115.5 kb/s) and stays below the 2-slave
    piconet (§6.2.1)."""
    cycle = catalog.reproduce("venugopal-fig6-7", tmp_path / "c", jobs=2, quick=True).table
    visit = catalog.reproduce("venugopal-fig6-7-visit", tmp_path / "v", jobs=2, quick=True)
    made = catalog.REGISTRY["venugopal-fig6-7-visit"].scenario(True)
    assert [b["residence"] for b in made["bridges"]] == ["visit"]

    def at(t: pd.DataFrame) -> float:
        return float(t.loc[(t["x"] == 180) & (t["y"] == 25), "ours"].iloc[0])

    assert 1.15 * at(cycle) < at(visit.table) < 175.0


def test_fig_6_17_runs_every_topology_and_states_its_findings(tmp_path: Path) -> None:
    """Fig. 6.17 (thesis §6.4): its x axis is the topology, so the entry runs the seven
    shipped topologies in PPL and IPL (quick: one 60 s seed each) and states §6.4's
    findings and the text's numbers as checks. Checked here on one seed, where the
    differences are large: PPL carries more than IPL in the 2-slave piconet, and the
    scatternet's PPL RTT is above the piconet's (thesis: about twice)."""
    res = catalog.reproduce("venugopal-fig6-17", tmp_path, jobs=2, quick=True)
    assert res.passed is None
    metrics = pd.read_csv(tmp_path / "metrics.csv")
    assert len(metrics) == 14 and metrics["goodput_kbit"].gt(0).all()
    assert (tmp_path / "figure.png").read_bytes()[:4] == b"\x89PNG"

    def at(layer: str, topology: str, col: str) -> float:
        sel = metrics[(metrics["layer"] == layer) & (metrics["topology"] == topology)]
        return float(sel[col].iloc[0])

    assert at("ppl", "piconet-2", "goodput_kbit") > 2 * at("ipl", "piconet-2", "goodput_kbit")
    assert at("ppl", "scatternet-1", "rtt_ms") > 1.5 * at("ppl", "piconet-2", "rtt_ms")
    checks = res.table["check"].tolist()
    assert any("PPL piconet-2 goodput" in c for c in checks)
    assert any("IPL scatternet-1 goodput" in c for c in checks)


def test_scatternet_scenarios_are_generated() -> None:
    """The shipped scatternet scenarios are what tools/gen_bt_scatternets.py writes."""
    proc = subprocess.run(
        [sys.executable, str(REPO / "tools" / "gen_bt_scatternets.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr


def test_a_star_in_a_set_path_addresses_every_entry() -> None:
    """The thesis's sweeps set every connection's load and every piconet's S at once
    (`flows.*.app.rate`, `piconets.*.flow_control.buffer`); a path that ends at `*` names
    no key and is an input error."""
    file = REPO / "scenarios" / "bluetooth-tcp" / "scatternet-2-ppl.toml"
    sc = airqueue.load_scenario(
        file, set={"flows.*.app.rate": "55kbit", "piconets.*.flow_control.buffer": 7}
    )
    assert [f["app"]["rate"] for f in sc.data["flows"]] == ["55kbit"] * 4
    assert [p["flow_control"]["buffer"] for p in sc.data["piconets"]] == [7, 7]
    with pytest.raises(airqueue.ScenarioError, match="after"):
        airqueue.load_scenario(file, set={"flows.*": 1})
