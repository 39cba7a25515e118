"""Seed-paired exploration contrasts along the budget, straight from trace files.

The claims pipeline decides a claim once a tier is complete. While a tier is still running (or
for a quick look at a release), this module answers the question the claims rest on — does
method A explore more than method B, and is the gap still growing when the runs stop? — from
whatever traces exist: for each problem and contrast ``A - B`` it pairs the seeds present for
both methods and reports, at several evaluation counts, the mean paired difference of a metric
(default normalised OTSD) with its 95 % t interval and the number of seeds with a positive
difference.

    python -m boexplore.analysis.contrasts data/replicate-long/traces \\
        --pairs ts_polish:random ts:random logei:ucb --at 30 0.5 0.75 1.0 --out contrasts.csv

``--at`` values ≤ 1 are fractions of each run's budget (rounded down), larger ones are
evaluation counts. Reads ``<dir>/<problem>/<method>/<chunk>.parquet`` (a release or a run's
``runs/`` directory; any chunking).
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from boexplore.analysis.claimkit.stats import t_interval

COLUMNS = [
    "problem",
    "dim",
    "contrast",
    "metric",
    "evaluations",
    "budget",
    "seeds",
    "mean_diff",
    "ci_low",
    "ci_high",
    "n_positive",
]


def method_scores(method_dir: Path, metric: str) -> pd.DataFrame:
    """Per-prefix ``metric`` of every seed under ``method_dir``: index n, one column per seed."""
    from boexplore.metrics import score_trace

    parts = []
    for path in sorted(method_dir.glob("*.parquet")):
        trace = pd.read_parquet(path)
        for seed, run in trace.groupby("seed", sort=True):
            scored = score_trace(run).set_index("n")[metric]
            parts.append(scored.rename(int(seed)))
    if not parts:
        return pd.DataFrame()
    return pd.concat(parts, axis=1)


def _evaluation_counts(at: Iterable[float], budget: int) -> list[int]:
    counts = {int(np.floor(a * budget)) if a <= 1 else int(a) for a in at}
    return sorted(n for n in counts if 1 <= n <= budget)


def paired_contrasts(
    traces_dir: Path,
    pairs: Sequence[tuple[str, str]],
    at: Sequence[float] = (0.25, 0.5, 0.75, 1.0),
    metric: str = "otsd_norm",
    problems: Sequence[str] = ("*",),
    min_seeds: int = 3,
) -> pd.DataFrame:
    """One row per (problem, contrast, evaluation count) with the seed-paired difference.

    Seeds are paired only where both methods ran to at least that many evaluations; a
    contrast with fewer than ``min_seeds`` common seeds on a problem (a cell still running) is
    left out. ``problems``: shell patterns of the problem labels to include (``lo_*``).
    """
    from fnmatch import fnmatchcase

    traces_dir = Path(traces_dir)
    rows = []
    dirs = sorted(p for p in traces_dir.iterdir() if p.is_dir())
    for problem_dir in [p for p in dirs if any(fnmatchcase(p.name, g) for g in problems)]:
        used = {m for pair in pairs for m in pair if (problem_dir / m).is_dir()}
        scores = {m: method_scores(problem_dir / m, metric) for m in sorted(used)}
        for a, b in pairs:
            if a not in scores or b not in scores:
                continue
            sa, sb = scores[a], scores[b]
            seeds = sorted(set(sa.columns) & set(sb.columns))
            if len(seeds) < max(min_seeds, 1):
                continue
            budget = int(min(sa[seeds].last_valid_index(), sb[seeds].last_valid_index()))
            dim = _dim_of(problem_dir / a)
            for n in _evaluation_counts(at, budget):
                diff = (sa.loc[n, seeds] - sb.loc[n, seeds]).to_numpy(dtype=float)
                diff = diff[np.isfinite(diff)]
                mean, low, high = t_interval(diff)
                rows.append(
                    {
                        "problem": problem_dir.name,
                        "dim": dim,
                        "contrast": f"{a} - {b}",
                        "metric": metric,
                        "evaluations": n,
                        "budget": budget,
                        "seeds": int(diff.size),
                        "mean_diff": mean,
                        "ci_low": low,
                        "ci_high": high,
                        "n_positive": int((diff > 0).sum()),
                    }
                )
    return pd.DataFrame(rows, columns=COLUMNS)


def _dim_of(method_dir: Path) -> int:
    first = next(iter(sorted(method_dir.glob("*.parquet"))))
    return int(pd.read_parquet(first, columns=["dim"])["dim"].iloc[0])


def _pair(text: str) -> tuple[str, str]:
    a, sep, b = text.partition(":")
    if not sep or not a or not b:
        raise argparse.ArgumentTypeError(f"a contrast is A:B (method labels), got {text!r}")
    return a, b


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("traces_dir", type=Path, help="release or runs directory")
    parser.add_argument("--pairs", type=_pair, nargs="+", required=True, help="A:B contrasts")
    parser.add_argument(
        "--at",
        type=float,
        nargs="+",
        default=[0.25, 0.5, 0.75, 1.0],
        help="evaluation counts (> 1) or budget fractions (<= 1)",
    )
    parser.add_argument("--metric", default="otsd_norm")
    parser.add_argument(
        "--problems", nargs="+", default=["*"], help="problem label patterns (e.g. 'lo_*')"
    )
    parser.add_argument(
        "--min-seeds", type=int, default=3, help="fewest common seeds a contrast needs"
    )
    parser.add_argument("--out", type=Path, help="write the table here (.csv)")
    args = parser.parse_args(argv)
    if not args.traces_dir.is_dir():
        parser.error(f"{args.traces_dir} is not a directory")
    table = paired_contrasts(
        args.traces_dir, args.pairs, args.at, args.metric, args.problems, args.min_seeds
    )
    if args.out:
        from boexplore.io import atomic_write

        atomic_write(table, args.out)
    with pd.option_context("display.width", 200, "display.max_rows", 1000):
        print(table.round(4).to_string(index=False) if len(table) else "no common seeds")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
