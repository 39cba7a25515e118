"""Committed claims tables against those of a re-run on another machine, verdict by verdict.

``python -m boexplore.pipeline.tables_compare data/default/tables results/default/tables
--out data/default/checks/rerun-2026-12-07``

A whole workflow re-run on a CPU that rounds differently (another vendor) gives traces that
differ in their last bits and, through BO's chaos, in their points; what a reader needs to know
is whether the *verdicts* move. This writes, next to the release, the paper-1 claims (verdict
and statistic), the paper-1 claim parts and the paper-2 claims of both runs side by side
(``<out>-paper1.csv``, ``<out>-parts.csv``, ``<out>-paper2.csv``) and the CPU the re-run ran on
(``<out>-cpu.json``); :func:`boexplore.reporting.verify_text.rerun_text` renders them.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from boexplore.pipeline.verify import compare_claims, compare_parts


def compare_paper2(committed: pd.DataFrame, rebuilt: pd.DataFrame) -> pd.DataFrame:
    """Per paper-2 claim statistic: committed vs rebuilt verdict and value."""
    key = ["claim_id", "statistic"]
    cols = [*key, "verdict", "value"]
    out = committed[cols].merge(
        rebuilt[cols], on=key, how="outer", suffixes=("_committed", "_rebuilt")
    )
    out["verdict_agrees"] = out["verdict_committed"] == out["verdict_rebuilt"]
    out["value_abs_diff"] = (out["value_committed"] - out["value_rebuilt"]).abs()
    return out


def compare_runs(committed: Path, rebuilt: Path) -> dict[str, pd.DataFrame]:
    """The three comparisons of two tables folders (a missing paper-2 table is skipped)."""
    out = {
        "paper1": compare_claims(
            pd.read_csv(committed / "claims_paper1.csv"), pd.read_csv(rebuilt / "claims_paper1.csv")
        ),
        "parts": compare_parts(
            pd.read_csv(committed / "claims_paper1_parts.csv"),
            pd.read_csv(rebuilt / "claims_paper1_parts.csv"),
        ),
    }
    if (committed / "claims_paper2.csv").is_file() and (rebuilt / "claims_paper2.csv").is_file():
        out["paper2"] = compare_paper2(
            pd.read_csv(committed / "claims_paper2.csv"), pd.read_csv(rebuilt / "claims_paper2.csv")
        )
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("committed", type=Path, help="committed tables folder")
    parser.add_argument("rebuilt", type=Path, help="tables folder of the re-run")
    parser.add_argument("--out", type=Path, required=True, help="output stem")
    args = parser.parse_args(argv)
    from boexplore.numerics import cpu_info

    args.out.parent.mkdir(parents=True, exist_ok=True)
    for name, table in compare_runs(args.committed, args.rebuilt).items():
        table.to_csv(f"{args.out}-{name}.csv", index=False)
        agree = "verdict_agrees" if "verdict_agrees" in table else None
        same = (
            int(table[agree].sum())
            if agree
            else int((table["decision_committed"] == table["decision_rebuilt"]).sum())
        )
        print(f"{name}: {same} of {len(table)} the same -> {args.out}-{name}.csv")
    cpu = cpu_info()
    Path(f"{args.out}-cpu.json").write_text(json.dumps(cpu, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
