"""Writes the NAP scenarios of seed 000 (Yip & Kwok 2007) under scenarios/nap/.

The testbed of §4.1 (Fig. 10, Table 1) on the shared 2.4 GHz spectrum, with:

- `ftp-<order>-<scheduler>.toml`: one file per scheduler and start order ("Bluetooth
  first" / "WLAN first", 45 s apart, §5.1);
- `ditg-<load>.toml`: the D-ITG mixes of Tables 2–3 at light / medium / heavy Bluetooth
  load (§5.2–5.3), FIFO at imq0;
- `background-<scheme>.toml` (§5.4) and `clients-12-<scheme>.toml` (§5.5): downloads and
  uploads beside an independent 802.11b network at 50 % load, with CAWN on the NAP or
  FIFO on the NAP and AFH / BIAS on the piconet (the MAC-layer comparisons).

The catalog (python/airqueue/catalog/yip_kwok_2007.py) derives its sweeps from these
files. Run `python tools/gen_nap_scenarios.py` after editing, `--check` in CI.
"""

# ruff: noqa: E501  (the TOML templates keep one class per line, as tc users write them)

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "scenarios" / "nap"

#: Fig. 10: the three machines "form an equilateral triangle with sides of one meter";
#: the NAP at the origin (metres).
TRIANGLE = {"nap": (0.0, 0.0), "btc": (1.0, 0.0), "wlc": (0.5, 0.866)}

#: §5.4's "nearby independent IEEE 802.11b network consisting of three client devices
#: communicating with an AP", placed 3–4 m from the NAP (the paper gives no distance).
BACKGROUND_POSITIONS = {
    "bgap": (0.5, 3.0),
    "bgs1": (-0.5, 3.5),
    "bgs2": (1.5, 3.5),
    "bgs3": (0.5, 4.0),
}

#: Every TCP flow's stack (issue 38): the NAP ran Red Hat Linux 7.1 (§4.2: "All the three
#: machines used in our experiments are Linux PCs. The FTP server (at the NAP) used is the
#: WU-2.6.1-16 bundled with Redhat Linux 7.1"), whose kernel is 2.4: the linux-2.4 profile.
#: The clients' kernel release is not stated (nor the background network's hosts'); the era
#: reading gives them the same profile (docs/reproductions/yip-kwok-2007.md, "TCP stack
#: profile", shows the other reading). The paper writes no TCP key of its own.
TCP = 'transport = { kind = "tcp", profile = "linux-2.4" }'

TCP_NOTE = (
    "# TCP: the linux-2.4 profile (docs/tcp-profiles.md). §4.2: the NAP, the FTP server and\n"
    '# D-ITG sender, ran Red Hat Linux 7.1 (kernel 2.4); the clients are "Linux PCs" of\n'
    "# unstated release, given the same era profile.\n\n"
)

RUN = """\
[run]
duration = "{duration}"
seed = 1
sample_interval = "1s"
"""

NODES = """
# Fig. 10: the NAP (a Linux PC: FTP server and access point), {clients}, 1 m from it.
# The FTP server and the D-ITG sender ran on the NAP; here a wired host behind it stands
# in for them (the NAP's egress scheduling, the paper's subject, is the same).
[[nodes]]
name = "server"

[[nodes]]
name = "nap"
kind = "router"
{client_nodes}
[[links]]
name = "lan"
between = ["server", "nap"]
rate = "100Mbit"
delay = "100us"
"""

PICONET = """
# Table 1: the NAP is the Bluetooth master (BNEP, PAN profile), DH5 only (§4.1: 723 kbit/s,
# "about 90.375 kbytes/s"); the clients are its slaves. The master's baseband buffer is
# kept small so that packets wait in the NAP's qdiscs (imq0's, then bnep0's own; CAWN's).
# POLL/NULL packets are on the air too (docs/bluetooth.md, Coexistence).
# Baseband ARQ on, as on any Bluetooth ACL link (Core v1.1 Part B §5.3: a DH packet is
# sent again until acknowledged; the default flush timeout is infinite).
[[piconets]]
name = "bt"
master = "nap"
slaves = [{slaves}]
packet_types = ["DH5"]
master_buffer = 2
arq = true{coexistence}
"""

