"""Command line: paper-1 claims (with power needs) of a finished run, without Snakemake.

``python -m boexplore.analysis.report results/default --config config/config.yaml``
reads ``tables/metrics.parquet`` and the traces under ``runs/`` of a run
directory, applies the ``analysis`` section of the config (thresholds, rule,
power grid) and prints the claims table and the parts that are undecided with
the scale that would decide them. ``--out DIR`` also writes the claims CSV /
Markdown / parts / units tables there (never into the run directory itself).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd
import yaml

from boexplore.analysis.paper1.claims import claims_report, write_claims
from boexplore.analysis.pipeline import run_analysis
from boexplore.analysis.variants import mechanism_activity_from_files


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit code."""
    ap = argparse.ArgumentParser(prog="python -m boexplore.analysis.report", description=__doc__)
    ap.add_argument("run_dir", type=Path, help="results/<run_name> of a finished run")
    ap.add_argument(
        "--config", type=Path, required=True, help="config whose analysis section to use"
    )
    ap.add_argument("--out", type=Path, default=None, help="directory for the claims tables")
    args = ap.parse_args(argv)
    section = (yaml.safe_load(args.config.read_text()) or {}).get("analysis", {})
    metrics = pd.read_parquet(args.run_dir / "tables" / "metrics.parquet")
    runs = sorted(str(p) for p in (args.run_dir / "runs").rglob("*.parquet"))
    activity = mechanism_activity_from_files(runs) if runs else None
    rep = claims_report(run_analysis(metrics, section, activity=activity))
    with pd.option_context("display.width", 200, "display.max_colwidth", 90):
        print(rep.claims[["claim_id", "variant", "value", "ci_low", "ci_high", "verdict"]])
        cols = ["claim_id", "variant", "part", "n_units", "k_for", "k_against", "decision"]
        cols += ["need_seeds", "need_problems", "p_decisive_now"]
        print(rep.parts[cols].to_string(index=False))
    if args.out is not None:
        o = args.out
        write_claims(
            rep,
            o / "claims_paper1.csv",
            o / "claims_paper1.md",
            o / "claims_paper1_parts.csv",
            o / "claims_paper1_units.csv",
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
