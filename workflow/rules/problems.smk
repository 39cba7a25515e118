# Stage 1: materialise every configured problem instance to a JSON spec (+ generated data).


rule generate_problem:
    output:
        f"{RESULTS}/problems/{{problem}}.json",
    params:
        entry=lambda wc: problem_entry(wc.problem),
        data=config["data"],
    log:
        f"{LOGS}/problems/{{problem}}.log",
    conda:
        ENV
    localrule: True
    script:
        "../scripts/generate_problem.py"
