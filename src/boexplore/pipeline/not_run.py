"""What an undecidable claim would cost to decide, when a tier leaves it out under a CPU ceiling.

A tier sized by its power analysis may not afford every claim within its CPU ceiling. Its
config then names, under ``not_run``, the cells each claim left out would need (``cells``:
problem / method patterns and the seeds the claim needs there; ``problems``: instances the
tier does not have yet) and the ceiling. This module prices them with the same cost model as
``boexplore estimate`` (only the seeds the tier does not run), prices the tier's own new BO
(the seeds its ``release.extend_from`` does not hold) beside them, and writes the sentence the
claims table appends to the claim's "undecidable" verdict: so a reader sees what deciding it
would cost and why it was not run, from numbers the model computes, not typed ones.

Where even the power analysis' largest size would not decide a claim ("not decided within the
power grid"), the config may price that size: ``problem_copies`` counts the listed problems that
many times over, as the power analysis assumes a larger experiment adds problems like the
pilot's. The sentence then also gives the simulated chance that this size decides the claim.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from boexplore.analysis.claimkit.verdict import UNDECIDABLE_PREFIX
from boexplore.cost.calibration import config_calibration
from boexplore.workflow_config import bo_job_cost, cell_matches, cell_seed_list, is_excluded


@dataclass(frozen=True)
class ClaimCost:
    """New BO seed runs a left-out claim needs and their predicted CPU-hours."""

    claim_id: str
    seed_runs: int
    cpu_h: float
    reason: str
    seeds: int = 0  # the largest seed count a cell asks for
    problems: int = 0  # problems the cells name, times ``problem_copies``

    def size(self) -> str:
        """``N seeds × M problems``: the scale the priced cells amount to."""
        return f"{self.seeds} seeds × {self.problems} problems"


def cell_seeds(cell: Mapping[str, Any]) -> set[int]:
    """A cell's seeds: its list, or 0 .. N-1 for an integer N."""
    seeds = cell["seeds"]
    return set(range(int(seeds))) if isinstance(seeds, int) else {int(s) for s in seeds}


