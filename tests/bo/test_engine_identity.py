"""The engine identity cannot silently go stale: ``bo/`` sources are pinned by a hash next to
ENGINE_VERSION, and a short golden trace (compared with a tolerance: CPUs differ in the last
bits) pins the numerics. Regenerate the golden file after a deliberate bump with
``python tests/bo/test_engine_identity.py``."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from boexplore.bo import engine

GOLDEN = Path(__file__).with_name("data") / "golden_trace.json"
# Short and low-d on purpose: 3 BO iterations of LogEI on Branin (2-d), tiny optimiser.
RUN = {"method_spec": "logei", "seed": 0, "budget": 7, "n_init": 4}
SETTINGS = {"num_restarts": 2, "raw_samples": 32, "mc_samples": 16, "acq_maxiter": 20}


def _golden_run() -> dict:
    from boexplore.bo import run_bo
    from boexplore.problems import get_problem

    trace = run_bo(get_problem("branin", 2), **RUN, **SETTINGS)
    return {
        "engine_version": engine.ENGINE_VERSION,
        "run": RUN,
        "settings": SETTINGS,
        "x": trace[["x_0", "x_1"]].to_numpy().tolist(),
        "y": trace["y"].tolist(),
    }


def test_engine_sources_match_the_pinned_hash() -> None:
    assert engine.engine_sources_sha256() == engine.ENGINE_SOURCES_SHA256, (
        "src/boexplore/bo/ changed since ENGINE_SOURCES_SHA256 was pinned. If the change can "
        "alter a trace's numbers, bump ENGINE_VERSION in bo/engine.py (and regenerate "
        "tests/bo/data/golden_trace.json); then update ENGINE_SOURCES_SHA256 to the output of "
        "`python -m boexplore.bo.engine`."
    )


def test_engine_identity_is_json_and_carries_the_version() -> None:
    ident = engine.engine_identity()
    assert json.loads(json.dumps(ident)) == ident
    assert ident["engine_version"] == engine.ENGINE_VERSION and ident["torch"]


def test_golden_trace() -> None:
    golden = json.loads(GOLDEN.read_text())
    assert golden["engine_version"] == engine.ENGINE_VERSION, (
        "ENGINE_VERSION was bumped: regenerate the golden trace "
        "(python tests/bo/test_engine_identity.py)"
    )
    now = _golden_run()
    np.testing.assert_allclose(now["x"], golden["x"], atol=1e-5, err_msg=_BUMP)
    np.testing.assert_allclose(now["y"], golden["y"], rtol=1e-5, atol=1e-5, err_msg=_BUMP)


_BUMP = (
    "the engine's numerics changed (beyond CPU-level rounding): bump ENGINE_VERSION in "
    "bo/engine.py, regenerate the golden trace and update ENGINE_SOURCES_SHA256"
)

if __name__ == "__main__":
    import torch

    torch.set_num_threads(1)
    GOLDEN.write_text(json.dumps(_golden_run(), indent=1) + "\n")
    print(f"wrote {GOLDEN}", file=sys.stderr)
