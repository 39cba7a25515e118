"""docs/: the tutorial runs end to end; CITATION.cff and the gallery stay in sync with the repo."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

import boexplore
from boexplore.metrics.scoring import metrics_table

REPO = Path(__file__).resolve().parents[2]


def _load_tutorial():
    spec = importlib.util.spec_from_file_location("tutorial", REPO / "docs" / "tutorial.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _reference(root: Path) -> Path:
    """A tiny finished-run layout: branin (d=2), methods 'random' and 'local', 3 seeds."""
    rows = []
    for method in ("random", "local"):
        for seed in range(3):
            rng = np.random.default_rng([seed, len(method)])
            X = rng.random((16, 2)) if method == "random" else 0.3 + 0.01 * rng.random((16, 2))
            frame = pd.DataFrame(metrics_table(X))
            frame[["problem", "dim", "method", "seed"]] = ["branin", 2, method, seed]
            rows.append(frame)
    (root / "tables").mkdir(parents=True)
    pd.concat(rows, ignore_index=True).to_parquet(root / "tables" / "metrics.parquet")
    return root


def test_tutorial_runs_and_compares(tmp_path: Path, capsys) -> None:
    tutorial = _load_tutorial()
    ref = _reference(tmp_path / "results" / "mini")
    out, fig = tmp_path / "trace.csv", tmp_path / "cmp.png"
    argv = ["--budget", "10", "--out", str(out), "--reference", str(ref), "--figure", str(fig)]
    assert tutorial.main(argv) == 0
    printed = capsys.readouterr().out
    trace = pd.read_csv(out)
    X = trace[["x_0", "x_1"]]
    assert trace.shape == (10, 3) and X.to_numpy().min() >= 0 and X.to_numpy().max() <= 1
    assert "OTSD/Psi" in printed and "nearest reference methods" in printed
    # the monitor's states and `boexplore diagnose` (timeline + figure) of the same trace
    assert "state" in printed and "boexplore diagnose" in printed
    timeline = pd.read_csv(out.with_name("trace_timeline.csv"))
    assert len(timeline) == 10 and out.with_name("trace_diagnose.png").stat().st_size > 5_000
    assert fig.stat().st_size > 5_000
    # the live tracker's last value equals the batch metric of the written trace
    final = metrics_table(X.to_numpy())["otsd_norm"][-1]
    assert f"OTSD/Psi = {final:.4f}" in printed


def test_tutorial_without_reference_explains_next_step(tmp_path: Path, capsys) -> None:
    tutorial = _load_tutorial()
    argv = ["--budget", "6", "--out", str(tmp_path / "t.csv"), "--reference", str(tmp_path)]
    assert tutorial.main(argv) == 0
    assert "boexplore compare" in capsys.readouterr().out


def test_citation_cff_names_both_papers_and_this_version() -> None:
    cff = yaml.safe_load((REPO / "CITATION.cff").read_text())
    assert cff["cff-version"] == "1.2.0" and cff["type"] == "software"
    assert cff["version"] == boexplore.__version__
    assert {"title", "message", "authors", "license"} <= set(cff)
    ids = {i["value"] for ref in cff["references"] for i in ref.get("identifiers", [])}
    assert ids == {"arXiv:2502.08208", "arXiv:2605.13160"}
    for ref in cff["references"]:
        assert ref["authors"] and ref["title"] and ref["year"]


def test_gallery_lists_every_default_figure_and_is_current() -> None:
    from boexplore.reporting.gallery import gallery_markdown

    page = (REPO / "docs" / "gallery.md").read_text()
    figures = sorted(p.stem for p in (REPO / "figures" / "default").glob("*.png"))
    assert len(figures) >= 10
    for name in figures:
        assert f"](figures/default/{name}.png)" in page, name
    expected = gallery_markdown(
        REPO / "figures" / "default", REPO / "workflow" / "report", "figures/default"
    )
    assert page == expected, "regenerate: python -m boexplore.reporting.gallery"
    assert "(no report caption)" not in page


def test_api_page_covers_every_public_name() -> None:
    """docs/api.md holds one mkdocstrings directive per package, listing its whole __all__
    (mkdocs build renders signatures and docstrings from the code; pytest -m docs builds it)."""
    import importlib

    from boexplore.reporting.api_docs import PACKAGES, api_markdown

    page = (REPO / "docs" / "api.md").read_text()
    assert page == api_markdown(), "regenerate: python -m boexplore.reporting.api_docs"
    for package in PACKAGES:
        assert f"::: {package}\n" in page, package
        for name in importlib.import_module(package).__all__:
            assert f"        - {name}\n" in page, f"{package}.{name}"
