"""Portfolio advice: which change of the acquisition function the monitor's state suggests.

Paper 1 proposes to pick an AF (or a combination such as adding RAASP to an
over-explorative AF) for the exploration level a problem needs. The table below is the
project's operationalisation; P1-U3 tests the over-exploring branch for Thompson sampling
in high d (``ts`` -> ``ts+raasp`` / ``ts+tr``).
"""

from __future__ import annotations

from dataclasses import dataclass

from boexplore.diagnostics.monitor import BALANCED, OVER, UNDER


@dataclass(frozen=True)
class Advice:
    """Suggested method specs (``boexplore run --method`` syntax) and why."""

    state: str | None
    suggestions: tuple[str, ...]
    reason: str


def _base(spec: str) -> tuple[str, set[str]]:
    parts = spec.split("+")
    return parts[0], set(parts[1:])


def suggest(state: str | None, method_spec: str) -> Advice:
    """Advice for a run of ``method_spec`` currently in ``state``."""
    base, mods = _base(method_spec)
    if state == OVER:
        fixes = [f"{method_spec}+{m}" for m in ("raasp", "tr") if m not in mods]
        if not fixes:
            fixes = ["logei+tr"]
        return Advice(
            state,
            tuple(fixes),
            "spreads its points like random search: localise candidates (RAASP perturbs the "
            "incumbents in a random axis subspace; a trust region bounds the search)",
        )
    if state == UNDER:
        lowered = [m for m in mods if m in ("tr", "raasp")]
        if lowered:
            return Advice(
                state, (base,), f"drop {'+'.join(sorted(lowered))}: it confines the search"
            )
        more = {"greedy": "logei", "pi": "logei", "logpi": "logei", "logei": "ucb(beta=16)"}
        return Advice(
            state,
            (more.get(base.split("(")[0], "ucb(beta=16)"),),
            "explores less than almost every reference run: use a more explorative AF",
        )
    if state == BALANCED:
        return Advice(state, (method_spec,), "within the reference methods' spread: keep it")
    return Advice(state, (method_spec,), "no state yet (initial design / warm-up)")
