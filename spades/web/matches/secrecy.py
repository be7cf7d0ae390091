"""Records, replays and analyses shut while other tables still play the same deals: a
table of a circle's week of duplicate boards until the week closes
(``spades.circles.boards``), a table of a duplicate tourney's round until every pairing of
the round has its result (``spades.tourney.duplicate``).

``records_shut(code)`` is the sentence of the refusal (403), or None; the replay, record,
analysis and sheet routes call it. The template global ``records_open(code)`` lets a
list of matches leave out the links of a shut table, and ``records_opening(code)`` tells a
finished table's end panel, which then offers none of them, when they open.

Imports: Flask, ``spades.circles.boards``, ``spades.tourney.duplicate`` and the web
layer's services and boards (how a week's end is said).
"""

from __future__ import annotations

from flask import Flask

from ...circles.boards import table_records_open
from ...tourney.duplicate import records_open as round_records_open
from ..circles.boards import when
from ..site.services import service

BOARDS_SHUT = ("This table plays a circle's week of duplicate boards: its boards' records, replays and "
               "analyses open when the week closes.")
ROUND_SHUT = ("This table plays a tourney round on duplicate deals: its records, replays and analyses "
              "open when every table of the round has finished.")


def records_shut(code: str) -> str | None:
    """Why table ``code``'s records, replays and analyses are shut now, or None."""
    store, code = service().store, code.upper()
    if not table_records_open(store, code, service().now()):
        return BOARDS_SHUT
    if not round_records_open(store, code):
        return ROUND_SHUT
    return None


def records_opening(code: str) -> str | None:
    """When table ``code``'s replay, analysis and score sheet open, in a sentence for its
    end panel (which then offers none of them), or None when they are open now."""
    store, code = service().store, code.upper()
    week_id = store.board_week_of_table(code)
    week = store.board_week(week_id) if week_id is not None else None
    if week is not None and not table_records_open(store, code, service().now()):
        return (f"This table played a week of duplicate boards that other tables are still playing: its replay, "
                f"analysis and score sheet open when the week closes ({when(week.ends)}, or sooner if the "
                "circle's owner closes it).")
    if not round_records_open(store, code):
        return ("This table played a tourney round on duplicate deals: its replay, analysis and score sheet open "
                "when every table of the round has finished.")
    return None


def records_open(code: str) -> bool:
    """The template global: whether a list of matches may link to table ``code``'s replay
    and record."""
    return records_shut(code) is None


def init_app(app: Flask) -> None:
    app.add_template_global(records_open, "records_open")
    app.add_template_global(records_opening, "records_opening")


__all__ = ["BOARDS_SHUT", "ROUND_SHUT", "init_app", "records_open", "records_opening", "records_shut"]
