"""Writes the N-host star of issue 37 item 4 (scale of scenario loading) to a TOML file.

A router ``hub``, ``N`` hosts ``h{i}`` (one ``count = N`` entry), one ``[[links]]`` entry
per host (links have no ``count``), a ``server`` behind the hub, and one UDP CBR flow per
host to the server (``count = N``), their starts ``10us`` apart so that N first packets
do not all reach the hub's FIFO at t = 0. ``run.duration = "1s"``.

The file is about 800 KB at N = 10 000, so it is generated, not committed:
``python3 tools/gen_star.py /tmp/star.toml`` (``--hosts N`` for another size). The
tests (tests/test_star.py) build it the same way with :func:`star_toml`.
"""

from __future__ import annotations

import argparse
from pathlib import Path


def star_toml(hosts: int = 10_000, duration: str = "1s") -> str:
    """The star's TOML text with ``hosts`` hosts."""
    parts = [
        f'description = "A {hosts}-host star: one UDP CBR flow per host to a server behind '
        'the hub (issue 37: loading large scenarios)."\n',
        f'[run]\nduration = "{duration}"\nseed = 1\n',
        '[[nodes]]\nname = "hub"\nkind = "router"\n',
        '[[nodes]]\nname = "server"\n',
        f'[[nodes]]\nname = "h{{i}}"\ncount = {hosts}\n',
        '[[links]]\nname = "uplink"\nbetween = ["hub", "server"]\nrate = "1Gbit"\ndelay = "1ms"\n',
    ]
    parts.extend(
        f'[[links]]\nname = "l{i}"\nbetween = ["h{i}", "hub"]\nrate = "100Mbit"\ndelay = "1ms"\n'
        for i in range(hosts)
    )
    parts.append(
        f'[[flows]]\nname = "f{{i}}"\ncount = {hosts}\nfrom = "h{{i}}"\nto = "server"\n'
        'start_spacing = "10us"\napp = { kind = "cbr", rate = "10kbit", size = 100 }\n'
    )
    return "\n".join(parts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="the TOML file to write")
    parser.add_argument("--hosts", type=int, default=10_000, help="number of hosts")
    args = parser.parse_args()
    args.out.write_text(star_toml(args.hosts), encoding="utf-8")


if __name__ == "__main__":
    main()
