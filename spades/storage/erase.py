"""Deleting one person's account for good: their rows gone or anonymised, so the
database file itself keeps no trace of their email or name.

Imports: stdlib and the storage package's ``base`` and ``core``.
"""

from __future__ import annotations

from .core import StoreCore


class EraseStore(StoreCore):
    """Deleting one person's account for good: their rows gone or anonymised, so the
    database file itself keeps no trace of their email or name."""
