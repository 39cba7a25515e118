"""Reader for LIBSVM / svmlight text files (``label idx:val idx:val ...``, 1-based indices).

Used by ``lasso_dna`` to read the user-provided ``dna.scale`` file; the
project never downloads it. Returns a dense matrix because the Lasso
benchmarks work on Gram matrices anyway.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np


def load_libsvm(path: str | Path, n_features: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Read ``path`` into ``(X (n, d) float64, y (n,) float64)``.

    ``n_features`` fixes ``d`` (features beyond it are an error); by default
    ``d`` is the largest index present. Blank lines and ``#`` comments are
    skipped. Raises FileNotFoundError / ValueError with the offending line.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"LIBSVM file not found: {path}")
    labels: list[float] = []
    rows: list[tuple[list[int], list[float]]] = []
    max_index = 0
    with path.open(encoding="utf-8") as fh:
        for lineno, raw in enumerate(fh, start=1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            parts = line.split()
            try:
                labels.append(float(parts[0]))
                idx, val = [], []
                for item in parts[1:]:
                    key, value = item.split(":", 1)
                    j = int(key)
                    if j < 1:
                        raise ValueError(f"feature index {j} < 1")
                    idx.append(j - 1)
                    val.append(float(value))
            except ValueError as exc:
                raise ValueError(f"{path}:{lineno}: not a LIBSVM line ({exc})") from None
            if idx:
                max_index = max(max_index, max(idx) + 1)
            rows.append((idx, val))
    if not rows:
        raise ValueError(f"{path}: no samples")
    d = max_index if n_features is None else int(n_features)
    if max_index > d:
        raise ValueError(f"{path}: feature index {max_index} exceeds n_features={d}")
    X = np.zeros((len(rows), d))
    for i, (idx, val) in enumerate(rows):
        X[i, idx] = val
    return X, np.asarray(labels)