CELL = """
# Table 1: IEEE 802.11b at 11 Mbit/s, the NAP in AP mode (HostAP, on the driver's default
# channel 3: hostap_main.c `channel[] = {{ 3, … }}`); a small driver buffer, for the same
# reason.
[[cells]]
name = "wlan"
standard = "802.11b"
ap = "nap"
rate = "11Mbit"
channel = 3
ap_buffer = 2
stations = [{stations}]
"""

BACKGROUND_CELL = """
# §5.4: a nearby independent 802.11b network, an AP and three clients, on its own
# channel (6, the usual factory default; the paper does not say): it contends with
# nobody on the NAP's channel 3 but overlaps it and the Bluetooth hops in the spectrum.
[[nodes]]
name = "bgap"
[[nodes]]
name = "bgs1"
[[nodes]]
name = "bgs2"
[[nodes]]
name = "bgs3"

[[cells]]
name = "bg"
standard = "802.11b"
ap = "bgap"
rate = "11Mbit"
channel = 6
stations = [{ node = "bgs1" }, { node = "bgs2" }, { node = "bgs3" }]
"""

SPECTRUM = """
# Table 1: both radios in one 2.4 GHz band, AWGN with free-space path loss (Friis),
# Bluetooth 1 mW (0 dBm), 802.11b 25 mW (14 dBm); the NAP's two radios share its node
# (0.1 m apart, the spectrum's `min_distance`). docs/bluetooth.md, Coexistence.
[spectrum]
members = [{members}]
positions = {{ {positions} }}
bluetooth_power_dbm = 0
wlan_power_dbm = 14
"""


def _positions(places: dict[str, tuple[float, float]]) -> str:
    return ", ".join(f"{n} = [{x:g}, {y:g}]" for n, (x, y) in places.items())


def testbed(
    duration: str,
    bt_clients: list[str],
    wlan_clients: list[str],
    places: dict[str, tuple[float, float]],
    coexistence: str = "none",
    background: bool = False,
) -> str:
    """The NAP with its clients on the shared spectrum (and the §5.4 background network)."""
    n = len(bt_clients) + len(wlan_clients)
    clients = (
        "a Bluetooth and a WLAN client"
        if n == 2
        else f"{len(bt_clients)} Bluetooth and {len(wlan_clients)} WLAN clients"
    )
    nodes = "".join(f'\n[[nodes]]\nname = "{c}"\n' for c in bt_clients + wlan_clients)
    coex = "" if coexistence == "none" else f'\ncoexistence = "{coexistence}"'
    members = ['"bt"', '"wlan"'] + (['"bg"'] if background else [])
    if background:
        places = {**places, **BACKGROUND_POSITIONS}
    return (
        RUN.format(duration=duration)
        + NODES.format(clients=clients, client_nodes=nodes)
        + PICONET.format(slaves=", ".join(f'"{c}"' for c in bt_clients), coexistence=coex)
        + CELL.format(stations=", ".join(f'{{ node = "{c}" }}' for c in wlan_clients))
        + (BACKGROUND_CELL if background else "")
        + SPECTRUM.format(members=", ".join(members), positions=_positions(places))
    )


FTP_FLOWS = """
# §4.2.1: each client downloads a 600 MB file by FTP; {order}.
[[flows]]
name = "ftp-bt"
from = "server"
to = "btc"
start = "{bt_start}"
app = {{ kind = "bulk", bytes = "600MB" }}
{tcp}

[[flows]]
name = "ftp-wlan"
from = "server"
to = "wlc"
start = "{wlan_start}"
app = {{ kind = "bulk", bytes = "600MB" }}
{tcp}
"""

IMQ = """
# §2.1: IMQ — one qdisc at imq0 in front of both interfaces, as McHardy's IMQ runs it:
# each packet diverted to imq0 is enqueued, imq0's qdisc is then dequeued until it gives
# nothing (one dequeue path for both radios), and each packet is re-injected into its real
# device's own queue (pfifo, txqueuelen 1000) to wait for the driver
# (docs/qdiscs/virtual-devices.md, "IMQ mode").
[[virtual_devs]]
name = "nap.imq0"
members = ["nap.wlan", "nap.bt"]
dequeue = "imq"
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
# §2.5: "the data rate of each flow of traffic as the Channel State Information".
csi = "rate"
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
# §2.5: "the data rate of each flow of traffic as the Channel State Information".
csi = "rate"
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
    """§5.1's FTP test: one Bluetooth and one WLAN client, 45 s apart."""
    what, tree = SCHEDULERS[sched]
    words, bt, wl = ORDERS[order]
    head = (
        f'description = "Seed 000 NAP (Yip & Kwok 2007, §4–5.1): FTP downloads to a Bluetooth'
        f" and a WLAN client, {words}; {what}. The two radios interfere through the shared"
        f' spectrum (docs/reproductions/yip-kwok-2007.md)."\n\n'
        "# Generated by tools/gen_nap_scenarios.py; edit that file.\n\n" + TCP_NOTE
    )
    body = testbed(duration, ["btc"], ["wlc"], TRIANGLE)
    body += FTP_FLOWS.format(order=words, bt_start=bt, wlan_start=wl, tcp=TCP)
    return head + body + tree


