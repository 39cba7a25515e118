"""Where P1-C7's mechanisms acted, per problem, from a tier's released traces (no BO).

The claims stage writes ``claims_paper1_activity.csv`` (:func:`boexplore.analysis.variants.
activity_table`) from the run files it analyses. This command writes the same table from the
released files the config's jobs restore (``release.restore_files``, what the workflow reads),
reading only the seed, ``tr_length`` and ``raasp_n_perturbed`` columns of the trust-region and
RAASP methods' traces: seconds, where re-deriving the claims tables takes minutes::

    python -m boexplore.pipeline.activity_stage --configfile config/replicate-decide.yaml \\
        --out data/replicate-decide/tables/claims_paper1_activity.csv
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow.parquet as pq

from boexplore.analysis.variants import activity_table, mechanism_activity
from boexplore.bo.methods import parse_method
from boexplore.io import atomic_write_text
from boexplore.pipeline.release import restore_files
from boexplore.workflow_config import ConfigError, load_config, problem_design, run_table

COLUMNS = ("problem", "method", "seed", "dim", "tr_length", "raasp_n_perturbed")


def mechanism_methods(config: Mapping[str, Any]) -> list[str]:
    """Method labels of ``config`` with a trust region or RAASP (the C7 variants)."""
    out = []
    for label, spec in config["methods"].items():
        parsed = parse_method(spec)
        if parsed.trust_region or parsed.raasp:
            out.append(label)
    return out


def released_activity(config: Mapping[str, Any]) -> tuple[pd.DataFrame, list[str]]:
    """(per-run activity of the C7 variants, jobs the release does not hold at their budget)
    of the jobs of ``config``, read from the released files each job restores."""
    release = config.get("release") or {}
    if not release.get("traces"):
        raise ConfigError("config key release.traces: the config has no data release")
    wanted = set(mechanism_methods(config))
    frames, missing = [], []
    for row in run_table(config):
        if row["method"] not in wanted:
            continue
        job = f"{row['problem']}/{row['method']}/{row['chunk']}"
        files = restore_files(
            release, row["problem"], row["method"], row["chunk"], row["seeds"], row["budget"]
        )
        if not files:
            missing.append(job)
            continue
        for path in files:
            names = set(pq.read_schema(path).names)
            frame = pd.read_parquet(path, columns=[c for c in COLUMNS if c in names])
            frames.append(frame[frame["seed"].isin(row["seeds"])])
    if not frames:
        return mechanism_activity(pd.DataFrame(columns=["problem", "method", "seed"])), missing
    return mechanism_activity(pd.concat(frames, ignore_index=True)), missing


def released_activity_table(config: Mapping[str, Any]) -> tuple[pd.DataFrame, list[str]]:
    """:func:`activity_table` of the released traces of ``config`` (and the jobs not held)."""
    activity, missing = released_activity(config)
    dims = {label: problem_design(config, label)[0] for label in config["problems"]}
    min_frac = float((config.get("analysis") or {}).get("c7_min_active_frac", 0.5))
    return activity_table(activity, dims, min_frac), missing


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m boexplore.pipeline.activity_stage",
        description="Per problem and method, in how many seeds P1-C7's trust region / RAASP "
        "acted, from a config's released traces (claims_paper1_activity.csv).",
    )
    parser.add_argument("--configfile", required=True, type=Path)
    parser.add_argument("--out", required=True, type=Path, help="CSV to write")
    args = parser.parse_args(argv)
    try:
        table, missing = released_activity_table(load_config(args.configfile))
    except ConfigError as exc:
        print(f"activity_stage: {exc}", file=sys.stderr)
        return 2
    if missing:
        print(
            f"activity_stage: {len(missing)} jobs are not held at their budget by the release "
            f"(e.g. {missing[0]}); the table would not be the claims stage's",
            file=sys.stderr,
        )
        return 1
    atomic_write_text(table.to_csv(index=False, lineterminator="\n"), args.out)
    print(f"{len(table)} rows -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
