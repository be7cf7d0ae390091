"""A request refused, as a service tells its route: the one value every area's services
return instead of their view model when the person may not, or the form is wrong.

Imports: stdlib only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why a request is refused: the status and the sentence a person reads. ``headers``:
    such as a 429's ``Retry-After``; ``form``: the sentence is shown in the form the request
    came from, not as a page of its own; ``room``: a table the sentence points to; ``back``:
    the sentence is said on the page the form is on, after a 303 (not with ``status``)."""

    status: int
    message: str
    headers: Mapping[str, str] = field(default_factory=dict)
    form: bool = False
    room: str | None = None
    back: bool = False


__all__ = ["Refusal"]
