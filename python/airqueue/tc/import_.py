"""``airqueue tc import``: a Linux device's qdisc tree, as ``tc`` shows it, to ``[[qdiscs]]``.

Reads the three listings a router gives of one device (iproute2 6.1):

- ``tc -j -s -d qdisc show dev IFACE`` (JSON; ``-d`` adds the ``stab``),
- ``tc -d class show dev IFACE`` (text: 6.1 prints HTB's and DRR's classes as text even
  with ``-j``; a JSON listing is read too),
- ``tc -j filter show dev IFACE`` (JSON; u32 keys repeat the key ``match`` in one object,
  so the JSON is read keeping every duplicate).

The tree becomes one ``[[qdiscs]]`` entry (a table, :func:`import_tree`): classes named
by their class id (``"1:20"``), u32 keys turned back into ``match`` fields (addresses
into host names when the scenario they go into is known). A root ``netem`` becomes the
link's ``impairment``. Whatever has no place in a scenario (an unknown qdisc kind, a
classifier other than u32/fw, an action, a u32 key on no field airqueue reads) is
reported by name (:class:`ImportProblem`), never dropped silently.

Bad input raises :class:`ImportError_` naming what and where: a listing that is not tc's
JSON or is cut short, an unknown kind, two qdiscs (or classes) with one handle, a class
whose parent does not exist.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .export import LINUX_KINDS, NOT_LINUX, U32_FIELDS
from .units import (
    UnitError,
    parse_tc_rate,
    parse_tc_size,
    scenario_rate,
    scenario_time,
)

#: Kinds the importer reads (Linux's names): those the export writes, and netem (the
#: link's impairments).
IMPORTABLE = LINUX_KINDS | {"netem"}


class ImportError_(Exception):
    """Input that is not a tc listing airqueue can read; each problem names where."""

    def __init__(self, problems: list[tuple[str, str]]) -> None:
        super().__init__("; ".join(f"{w}: {m}" for w, m in problems))
        self.problems = problems


@dataclass
class Listing:
    """The three listings of one device, as text, with where each came from."""

    qdiscs: str
    classes: str = ""
    filters: str = ""
    qdiscs_from: str = "qdiscs"
    classes_from: str = "classes"
    filters_from: str = "filters"
    #: ``ip link`` txqueuelen of the device, for pfifo_fast's limit (None: unknown).
    txqueuelen: int | None = None
    #: ``tc -d qdisc show`` as text, for what 6.1's JSON leaves out (tbf's peakrate).
    qdiscs_text: str = ""


@dataclass
class Imported:
    """The tree, the link impairment, and what could not be represented."""

    tree: dict[str, Any] | None
    impairment: dict[str, Any] | None = None
    unrepresented: list[tuple[str, str]] = field(default_factory=list)


# ---------------------------------------------------------------------------------------
# Reading the listings
# ---------------------------------------------------------------------------------------


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object keeping repeated keys (u32's ``match``) as lists."""
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            if not isinstance(out[k], _Multi):
                out[k] = _Multi([out[k]])
            out[k].append(v)
        else:
            out[k] = v
    return out


class _Multi(list[Any]):
    """Values of a key repeated in one JSON object."""


def _all(v: Any) -> list[Any]:
    if v is None:
        return []
    return list(v) if isinstance(v, list) else [v]


def read_json(text: str, where: str, what: str) -> list[dict[str, Any]]:
    """A ``tc -j`` listing: a JSON array of objects."""
    stripped = text.strip()
    if not stripped:
        return []
    try:
        data = json.loads(stripped, object_pairs_hook=_pairs)
    except json.JSONDecodeError as e:
        repaired = _repair_fw_options(stripped)
        if repaired is not None:
            return read_json(repaired, where, what)
        cut = e.pos >= len(stripped) - 1
        raise ImportError_(
            [
                (
                    where,
                    f"is not {what} as `tc -j` prints it: "
                    + (
                        "it ends in the middle (truncated?)"
                        if cut
                        else f"{e.msg} at line {e.lineno}, column {e.colno}"
                    ),
                )
            ]
        ) from None
    if not isinstance(data, list) or not all(isinstance(x, dict) for x in data):
        raise ImportError_([(where, f"is not {what}: `tc -j` prints a JSON array of objects")])
    return data


#: iproute2 6.1's fw classifier prints its options as text inside the JSON
#: (``"options":{handle 0x1 classid 1:2 }``: ``fw_print_opt`` uses fprintf), as the
#: kernel VM showed (tests/data/tc/vm-6.1).
_FW_TEXT_OPTIONS = re.compile(r'"options":\{([^{}"]*)\}')