#: Table 3: flows per Bluetooth load level — Bluetooth (video, voice, FTP) and the WLAN's
#: video flows; the WLAN also has one FTP flow (the basis case of §5.2: "1 Voice flow,
#: 1 Video flow and 1 FTP flow") and 1–4 voice flows (swept; 1 in the files).
LOADS: dict[str, tuple[int, int, int, int]] = {
    "light": (0, 1, 1, 0),
    "medium": (1, 2, 1, 1),
    "heavy": (2, 2, 2, 2),
}

#: Table 2 as D-ITG generates it: video UDP 10 (Bluetooth) or 45 (WLAN) packets/s of
#: 1500 B; voice G.711 in 120-B packets (one 10-ms frame + RTP); "FTP" a D-ITG TCP flow of
#: 100 packets/s of 1500 B (D-ITG writes 1500 B every 10 ms into the socket). Voice and
#: video carry the DSCPs (EF, AF41) by which check-flow-types() tells them (D-ITG `-b`).
DITG_APPS = {
    "video-bt": '{ kind = "video", packets_per_second = 10 }\ndscp = 34',
    "video-wlan": '{ kind = "video", packets_per_second = 45 }\ndscp = 34',
    "voice": '{ kind = "voice", codec = "g711", frames_per_packet = 1 }\ndscp = 46',
    "ftp": '{ kind = "message", size = 1500, interval = "10ms", distribution = "constant" }\n'
    + TCP,
}


def _ditg_flow(name: str, count: int, to: str, app: str) -> str:
    if count == 0:
        return ""
    return (
        f'\n[[flows]]\nname = "{name}"\ncount = {count}\nfrom = "server"\nto = "{to}"\n'
        f'start_spacing = "10ms"\napp = {DITG_APPS[app]}\n'
    )


def render_ditg(load: str, duration: str = "60s") -> str:
    """§5.2–5.3's D-ITG test at one Bluetooth load (Table 3), FIFO at imq0 (the catalog
    swaps the schedulers in from the FTP files and sweeps the WLAN flow counts)."""
    bt_video, bt_voice, bt_ftp, wlan_video = LOADS[load]
    head = (
        f'description = "Seed 000 NAP (Yip & Kwok 2007, §5.2–5.3, Tables 2–3): the D-ITG mix'
        f" at {load} Bluetooth load ({bt_video} video, {bt_voice} voice, {bt_ftp} FTP to the"
        f" Bluetooth client; 1 FTP, 1 voice (sweep flows.wlan-voice.count = 1…4), {wlan_video}"
        " video to the WLAN client), FIFO at imq0; the radios interfere through the shared"
        ' spectrum (docs/reproductions/yip-kwok-2007.md)."\n\n'
        "# Generated by tools/gen_nap_scenarios.py; edit that file.\n\n" + TCP_NOTE
    )
    body = testbed(duration, ["btc"], ["wlc"], TRIANGLE)
    body += f"\n# Tables 2–3, {load} Bluetooth load; every flow from the NAP (downlink).\n"
    body += _ditg_flow("bt-video", bt_video, "btc", "video-bt")
    body += _ditg_flow("bt-voice", bt_voice, "btc", "voice")
    body += _ditg_flow("bt-ftp", bt_ftp, "btc", "ftp")
    body += _ditg_flow("wlan-ftp", 1, "wlc", "ftp")
    body += _ditg_flow("wlan-voice", 1, "wlc", "voice")
    body += _ditg_flow("wlan-video", wlan_video, "wlc", "video-wlan")
    return head + body + SCHEDULERS["fifo"][1]


