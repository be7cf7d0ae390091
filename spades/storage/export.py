"""What the site holds about one person, read for their download (GET /me/data.json) and
the operator's `python -m spades account export`.

Imports: stdlib and the storage package's ``base`` and ``core``.
"""

from __future__ import annotations

from .core import StoreCore


class ExportStore(StoreCore):
    """What the site holds about one person, read for their download (GET /me/data.json)
    and the operator's `python -m spades account export`."""
