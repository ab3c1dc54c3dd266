"""airqueue beside ns-3 3.44's HT/VHT/HE A-MPDU reference (issue 36).

Runs the cells of tools/ns3/results/wifi_ht_saturation.json (saturated uplink UDP, 1472 B
payloads, every station offering 1.5x the PHY rate shared by n, A-MPDU at ns-3's defaults
in both) through airqueue for 6 s with a 1 s warm-up and prints the aggregate goodputs side
by side. Usage: ``python tools/ns3/compare_ht.py ht vht he``.
"""

from __future__ import annotations

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


def main(standards: list[str]) -> None:
    cells = json.loads(REFERENCE.read_text())["cells"]
    with tempfile.TemporaryDirectory() as tmp:
        toml, out = Path(tmp) / "cell.toml", Path(tmp) / "out"
        for c in cells:
            std, n = c["standard"], c["n"]
            if std not in standards:
                continue
            toml.write_text(scenario(std, n, c["phy_rate_bps"] * 1.5 / n))
            cmd = [sys.executable, "-m", "airqueue", "run", str(toml), "--out", str(out)]
            subprocess.run(cmd, check=True, capture_output=True)
            gp = pd.read_parquet(out / "flows.parquet")["goodput_bps"].sum()
            st = pd.read_parquet(out / "stations.parquet")
            coll = st["collisions"].sum() / max(st["frames_sent"].sum(), 1)
            ns3 = c["goodput_bps"]
            print(
                f"{std:3s} n={n:3d}  ns-3 {ns3 / 1e6:8.3f} Mbit/s (failed PPDUs "
                f"{c['failed_ppdu_rate']:.3f})  airqueue {gp / 1e6:8.3f} Mbit/s "
                f"({(gp / ns3 - 1) * 100:+.1f} %; collisions per MPDU sent {coll:.3f})"
            )


if __name__ == "__main__":
    main(sys.argv[1:] or ["ht", "vht", "he"])
