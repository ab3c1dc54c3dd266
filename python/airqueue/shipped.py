"""The scenarios shipped inside the package (``airqueue/scenarios``: the repository's
``scenarios/`` folder, examples and paper scenarios), so that ``airqueue list scenarios``
and ``airqueue run examples/udp-bottleneck`` work from any folder."""

from __future__ import annotations

from pathlib import Path


def scenarios_dir() -> Path:
    """The shipped scenarios: inside the installed package, else (a source checkout whose
    package folder lacks them) the repository's ``scenarios/``."""
    here = Path(__file__).resolve().parent
    for candidate in (here / "scenarios", here.parents[1] / "scenarios"):
        if candidate.is_dir():
            return candidate
    return here / "scenarios"


def find(name: str | Path) -> Path | None:
    """The shipped scenario ``name`` (``examples/udp-bottleneck`` or with ``.toml``), or
    ``None``. Only relative names inside the shipped folder are looked up."""
    rel = Path(name)
    if rel.is_absolute() or ".." in rel.parts:
        return None
    root = scenarios_dir()
    for candidate in (root / rel, root / rel.with_name(rel.name + ".toml")):
        try:
            if candidate.is_file():
                return candidate
        except (OSError, ValueError):  # a name too long to look up, or with a NUL byte
            return None
    return None


def find_dir(name: str | Path) -> Path | None:
    """The shipped folder ``name`` (``examples``, ``adwiser``), or ``None``; like :func:`find`,
    only relative names inside the shipped folder."""
    rel = Path(name)
    if rel.is_absolute() or ".." in rel.parts:
        return None
    candidate = scenarios_dir() / rel
    try:
        return candidate if candidate.is_dir() else None
    except (OSError, ValueError):
        return None


def names() -> list[str]:
    """Every shipped scenario as ``folder/name`` (what :func:`find` takes)."""
    root = scenarios_dir()
    return sorted(str(p.relative_to(root).with_suffix("")) for p in root.rglob("*.toml"))
