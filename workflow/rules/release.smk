# Data release of a finished study (config key `release`, e.g. config/replicate.yaml):
# committed float32 traces stand in for BO runs (restore_run), and the study's tables are
# copied next to them (release_tables), so a fresh clone re-derives every table and figure
# in minutes. A trace missing from the release falls back to bo_run; a trace shorter than the
# configured budget is continued by bo_run from its last evaluation (`release.extend`, default on).
RELEASE_OUTPUTS = []
RELEASE_TABLE_NAMES = [
    "claims_paper1.csv",
    "claims_paper1.md",
    "claims_paper1_parts.csv",
    "claims_paper1_units.csv",
    "claims_paper1_budget.csv",
    "claims_paper1_sensitivity.csv",
    "claims_paper1_activity.csv",
    "claims_paper1_bands.csv",
    "claims_paper1_bands.md",
    "runs_summary.csv",
    "bounds_summary.csv",
    "paper1_tour_quality.csv",
    "exploration_references.csv",
]

# Every released file a job uses is checked against the release manifest first (integrity
# module of boexplore.pipeline): a damaged, unlisted or missing file refuses the job.
from boexplore.pipeline.integrity import checked_source as _checked_source

if RELEASE_TRACES:

    ruleorder: restore_run > bo_run

    rule restore_run:
        input:
            lambda wc: _checked_source(_restore_roots(RELEASE), wc, restore_source),
        output:
            f"{RESULTS}/runs/{{problem}}/{{method}}/{{chunk}}.parquet",
        params:
            seeds=lambda wc: CHUNK_SEEDS[wc.chunk],
        log:
            f"{LOGS}/restore/{{problem}}/{{method}}/{{chunk}}.log",
        threads: 1
        resources:
            runtime=5,
            mem_mb=500,
        conda:
            ENV
        script:
            "../scripts/restore_run.py"


if RELEASE_TABLES:

    rule release_tables:
        input:
            [f"{TABLES}/{name}" for name in RELEASE_TABLE_NAMES],
        output:
            [f"{RELEASE_TABLES}/{name}" for name in RELEASE_TABLE_NAMES],
        log:
            f"{LOGS}/release_tables.log",
        localrule: True
        conda:
            ENV
        shell:
            "for f in {input}; do cp \"$f\" {RELEASE_TABLES:q}/; done > {log} 2>&1"

    RELEASE_OUTPUTS = [f"{RELEASE_TABLES}/{name}" for name in RELEASE_TABLE_NAMES]
