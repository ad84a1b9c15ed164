"""Profiles: how large a study's runs are, as values.

A profile (``Profile``) fixes the task's probe set and, where it says so, the runs' length and
training step; where it leaves them out, the regime's own apply (``regimes.Regime``). The **paper**
profile is the published runs' (each regime's length and step); **quick** is a smoke run of the
whole pipeline (a few epochs, a small probe set, the eager step); **scout** is the optimizer
scout's (every run compiled, its length set by the scout's lengths). ``PROFILES`` is the registry,
by name; ``profile(name)`` looks one up (the entry points do, once).
"""

from __future__ import annotations

from dataclasses import dataclass

from anchorkit.core.config import TaskConfig, check_choice


@dataclass(frozen=True)
class Profile:
    """A profile: its ``task``, and its runs' ``epochs`` and ``step`` (None: the regime's)."""

    name: str
    task: TaskConfig = TaskConfig()
    epochs: int | None = None
    step: str | None = None


PAPER = Profile("paper")
QUICK = Profile("quick", TaskConfig(probe_per_op=64), epochs=4, step="eager")
SCOUT = Profile("scout", step="compiled")

PROFILES: dict[str, Profile] = {p.name: p for p in (PAPER, QUICK, SCOUT)}


def profile(name) -> Profile:
    """The profile of this name (a ``Profile`` is returned as it is); an unknown name is a
    ``ParameterError`` naming the parameter."""
    if isinstance(name, Profile):
        return name
    return PROFILES[check_choice("profile", name, tuple(PROFILES))]
