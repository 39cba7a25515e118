"""Paper 2's verdicts re-decided on other views of the same evidence, in paper 1's columns.

Paper 1's claims tables carry, per row, what its verdict depends on besides the data it was
decided on (:mod:`boexplore.analysis.paper1.robustness`, ``.sensitivity``). Paper 2's rows
get the same columns, by the same claim code (:func:`.claims.claims_table`) on another view:

* ``lopo``, ``lopo_changes``, ``lopo_n`` — **one problem left out**: P2-C1 ... C3 are decided
  per problem, but the units of one claim are Holm-corrected together, so the problems decide
  each other's rows. Each problem is left out in turn and every remaining row re-decided; a
  row whose verdict class (reproduced / not reproduced / undecidable, its scale aside) moves
  names the problem (``changes without nn2d → undecidable``). Rows decided on one experiment
  (P2-C4 on E2, P2-C5 on E3) have no problem to leave out and say so.
* ``default_setting``, ``settings_range`` — **the settings the paper's summary does not fix**:
  λ, the network width and the training steps per round (our choices: ``policy_defaults``).
  Each row is re-decided on the per-seed table of a run that changes one of them; the phrase
  says under which settings the row is reproduced ("reproduced for λ = 0.01, 0.1; undecidable
  for λ = 1 (3 tested)"). The runs are whole E1 runs of the same config with one
  ``parametric.policy_defaults`` entry changed (and their own ``run_name``); their per-seed
  tables are ``results/<run_name>/tables/paper2_e1_per_seed.csv``.

Both views are our questions, asked of paper 2 in the columns paper 1 uses; neither changes a
verdict. Rows are matched across views by (claim id, statistic).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import pandas as pd

from boexplore.analysis.claimkit.verdict import UNDECIDABLE_PREFIX

#: The claims-table columns this module adds (paper 1's names).
LOPO_COLUMNS = ["lopo", "lopo_changes", "lopo_n"]
SETTINGS_COLUMNS = ["default_setting", "settings_range"]
KEY = ["claim_id", "statistic"]
#: How a setting dimension of ``parametric.policy_defaults`` is named in a phrase.
LABEL = {"lam": "λ", "width": "width", "steps": "training steps"}
NO_PROBLEM = "decided on one experiment: no problem to leave out"
#: A claims table of the given E1 problems (``decide(keys)``) or per-seed table (``decide(seeds)``).
Decide = Callable[..., pd.DataFrame]


def verdict_class(verdict: object) -> str:
    """``reproduced``, ``not reproduced`` or ``undecidable``: a verdict without its scale or
    reason, so a view that only names another scale does not count as a move."""
    text = str(verdict).strip()
    for word in ("not reproduced", "reproduced"):
        if text == word or text.startswith(word + ":"):
            return word
    if text.startswith(("undecidable", UNDECIDABLE_PREFIX, "inconclusive", "undecided")):
        return "undecidable"
    return text.split(":")[0].strip()


def _keyed(table: pd.DataFrame) -> pd.Series:
    return table.set_index(KEY)["verdict"].map(verdict_class)


def _problem_of(statistic: str, problems: Sequence[str]) -> str | None:
    """The E1 problem a row is about: the first of ``problems`` named in its parentheses."""
    inner = statistic[statistic.rfind("(") + 1 :] if "(" in statistic else ""
    names = [p.strip() for p in inner.rstrip(")").replace(";", ",").split(",")]
    return next((p for p in names if p in problems), None)


def leave_one_problem_out(
    full: pd.DataFrame, problems: Sequence[str], decide: Decide
) -> pd.DataFrame:
    """Per row of ``full`` (claims table on every problem): the problems whose removal alone
    moves its verdict class. ``decide(keys)`` is the claims table on the E1 problems ``keys``."""
    base = _keyed(full)
    changes: dict[tuple[str, str], list[str]] = {k: [] for k in base.index}
    for left_out in problems:
        view = _keyed(decide([p for p in problems if p != left_out]))
        for key, word in view.items():
            if key in changes and word != base[key]:
                changes[key].append(f"{left_out} → {word}")
    rows = []
    for (cid, stat), moved in changes.items():
        own = _problem_of(str(stat), problems)
        if own is None:
            text, n = NO_PROBLEM, 0
        else:
            n = len(problems) - 1
            others = "the other problem" if n == 1 else f"any one of the {n} other problems"
            text = f"same without {others}" if not moved else "changes without " + "; ".join(moved)
        rows.append({"claim_id": cid, "statistic": stat, "lopo": text,
                     "lopo_changes": len(moved), "lopo_n": n})  # fmt: skip
    return pd.DataFrame(rows, columns=[*KEY, *LOPO_COLUMNS])


def setting_phrase(dimension: str, settings: Sequence[str]) -> str:
    """``λ = 0.01, 0.1`` / ``width = 64``."""
    return f"{LABEL.get(dimension, dimension)} = {', '.join(settings)}"


def sensitivity_table(
    base: pd.DataFrame,
    defaults: Mapping[str, str],
    variants: Mapping[tuple[str, str], pd.DataFrame],
    decide: Decide,
) -> pd.DataFrame:
    """Every row's verdict under each tested setting: one row per (claim, statistic,
    dimension, setting) with ``is_default`` and ``verdict``.

    ``base`` is the claims table at the defaults (``defaults``: dimension -> its setting, e.g.
    ``{"lam": "0.01"}``); ``variants`` maps (dimension, setting) to the per-seed E1 table of a
    run that changes only that setting; ``decide(per_seed)`` is the claims table on one.
    A row absent from a variant's table reads ``missing data`` there.
    """
    rows = []
    tables = {(d, s): base for d, s in defaults.items()}
    tables |= {k: decide(v) for k, v in variants.items()}
    for (dim, setting), table in sorted(tables.items(), key=lambda kv: kv[0][0]):
        verdicts = table.set_index(KEY)["verdict"]
        for cid, stat in base[KEY].itertuples(index=False):
            verdict = verdicts.get((cid, stat), "missing data")
            if isinstance(verdict, pd.Series):  # a statistic twice: the first row decides
                verdict = verdict.iloc[0]
            rows.append({"claim_id": cid, "statistic": stat, "dimension": dim,
                         "setting": setting, "is_default": defaults.get(dim) == setting,
                         "verdict": str(verdict)})  # fmt: skip
    return pd.DataFrame(rows, columns=[*KEY, "dimension", "setting", "is_default", "verdict"])


def _sort_settings(settings: Sequence[str]) -> list[str]:
    def key(s: str) -> tuple[int, float, str]:
        try:
            return 0, float(s), s
        except ValueError:
            return 1, 0.0, s

    return sorted(dict.fromkeys(settings), key=key)


def range_text(rows: pd.DataFrame) -> str:
    """One dimension of one row: ``reproduced for λ = 0.01, 0.1; undecidable for λ = 1
    (3 tested)``, or ``reproduced for every tested width (3 tested)``."""
    dim = str(rows["dimension"].iloc[0])
    order = _sort_settings(rows["setting"].astype(str).tolist())
    by: dict[str, list[str]] = {}
    for setting in order:
        verdict = rows.loc[rows["setting"].astype(str) == setting, "verdict"].iloc[0]
        by.setdefault(verdict_class(verdict), []).append(setting)
    n = len(order)
    if len(by) == 1:
        return f"{next(iter(by))} for every tested {LABEL.get(dim, dim)} ({n} tested)"
    return (
        "; ".join(f"{w} for {setting_phrase(dim, ss)}" for w, ss in by.items()) + f" ({n} tested)"
    )


def settings_columns(sens: pd.DataFrame) -> pd.DataFrame:
    """Per (claim, statistic): ``default_setting`` and ``settings_range`` over every dimension."""
    rows = []
    for (cid, stat), g in sens.groupby(KEY, sort=False):
        dims = list(dict.fromkeys(g["dimension"]))
        text = "; ".join(range_text(g[g["dimension"] == d]) for d in dims)
        default = "; ".join(
            setting_phrase(d, g.loc[(g["dimension"] == d) & g["is_default"], "setting"].tolist())
            for d in dims
            if (g.loc[g["dimension"] == d, "is_default"]).any()
        )
        rows.append({"claim_id": cid, "statistic": stat, "default_setting": default,
                     "settings_range": text})  # fmt: skip
    return pd.DataFrame(rows, columns=[*KEY, *SETTINGS_COLUMNS])


def with_views(claims: pd.DataFrame, *views: pd.DataFrame) -> pd.DataFrame:
    """``claims`` with the columns of each view joined on (claim id, statistic), row order and
    every row kept."""
    out = claims
    for view in views:
        extra = [c for c in view.columns if c not in KEY]
        out = out.drop(columns=[c for c in extra if c in out.columns]).merge(
            view.drop_duplicates(KEY), on=KEY, how="left"
        )
    return out