#: §5.4–5.5: CAWN on the NAP, or FIFO on the NAP with a MAC-layer mechanism on the piconet.
SCHEMES: dict[str, tuple[str, str, str]] = {
    "cawn": ("CAWN on the NAP (plain hopping)", "cawn", "none"),
    "afh": ("FIFO on the NAP, AFH on the piconet", "fifo", "afh"),
    "bias": ("FIFO on the NAP, BIAS on the piconet", "fifo", "bias"),
}

#: §5.4: "At the 100% level, there are 10 FTP flows (sending files of 50 Mbytes) between
#: each client device and the AP"; 50 % (five per client) in the files (§5.5's level).
BACKGROUND_FLOWS_AT_100 = 10


def _bulk(name: str, src: str, dst: str, size: str, count: int = 1) -> str:
    c = f"count = {count}\n" if count > 1 else ""
    spacing = 'start_spacing = "100ms"\n' if count > 1 else ""
    return (
        f'\n[[flows]]\nname = "{name}"\n{c}from = "{src}"\nto = "{dst}"\n{spacing}'
        f'app = {{ kind = "bulk", bytes = "{size}" }}\n'
        f"{TCP}\n"
    )


def render_mac(scheme: str, clients: int, duration: str = "120s") -> str:
    """§5.4 (two clients) and §5.5 (2–12 clients, half of each kind): downloads (600 MB)
    and uploads (100 MB) per client, the background network at 50 %."""
    what, sched, coex = SCHEMES[scheme]
    half = clients // 2
    if clients == 2:
        bt, wl, places = ["btc"], ["wlc"], TRIANGLE
    else:
        bt = [f"btc{i}" for i in range(1, half + 1)]
        wl = [f"wlc{i}" for i in range(1, half + 1)]
        # Every client 1 m from the NAP, evenly around it, the two kinds alternating.
        places = {"nap": (0.0, 0.0)}
        for k, c in enumerate(c for pair in zip(bt, wl, strict=True) for c in pair):
            a = 2 * math.pi * k / clients
            places[c] = (round(math.cos(a), 3), round(math.sin(a), 3))
    sec = "§5.4" if clients == 2 else "§5.5"
    head = (
        f'description = "Seed 000 NAP (Yip & Kwok 2007, {sec}): {what}; {len(bt)} Bluetooth'
        f" and {len(wl)} WLAN client(s), each downloading 600 MB and uploading 100 MB, beside"
        " an independent 802.11b network at 50 % load (5 FTP flows per client; sweep"
        " flows.bg1.count etc. = 0…10); the radios interfere through the shared spectrum"
        ' (docs/reproductions/yip-kwok-2007.md)."\n\n'
        "# Generated by tools/gen_nap_scenarios.py; edit that file.\n\n" + TCP_NOTE
    )
    body = testbed(duration, bt, wl, places, coexistence=coex, background=True)
    body += "\n# §5.4: downloads from the NAP and uploads of large files to it, per client.\n"
    for kind, names in (("bt", bt), ("wlan", wl)):
        for c in names:
            suffix = "" if clients == 2 else f"-{c[-1]}"
            body += _bulk(f"{kind}-down{suffix}", "server", c, "600MB")
            body += _bulk(f"{kind}-up{suffix}", c, "server", "100MB")
    body += "\n# §5.4: the background network's FTP flows (50 MB files), AP to each client.\n"
    n = BACKGROUND_FLOWS_AT_100 // 2
    for k in (1, 2, 3):
        body += _bulk(f"bg{k}", "bgap", f"bgs{k}", "50MB", count=n)
    return head + body + SCHEDULERS[sched][1]


def files() -> dict[str, str]:
    """Every generated file by name."""
    out = {}
    for sched in SCHEDULERS:
        for order in ORDERS:
            out[f"ftp-{order}-{sched}.toml"] = render(sched, order)
    for load in LOADS:
        out[f"ditg-{load}.toml"] = render_ditg(load)
    for scheme in SCHEMES:
        out[f"background-{scheme}.toml"] = render_mac(scheme, 2)
        out[f"clients-12-{scheme}.toml"] = render_mac(scheme, 12)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--check", action="store_true", help="fail if a file is stale")
    args = ap.parse_args()
    stale = []
    OUT.mkdir(parents=True, exist_ok=True)
    for name, text in files().items():
        path = OUT / name
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
