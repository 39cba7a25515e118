"""``boexplore estimate``: what a config costs (CPU-hours, memory, longest job) before running it;
``boexplore progress``: how far a running (or finished) workflow is, weighted by that cost;
``boexplore verify``: re-run a sample of a data release's BO jobs and report where they diverge;
``boexplore verify --integrity``: check a release's files against its manifest and its figures
against the committed tables (seconds, no BO);
``boexplore restore``: restore and score a whole data release in one process."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``estimate`` command."""
    p = sub.add_parser(
        "estimate",
        help="predict CPU-hours, peak memory and the longest job of a workflow config",
        description=(
            "Per-stage and total CPU-hours, peak memory and the longest job of every job the "
            "config asks for, from the cost model that also sizes the SLURM requests. "
            "--compare RESULTS_DIR sets predictions against a finished run's benchmark files; "
            "--calibrate RESULTS_DIR --out FILE refits the model on them."
        ),
    )
    p.add_argument("--configfile", required=True, type=Path, help="workflow config (YAML)")
    p.add_argument("--calibration", type=Path, help="cost-model JSON (default: the shipped one)")
    p.add_argument("--jobs", action="store_true", help="also list every job (TSV)")
    p.add_argument("--compare", type=Path, metavar="RESULTS_DIR", help="e.g. results/default")
    p.add_argument("--calibrate", type=Path, metavar="RESULTS_DIR", help="refit on a finished run")
    p.add_argument("--timing-tables", type=Path, help="add docs/bo_timings.md to the refit")
    p.add_argument("--out", type=Path, help="where --calibrate / --refit-fit writes the JSON")
    p.add_argument(
        "--compare-release",
        action="store_true",
        help="set the model's GP-fit + acquisition time against every iteration of the "
        "config's data release (release.traces), per d band",
    )
    p.add_argument(
        "--refit-fit",
        nargs="+",
        type=Path,
        metavar="CONFIG",
        help="refit the GP-fit terms on these configs' data releases (low-d terms on all of "
        "them, high-d terms on --high-d-from) and write the model to --out",
    )
    p.add_argument(
        "--high-d-from", nargs="+", type=Path, metavar="CONFIG", help="releases of the high-d terms"
    )
    p.add_argument(
        "--step-profile", type=Path, help="bench.step_profile CSV: the log-space fit's terms"
    )
    p.add_argument(
        "--report", type=Path, help="with --refit-fit: per-release, per-d-band check (Markdown)"
    )
    p.set_defaults(func=_estimate)

    p = sub.add_parser(
        "progress",
        help="cost-weighted fraction done and time left of a workflow run",
        description=(
            "Reads the plan the workflow wrote at start (results/<run>/logs/progress_plan.json), "
            "the ledger of finished BO jobs (progress.jsonl) and the outputs on disk, and prints "
            "what the run does, the share of its predicted CPU time done and an estimate of the "
            "time left (cost model blended with the rate measured so far). Run it from the "
            "workflow's working directory, e.g. in a second terminal."
        ),
    )
    p.add_argument("--configfile", required=True, type=Path, help="workflow config (YAML)")
    p.add_argument("--results-dir", type=Path, help="default: results/<run_name>")
    p.add_argument(
        "--watch", type=float, metavar="SECONDS", help="repeat every SECONDS until interrupted"
    )
    p.set_defaults(func=_progress)

    p = sub.add_parser(
        "verify",
        help="re-run a sample of a data release's BO jobs and compare with the committed traces",
        description=(
            "Picks --sample jobs of the config's release (release.traces; stratified over "
            "problems and methods, seeded), re-runs every seed with the config's settings under "
            "a numerics profile (default: the config's numerics.profile) and reports per trace "
            "the first BO iteration that differs from the committed trace beyond float32 "
            "rounding. --claims rebuilds the claims table with the re-run traces swapped in "
            "(Snakemake, run name <run>_verify) and compares every verdict and statistic. "
            "Every BO re-run appends a row (CPU, profile, jobs identical / diverged) to the "
            "release's ledger, data/<tier>/checks/ledger.csv; where the ledger does not show "
            "this CPU re-making the release under the profile, one line says so and points to "
            "--claims; --ci fails only where it does. "
            "--integrity runs no BO: it checks every file of the config's releases (its own "
            "and those it extends) against the release manifest and its hash, that each "
            "(problem, method, seed) lives in one file across them and that every file of the "
            "config's own release is read by one of its jobs, and every "
            "figure sidecar of figures/<run> against the committed tables, in seconds; without "
            "--configfile, every release under data/ and every folder under figures/."
        ),
        epilog="profiles:\n" + _profiles_text(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--configfile", type=Path, help="config with release.traces")
    p.add_argument(
        "--integrity",
        action="store_true",
        help="no BO: check release files against their manifests (each seed in one file, "
        "each file read by a job) and figures against the committed tables; exit 1 naming "
        "each damaged file",
    )
    p.add_argument("--sample", type=int, default=20, help="jobs to re-run (default 20; 0 = all)")
    p.add_argument("--seed", type=int, default=0, help="sampling seed (default 0)")
    p.add_argument("--profile", help="numerics profile (default: the config's)")
    p.add_argument("--jobs", type=int, default=1, help="parallel processes (default 1)")
    p.add_argument("--out", type=Path, help="per-trace table (.csv); default: print only")
    p.add_argument("--claims", action="store_true", help="also compare the claims table")
    p.add_argument(
        "--only",
        nargs="+",
        metavar="PROBLEM/METHOD/CHUNK",
        help="re-run these jobs instead of a sample (e.g. lo_branin2/logei/seeds0-3)",
    )
    p.add_argument(
        "--env",
        nargs="+",
        default=[],
        metavar="VAR=VALUE",
        help="set these variables on top of the profile (to isolate one cause, e.g. "
        "OPENBLAS_CORETYPE=Haswell)",
    )
    p.add_argument(
        "--workdir",
        type=Path,
        help="where re-run traces and problem files go (default results/<run>_verify)",
    )
    p.add_argument(
        "--ledger",
        type=Path,
        help="append this run's row here instead of the release's ledger "
        "(data/<tier>/checks/ledger.csv, which is always the one read)",
    )
    p.add_argument(
        "--ci",
        action="store_true",
        help="exit 1 if a trace diverged where the release's ledger shows this CPU re-making "
        "the release under the profile; elsewhere report only (exit 0)",
    )
    p.set_defaults(func=_verify)

    p = sub.add_parser(
        "restore",
        help="restore and score every job a config's data release holds, in one process",
        description=(
            "What the workflow's restore_run and score_run rules do per job, for every job the "
            "config's release holds at its full budget, in one process (after the same "
            "integrity checks): minutes instead of an hour of job start-ups for a release of a "
            "thousand jobs. Snakemake then finds these outputs done and runs the rest (BO for "
            "jobs the release does not hold, and the analysis)."
        ),
    )
    p.add_argument("--configfile", required=True, type=Path, help="workflow config (YAML)")
    p.add_argument("--results", type=Path, default=Path("results"), help="default: results")
    p.set_defaults(func=_restore)


def _restore(args: argparse.Namespace) -> int:
    from boexplore.numerics import ensure_profile
    from boexplore.pipeline.bulk_restore import restore_release
    from boexplore.workflow_config import ConfigError, load_config, numerics_profile

    try:
        config = load_config(args.configfile)
    except (ConfigError, OSError) as err:
        print(f"boexplore restore: {err}", file=sys.stderr)
        return 2
    if not (config.get("release") or {}).get("traces"):
        print(f"boexplore restore: {args.configfile} has no release.traces", file=sys.stderr)
        return 2
    profile = ensure_profile(numerics_profile(config))
    print(f"restoring the release of {config['run_name']} under profile {profile}", flush=True)
    report = restore_release(config, args.results, progress=lambda m: print(m, flush=True))
    print(report.summary())
    return 0


def _estimate(args: argparse.Namespace) -> int:
    from boexplore.pipeline import cost, gpu_cost
    from boexplore.workflow_config import load_config

    config = load_config(args.configfile)
    if args.calibration:
        config.setdefault("resources", {})["calibration"] = str(args.calibration)
    if args.calibrate:
        tables = args.timing_tables.read_text() if args.timing_tables else None
        cal = cost.calibrate(config, args.calibrate, timing_tables=tables)
        return _write_calibration(cal, args.out)
    if args.refit_fit:
        return _refit_fit(args, config)
    cal = cost.config_calibration(config)
    if args.compare_release:
        rows = cost.release_iterations(config)
        if not rows:
            print(f"no traces in the release of {args.configfile}", file=sys.stderr)
            return 2
        print(f"GP fit + acquisition, measured (trace wall clock) vs the model, per d band "
              f"({config['release']['traces']}):")  # fmt: skip
        print(cost.format_band_compare(cost.compare_iterations(rows, cal)))
        return 0
    jobs = cost.workflow_job_costs(config, cal)
    print(f"config {args.configfile} (run {config['run_name']}): {len(jobs)} compute jobs")
    print(cost.format_summary(cost.summarize(jobs, config), config))
    gpu_column = gpu_cost.format_gpu_column(gpu_cost.gpu_rows(jobs, config, cal))
    if gpu_column:
        print(gpu_column)
    timed_out = cost.format_timed_out(cost.timed_out_steps(config, cal))
    if timed_out:
        print(timed_out)
    n_held, cpu_held = cost.released_complete(config, cal)
    if n_held:
        bo_cpu = sum(j.cpu_s for j in jobs if j.rule == "bo_run")
        print(
            f"the data release holds {n_held} of these bo_run jobs complete "
            f"({cpu_held / 3600:.1f} CPU-h; restored, not run): BO still to run "
            f"{(bo_cpu - cpu_held) / 3600:.1f} CPU-h"
        )
    _print_not_run(config)
    if args.jobs:
        print("\nrule\tjob\tcpu_s\tmem_mb\truntime_request_min\tmem_request_mb\tsegments")
        for j in jobs:
            print(
                f"{j.rule}\t{j.key}\t{j.cpu_s:.1f}\t{j.mem_mb:.0f}\t"
                f"{cost.runtime_request_min(j, config)}\t{cost.mem_request_mb(j, config)}\t"
                f"{cost.segments_needed(j, config)}"
            )
    if args.compare:
        _, summary = cost.compare(config, args.compare, cal)
        if not summary:
            print(f"\nno benchmark files of this config under {args.compare}/benchmarks")
            return 1
        print(f"\npredicted vs measured CPU time ({args.compare}):")
        print(cost.format_compare(summary))
    return 0


def _refit_fit(args: argparse.Namespace, config: dict) -> int:
    """``estimate --refit-fit``: the GP-fit terms refitted on released traces."""
    from boexplore.pipeline import cost
    from boexplore.workflow_config import load_config

    releases: dict[str, list] = {}
    for path in [*args.refit_fit, *(args.high_d_from or [])]:
        if path.stem not in releases:
            releases[path.stem] = cost.release_iterations(load_config(path))
    low = [r for p in args.refit_fit for r in releases[p.stem]]
    high = [r for p in args.high_d_from or args.refit_fit for r in releases[p.stem]]
    logs = cost.step_profile_rows(args.step_profile) if args.step_profile else None
    base = cost.config_calibration(config)
    cal = cost.refit_fit_terms(low, high, base, logs)
    releases = {p.stem: releases[p.stem] for p in args.refit_fit}
    if args.report:
        even = [r for r in low if r["seed"] % 2 == 0]
        held = cost.refit_fit_terms(even, [r for r in high if r["seed"] % 2 == 0], base, logs)
        command = "boexplore estimate ... --refit-fit ... --report " + str(args.report)
        args.report.write_text(cost.band_report(releases, cal, held, command))
        print(f"wrote {args.report}")
    names = ", ".join(str(p) for p in args.refit_fit)
    cal["fit_source"] = (
        f"GP fit refitted on the released traces of {names} ({len(low)} iterations; "
        f"high-d terms on {len(high)})"
        + (f"; log-space fit on {args.step_profile}" if logs else "")
    )
    return _write_calibration(cal, args.out)


def _write_calibration(cal: dict, out: Path | None) -> int:
    """A cost-model JSON to ``out`` (``--out``), or to standard output."""
    text = json.dumps(cal, indent=1) + "\n"
    if out:
        out.write_text(text)
        print(f"wrote {out}")
    else:
        print(text, end="")
    return 0


def _print_not_run(config: dict) -> None:
    """The claims the config's ``not_run`` section leaves out, priced as its claims table
    prices them."""
    from boexplore.pipeline import not_run

    costs = not_run.not_run_costs(config)
    if not costs:
        return
    ceiling = config["not_run"].get("ceiling_cpu_h")
    own = f"the tier's own new BO {not_run.own_bo_cpu_h(config):.1f} CPU-h"
    print(
        "claims left out (config not_run): "
        + (f"{own}, ceiling {ceiling:g} CPU-h" if ceiling is not None else "no ceiling set")
    )
    for c in costs:
        print(
            f"  {c.claim_id}: {c.size()}, {c.seed_runs} BO seed runs, {c.cpu_h:.1f} CPU-h"
            f"  {c.reason}"
        )


def _progress(args: argparse.Namespace) -> int:
    import time

    from boexplore.pipeline import progress
    from boexplore.workflow_config import load_config

    config = load_config(args.configfile)
    while True:
        print(progress.status(config, args.results_dir), flush=True)
        if not args.watch:
            return 0
        try:
            time.sleep(args.watch)
        except KeyboardInterrupt:
            return 0
        print()


def _profiles_text() -> str:
    from boexplore.numerics import describe_profiles

    return describe_profiles()


def _verify_integrity(args: argparse.Namespace) -> int:
    """``verify --integrity``: hashes and manifests only (``boexplore.pipeline.integrity``)."""
    import time

    from boexplore.pipeline import integrity
    from boexplore.pipeline.release import restore_roots

    start = time.perf_counter()
    if args.configfile:
        from boexplore.workflow_config import load_config

        config = load_config(args.configfile)
        release = config.get("release") or {}
        run = str(config["run_name"])
        roots = list(restore_roots(release))
        tables = {run: Path(release.get("tables") or Path("data") / run / "tables")}
        figures = [Path("figures") / run]
    else:
        data = Path("data")
        tiers = sorted(p for p in data.iterdir() if p.is_dir()) if data.is_dir() else []
        roots = [
            t / "traces"
            for t in tiers
            if (t / "traces").is_dir() or (t / integrity.MANIFEST_NAME).is_file()
        ]
        tables = {t.name: t / "tables" for t in tiers if (t / "tables").is_dir()}
        figures = sorted(p for p in Path("figures").glob("*") if p.is_dir())
    audits = [integrity.audit_release(root) for root in roots]
    audits += _layout_audits(args.configfile, roots)
    audits += [integrity.audit_tables(path) for path in tables.values()]
    audits += [integrity.audit_figures(path, tables) for path in figures]
    print(integrity.format_audits(audits, time.perf_counter() - start))
    return 1 if any(a.damages for a in audits) else 0


def _layout_audits(configfile: Path | None, roots: list[Path]) -> list:
    """Release layouts (``pipeline.release_layout``): the config's own release, or each
    release under data/ whose config under config/ names it (``release.traces``)."""
    from boexplore.pipeline.integrity import Audit
    from boexplore.pipeline.release_layout import audit_layout, configs_by_release
    from boexplore.workflow_config import load_config

    if configfile is not None:
        return [audit_layout(load_config(configfile), str(configfile))]
    configs = configs_by_release(Path("config"))
    audits = []
    for root in roots:
        if root in configs:
            audits.append(audit_layout(load_config(configs[root]), str(configs[root])))
        elif root.is_dir():
            audit = Audit(f"{root} layout")
            audit.notes.append("no config under config/ names it: layout not checked")
            audits.append(audit)
    return audits


def _verify(args: argparse.Namespace) -> int:
    from boexplore import numerics
    from boexplore.numerics import active_identity, ensure_profile
    from boexplore.workflow_config import load_config, numerics_profile

    if args.integrity:
        return _verify_integrity(args)
    if args.configfile is None:
        print(
            "boexplore verify: --configfile is required (except with --integrity)", file=sys.stderr
        )
        return 2
    if args.sample < 0 or args.jobs < 1:
        print("boexplore verify: --sample must be >= 0 and --jobs >= 1", file=sys.stderr)
        return 2
    config = load_config(args.configfile)
    traces = (config.get("release") or {}).get("traces")
    if not traces:
        print(f"boexplore verify: {args.configfile} has no release.traces", file=sys.stderr)
        return 2
    overrides = dict(item.split("=", 1) for item in args.env if "=" in item)
    if len(overrides) != len(args.env):
        print("boexplore verify: --env takes VAR=VALUE items", file=sys.stderr)
        return 2
    name = args.profile or numerics_profile(config)
    profile = ensure_profile(name, overrides)
    import logging

    from boexplore.pipeline import verify

    logging.basicConfig(level=logging.INFO, format="%(message)s")
    workdir = args.workdir or Path("results") / f"{config['run_name']}_verify"
    jobs = verify.release_jobs(Path(traces), config)
    if args.only:
        wanted = set(args.only)
        picked = [j for j in jobs if f"{j.problem}/{j.method}/{j.chunk}" in wanted]
        unknown = wanted - {f"{j.problem}/{j.method}/{j.chunk}" for j in picked}
        if unknown:
            print(f"boexplore verify: not in the release: {sorted(unknown)}", file=sys.stderr)
            return 2
    else:
        picked = verify.sample_jobs(jobs, args.sample or len(jobs), seed=args.seed)
    from boexplore.pipeline.integrity import check_file

    for job in picked:  # a damaged committed trace would make every comparison meaningless
        check_file(job.path)
    from boexplore.pipeline import ledger

    cpu = numerics.cpu_info()
    ledger_file = ledger.ledger_path(config)
    cov = ledger.coverage(
        ledger.read(ledger_file),
        profile if overrides else name,  # with --env it is an experiment, not the profile
        cpu,
        numerics.missing_cpu_flags(numerics.get_profile(name)),
    )
    line = ledger.notice(cov, ledger_file, args.configfile)
    if line:
        print(line, flush=True)
    print(
        f"re-running {len(picked)} of {len(jobs)} release jobs under profile {profile}", flush=True
    )
    table = verify.verify_release(
        config,
        picked,
        workdir / "problems",
        profile,
        workers=args.jobs,
        keep_dir=workdir / "traces",
    )
    table["numerics"] = json.dumps(active_identity(), sort_keys=True)
    summary = verify.summarise(table)
    print(verify.format_report(table, summary, profile))
    if args.out:
        from boexplore.io import atomic_write

        atomic_write(table, args.out)
        print(f"wrote {args.out}")
    row = ledger.row_from_table(
        table,
        config,
        tier=str(config["run_name"]),
        profile=profile,
        cpu=cpu,
        git_commit=numerics.git_commit(),
        note=" ".join(f"{j.problem}/{j.method}/{j.chunk}" for j in picked) if args.only else "",
    )
    print(f"ledger: appended this run's row to {ledger.append(args.ledger or ledger_file, row)}")
    code = _verify_claims(args, config, Path(traces), workdir) if args.claims else 0
    if args.ci:
        ci_code, message = ledger.ci_exit(cov, table)
        print(message)
        code = code or ci_code
    return code


def claims_rebuild_command(configfile: Path, run: str, overlay: Path, cores: int) -> list[str]:
    """The Snakemake call that rebuilds run ``run``'s claims table from release ``overlay``
    (targets first: Snakemake's ``--quiet`` and ``--config`` take the words after them)."""
    return [
        sys.executable, "-m", "snakemake", f"results/{run}/tables/claims_paper1.csv",
        "--cores", str(cores), "--configfile", str(configfile),
        "--scheduler", "greedy", "--quiet", "rules", "--config", f"run_name={run}",
        f"release={{traces: {overlay}, tables: null}}",
    ]  # fmt: skip


def _verify_claims(args: argparse.Namespace, config: dict, traces: Path, workdir: Path) -> int:
    """Rebuild the claims table with the re-run traces swapped in; compare with the release."""
    import subprocess

    import pandas as pd

    from boexplore.pipeline import verify

    overlay = workdir / "release_overlay"
    replaced = verify.overlay_release(traces, workdir / "traces", overlay)
    run = f"{config['run_name']}_verify"
    cmd = claims_rebuild_command(args.configfile, run, overlay, args.jobs)
    from boexplore.pipeline.bulk_restore import restore_release

    # the release's jobs restored and scored in this process first (minutes, not an hour of
    # per-job start-ups); Snakemake then has the analysis left
    rebuild = {**config, "run_name": run, "release": {"traces": str(overlay), "tables": None}}
    print(restore_release(rebuild, Path("results"), progress=print).summary(), flush=True)
    print(f"rebuilding the claims with {replaced} re-run traces: {' '.join(cmd)}", flush=True)
    done = subprocess.run(cmd, check=False)
    if done.returncode != 0:
        print("boexplore verify: the claims rebuild failed (see Snakemake's log)", file=sys.stderr)
        return 1
    tables = (config.get("release") or {}).get("tables")
    committed = pd.read_csv(Path(tables) / "claims_paper1.csv")
    rebuilt = pd.read_csv(Path("results") / run / "tables" / "claims_paper1.csv")
    diff = verify.compare_claims(committed, rebuilt)
    cols = ["claim_id", "variant", "verdict_committed", "verdict_rebuilt", "value_abs_diff"]
    print(diff[cols].to_string(index=False))
    agree = int(diff["verdict_agrees"].sum())
    print(f"verdicts agreeing: {agree} / {len(diff)}")
    if args.out:
        stem = Path(args.out).with_suffix("")
        diff.to_csv(f"{stem}-verdicts.csv", index=False)
        parts = verify.compare_parts(
            pd.read_csv(Path(tables) / "claims_paper1_parts.csv"),
            pd.read_csv(Path("results") / run / "tables" / "claims_paper1_parts.csv"),
        )
        parts.to_csv(f"{stem}-parts.csv", index=False)
        same = int((parts["decision_committed"] == parts["decision_rebuilt"]).sum())
        print(f"parts agreeing: {same} / {len(parts)}; wrote {stem}-verdicts.csv, {stem}-parts.csv")
    return 0
