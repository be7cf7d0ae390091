"""Deleting a person's account for good, by the email it signs in with: the service the
site's ``POST /me/delete`` and the operator's ``python -m spades account delete EMAIL``
both call.

What goes and what stays is ``spades.storage.erase``'s to say (its docstring lists both):
the account, its name and email, and everything that was only the person's go; the
matches others played with them stay, their seats named "A former player".

Imports: stdlib, ``spades.accounts`` (the address's normalisation) and ``spades.storage``.
"""

from __future__ import annotations

from collections.abc import Callable

from .accounts import BadEmail, normalize_email
from .storage import Store
from .storage.erase import DELETED_TEXT, FORMER_PLAYER, Erased

# (table codes, {old player id: new one}): tables in memory take their seats' new owner
ReloadSeats = Callable[[list[str], dict[str, str]], None]


def delete_account(store: Store, email: str, *, reload_seats: ReloadSeats | None = None,
                   now: float | None = None) -> bool:
    """Delete the account that signs in with ``email`` (normalised as sign-in does), in one
    transaction: True when there was one. Sign-in codes and guards of the address are
    deleted either way. ``reload_seats`` is told the tables where the person held a seat,
    so a table in memory shows its new name at once. Raises BadEmail for text that is no
    address."""
    erased = erase(store, email, now=now)
    if erased is None:
        return False
    if reload_seats is not None and erased.tables:
        reload_seats(list(erased.tables), {erased.user_id: erased.gone_id})
    return True


def erase(store: Store, email: str, *, now: float | None = None) -> Erased | None:
    """The erase itself (see ``delete_account``), with what it did; None without an account."""
    return store.erase_account(normalize_email(email), now=now)


def confirms(typed: str, email: str) -> bool:
    """Whether ``typed`` is the account's ``email``, compared as sign-in compares addresses."""
    try:
        return normalize_email(typed) == normalize_email(email)
    except BadEmail:
        return False


__all__ = ["DELETED_TEXT", "FORMER_PLAYER", "ReloadSeats", "confirms", "delete_account", "erase"]
