"""airqueue beside ns-3 3.44's HT/VHT/HE A-MPDU reference (issue 36).

Runs the cells of tools/ns3/results/wifi_ht_saturation.json (saturated uplink UDP, 1472 B
payloads, every station offering 1.5x the PHY rate shared by n, A-MPDU at ns-3's defaults
in both) through airqueue for 6 s with a 1 s warm-up and prints, side by side, the aggregate
goodputs and what ns-3's program counts at the stations: data PPDUs (A-MPDUs), the fraction
of them that got no BlockAck ("failed": a collision, the channel having no errors), MPDUs
per data PPDU and BlockAckReqs per data PPDU. airqueue's counts come from its `ampdus`
table, the same events. Usage::

    python tools/ns3/compare_ht.py ht vht he [--n 10,20] [--set cells.wlan.KEY=VALUE ...]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import pandas as pd

REFERENCE = Path(__file__).parent / "results" / "wifi_ht_saturation.json"
PHYS = {
    "ht": 'standard = "802.11n"\nband = "5GHz"\nchannel_width = 20\nmcs = 7',
    "vht": 'standard = "802.11ac"\nchannel_width = 80\nmcs = 9',
    "he": 'standard = "802.11ax"\nchannel_width = 80\nmcs = 11',
}


def scenario(std: str, n: int, rate_bps: float) -> str:
    """The ns-3 program's cell as an airqueue scenario."""
    return "\n".join(
        [
            '[run]\nduration = "6s"\nwarmup = "1s"',
            '[[nodes]]\nname = "ap"',
            f'[[nodes]]\nname = "sta{{i}}"\ncount = {n}',
            '[[cells]]\nname = "wlan"\nap = "ap"',
            f'stations = [{{ node = "sta{{i}}", count = {n} }}]',
            PHYS[std],
            f'[[flows]]\nname = "up{{i}}"\ncount = {n}\nfrom = "sta{{i}}"\nto = "ap"',
            f'app = {{ kind = "cbr", size = 1472, rate = "{int(rate_bps)}bit" }}',
            "",
        ]
    )


def ns3_counts(c: dict) -> tuple[float, float, float]:
    """ns-3's failed-PPDU rate, MPDUs per data PPDU and BlockAckReqs per data PPDU."""
    bars = c.get("other_sta_ppdu_types", {}).get("CTL_BACKREQ", 0)
    return c["failed_ppdu_rate"], c["mpdus_per_ppdu"], bars / max(c["data_ppdus"], 1)


def airqueue_cell(std: str, n: int, rate_bps: float, sets: list[str], tmp: Path) -> dict:
    """One airqueue run of the cell: goodput and the `ampdus` counts of the stations."""
    toml, out = tmp / "cell.toml", tmp / "out"
    toml.write_text(scenario(std, n, rate_bps))
    cmd = [sys.executable, "-m", "airqueue", "run", str(toml), "--out", str(out)]
    for s in sets:
        cmd += ["--set", s]
    subprocess.run(cmd, check=True, capture_output=True)
    gp = pd.read_parquet(out / "flows.parquet")["goodput_bps"].sum()
    a = pd.read_parquet(out / "ampdus.parquet")
    a = a[a["station"] != "ap"]
    ppdus = max(int(a["data_ppdus"].sum()), 1)
    return {
        "goodput_bps": gp,
        "failed_ppdu_rate": a["failed_data_ppdus"].sum() / ppdus,
        "mpdus_per_ppdu": a["data_mpdus"].sum() / ppdus,
        "bars_per_ppdu": a["block_ack_reqs"].sum() / ppdus,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("standards", nargs="*", default=["ht", "vht", "he"])
    ap.add_argument("--n", default="", help="Only these numbers of stations (comma-separated).")
    ap.add_argument(
        "--set", action="append", default=[], help="Passed to `airqueue run --set` (repeatable)."
    )
    args = ap.parse_args()
    only = {int(x) for x in args.n.split(",") if x.strip()}
    cells = json.loads(REFERENCE.read_text())["cells"]
    print(
        "| standard | n | goodput Mbit/s: ns-3 / airqueue (diff.) | failed data PPDUs: ns-3 / "
        "airqueue | MPDUs per data PPDU | BlockAckReqs per data PPDU |"
    )
    print("| --- | ---: | --- | --- | --- | --- |")
    with tempfile.TemporaryDirectory() as tmp:
        for c in cells:
            std, n = c["standard"], c["n"]
            if std not in args.standards or (only and n not in only):
                continue
            r = airqueue_cell(std, n, c["phy_rate_bps"] * 1.5 / n, args.set, Path(tmp))
            ns3, gp = c["goodput_bps"], r["goodput_bps"]
            fail, mpdus, bars = ns3_counts(c)
            print(
                f"| {std} | {n} | {ns3 / 1e6:.3f} / {gp / 1e6:.3f} ({(gp / ns3 - 1) * 100:+.1f} %) "
                f"| {fail:.3f} / {r['failed_ppdu_rate']:.3f} "
                f"| {mpdus:.2f} / {r['mpdus_per_ppdu']:.2f} "
                f"| {bars:.3f} / {r['bars_per_ppdu']:.3f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
