"""The `tc` round trip of every shipped scenario on this machine's kernel: the table in
docs/tc.md ("Round trip of the shipped scenarios").

    sudo python tools/tc_roundtrip.py [--json OUT] [SCENARIO ...]

For each scenario: its [[qdiscs]] trees, how many export (the rest are kinds Linux does not
have), how many of the commands `tc` parses and the kernel applies (and which kinds this
kernel has no module for), and how many trees come back equal
(airqueue.tc.roundtrip.roundtrip: export, apply on veths in a fresh namespace, read back
with tc, import, compare). Needs root and iproute2; the kernel VM harness
(tools/kernel-vm) runs the same function for the kinds this kernel lacks.
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
from pathlib import Path

from airqueue import load_scenario, shipped
from airqueue.tc.roundtrip import have_tools, roundtrip, summary


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("scenarios", nargs="*", help="default: every shipped scenario")
    ap.add_argument("--json", type=Path, help="also write the rows as JSON here")
    args = ap.parse_args()
    why = have_tools()
    if why is not None:
        print(f"tc round trip: {why}", file=sys.stderr)
        return 2
    root = shipped.scenarios_dir()
    files = args.scenarios or [
        p.relative_to(root).with_suffix("").as_posix() for p in sorted(root.rglob("*.toml"))
    ]
    rows = []
    for f in files:
        s = summary(roundtrip(load_scenario(f).resolved(), f))
        rows.append(s)
        print(f"  {f}: done", file=sys.stderr)
    tc_version = subprocess.run(["tc", "-V"], capture_output=True, text=True).stdout.strip()
    print(f"Kernel {platform.release()}, {tc_version}.\n")
    print(
        "| scenario | trees | exported | commands parsed | applied | kernel lacks "
        "| trees equal | interfaces equal |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    tot = dict.fromkeys(
        (
            "trees",
            "exported",
            "commands",
            "parsed",
            "applied",
            "trees_equal",
            "interfaces",
            "interfaces_equal",
            "trees_applied",
        ),
        0,
    )
    for s in rows:
        for k in tot:
            tot[k] += s[k]
        print(
            f"| {s['scenario']} | {s['trees']} | {s['exported']} | {s['parsed']}/{s['commands']} "
            f"| {s['applied']}/{s['commands']} | {', '.join(s['no_module']) or '—'} "
            f"| {s['trees_equal']}/{s['exported']} | {s['interfaces_equal']}/{s['interfaces']} |"
        )
    print(
        f"| **all {len(rows)}** | {tot['trees']} | {tot['exported']} "
        f"| {tot['parsed']}/{tot['commands']} | {tot['applied']}/{tot['commands']} | "
        f"| {tot['trees_equal']}/{tot['exported']} "
        f"| {tot['interfaces_equal']}/{tot['interfaces']} |"
    )
    print(
        f"\nTrees applied whole on this kernel: {tot['trees_applied']}; of those, equal after "
        f"the round trip: {tot['trees_equal']}."
    )
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
