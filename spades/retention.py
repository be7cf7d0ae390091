"""How long the site keeps what it keeps only for a while, and ``purge``, which deletes
what is older (run by the web's retention tick; the privacy page states these figures).

- Sign-in codes (``login_codes``: an HMAC of the code, the address, the asking browser's
  random id): a day after they expire; a code lasts 10 minutes, so at most about a day.
- An address's sign-in guard (``signin_guards``: its wrong tries in a row and when it was
  last asked for): 30 days after its last ask and the end of any lock.
- Signed-out sessions (``signins``: the account, the browser's User-Agent, when it signed
  in and was last used): 30 days after they were signed out.
- Reports of a message (``reports``: the message, the ones before it, who reported whom):
  180 days after they were made, time enough to act on them and to see a pattern.
- Guest tables (no account ever sat, hosted, waited or spoke there; not a circle's,
  a week of boards', a game night's or a tourney's), finished or abandoned: 30 days after
  the last thing done there, with their matches, moves and chat.
- Mail: the site keeps no copy of what it sends. Without a mail server (a test install)
  each mail is written to ``instance/outbox/``; those files go after 7 days.

Imports: stdlib and ``spades.storage``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .storage import Store
from .storage.retention import Cutoffs, Purged

log = logging.getLogger(__name__)

DAY = 24 * 3600
CODES_DAYS = 1  # after a sign-in code expires
GUARDS_DAYS = 30  # after an address's last ask or lock
SESSIONS_DAYS = 30  # after a session was signed out
REPORTS_DAYS = 180  # after a report was made
GUEST_TABLES_DAYS = 30  # after the last thing done at a guest table
OUTBOX_DAYS = 7  # mail written to the outbox folder, without a mail server


@dataclass(frozen=True, slots=True)
class Swept:
    """What one purge deleted: the rows of each kind, and the outbox's files."""

    rows: Purged
    outbox: int = 0


def purge(store: Store, now: float, outbox: Path | None = None,
          held: Callable[[str], bool] = lambda code: False) -> Swept:
    """Delete what is older than its retention at ``now`` (epoch seconds): codes, guards,
    signed-out sessions, reports and guest tables (but those ``held`` in a process's
    memory, which a later purge takes once they are let go), and the ``outbox`` folder's
    mails. Raises what the store raises (the tick logs it and tries again)."""
    rows = store.purge_before(Cutoffs(codes=now - CODES_DAYS * DAY, guards=now - GUARDS_DAYS * DAY,
                                      sessions=now - SESSIONS_DAYS * DAY, reports=now - REPORTS_DAYS * DAY,
                                      tables=now - GUEST_TABLES_DAYS * DAY), held)
    mails = 0
    if outbox is not None and outbox.is_dir():
        for path in outbox.glob("*.eml"):
            try:
                if path.stat().st_mtime < now - OUTBOX_DAYS * DAY:
                    path.unlink()
                    mails += 1
            except FileNotFoundError:  # another process's purge took it first
                pass
    if rows != Purged() or mails:
        log.info("retention: deleted %s and %d outbox mails", rows, mails)
    return Swept(rows, mails)
