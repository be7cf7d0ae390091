"""A circle's whole life on both engines, SQLite and PostgreSQL (several machines share
PostgreSQL): made, joined by its link, a game night scheduled and answered, its season's
table played, a week of boards with a table of it, a member who leaves, the page and
the week's standings drawn. Every page answers as it does on SQLite."""

from __future__ import annotations

import concurrent.futures as cf
import itertools

import pytest
from conftest import INSTANT
from helpers.boards import boards_section, make_week, play_boards, start_table, the_week
from helpers.circles import invite_link, make, post, signed_in, text
from helpers.nights import schedule

from spades.web import close_app, create_app


@pytest.fixture
def engine_app(database):
    pool = cf.ThreadPoolExecutor(2)
    seeds = itertools.count(1)
    app = create_app({"SEED_SOURCE": lambda: f"engine-{next(seeds)}", "TESTING": True, "DATABASE": database,
                      "SECRET_KEY": "engine-secret", "PLAY_DELAYS": INSTANT, "BOT_POOL": pool, "TOURNEY_TICK_S": 0,
                      "NOTICE_TICK_S": 0, "NIGHT_TICK_S": 0})
    yield app
    close_app(app)
    pool.shutdown(wait=False, cancel_futures=True)


def test_a_circle_lives_on_either_engine(engine_app):
    app = engine_app
    ann, bo = signed_in(app, "ann@example.com", "Ann"), signed_in(app, "bo@example.com", "Bo", "🐼")
    slug = make(ann)
    assert post(bo, invite_link(ann, slug)).status_code == 303
    page = text(ann.get(f"/c/{slug}").get_data(as_text=True))
    assert "Ann" in page and "Bo" in page

    r = schedule(ann, slug)
    assert r.status_code == 303, text(r.get_data(as_text=True))
    night = app.extensions["spades.nights"].store.circle_nights(slug)[0]
    assert post(bo, f"/c/{slug}/nights/{night.id}/answer", answer="yes").status_code == 303
    assert ann.get(f"/c/{slug}/nights/{night.id}.ics").status_code == 200

    assert make_week(ann, slug).status_code == 303
    week = the_week(app, slug)
    code = start_table(ann, slug, week.id)
    service = app.extensions["spades.tables"]
    play_boards(service, code, [ann.uid], 1)
    block = text(boards_section(bo.get(f"/c/{slug}").get_data(as_text=True)))
    assert "Ann" in block and "Play this week's boards" in block

    assert post(bo, f"/c/{slug}/leave").status_code == 303
    assert bo.get(f"/c/{slug}").status_code == 404
    assert ann.get(f"/c/{slug}").status_code == 200 and ann.get("/c").status_code == 200