def _repair_fw_options(text: str) -> str | None:
    """The listing with fw's text options as a JSON object (None: nothing to repair, or
    words that are not fw's ``handle X[/MASK]``, ``classid X``, ``input dev X``)."""

    def fix(m: re.Match[str]) -> str:
        words = m.group(1).split()
        out: dict[str, str] = {}
        i = 0
        while i < len(words):
            if words[i] == "input" and i + 2 < len(words) and words[i + 1] == "dev":
                out["indev"] = words[i + 2]
                i += 3
            elif words[i] in ("handle", "classid", "mask") and i + 1 < len(words):
                out[words[i]] = words[i + 1]
                i += 2
            else:
                raise ValueError(words[i])
        return '"options":' + json.dumps(out)

    if not _FW_TEXT_OPTIONS.search(text):
        return None
    try:
        fixed = _FW_TEXT_OPTIONS.sub(fix, text)
        json.loads(fixed)
    except (ValueError, json.JSONDecodeError):
        return None
    return fixed


_CLASS_LINE = re.compile(r"^class (\S+) ([0-9a-fA-F]+:[0-9a-fA-F]*) (.*)$")


def read_classes(text: str, where: str) -> list[dict[str, Any]]:
    """``tc -d class show`` as text (or JSON): one dict per class with its words."""
    stripped = text.strip()
    if not stripped:
        return []
    if stripped.startswith("["):
        out = []
        for c in read_json(stripped, where, "a class listing"):
            d = dict(c.get("options") or {})
            d.update({k: v for k, v in c.items() if k != "options"})
            d["_line"] = 0
            out.append(d)
        return out
    classes: list[dict[str, Any]] = []
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line[0].isspace():
            continue  # statistics (-s) are indented
        m = _CLASS_LINE.match(line.rstrip())
        if m is None:
            raise ImportError_(
                [(f"{where}:{lineno}", f"is not a line of `tc class show`: {line.strip()[:80]!r}")]
            )
        words = m.group(3).split()
        c: dict[str, Any] = {"class": m.group(1), "handle": m.group(2), "_line": lineno}
        i = 0
        while i < len(words):
            w = words[i]
            if w == "root":
                c["root"] = True
                i += 1
            elif i + 1 < len(words):
                c[w] = words[i + 1].split("/")[0]
                i += 2
            else:
                raise ImportError_(
                    [(f"{where}:{lineno}", f'"{w}" has no value (the line is cut short?)')]
                )
        classes.append(c)
    return classes


# ---------------------------------------------------------------------------------------
# The tree
# ---------------------------------------------------------------------------------------


def _handle(h: str) -> str:
    """``"1:"``, ``"1:0"`` → ``"1:"``; ``"1:20"`` stays."""
    h = str(h).lower()
    major, _, minor = h.partition(":")
    major = major.lstrip("0") or "0"
    minor = minor.lstrip("0")
    return f"{major}:{minor}"


def _rate(v: Any) -> int:
    """A rate as a listing gives it: text as tc prints it (``12Mbit``) or, in JSON, bytes/s."""
    return int(v) * 8 if isinstance(v, int) else parse_tc_rate(str(v))


def _size(v: Any) -> int:
    """A size as a listing gives it: text (``1597b``, ``10Kb/1``) or, in JSON, bytes."""
    return int(v) if isinstance(v, int) else parse_tc_size(str(v))


def _fraction(v: Any) -> float:
    """A netem probability as the kernel keeps it (a fraction of 2^32 - 1), rounded to
    the 1e-8 a scenario would write (0.24999999988 -> 0.25)."""
    return round(float(v), 8)


def _int(v: Any) -> int:
    if isinstance(v, str):
        return int(v, 0)
    return int(v)


