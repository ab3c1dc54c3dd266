"""airqueue's 802.11 cells against ns-3 3.37's (docs/ns3-wifi-comparison.md): the 802.11b
saturation cell, and uploads beside downloads at 54 Mb/s.

Runs where tools/ns3/build.sh has built tools/ns3/wifi_saturation and
tools/ns3/wifi_updown (Debian's libns3-dev), as .ci/run does; skipped otherwise.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

import airqueue
from support import REPO

NS3 = REPO / "tools" / "ns3" / "wifi_saturation"
SATURATION = REPO / "scenarios" / "validation" / "dcf-saturation.toml"

pytestmark = pytest.mark.skipif(
    not NS3.exists(), reason="tools/ns3/wifi_saturation not built (tools/ns3/build.sh)"
)


def ns3_throughput(n: int, seconds: int, rts: int = 2347) -> float:
    done = subprocess.run(
        [str(NS3), "--json=1", f"--n={n}", f"--duration={seconds}", f"--rts={rts}"],
        capture_output=True,
        text=True,
        check=True,
    )
    return float(json.loads(done.stdout.strip().splitlines()[-1])["throughput_bps"])


def airqueue_throughput(n: int, seconds: int, extra: dict[str, object] | None = None) -> float:
    r = airqueue.run(
        SATURATION,
        set={
            "nodes.sta{i}.count": n,
            "cells.wlan.stations.0.count": n,
            "flows.up{i}.count": n,
            "run.duration": f"{seconds}s",
            **(extra or {}),
        },
    )
    return float(r.flows["goodput_bps"].sum())


@pytest.mark.parametrize("n", [2, 5])
def test_basic_access_saturation_matches_ns3_within_5_percent(n: int) -> None:
    """Reference: ns-3 3.37's wifi module on the same cell (802.11b, 11 Mb/s, basic access,
    no preamble detection: receivers defer EIFS after a collision, as airqueue's); issue
    12's tolerance, 5 %. Measured over 20 s: +0.02 % (n = 2), +0.05 % (n = 5)."""
    ours, theirs = airqueue_throughput(n, 6), ns3_throughput(n, 6)
    assert ours == pytest.approx(theirs, rel=0.05)


@pytest.mark.parametrize("n", [2, 10])
def test_rts_cts_saturation_with_capture_matches_ns3_within_5_percent(n: int) -> None:
    """Reference: ns-3 3.37 on the same cell with RTS/CTS (threshold 500 B), no preamble
    detection: its receivers keep one of two colliding 2 Mb/s RTS by the SINR of each chunk,
    which airqueue models with `capture = "sinr"` (docs/ns3-wifi-comparison.md, Capture);
    issue 12's tolerance, 5 %. Measured over 20 s: -0.02 % (n = 2), +0.13 % (n = 10)."""
    extra = {"cells.wlan.rts_threshold": 500, "cells.wlan.capture": "sinr"}
    ours, theirs = airqueue_throughput(n, 6, extra), ns3_throughput(n, 6, rts=500)
    assert ours == pytest.approx(theirs, rel=0.05)


UPDOWN = REPO / "tools" / "ns3" / "wifi_updown"


def _updown_cell(up: int, down: int, rts: bool) -> str:
    """tools/ns3/compare_updown.py's airqueue scenario for the cell (60 s, from 20 s)."""
    spec = importlib.util.spec_from_file_location(
        "compare_updown", REPO / "tools" / "ns3" / "compare_updown.py"
    )
    assert spec and spec.loader
    sys.path.insert(0, str(REPO / "tools" / "ns3"))  # it imports compare.py beside it
    try:
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.pop(0)
    return str(module.cell(up, down, rts, "8MiB"))


@pytest.mark.skipif(not UPDOWN.exists(), reason="tools/ns3/wifi_updown not built")
@pytest.mark.parametrize(
    ("up", "down", "rts"), [(1, 1, False), (1, 1, True), (2, 0, False), (2, 0, True)]
)
def test_uploads_beside_downloads_share_the_cell_as_in_ns3(
    up: int, down: int, rts: bool, tmp_path: Path
) -> None:
    """Reference: ns-3 3.37 (tools/ns3/wifi_updown.cc) on the cell of seed 002's Figs. 22
    and 23 without the box: an 802.11a cell at 54 Mb/s, one TCP download beside one upload,
    or two uploads, 8 MiB windows, basic access or RTS/CTS above 500 B. Neither simulator
    starves a transfer (the paper's testbed did: docs/reproductions/hegde-2013.md); each
    flow's goodput within 10 % of ns-3's, seed 1, over 20–60 s (docs/ns3-wifi-comparison.md
    has three seeds: the other flows' means within 5.3 %), except the upload beside a
    download: within 20 % (seed 1: +16.6 % with basic access). Both uploads lose a burst at
    their own station's queue at the end of the first slow start; ns-3 then halves again at
    the timeout and resends segments still waiting in that queue until 27-34 s (13.41,
    14.74, 13.58 Mb/s for seeds 1-3 in ns-3; airqueue 15.6-15.7)."""
    path = tmp_path / "cell.toml"
    path.write_text(_updown_cell(up, down, rts))
    flows = airqueue.run(path, seed=1).flows
    ours = dict(zip(flows["flow"], flows["goodput_bps"], strict=True))
    args = [f"--up={up}", f"--down={down}", f"--rts={500 if rts else 2347}", "--seed=1"]
    done = subprocess.run(
        [str(UPDOWN), "--json", "--duration=60", "--from=20", *args],
        capture_output=True,
        text=True,
        check=True,
    )
    report = json.loads(done.stdout.strip().splitlines()[-1])
    theirs = {f["flow"]: f["goodput_bps"] for f in report["flows"]}
    assert set(ours) == set(theirs)
    for flow, bps in theirs.items():
        tolerance = 0.20 if down and flow.startswith("up") else 0.10
        assert ours[flow] == pytest.approx(bps, rel=tolerance), flow