def _with_problems(config: Mapping[str, Any], problems: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(config)
    out["problems"] = {**config["problems"], **dict(problems)}
    return out


def _base_seeds(config: Mapping[str, Any], problem: str, method: str) -> set[int]:
    if problem not in config["problems"] or is_excluded(config, problem, method):
        return set()
    return set(cell_seed_list(config, problem, method))


def claim_cost(config: Mapping[str, Any], claim_id: str, spec: Mapping[str, Any]) -> ClaimCost:
    """Cost of the seeds ``spec["cells"]`` asks for that ``config`` does not run already
    (cells matching the spec's own ``exclude`` rules are left out)."""
    cal = config_calibration(config)
    extended = _with_problems(config, spec.get("problems") or {})
    # the claim's own exclusions, not the tier's: a cell it names runs even where the tier
    # left that method out (e.g. TS on a problem the tier added for another claim)
    priced = {**extended, "exclude": list(spec.get("exclude") or [])}
    copies = int(spec.get("problem_copies", 1))
    runs, cpu_s, most_seeds, named = 0, 0.0, 0, set()
    for problem in extended["problems"]:
        for method in extended["methods"]:
            wanted: set[int] = set()
            for cell in spec["cells"]:
                if cell_matches(cell, problem, method):
                    wanted.update(cell_seeds(cell))
            if not wanted or is_excluded(priced, problem, method):
                continue
            named.add(problem)
            most_seeds = max(most_seeds, len(wanted))
            new = wanted - _base_seeds(config, problem, method)
            # problems like this one that the claim adds: every wanted seed is new there
            for n_new in [len(new)] + [len(wanted)] * (copies - 1):
                if n_new:
                    runs += n_new
                    cpu_s += bo_job_cost(extended, problem, method, n_new, cal).cpu_s
    return ClaimCost(
        claim_id, runs, cpu_s / 3600, str(spec.get("reason", "")), most_seeds, len(named) * copies
    )


def own_bo_cpu_h(config: Mapping[str, Any]) -> float:
    """Predicted CPU-hours of the tier's own BO: every seed its ``release.extend_from`` lacks."""
    from boexplore.pipeline.release import released_seeds

    cal = config_calibration(config)
    roots = (config.get("release") or {}).get("extend_from")
    cpu_s = 0.0
    for problem in config["problems"]:
        for method in config["methods"]:
            if is_excluded(config, problem, method):
                continue
            held = released_seeds(roots, problem, method) if roots else {}
            new = [s for s in cell_seed_list(config, problem, method) if s not in held]
            if new:
                cpu_s += bo_job_cost(config, problem, method, len(new), cal).cpu_s
    return cpu_s / 3600


def not_run_costs(config: Mapping[str, Any]) -> list[ClaimCost]:
    """The cost of every claim the config's ``not_run`` section leaves out (none: [])."""
    section = config.get("not_run") or {}
    return [claim_cost(config, cid, spec) for cid, spec in (section.get("claims") or {}).items()]


def cost_sentence(
    cost: ClaimCost,
    own_cpu_h: float | None,
    ceiling_cpu_h: float | None,
    p_decisive: float | None = None,
    with_size: bool = True,
) -> str:
    """``not run: N seeds × M problems, K more BO seed runs, X CPU-h by the cost model; with
    the tier's own Y CPU-h beyond its Z CPU-h ceiling`` (the sentence appended to an
    undecidable verdict; ``with_size=False`` leaves out a size the verdict already names);
    ``p_decisive``, when given, is the simulated chance that size decides the claim. Without a
    ceiling the claim's ``reason`` says why it was not run."""
    chance = (
        f" (decides it with probability {p_decisive:.2f} by the power analysis)"
        if p_decisive is not None
        else ""
    )
    size = f"{cost.size()}{chance}, " if with_size else ""
    text = (
        f"not run: {size}{cost.seed_runs} more BO seed runs, "
        f"{cost.cpu_h:.1f} CPU-h by the cost model"
    )
    if ceiling_cpu_h is None or own_cpu_h is None:
        return f"{text} ({cost.reason})" if cost.reason else text
    verdict = "beyond" if own_cpu_h + cost.cpu_h > ceiling_cpu_h else "within"
    return (
        f"{text}; with the tier's own {own_cpu_h:.1f} CPU-h {verdict} its "
        f"{ceiling_cpu_h:g} CPU-h ceiling"
    )


def grid_end_chance(
    cost: ClaimCost, parts: pd.DataFrame | None, config: Mapping[str, Any]
) -> float | None:
    """Simulated P(decisive) of the claim at the power grid's largest size, when the priced
    size is that size and an undecided part of the claim (its controls aside) found no size in
    the grid: the power analysis then reports the chance at the grid's last, largest point."""
    power = (config.get("analysis") or {}).get("power") or {}
    if parts is None or parts.empty or not power:
        return None
    largest = (max(power["seeds_grid"]), max(power["problems_grid"]))
    if (cost.seeds, cost.problems) != largest:
        return None
    control = (parts["variant"].fillna("").astype(str) == "control") | parts["part"].astype(
        str
    ).str.startswith("control")
    rows = parts[
        (parts["claim_id"] == cost.claim_id)
        & ~control
        & (parts["decision"] == "undecided")
        & parts["need_seeds"].isna()
    ]
    chances = pd.to_numeric(rows["p_decisive_at_need"], errors="coerce").dropna()
    return float(chances.min()) if len(chances) else None


def with_costs(
    claims: pd.DataFrame, config: Mapping[str, Any], parts: pd.DataFrame | None = None
) -> pd.DataFrame:
    """``claims`` with the cost sentence appended to each undecidable row the config's
    ``not_run`` section prices (other rows, and tiers without the section, unchanged);
    ``parts`` (the claims' parts table) adds the chance the priced size decides the claim
    where that size is the power grid's largest."""
    costs = not_run_costs(config)
    if not costs:
        return claims
    ceiling = config["not_run"].get("ceiling_cpu_h")
    own = own_bo_cpu_h(config) if ceiling is not None else None
    out = claims.copy()
    for cost in costs:
        rows = (out["claim_id"] == cost.claim_id) & out["verdict"].astype(str).str.startswith(
            UNDECIDABLE_PREFIX
        )
        chance = grid_end_chance(cost, parts, config)
        for i in out.index[rows]:
            verdict = str(out.at[i, "verdict"])
            sentence = cost_sentence(
                cost,
                own,
                None if ceiling is None else float(ceiling),
                chance,
                with_size=f"needs {cost.size()}" not in verdict,
            )
            out.at[i, "verdict"] = f"{verdict}; {sentence}"
    return out
