"""``airqueue tc export|import|roundtrip``: a scenario's queues to ``tc`` commands and back
(docs/tc.md)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import tomli_w
import typer
from rich.text import Text

from airqueue.tc import export as tc_export
from airqueue.tc import roundtrip as tc_roundtrip
from airqueue.tc.import_ import ImportError_, Listing, import_tree

from .common import FileArg, InputError, SetOpt, err, load

tc_app = typer.Typer(
    help="Export a scenario's queues as Linux tc commands, import a router's tc tree.",
    no_args_is_help=True,
)


def _problems(problems: list[tuple[str, str]]) -> None:
    raise _Many(problems)


class _Many(InputError):
    def __init__(self, problems: list[tuple[str, str]]) -> None:
        super().__init__(*problems[0])
        self.problems = problems


def _maps(items: list[str] | None) -> dict[str, str]:
    out: dict[str, str] = {}
    for it in items or []:
        if "=" not in it:
            raise InputError(f"--map {it}", "write NODE.LINK=IFACE, e.g. router.bottleneck=eth1")
        k, v = it.split("=", 1)
        out[k.strip()] = v.strip()
    return out


@tc_app.command("export")
def export_cmd(
    file: FileArg,
    node: Annotated[
        str | None,
        typer.Option(
            "--node", "-n", help="Only this node's interfaces (the router).", show_default=False
        ),
    ] = None,
    maps: Annotated[
        list[str] | None,
        typer.Option(
            "--map",
            "-m",
            metavar="NODE.LINK=IFACE",
            help="The Linux device of an interface (default: the link's name), repeatable.",
            show_default=False,
        ),
    ] = None,
    batch: Annotated[
        bool, typer.Option("--batch", help="Write `tc -batch` input instead of a shell script.")
    ] = False,
    only_trees: Annotated[
        bool,
        typer.Option(
            "--only-trees",
            help="Leave out interfaces without a `qdiscs` entry or impairment "
            "(by default they get airqueue's own default, pfifo limit 1000).",
        ),
    ] = False,
    device_header: Annotated[
        int,
        typer.Option(
            "--device-header",
            metavar="BYTES",
            help="Link-layer header the Linux devices count in skb->len (14: Ethernet, veth, "
            "Wi-Fi; 0: tun, ppp); a stab corrects the difference to the links' link_header.",
        ),
    ] = 14,
    sets: SetOpt = None,
) -> None:
    """Write the `tc` (and `ip link … txqueuelen`) commands that build FILE's queues on
    Linux: qdiscs with handles, classes, u32 filters from the classes' `match`, stab, link
    impairments as netem. Kinds Linux lacks are refused by name (exit 2), the rest is still
    written."""
    scenario = load(file, sets)
    resolved = scenario.resolved()
    try:
        exp = tc_export.export_scenario(
            resolved,
            str(file),
            node=node,
            iface_map=_maps(maps),
            only_trees=only_trees,
            device_header=device_header,
        )
    except tc_export.ExportError as e:
        _problems(e.problems)
    sys.stdout.write(tc_export.render(exp, batch=batch))
    if exp.refused:
        err.print(
            Text("error: not exported (Linux has no such qdisc or selector):", style="bold red")
        )
        for r in exp.refused:
            err.print(Text(f"  {r.where}: {r.reason}", style="red"), soft_wrap=True)
        raise typer.Exit(2)


def _classify(path: Path, text: str) -> str:
    s = text.lstrip()
    if s.startswith("["):
        try:
            data = json.loads(s)
        except json.JSONDecodeError:
            # Malformed or cut short: which listing it was meant to be, from its start.
            return "filters" if '"pref"' in s[:400] else "qdiscs"
        if isinstance(data, list) and data and isinstance(data[0], dict):
            if "pref" in data[0] or data[0].get("kind") in ("u32", "fw", "flower", "basic"):
                return "filters"
            if "class" in data[0]:
                return "classes"
        return "qdiscs"
    if s.startswith("class "):
        return "classes"
    if s.startswith("qdisc "):
        return "qdiscs_text"
    if not s:
        return "empty"
    raise InputError(
        str(path),
        "is none of `tc -j -s -d qdisc show`, `tc -d class show`, `tc -j filter show`, "
        f"`tc -d qdisc show` (it starts {s[:40]!r})",
    )


@tc_app.command("import")
def import_cmd(
    files: Annotated[
        list[Path] | None,
        typer.Argument(
            metavar="FILES",
            help="Saved output of `tc -j -s -d qdisc show dev IFACE`, `tc -d class show dev "
            "IFACE`, `tc -j filter show dev IFACE` (any order; each recognised by content; "
            "more filter listings for `… parent H` of qdiscs below the root).",
            show_default=False,
        ),
    ] = None,
    netns: Annotated[
        str | None,
        typer.Option(
            "--netns",
            metavar="NS",
            help="Read the device live in this network namespace.",
            show_default=False,
        ),
    ] = None,
    iface: Annotated[
        str | None,
        typer.Option(
            "--iface",
            "-i",
            metavar="IFACE",
            help="The Linux device to read live (with --netns, or in this namespace).",
            show_default=False,
        ),
    ] = None,
    into: Annotated[
        Path | None,
        typer.Option(
            "--into",
            metavar="SCENARIO",
            help="Place the tree into this scenario (printed whole).",
            show_default=False,
        ),
    ] = None,
    dev: Annotated[
        str | None,
        typer.Option(
            "--dev",
            "-d",
            metavar="NODE.LINK",
            help="The scenario interface the tree goes on (required with --into).",
            show_default=False,
        ),
    ] = None,
    device_header: Annotated[
        int,
        typer.Option(
            "--device-header",
            metavar="BYTES",
            help="As for export: with --into, the stab overhead the export adds for the link's "
            "link_header is taken back out; netem's rate packet overhead gets it back.",
        ),
    ] = 14,
) -> None:
    """Read a Linux device's qdisc tree (from files, or live with --netns/--iface) into a
    qdiscs entry (TOML); with --into, into a scenario's interface. What has no place in a
    scenario is reported by name."""
    if iface is None and not files and netns is not None and dev is not None and into is None:
        iface = dev  # `--netns NS --dev IFACE`: the Linux device (no scenario to place it in)
    if not files and iface is None:
        raise InputError(
            "tc import", "give FILES, or --iface IFACE (and --netns NS) to read a device live"
        )
    if files and iface is not None:
        raise InputError("tc import", "give FILES or --iface, not both")
    if into is not None and dev is None:
        raise InputError("--into", "needs --dev NODE.LINK: the interface the tree goes on")
    listing = Listing(qdiscs="")
    if files:
        seen: dict[str, Path] = {}
        for p in files:
            try:
                text = p.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as e:
                raise InputError(str(p), f"cannot be read: {e}") from None
            kind = _classify(p, text)
            if kind == "empty":
                raise InputError(str(p), "is empty: not a tc listing")
            if kind == "filters" and kind in seen:
                # `tc -j filter show dev X parent H` of a qdisc below the root: one more.
                listing.filters = tc_roundtrip.concat_json_arrays([listing.filters, text])
                listing.filters_from += f" + {p}"
                continue
            if kind in seen:
                raise InputError(str(p), f"is a second {kind} listing (the first is {seen[kind]})")
            seen[kind] = p
            setattr(listing, kind, text)
            if kind != "qdiscs_text":
                setattr(listing, f"{kind}_from", str(p))
        if "qdiscs" not in seen:
            raise InputError("tc import", "no `tc -j -s -d qdisc show` listing among FILES")
    else:
        if tc_roundtrip.have_tools() is not None and tc_roundtrip.shutil.which("tc") is None:
            raise InputError("--iface", "reading live needs iproute2's tc")
        try:
            listing = tc_roundtrip.read_device(netns, str(iface))
        except RuntimeError as e:
            raise InputError(f"--iface {iface}", str(e)) from None
    scenario = None
    addresses: dict[int, str] = {}
    marks: dict[int, str] = {}
    if into is not None:
        scenario = load(into, None)
        resolved = scenario.resolved()
        ctx = tc_export.context_of(resolved)
        addresses = {a: n for n, a in ctx.addresses.items()}
        vdev = ctx.vdevs.get(str(dev))
        if vdev:
            marks = {i + 1: m for i, m in enumerate(vdev["members"])}
        delta = tc_export.header_delta(ctx.links.get(str(dev).partition(".")[2]), device_header)
    else:
        delta = 0
    try:
        imported = import_tree(listing, addresses, marks, delta, device_header)
    except ImportError_ as e:
        _problems(e.problems)
    for where, what in imported.unrepresented:
        err.print(Text(f"warning: not imported: {where}: {what}", style="yellow"), soft_wrap=True)
    entry: dict[str, Any] | None = None
    if imported.tree is not None:
        entry = {"dev": dev or (iface or "IFACE"), **imported.tree}
    if scenario is None:
        text = tomli_w.dumps({"qdiscs": [entry]}) if entry else ""
        if imported.impairment:
            text += "\n# the root netem, as the link's impairment:\n"
            text += "".join(
                f"# {line}\n"
                for line in tomli_w.dumps({"impairment": imported.impairment}).splitlines()
            )
        for where, what in imported.unrepresented:
            text += f"# not imported: {where}: {what}\n"
        sys.stdout.write(text)
        return
    data = scenario.data
    qs = [q for q in data.get("qdiscs", []) if q.get("dev") != dev]
    if entry is not None:
        qs.append(entry)
    data["qdiscs"] = qs
    if imported.impairment:
        node, _, link_name = str(dev).partition(".")
        link = next((ln for ln in data.get("links", []) if ln.get("name") == link_name), None)
        if link is None:
            raise InputError(
                f"--dev {dev}", "the root netem is a link impairment, and this is no link"
            )
        if link["between"][1] == node:
            link.setdefault("reverse", {})["impairment"] = imported.impairment
        else:
            link["impairment"] = imported.impairment
    scenario.resolved()  # the result must be a valid scenario
    sys.stdout.write(tomli_w.dumps(data))


@tc_app.command("roundtrip")
def roundtrip_cmd(
    files: Annotated[
        list[Path],
        typer.Argument(
            metavar="SCENARIOS", help="Scenario files or shipped names.", show_default=False
        ),
    ],
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per scenario.")] = False,
) -> None:
    """Export each scenario, apply it on veths in a fresh network namespace, read it back
    with tc, import it and compare (needs root and iproute2; docs/tc.md). Exit 1 when tc
    could not parse a command or a tree the kernel took came back different."""
    why = tc_roundtrip.have_tools()
    if why is not None:
        raise InputError("tc roundtrip", why)
    failed = False
    for f in files:
        sc = load(f, None)
        res = tc_roundtrip.roundtrip(sc.resolved(), str(f))
        failed |= any((d.applied and not d.equal) or not d.parsed for d in res.devs)
        summary = tc_roundtrip.summary(res)
        if as_json:
            sys.stdout.write(json.dumps(summary) + "\n")
        else:
            sys.stdout.write(tc_roundtrip.summary_line(summary) + "\n")
            for d in res.devs:
                for c in d.commands:
                    first = (c.stderr.strip().splitlines() or [""])[0]
                    if c.status != "applied":
                        sys.stdout.write(
                            f"    {d.dev}: {c.status}: {' '.join(c.argv[3:])}: {first}\n"
                        )
                for diff in d.differences:
                    sys.stdout.write(f"    {d.dev}: differs: {diff}\n")
                if d.import_error:
                    sys.stdout.write(f"    {d.dev}: import: {d.import_error}\n")
    if failed:
        # tc could not parse an exported command, or a tree the kernel took came back
        # different: the exporter's or importer's fault, not the input's.
        raise typer.Exit(1)
