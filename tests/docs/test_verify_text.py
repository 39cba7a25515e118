"""The results page says what the last verify --claims of a tier showed."""

from __future__ import annotations

import json

import pandas as pd

from boexplore.reporting.verify_text import NO_RUN, verify_claims_text


def _write(
    checks, verdicts: list[tuple[str, str]], date: str = "2026-12-06", cpu: str = "AMD EPYC"
) -> None:
    checks.mkdir(parents=True, exist_ok=True)
    numerics = json.dumps({"cpu": cpu})
    pd.DataFrame(
        {
            "problem": ["p", "p", "q"],
            "method": ["m", "m", "m"],
            "chunk": ["seeds0-1", "seeds0-1", "seed0"],
            "first_divergent_iteration": [2, None, 5],
            "profile": "portable",
            "numerics": numerics,
        }
    ).to_csv(checks / f"verify-claims-{date}.csv", index=False)
    pd.DataFrame(
        {
            "claim_id": [f"P1-C{i}" for i in range(len(verdicts))],
            "variant": "",
            "verdict_committed": [a for a, _ in verdicts],
            "verdict_rebuilt": [b for _, b in verdicts],
            "verdict_agrees": [a == b for a, b in verdicts],
        }
    ).to_csv(checks / f"verify-claims-{date}-verdicts.csv", index=False)


def test_text_counts_jobs_traces_and_agreeing_verdicts(tmp_path):
    _write(
        tmp_path / "data/t/checks",
        [("reproduced", "reproduced"), ("undecidable: a", "undecidable: b")],
    )
    text = verify_claims_text(tmp_path, "t")
    assert "re-made 2 jobs of the release (3 traces; 2 diverged" in text
    assert "1 of 2 verdicts are the same" in text and "on AMD EPYC" in text
    assert "only the scale they name differs" in text and "| P1-C1 | undecidable: a |" in text


def test_a_moved_verdict_is_not_called_a_scale_change(tmp_path):
    _write(tmp_path / "data/t/checks", [("reproduced", "not reproduced")])
    text = verify_claims_text(tmp_path, "t")
    assert "0 of 1 verdicts" in text and "scale they name" not in text
    assert verify_claims_text(tmp_path, "other") == NO_RUN


def test_runs_on_two_cpus_stand_side_by_side_oldest_first(tmp_path):
    checks = tmp_path / "data/t/checks"
    _write(checks, [("reproduced", "reproduced")], "2026-12-07", "Intel Xeon")
    _write(checks, [("reproduced", "not reproduced")], "2026-12-06", "AMD EPYC")
    text = verify_claims_text(tmp_path, "t")
    amd, intel = text.index("on AMD EPYC"), text.index("on Intel Xeon")
    assert amd < intel and "(2026-12-06," in text and "(2026-12-07," in text


def test_a_rerun_on_another_cpu_says_which_verdicts_moved(tmp_path):
    from boexplore.reporting.verify_text import rerun_text

    checks = tmp_path / "data/d/checks"
    assert rerun_text(tmp_path, "d").startswith("No re-run")
    checks.mkdir(parents=True)
    stem = checks / "rerun-2026-12-07"
    pd.DataFrame({"claim_id": ["P1-C1", "P1-C3"], "variant": ["", ""],
                  "verdict_committed": ["reproduced", "not reproduced"],
                  "verdict_rebuilt": ["reproduced", "undecidable"],
                  "verdict_agrees": [True, False]}).to_csv(f"{stem}-paper1.csv", index=False)  # fmt: skip
    pd.DataFrame({"decision_committed": ["a", "b"], "decision_rebuilt": ["a", "b"]}).to_csv(
        f"{stem}-parts.csv", index=False
    )
    (checks / "rerun-2026-12-07-cpu.json").write_text(
        json.dumps({"vendor": "Intel", "family": 6, "model_number": 167, "model": "Intel Xeon"})
    )
    text = rerun_text(tmp_path, "d")
    assert "Intel Xeon (Intel family 6 model 167) (2026-12-07): 1 of 2 paper-1 verdicts" in text
    assert "2 of 2 claim parts" in text and "| P1-C3 | not reproduced | undecidable |" in text
    assert "| P1-C3" not in rerun_text(tmp_path, "d", table=False)


def test_a_verdict_that_moves_on_another_cpu_is_marked_in_its_row(tmp_path):
    """Only a change of verdict class counts; a re-run naming another scale does not."""
    from boexplore.reporting.results_text import moved_on_rerun

    checks = tmp_path / "data/d/checks"
    checks.mkdir(parents=True)
    pd.DataFrame({"claim_id": ["P1-C3", "P1-C5"], "variant": ["", ""],
                  "verdict_committed": ["not reproduced", "undecidable at this scale: needs 15"],
                  "verdict_rebuilt": ["undecidable at this scale: x", "undecidable at this scale: 5"],
                  "verdict_agrees": [False, False]}).to_csv(checks / "rerun-x-paper1.csv", index=False)  # fmt: skip
    moved = moved_on_rerun(tmp_path / "data/d/tables")
    assert moved == {("P1-C3", ""): ["undecidable at this scale: x"]}
