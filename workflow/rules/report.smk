# Report-only outputs: the claims tables of both papers as HTML pages, which the Snakemake
# report shows inline (CSV results are only offered as downloads). Logic: boexplore.reporting.

REPORT_DIR = f"{RESULTS}/report"
CLAIMS_HTML = {
    "paper1": ("Paper 1", "Paper 1 claims: exploration metrics and the taxonomy (P1-C1 ... P1-C8)"),
    "paper2": ("Paper 2", "Paper 2 claims: randomized regularized NN policies (P2-C1 ... P2-C5)"),
}
# Only papers whose claims CSV the workflow builds (paper 2 can be disabled in the config).
_CLAIMS_BUILT = [
    p
    for p in CLAIMS_HTML
    if f"{TABLES}/claims_{p}.csv" in ANALYSIS_OUTPUTS + PARAMETRIC_OUTPUTS
]
REPORT_OUTPUTS = [f"{REPORT_DIR}/claims_{p}.html" for p in _CLAIMS_BUILT]


for _paper in _CLAIMS_BUILT:

    rule:
        name:
            f"claims_html_{_paper}"
        input:
            f"{TABLES}/claims_{_paper}.csv",
        output:
            report(
                f"{REPORT_DIR}/claims_{_paper}.html",
                caption=f"../report/claims_{_paper}.rst",
                category=CLAIMS_HTML[_paper][0],
                labels={"table": "claims"},
            ),
        params:
            title=CLAIMS_HTML[_paper][1],
        log:
            f"{LOGS}/report/claims_{_paper}.log",
        localrule: True
        conda:
            ENV
        script:
            "../scripts/claims_html.py"
