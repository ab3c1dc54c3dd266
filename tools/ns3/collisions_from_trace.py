"""Collision anatomy from a PPDU trace of tools/ns3/wifi_ht_saturation.cc --trace=FILE (issue 36;
docs/ns3-wifi-comparison.md): overlapping station PPDUs grouped into collisions, which of them
the AP answered with a BlockAck, and the gaps before each transmission.

Line: start_ns dev kind nmpdu dur_ns to (dev 0 = AP; kind D data, R BlockAckReq, A BlockAck,
O other). Usage: python tools/ns3/collisions_from_trace.py FILE
"""

import bisect
import collections
import sys
from pathlib import Path

rows = [line.split() for line in Path(sys.argv[1]).read_text().splitlines()]
rows = [(int(a), int(b), c, int(d), int(e), int(f)) for a, b, c, d, e, f in rows]
rows.sort()
sta = [r for r in rows if r[1] != 0]
ap = [r for r in rows if r[1] == 0]
groups = []
for r in sta:
    if groups and r[0] < groups[-1]["end"]:
        g = groups[-1]
        g["m"].append(r)
        g["end"] = max(g["end"], r[0] + r[4])
    else:
        groups.append({"m": [r], "start": r[0], "end": r[0] + r[4]})
# responses

apstarts = [r[0] for r in ap]
for g in groups:
    i = bisect.bisect_left(apstarts, g["end"])
    g["ba"] = None
    while i < len(ap) and ap[i][0] <= g["end"] + 30000:
        if ap[i][2] == "A":
            g["ba"] = ap[i]
            break
        i += 1
comp = collections.Counter()
surv = collections.Counter()
spread = collections.Counter()
for g in groups:
    kinds = "".join(sorted(m[2] for m in g["m"]))
    comp[kinds] += 1
    if len(g["m"]) > 1:
        spread[max(m[0] for m in g["m"]) - g["start"]] += 1
        if g["ba"]:
            to = g["ba"][5]
            k = [m[2] for m in g["m"] if m[1] == to]
            surv[(kinds, "".join(k) or "?")] += 1
        else:
            surv[(kinds, "none")] += 1
print("groups", len(groups), "collisions", sum(len(g["m"]) > 1 for g in groups))
print("composition:", comp.most_common(12))
print(
    "collision outcome (composition, survivor kind):",
    sorted(surv.items(), key=lambda x: -x[1])[:15],
)
print("start spread inside collisions (ns):", spread.most_common(8))
d = [m for g in groups for m in g["m"] if m[2] == "D"]
r = [m for g in groups for m in g["m"] if m[2] == "R"]
dfail = sum(
    1 for g in groups for m in g["m"] if m[2] == "D" and not (g["ba"] and g["ba"][5] == m[1])
)
rfail = sum(
    1 for g in groups for m in g["m"] if m[2] == "R" and not (g["ba"] and g["ba"][5] == m[1])
)
mean = sum(m[3] for m in d) / max(len(d), 1)
print(f"data PPDUs {len(d)} failed {dfail} ({dfail / max(len(d), 1):.3f})")
print(f"BARs {len(r)} failed {rfail} ({rfail / max(len(r), 1):.3f}); MPDUs/PPDU {mean:.2f}")
# gaps: start of a group minus the end of the previous busy period (group end or its BA end)
prev_end, prev_coll = None, None
gaps = {True: collections.Counter(), False: collections.Counter()}
for g in groups:
    if prev_end is not None:
        gap = g["start"] - prev_end
        gaps[prev_coll][gap // 1000] += 1
    prev_end = g["ba"][0] + g["ba"][4] if g["ba"] else g["end"]
    prev_coll = g["ba"] is None
for k in (False, True):
    tot = sum(gaps[k].values())
    print(
        "after", "a failure (no BA)" if k else "a BA", tot, "gaps us:", sorted(gaps[k].items())[:25]
    )