class Importer:
    """Builds the ``[[qdiscs]]`` entry of one device's listings."""

    def __init__(
        self,
        listing: Listing,
        addresses: Mapping[int, str] | None = None,
        marks: Mapping[int, str] | None = None,
        header_delta: int = 0,
        netem_header: int = 0,
    ) -> None:
        self.l = listing
        self.header_delta = header_delta
        self.netem_header = netem_header
        self.addresses = dict(addresses or {})
        self.marks = dict(marks or {})
        self.unrepresented: list[tuple[str, str]] = []
        self.errors: list[tuple[str, str]] = []

    # -- entry point --------------------------------------------------------------------

    def run(self) -> Imported:
        qd = read_json(self.l.qdiscs, self.l.qdiscs_from, "a qdisc listing")
        cl = read_classes(self.l.classes, self.l.classes_from)
        fl = read_json(self.l.filters, self.l.filters_from, "a filter listing")
        devs = {q.get("dev") for q in qd if q.get("dev")}
        if len(devs) > 1:
            raise ImportError_(
                [
                    (
                        self.l.qdiscs_from,
                        f"lists several devices ({', '.join(sorted(devs))}); "
                        "give the listing of one (`tc -j -s -d qdisc show dev IFACE`)",
                    )
                ]
            )
        self.qdiscs: dict[str, dict[str, Any]] = {}
        for i, q in enumerate(qd):
            where = f"{self.l.qdiscs_from}: qdisc #{i + 1}"
            if "kind" not in q or "handle" not in q:
                raise ImportError_(
                    [(where, "has no kind or handle: not `tc -j qdisc show` output")]
                )
            h = _handle(q["handle"])
            if h == "0:":
                continue  # a device's default hidden child (handle 0), made by the kernel
            if h in self.qdiscs:
                raise ImportError_(
                    [
                        (
                            f"{where} ({q['kind']} {q['handle']})",
                            f"handle {q['handle']} is taken by another qdisc "
                            f"({self.qdiscs[h]['kind']}): a handle collision",
                        )
                    ]
                )
            q["_where"] = f"{self.l.qdiscs_from}: qdisc {q['kind']} {q['handle']}"
            self.qdiscs[h] = q
            kind = q["kind"]
            if kind not in IMPORTABLE:
                why = (
                    f"an airqueue discipline ({NOT_LINUX[kind]}), not a Linux qdisc"
                    if kind in NOT_LINUX
                    else "not a qdisc airqueue has"
                )
                raise ImportError_([(q["_where"], f'kind "{kind}" is {why}')])
        self.classes: dict[str, dict[str, Any]] = {}
        for c in cl:
            h = _handle(c["handle"])
            where = f"{self.l.classes_from}:{c['_line']}" if c["_line"] else self.l.classes_from
            c["_where"] = f"{where} (class {c.get('class', '?')} {c['handle']})"
            if h in self.classes:
                raise ImportError_(
                    [(c["_where"], f"class id {c['handle']} appears twice: a handle collision")]
                )
            self.classes[h] = c
        roots = [h for h, q in self.qdiscs.items() if q.get("root")]
        if not roots:
            raise ImportError_([(self.l.qdiscs_from, 'has no root qdisc ("root": true)')])
        root = self.qdiscs[roots[0]]
        imp: dict[str, Any] | None = None
        tree_q: dict[str, Any] | None = root
        if root["kind"] == "netem":
            imp = self.netem(root)
            tree_q = self.child_of(f"{roots[0].rstrip(':')}:1")
        tree = self.qdisc(tree_q) if tree_q else None
        for q in self.qdiscs.values():
            if not q.get("_used"):
                self.errors.append(
                    (q["_where"], f"its parent {q.get('parent')} is no class of this tree")
                )
        for c in self.classes.values():
            if not c.get("_used") and c.get("class") in ("htb", "drr"):
                self.errors.append(
                    (c["_where"], f"its parent {c.get('parent')} is no class or qdisc of this tree")
                )
        if self.errors:
            raise ImportError_(self.errors)
        # A tree behind a root netem has its stab on the netem (Linux takes one only at the
        # root): it is the tree's.
        stab_of = tree_q.get("stab") if tree_q is not None else None
        if stab_of is None and imp is not None:
            stab_of = root.get("stab")
        if tree is not None and stab_of:
            stab = self.stab(stab_of)
            # The export's length correction (airqueue's link_header against the device's
            # header, export.header_delta) is taken back out.
            stab["overhead"] -= self.header_delta
            if stab != {"overhead": 0}:
                tree["stab"] = stab
        self.filters_into(tree, fl)
        return Imported(tree=tree, impairment=imp, unrepresented=self.unrepresented)

    def child_of(self, classid: str) -> dict[str, Any] | None:
        classid = _handle(classid)
        for q in self.qdiscs.values():
            if q.get("parent") is not None and _handle(q["parent"]) == classid:
                return q
        return None

    def stab(self, s: Mapping[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {"overhead": int(s.get("overhead", 0))}
        if s.get("linklayer") and s["linklayer"] != "ethernet":
            out["linklayer"] = s["linklayer"]
        if s.get("mpu"):
            out["mpu"] = int(s["mpu"])
        if s.get("mtu") not in (None, 2047):
            out["mtu"] = int(s["mtu"])
        if s.get("tsize") not in (None, 512):
            out["tsize"] = int(s["tsize"])
        return out

    # -- qdiscs -------------------------------------------------------------------------

    def qdisc(self, q: dict[str, Any]) -> dict[str, Any]:
        q["_used"] = True
        o = q.get("options") or {}
        kind = q["kind"]
        t: dict[str, Any] = {"kind": kind}
        try:
            getattr(self, "k_" + kind)(q, o, t)
        except (KeyError, ValueError, TypeError, UnitError) as e:
            raise ImportError_([(q["_where"], f"options cannot be read: {e}")]) from None
        return t

    def k_pfifo(self, q: dict[str, Any], o: Mapping[str, Any], t: dict[str, Any]) -> None:
        t["limit"] = int(o["limit"])

    k_pfifo_head_drop = k_pfifo
    k_bfifo = k_pfifo

    def k_pfifo_fast(self, q: dict[str, Any], o: Mapping[str, Any], t: dict[str, Any]) -> None:
        if self.l.txqueuelen is not None:
            t["limit"] = self.l.txqueuelen

    def k_codel(self, q: dict[str, Any], o: Mapping[str, Any], t: dict[str, Any]) -> None:
        t["limit"] = int(o["limit"])
        t["target"] = scenario_time(int(o["target"]) * 1000)
        t["interval"] = scenario_time(int(o["interval"]) * 1000)
        t["ecn"] = bool(o.get("ecn", False))

    def k_fq_codel(self, q: dict[str, Any], o: Mapping[str, Any], t: dict[str, Any]) -> None:
        t["limit"] = int(o["limit"])
        t["flows"] = int(o["flows"])
        t["quantum"] = int(o["quantum"])
        t["target"] = scenario_time(int(o["target"]) * 1000)
        t["interval"] = scenario_time(int(o["interval"]) * 1000)
        t["memory_limit"] = int(o["memory_limit"])
        t["ecn"] = bool(o.get("ecn", False))
        t["drop_batch"] = int(o["drop_batch"])

    def k_sfq(self, q: dict[str, Any], o: Mapping[str, Any], t: dict[str, Any]) -> None:
        t["limit"] = int(o["limit"])
        t["quantum"] = int(o["quantum"])
        t["flows"] = int(o["flows"])
        t["divisor"] = int(o["divisor"])
        if "depth" in o:
            t["depth"] = int(o["depth"])
        t["perturb"] = f"{int(o.get('perturb', 0))}s"
        t["headdrop"] = bool(o.get("headdrop", False))
        if "ewma" in o or "min" in o:
            self.unrepresented.append(
                (
                    q["_where"],
                    "sfq's RED options (redflowlimit, min, max, ewma) are not in airqueue's sfq",
                )
            )

    def k_red(self, q: dict[str, Any], o: Mapping[str, Any], t: dict[str, Any]) -> None:
        t["limit"] = int(o["limit"])
        t["min"] = int(o["min"])
        t["max"] = int(o["max"])
        t["probability"] = float(o.get("probability", 0.02))
        self.unrepresented.append(
            (
                q["_where"],
                "red's avpkt, burst and bandwidth are not printed by tc (only ewma "
                "and Scell_log, computed from them): airqueue's defaults are used",
            )
        )

    def k_tbf(self, q: dict[str, Any], o: Mapping[str, Any], t: dict[str, Any]) -> None:
        t["rate"] = scenario_rate(int(o["rate"]) * 8)
        burst = o["burst"]
        t["burst"] = parse_tc_size(burst) if isinstance(burst, str) else int(burst)
        child = self.child_of(f"{_handle(q['handle']).rstrip(':')}:1")
        if child is not None:
            t["qdisc"] = self.qdisc(child)
        elif "lat" in o:
            t["latency"] = scenario_time(int(o["lat"]) * 1000)
        elif "limit" in o:
            t["limit"] = int(o["limit"])
        if "mtu" in o or "minburst" in o:
            m = re.search(
                rf"qdisc tbf {re.escape(q['handle'])}.*?peakrate (\S+)", self.l.qdiscs_text
            )
            if m:
                t["peakrate"] = scenario_rate(parse_tc_rate(m.group(1)))
                mtu = o.get("mtu", o.get("minburst"))
                t["mtu"] = parse_tc_size(mtu) if isinstance(mtu, str) else int(mtu)
            else:
                self.unrepresented.append(
                    (
                        q["_where"],
                        "has a peak rate, which tc 6.1 prints only as text "
                        "(give `tc -d qdisc show` too): peakrate and mtu left out",
                    )
                )

    def k_cake(self, q: dict[str, Any], o: Mapping[str, Any], t: dict[str, Any]) -> None:
        bw = o.get("bandwidth")
        if isinstance(bw, int) and bw > 0:
            t["bandwidth"] = scenario_rate(bw * 8)
        for key, name in (("diffserv", "diffserv"), ("flowmode", "isolation"), ("atm", "atm")):
            if isinstance(o.get(key), str):
                t[name] = o[key]
        if "rtt" in o:
            t["rtt"] = scenario_time(int(o["rtt"]) * 1000)
        for key in ("nat", "wash", "ingress"):
            if key in o:
                t[key] = bool(o[key])
        if isinstance(o.get("ack-filter"), str):
            t["ack_filter"] = {
                "disabled": "no-ack-filter",
                "enabled": "ack-filter",
                "aggressive": "ack-filter-aggressive",
            }.get(o["ack-filter"], o["ack-filter"])
        if "overhead" in o and not o.get("raw"):
            t["overhead"] = int(o["overhead"])
        if "mpu" in o:
            t["mpu"] = int(o["mpu"])
        if o.get("memlimit"):
            t["memlimit"] = int(o["memlimit"])

    def _classes_of(self, q: dict[str, Any], kind: str) -> list[tuple[str, dict[str, Any]]]:
        major = _handle(q["handle"]).rstrip(":")
        return sorted(
            (
                (h, c)
                for h, c in self.classes.items()
                if h.startswith(f"{major}:") and c.get("class") == kind
            ),
            key=lambda hc: int(hc[0].split(":")[1] or "0", 16),
        )

    def k_prio(self, q: dict[str, Any], o: Mapping[str, Any], t: dict[str, Any]) -> None:
        bands = int(o["bands"])
        t["bands"] = bands
        t["priomap"] = [int(x) for x in o["priomap"]]
        major = _handle(q["handle"]).rstrip(":")
        classes = []
        for b in range(1, bands + 1):
            cid = f"{major}:{b:x}"
            if cid in self.classes:
                self.classes[cid]["_used"] = True
            c: dict[str, Any] = {"name": cid}
            child = self.child_of(cid)
            if child is not None:
                c["qdisc"] = self.qdisc(child)
            classes.append(c)
        t["classes"] = classes

    def k_drr(self, q: dict[str, Any], o: Mapping[str, Any], t: dict[str, Any]) -> None:
        classes = []
        for h, c in self._classes_of(q, "drr"):
            c["_used"] = True
            e: dict[str, Any] = {"name": h}
            if "quantum" in c:
                e["quantum"] = _size(c["quantum"])
            child = self.child_of(h)
            if child is not None:
                e["qdisc"] = self.qdisc(child)
            classes.append(e)
        t["classes"] = classes

    def k_htb(self, q: dict[str, Any], o: Mapping[str, Any], t: dict[str, Any]) -> None:
        major = _handle(q["handle"]).rstrip(":")
        t["r2q"] = int(o.get("r2q", 10))
        t["direct_qlen"] = int(o.get("direct_qlen", 1000))
        default = _int(o.get("default", 0))
        classes = []
        ids = {h for h, _ in self._classes_of(q, "htb")}
        for h, c in self._classes_of(q, "htb"):
            c["_used"] = True
            e: dict[str, Any] = {"name": h}
            parent = c.get("parent")
            if not c.get("root"):
                if parent is None or _handle(parent) not in ids:
                    raise ImportError_(
                        [
                            (
                                c["_where"],
                                f"its parent {parent} is no class of htb {q['handle']}: "
                                "a class without a parent",
                            )
                        ]
                    )
                e["parent"] = _handle(parent)
            e["rate"] = scenario_rate(_rate(c["rate"]))
            if "ceil" in c:
                e["ceil"] = scenario_rate(_rate(c["ceil"]))
            if "burst" in c:
                e["burst"] = _size(c["burst"])
            if "cburst" in c:
                e["cburst"] = _size(c["cburst"])
            if "prio" in c:
                e["prio"] = int(c["prio"])
            if "quantum" in c:
                e["quantum"] = int(c["quantum"])
            child = self.child_of(h)
            if child is not None:
                e["qdisc"] = self.qdisc(child)
            classes.append(e)
        for h, c in self.classes.items():
            if c.get("class") == "htb" and not h.startswith(f"{major}:"):
                raise ImportError_(
                    [(c["_where"], f"belongs to no htb qdisc of this tree (handle {major}:)")]
                )
        parents = {e.get("parent") for e in classes}
        for e in classes:
            # What the kernel fills in is left out (HTB's bursts of about 1600 B, which
            # the kernel keeps as a time; quanta of rate / r2q; prio 0).
            for key in ("burst", "cburst"):
                if abs(int(e.get(key, 0)) - 1600) <= 8:
                    e.pop(key, None)
            if e["name"] in parents or e.get("quantum") == max(
                1000, min(200000, parse_tc_rate(e["rate"]) // 8 // t["r2q"])
            ):
                e.pop("quantum", None)
            if e.get("prio") == 0:
                e.pop("prio")
        if default:
            cid = f"{major}:{default:x}"
            if cid in ids:
                t["default"] = cid
            else:
                self.unrepresented.append(
                    (
                        q["_where"],
                        f"default {default:#x} names no class (Linux sends those packets to "
                        "the direct queue; so does airqueue without `default`)",
                    )
                )
        t["classes"] = classes

    # -- netem --------------------------------------------------------------------------

    def netem(self, q: dict[str, Any]) -> dict[str, Any]:
        """A root netem as a link ``impairment``. iproute2 6.1's JSON (tc/q_netem.c): times
        in seconds, probabilities as fractions, each option an object (``"loss-random":
        {"loss": 0.01, "correlation": 0.1}``), rates in bytes/s."""
        q["_used"] = True
        o = q.get("options") or {}
        imp: dict[str, Any] = {}

        def secs(v: Any) -> str:
            return scenario_time(round(float(v) * 1e9))

        if "limit" in o and int(o["limit"]) != 1000:
            imp["limit"] = int(o["limit"])
        delay = o.get("delay")
        if isinstance(delay, dict):
            if delay.get("delay"):
                imp["delay"] = secs(delay["delay"])
            if delay.get("jitter"):
                imp["jitter"] = secs(delay["jitter"])
            if delay.get("correlation"):
                imp["delay_correlation"] = _fraction(delay["correlation"])
        for key, name in (
            ("loss-random", "loss"),
            ("duplicate", "duplicate"),
            ("corrupt", "corrupt"),
            ("reorder", "reorder"),
        ):
            v = o.get(key)
            if isinstance(v, dict) and v.get(name) is not None:
                imp[name] = _fraction(v[name])
                if v.get("correlation"):
                    imp[f"{name}_correlation"] = _fraction(v["correlation"])
        ge = o.get("loss-gemodel")
        if isinstance(ge, dict):
            imp["gemodel"] = {
                "p": _fraction(ge["p"]),
                "r": _fraction(ge["r"]),
                "loss_bad": _fraction(ge.get("1-h", 1.0)),
                "loss_good": _fraction(ge.get("1-k", 0.0)),
            }
        if isinstance(o.get("rate"), dict):
            r = o["rate"]
            imp["rate"] = scenario_rate(int(r["rate"]) * 8)
            # netem charges skb->len (with the device's header), airqueue the datagram:
            # the header goes back into packet_overhead (the export took it out).
            po = int(r.get("packetoverhead") or 0) + self.netem_header
            if po:
                imp["packet_overhead"] = po
            for k, name in (("cellsize", "cell_size"), ("celloverhead", "cell_overhead")):
                if r.get(k):
                    imp[name] = int(r[k])
        slot = o.get("slot")
        if isinstance(slot, dict):
            sl: dict[str, Any] = {}
            if "distribution" in slot:
                self.unrepresented.append(
                    (q["_where"], "netem slot distribution: tc does not print the table's name")
                )
                sl["distribution"] = "uniform"
                sl["delay"] = secs(slot["distribution"])
                sl["jitter"] = secs(slot.get("jitter", 0))
            else:
                sl["min"] = secs(slot.get("min-delay", 0))
                sl["max"] = secs(slot.get("max-delay", 0))
            for k in ("packets", "bytes"):
                if slot.get(k):
                    sl[k] = int(slot[k])
            imp["slot"] = sl
        if o.get("gap"):
            imp["gap"] = int(o["gap"])
        if o.get("ecn"):
            self.unrepresented.append(
                (q["_where"], "netem ecn (marks instead of loss) is not in airqueue's impairment")
            )
        if "loss-state" in o:
            self.unrepresented.append(
                (
                    q["_where"],
                    "netem loss state (the 4-state Markov model) is not in airqueue's impairment",
                )
            )
        known = {
            "limit",
            "delay",
            "loss-random",
            "loss-gemodel",
            "loss-state",
            "duplicate",
            "corrupt",
            "reorder",
            "rate",
            "slot",
            "gap",
            "seed",
            "ecn",
        }
        for key in o:
            if key not in known:
                self.unrepresented.append((q["_where"], f'netem option "{key}" is not read'))
        return imp

    # -- filters ------------------------------------------------------------------------

    def filters_into(self, tree: dict[str, Any] | None, fl: Sequence[dict[str, Any]]) -> None:
        rules: list[tuple[int, str, dict[str, Any] | None, str, str]] = []
        for i, f in enumerate(fl):
            o = f.get("options") or {}
            where = (
                f"{self.l.filters_from}: filter #{i + 1} (pref {f.get('pref')}, {f.get('kind')})"
            )
            if "actions" in o or "actions" in f:
                acts = [
                    a.get("kind", "?")
                    for a in _all(o.get("actions") or f.get("actions"))
                    if isinstance(a, dict)
                ]
                self.unrepresented.append(
                    (
                        where,
                        f"has actions ({', '.join(acts) or '?'}): a classifier action "
                        "has no place in a scenario",
                    )
                )
            flowid = o.get("flowid", o.get("classid"))
            if flowid is None:
                if f.get("kind") not in ("u32",) and "options" in f:
                    self.unrepresented.append((where, "sends packets to no class"))
                continue  # u32's hash table entries
            kind = f.get("kind")
            if kind == "u32":
                try:
                    match = self.u32_match(o, where)
                except ImportError_ as e:
                    self.unrepresented += e.problems
                    continue
            elif kind == "fw":
                mark = o.get("handle", o.get("fh"))
                if isinstance(mark, str) and "/" in mark:
                    mark, mask = mark.split("/", 1)
                    if _int(mask) != 0xFFFFFFFF:
                        self.unrepresented.append(
                            (where, f"fw mask {mask}: airqueue's marks are whole")
                        )
                        continue
                match = {"_mark": _int(mark) if mark is not None else 0}
            else:
                self.unrepresented.append(
                    (where, f'classifier "{kind}" is not read (u32 and fw are)')
                )
                continue
            rules.append(
                (int(f.get("pref", 0)), _handle(flowid), match, where, str(f.get("parent", "")))
            )
        if tree is None or not rules:
            return
        by_class: dict[str, list[tuple[int, dict[str, Any], str]]] = {}
        for pref, flowid, match, where, _parent in sorted(rules, key=lambda r: r[0]):
            by_class.setdefault(flowid, []).append((pref, match or {}, where))
        holders = _classful(tree)
        for flowid, ms in by_class.items():
            cls = holders.get(flowid)
            if cls is None:
                self.unrepresented.append(
                    (ms[0][2], f"sends packets to {flowid}, no class of this tree")
                )
                continue
            merged = merge_matches([m for _, m, _ in ms])
            if merged is None:
                self.unrepresented.append(
                    (
                        ms[0][2],
                        f"{len(ms)} filters send packets to {flowid} and differ in more than "
                        "one field: an OR airqueue's `match` cannot write (the first is kept)",
                    )
                )
                merged = ms[0][1]
            if "_mark" in merged:
                marks = merged.pop("_mark")
                marks = marks if isinstance(marks, list) else [marks]
                devs = [self.marks.get(int(x)) for x in marks]
                if any(d is None for d in devs):
                    self.unrepresented.append(
                        (
                            ms[0][2],
                            f"fw mark {', '.join(str(x) for x in marks)}: which output "
                            "interface sets it is known only with --into a scenario whose "
                            "virtual device has members (mark N = member N)",
                        )
                    )
                    continue
                merged["dev"] = devs
            cls["match"] = merged
            cls["_pref"] = ms[0][0]
        for c in holders.values():
            c.setdefault("_pref", 1 << 30)
        _order_by_filters(tree)

    def u32_match(self, o: Mapping[str, Any], where: str) -> dict[str, Any]:
        keys = _all(o.get("match"))
        m: dict[str, Any] = {}
        raw: list[dict[str, Any]] = []
        for k in keys:
            if k.get("offmask"):
                raise ImportError_(
                    [
                        (
                            where,
                            "a u32 key with nexthdr/offmask reads past the IP header: "
                            "no field airqueue's match has",
                        )
                    ]
                )
            off = int(k.get("off", 0))
            value = int(str(k["value"]), 16)
            mask = int(str(k["mask"]), 16)
            if mask == 0:
                continue  # takes every packet (the export's `match u32 0 0 at 0` for match {})
            pieces: list[tuple[str, int, int]] = []
            for fname, (foff, shift, width) in U32_FIELDS.items():
                part = (mask >> shift) & width
                if off == foff and part:
                    pieces.append((fname, (value >> shift) & width, part))
            covered = 0
            for fname, _, part in pieces:
                covered |= part << U32_FIELDS[fname][1]
            if not pieces or covered != mask:
                raise ImportError_(
                    [
                        (
                            where,
                            f"u32 key {value:08x}/{mask:08x} at {off} reads no field airqueue's "
                            "match has (src, dst, protocol, tos, sport, dport)",
                        )
                    ]
                )
            for fname, fv, fm in pieces:
                if fname in ("src", "dst") and fm == 0xFFFFFFFF and fv in self.addresses:
                    m[fname] = self.addresses[fv]
                elif fname == "protocol" and fm == 0xFF and fv in (1, 6, 17):
                    m["protocol"] = {1: "icmp", 6: "tcp", 17: "udp"}[fv]
                elif fname in ("sport", "dport") and fm == 0xFFFF:
                    m[fname] = fv
                elif fname in ("sport", "dport") and (0x10000 - fm) & (0xFFFF - fm) == 0:
                    m[fname] = f"{fv}-{fv + 0xFFFF - fm}"  # a prefix: a port range
                elif fname == "tos" and fm == 0xFC:
                    m["dscp"] = [fv >> 2]
                else:
                    raw.append({"field": fname, "value": fv, "mask": fm})
        if raw:
            m["u32"] = raw
        return m


def _classful(tree: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Class id → class table of every classful qdisc in the tree: the root's and those
    below it (a prio inside an HTB class has filters of its own, at its handle). Class
    ids are unique on a device, so one table holds them all."""
    out: dict[str, dict[str, Any]] = {}
    for c in tree.get("classes") or []:
        out[c["name"]] = c
        if isinstance(c.get("qdisc"), dict):
            out.update(_classful(c["qdisc"]))
    if isinstance(tree.get("qdisc"), dict):
        out.update(_classful(tree["qdisc"]))
    return out


def merge_matches(ms: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Filters to one class, as one ``match``: equal but for one listable key."""
    if len(ms) == 1:
        m = dict(ms[0])
        return m
    keys = set().union(*(m.keys() for m in ms))
    differing = [k for k in keys if len({json.dumps(m.get(k), sort_keys=True) for m in ms}) > 1]
    if not differing:
        return dict(ms[0])
    if len(differing) > 1 or differing[0] not in ("src", "dst", "dscp", "sport", "dport", "_mark"):
        return None
    k = differing[0]
    vals: list[Any] = []
    for m in ms:
        v = m.get(k)
        if v is None:
            return None
        vals += v if isinstance(v, list) else [v]
    out = dict(ms[0])
    out[k] = vals
    return out


def _order_by_filters(tree: dict[str, Any]) -> None:
    """Classes that filters take packets to, in filter order (first match wins); prio's
    bands keep their order (a band is its position)."""
    classes = tree.get("classes")
    if isinstance(tree.get("qdisc"), dict):
        _order_by_filters(tree["qdisc"])
    if not classes:
        return
    for c in classes:
        if isinstance(c.get("qdisc"), dict):
            _order_by_filters(c["qdisc"])
    if tree["kind"] != "prio":
        leaves = [c for c in classes if "match" in c]
        prefs = [c["_pref"] for c in leaves]
        if prefs != sorted(prefs):
            # Reorder the leaves that have filters among themselves, keeping slots.
            slots = [i for i, c in enumerate(classes) if "match" in c]
            for i, c in zip(slots, sorted(leaves, key=lambda c: c["_pref"]), strict=True):
                classes[i] = c
    for c in classes:
        c.pop("_pref", None)


def import_tree(
    listing: Listing,
    addresses: Mapping[int, str] | None = None,
    marks: Mapping[int, str] | None = None,
    header_delta: int = 0,
    netem_header: int = 0,
) -> Imported:
    """The ``[[qdiscs]]`` entry (without ``dev``) of one device's listings; ``addresses``
    names hosts by IPv4 address, ``marks`` a virtual device's members by fw mark;
    ``header_delta`` is taken off the stab's overhead (what the export added for the
    link's ``link_header`` against the device's header, :func:`export.header_delta`);
    ``netem_header`` (the device's header) is added back to netem's rate packet overhead
    (the export takes it out: netem charges skb->len, airqueue the datagram)."""
    return Importer(listing, addresses, marks, header_delta, netem_header).run()
