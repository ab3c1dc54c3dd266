"""The reproduction catalog: named paper figures (or closed forms) that airqueue re-derives.

Each :class:`Reproduction` is a scenario, a sweep over one parameter with several seeds, a
way to read our number from each run, and the reference numbers with a stated tolerance.
``airqueue reproduce NAME`` runs the sweep and writes the figure (ours with 95 % CI, the
reference as a line) and ``comparison.csv`` (our numbers beside the reference's).

One module per paper (``hegde_2013.py`` for seed 002, …), each with its ``ENTRIES``; the
machinery they share is in ``core.py``. A new paper's module is added to :data:`PAPERS`.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from types import ModuleType

from ..sweep import ProgressHook
from . import (
    closed_forms,
    hegde_2013,
    shieh_dfq,
    timings,
    venugopal_2006,
    wang_2005,
    yip_kwok_2007,
)
from .closed_forms import MATHIS, MD1, MD1_LOADS
from .core import (
    QUICK_NOTE,
    Cost,
    Reproduction,
    ReproductionResult,
    compare,
    comparison_table,
    cost,
    figure,
    measured_summary,
    verdict,
)
from .core import run as _run
from .shieh_dfq import DFQ_QDISCS

#: The per-paper modules, in the order ``airqueue reproduce --list`` shows them.
PAPERS = (closed_forms, shieh_dfq, wang_2005, hegde_2013, yip_kwok_2007, venugopal_2006)

#: Every reproduction, by name.
REGISTRY: Mapping[str, Reproduction] = {r.name: r for m in PAPERS for r in m.ENTRIES}


def paper_id(module: ModuleType) -> str:
    """How ``airqueue reproduce --list PAPER`` names a paper: its module's name with
    dashes (``hegde-2013``, ``closed-forms``)."""
    return module.__name__.rsplit(".", 1)[-1].replace("_", "-")


def paper_title(module: ModuleType) -> str:
    """The first sentence of a paper module's documentation (what the paper is)."""
    first = " ".join((module.__doc__ or "").split("\n\n")[0].split())
    return first.split(": ")[0] if ": " in first else first


#: The papers by :func:`paper_id`, in :data:`PAPERS` order.
PAPER_IDS: Mapping[str, ModuleType] = {paper_id(m): m for m in PAPERS}


def find_papers(text: str) -> list[ModuleType]:
    """The papers ``text`` names: a paper id or its start (``hegde``, ``yip-kwok``), with
    ``_`` or ``-``."""
    key = text.strip().lower().replace("_", "-")
    if key in PAPER_IDS:
        return [PAPER_IDS[key]]
    return [m for pid, m in PAPER_IDS.items() if pid.startswith(key)] if key else []


def reproduce(
    name: str,
    out: str | Path,
    jobs: int | None = None,
    quick: bool = False,
    progress: ProgressHook | None = None,
    runs: str | Path | None = None,
) -> ReproductionResult:
    """Runs the reproduction ``name``'s sweep into ``out/sweep`` (or the shared store
    ``runs``) and writes ``out/figure.png``, ``out/comparison.csv`` and
    ``out/reproduction.json``."""
    return _run(REGISTRY[name], out, jobs=jobs, quick=quick, progress=progress, runs=runs)


__all__ = [
    "DFQ_QDISCS",
    "MATHIS",
    "MD1",
    "MD1_LOADS",
    "PAPERS",
    "PAPER_IDS",
    "QUICK_NOTE",
    "REGISTRY",
    "Cost",
    "Reproduction",
    "ReproductionResult",
    "compare",
    "comparison_table",
    "cost",
    "figure",
    "find_papers",
    "measured_summary",
    "paper_id",
    "paper_title",
    "reproduce",
    "timings",
    "verdict",
]
