"""Planning a workflow does not load torch or BoTorch (each Snakemake start would pay ~6 s)."""

from __future__ import annotations

import subprocess
import sys

# what workflow/rules/common.smk imports, plus the cost model's qKG memory model
PLAN_MODULES = (
    "boexplore.workflow_config",
    "boexplore.numerics",
    "boexplore.pipeline.gpu_jobs",
    "boexplore.pipeline.cost",
    "boexplore.pipeline.release",
    "boexplore.cost.memory",
    "boexplore.bo.acquisition.kg_memory",
    "boexplore.bo.settings",
)


def test_planning_modules_do_not_load_torch_or_botorch() -> None:
    code = (
        "import sys\n"
        + "".join(f"import {m}\n" for m in PLAN_MODULES)
        + "from boexplore.workflow_config import validate_config\n"
        + "print(sorted(m for m in ('torch', 'botorch', 'gpytorch') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr


def test_the_lazy_exports_still_resolve() -> None:
    from boexplore.bo import acquisition

    assert callable(acquisition.propose) and callable(acquisition.build_acqf)
    assert set(acquisition.__all__) == {"batch_mode", "build_acqf", "propose"}
