"""Provenance sidecars; kept as an alias of :mod:`boexplore.io`, where they now live."""

from boexplore.io import (
    TRACKED_PACKAGES,
    package_versions,
    sha256_file,
    sidecar_path,
    write_sidecar,
)

__all__ = ["TRACKED_PACKAGES", "package_versions", "sha256_file", "sidecar_path", "write_sidecar"]
