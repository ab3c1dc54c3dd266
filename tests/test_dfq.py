"""DFQ (seed 003) reproductions: the catalog entries run (quick) and compare all five
gateway disciplines; the numbers beside the paper's are discussed in
docs/reproductions/shieh-dfq.md."""

from __future__ import annotations

from pathlib import Path

import airqueue
from airqueue import catalog


def test_dfq_one_plus_one_runs_every_discipline_quick(tmp_path: Path) -> None:
    res = catalog.reproduce("shieh-dfq-1w1wl", tmp_path, jobs=2, quick=True)
    assert list(res.table["qdiscs.downlink.kind"]) == list(catalog.DFQ_QDISCS)
    # The wireless flow gets a positive share under every discipline, at most the cell's
    # 802.11b capacity (11 Mb/s PHY, ≈ 5 Mb/s of TCP goodput).
    assert ((res.table["ours"] > 0.1) & (res.table["ours"] < 7.0)).all()
    assert (tmp_path / "figure.png").exists()


def test_dfq_drops_only_wired_packets_and_keeps_conservation() -> None:
    # Reference: seed 003 §3 — the dropper acts on packets of wired hosts only.
    r = airqueue.run(
        "scenarios/dfq/one-plus-one.toml",
        set={"qdiscs.downlink.kind": "dfq", "run.duration": "10s"},
    )
    assert r.conservation_ok
    flows = r.flows.set_index("flow")
    assert flows.loc["bull-dragon", "drops_aqm"] > 0
    assert flows.loc["snake-ms1", "drops_aqm"] == 0
