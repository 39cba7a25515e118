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
