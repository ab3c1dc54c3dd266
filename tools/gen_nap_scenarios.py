"""Writes the NAP scenarios of seed 000 (Yip & Kwok 2007) under scenarios/nap/.

One file per scheduler and start order ("Bluetooth first" / "WLAN first", 45 s apart,
§5.1): the testbed of §4.1 (Fig. 10, Table 1) with the scheduler on the NAP. Run
`python tools/gen_nap_scenarios.py` after editing, `--check` in CI.
"""

# ruff: noqa: E501  (the TOML templates keep one class per line, as tc users write them)

from __future__ import annotations

import argparse
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "scenarios" / "nap"

TESTBED = """\
[run]
duration = "{duration}"
seed = 1
sample_interval = "1s"

# Fig. 10: the NAP (a Linux PC: FTP server and access point), a Bluetooth client and a WLAN
# client, 1 m apart. The FTP server runs on the NAP; here a wired host behind it stands in
# for it (the NAP's egress scheduling, the paper's subject, is the same).
[[nodes]]
name = "server"

[[nodes]]
name = "nap"
kind = "router"

[[nodes]]
name = "btc"

[[nodes]]
name = "wlc"

[[links]]
name = "lan"
between = ["server", "nap"]
rate = "100Mbit"
delay = "100us"

# Table 1: the NAP is the Bluetooth master (BNEP, PAN profile), DH5 only (§4.1: 723 kbit/s,
# "about 90.375 kbytes/s"); the client is its only slave. The master's baseband buffer is
# kept small so that packets wait in the NAP's qdisc, where the paper schedules them.
[[piconets]]
name = "bt"
master = "nap"
slaves = ["btc"]
packet_types = ["DH5"]
master_buffer = 2

# Table 1: IEEE 802.11b at 11 Mbit/s, the NAP in AP mode (HostAP); a small driver buffer,
# for the same reason. No interference between the two: it waits for the coexistence
# model (docs/reproductions/yip-kwok-2007.md).
[[cells]]
name = "wlan"
standard = "802.11b"
ap = "nap"
rate = "11Mbit"
ap_buffer = 2
stations = [{{ node = "wlc" }}]

# §4.2.1: each client downloads a 600 MB file by FTP; {order}.
[[flows]]
name = "ftp-bt"
from = "server"
to = "btc"
start = "{bt_start}"
app = {{ kind = "bulk", bytes = "600MB" }}
transport = {{ kind = "tcp", variant = "newreno" }}

[[flows]]
name = "ftp-wlan"
from = "server"
to = "wlc"
start = "{wlan_start}"
app = {{ kind = "bulk", bytes = "600MB" }}
transport = {{ kind = "tcp", variant = "newreno" }}
"""

IMQ = """
# §2.1: IMQ — one qdisc at imq0 in front of both interfaces.
[[virtual_devs]]
name = "nap.imq0"
members = ["nap.wlan", "nap.bt"]
"""

SCHEDULERS: dict[str, tuple[str, str]] = {
    "fifo": (
        "FIFO, Linux's default (§2.1 note 4), at imq0",
        IMQ
        + """
[[qdiscs]]
dev = "nap.imq0"
kind = "pfifo"
limit = 1000
""",
    ),
    "htb-sfq": (
        "HTB + SFQ (§2.2, Fig. 3): class 1:2 WLAN at least 11 Mbit/s, 1:3 Bluetooth at"
        " least 1 Mbit/s, both under 1:0 (12 Mbit/s) sharing the excess, an SFQ in each",
        IMQ
        + """
[[qdiscs]]
dev = "nap.imq0"
kind = "htb"
classes = [
  { name = "1:0", rate = "12Mbit" },
  { name = "1:2", parent = "1:0", rate = "11Mbit", ceil = "12Mbit", match = { dev = "nap.wlan" }, qdisc = { kind = "sfq" } },
  { name = "1:3", parent = "1:0", rate = "1Mbit", ceil = "12Mbit", match = { dev = "nap.bt" }, qdisc = { kind = "sfq" } },
]
""",
    ),
    "prio-tbf": (
        "PRIO + TBF (§2.3, Fig. 4): WLAN in the high band, Bluetooth in the low one, a TBF"
        " in each (rates of Fig. 3's classes: the figure gives none)",
        IMQ
        + """
[[qdiscs]]
dev = "nap.imq0"
kind = "prio"
bands = 2
# Every packet is taken by a band's `match`; the priomap (needed for 2 bands) is unused.
priomap = [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]
classes = [
  { name = "wlan", match = { dev = "nap.wlan" }, qdisc = { kind = "tbf", rate = "11Mbit", burst = "10KB", latency = "50ms" } },
  { name = "bt", match = { dev = "nap.bt" }, qdisc = { kind = "tbf", rate = "1Mbit", burst = "10KB", latency = "50ms" } },
]
""",
    ),
    "sfq": (
        "SFQ at imq0 with a 10 s perturbation (§2.4)",
        IMQ
        + """
[[qdiscs]]
dev = "nap.imq0"
kind = "sfq"
perturb = "10s"
""",
    ),
    "cif-simple": (
        "CIF-Simple (§2.5) at imq0",
        IMQ
        + """
[[qdiscs]]
dev = "nap.imq0"
kind = "cif-q"
variant = "simple"
""",
    ),
    "cif-complete": (
        "CIF-Complete (§2.5) at imq0",
        IMQ
        + """
[[qdiscs]]
dev = "nap.imq0"
kind = "cif-q"
variant = "complete"
""",
    ),
    "btwn": (
        "BoTh-WiN (§3.1, Algorithms 1–2) at imq0",
        IMQ
        + """
[[qdiscs]]
dev = "nap.imq0"
kind = "btwn"
bluetooth = "nap.bt"
wlan = "nap.wlan"
""",
    ),
    "cawn": (
        "CAWN (§3.2, Algorithms 3–4): one per interface, no IMQ",
        """
[[qdiscs]]
dev = "nap.wlan"
kind = "cawn"
role = "wlan"

[[qdiscs]]
dev = "nap.bt"
kind = "cawn"
role = "bluetooth"
""",
    ),
}

ORDERS = {
    "bt-first": ("Bluetooth first, WLAN 45 s later", "0s", "45s"),
    "wlan-first": ("WLAN first, Bluetooth 45 s later", "45s", "0s"),
}


def render(sched: str, order: str, duration: str = "300s") -> str:
    what, tree = SCHEDULERS[sched]
    words, bt, wl = ORDERS[order]
    head = (
        f'description = "Seed 000 NAP (Yip & Kwok 2007, §4–5.1): FTP downloads to a Bluetooth'
        f" and a WLAN client, {words}; {what}. No coexistence interference is modelled"
        f' (docs/reproductions/yip-kwok-2007.md)."\n\n'
        "# Generated by tools/gen_nap_scenarios.py; edit that file.\n\n"
    )
    body = TESTBED.format(duration=duration, order=words, bt_start=bt, wlan_start=wl)
    return head + body + tree


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--check", action="store_true", help="fail if a file is stale")
    args = ap.parse_args()
    stale = []
    OUT.mkdir(parents=True, exist_ok=True)
    for sched in SCHEDULERS:
        for order in ORDERS:
            path = OUT / f"ftp-{order}-{sched}.toml"
            text = render(sched, order)
            if args.check:
                if not path.exists() or path.read_text() != text:
                    stale.append(path.name)
            else:
                path.write_text(text)
    if stale:
        print("stale (run tools/gen_nap_scenarios.py):", ", ".join(stale))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
