"""Exceptions raised by airqueue."""

from __future__ import annotations

from . import _native


class ScenarioError(_native.ScenarioError):
    """A scenario (or an override of it) has problems.

    ``problems`` lists ``(path, message)`` pairs such as
    ``("links.bottleneck.rate", '"10 mbps" is not a rate; write e.g. "10Mbit"')``.
    """

    def __init__(self, message: str, problems: list[tuple[str, str]] | None = None) -> None:
        super().__init__(message, list(problems or []))

    @property
    def problems(self) -> list[tuple[str, str]]:
        return list(self.args[1]) if len(self.args) > 1 else []

    @classmethod
    def single(cls, path: str, message: str) -> ScenarioError:
        return cls(f"the scenario has 1 problem:\n  {path}: {message}\n", [(path, message)])

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "invalid scenario"


class InternalError(_native.InternalError):
    """A bug inside airqueue (not a problem with the input)."""
