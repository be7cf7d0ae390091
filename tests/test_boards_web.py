"""Duplicate boards on the site (``spades.web.circles.boards``, docs/boards.md "On the site"),
through the Flask test client: the week on the circle's page, the owner's week form and
early close, a member's table of the week (and the second one refused), the 404 every
boards address answers to anyone not in the circle, and the secrecy: a table of boards'
record, replay, score sheet and analysis shut until the week closes, its matches without
links in the lists, the reveal only after, and no board's cards in anything a member who
has not played it gets."""

from __future__ import annotations

import json
import re

import pytest
from helpers.boards import (
    boards_section,
    card_lists,
    csrf,
    handle_of,
    make_week,
    play_boards,
    play_through,
    start_table,
    start_with,
    the_week,
)
from helpers.circles import invite_link, make, post, signed_in, text

from spades.cards import Card
from spades.circles.boards import boards_of, week_secret
from spades.fairness import FairDeals, hand_seed, verify_record
from spades.tables import Leave, Player
from spades.web.circles.boards import NOT_REVEALED
from spades.web.matches.secrecy import BOARDS_SHUT

NOT_HERE = "There is no circle at this address."
UPGRADE = {"Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
           "Sec-WebSocket-Version": "13", "Origin": "http://localhost"}  # the analysis's socket, as a page opens it
SHUT = "its boards' records, replays and analyses open when the week closes"


@pytest.fixture
def circle(app):
    """Ann's circle with Bo in it; Cy signed in and in no circle."""
    ann, bo, cy = (signed_in(app, "ann@example.com", "Ann"), signed_in(app, "bo@example.com", "Bo", "🐼"),
                   signed_in(app, "cy@example.com", "Cy", "🐯"))
    slug = make(ann)
    assert post(bo, invite_link(ann, slug)).status_code == 303
    return slug, ann, bo, cy


# -- the block and the owner's week --------------------------------------------------------
def test_the_owner_makes_a_week_and_members_see_its_boards(app, circle):
    slug, ann, bo, _ = circle
    block = boards_section(ann.get(f"/c/{slug}").get_data(as_text=True))
    assert "Make a week of boards" in block and "No week of boards yet" in text(block)
    assert "Make a week of boards" not in bo.get(f"/c/{slug}").get_data(as_text=True)  # the owner's form only

    # bad input: each a 400 with its sentence; a member who is not the owner: 403
    for fields, words in (({"boards": "3"}, "from 4 to 12"), ({"boards": "x"}, "from 4 to 12"),
                          ({"preset": "cutthroat-4"}, "partnership tables"), ({"days": "40"}, "from 1 to 31"),
                          ({"start": "later", "starts_at": "tomorrow"}, "a day and a time"),
                          ({"start": "later", "starts_at": "2001-01-01T10:00"}, "starts now or later")):
        r = make_week(ann, slug, **fields)
        assert r.status_code == 400 and words in text(r.get_data(as_text=True)), fields
    r = make_week(bo, slug)
    assert r.status_code == 403 and "Only the circle's owner" in text(r.get_data(as_text=True))

    r = make_week(ann, slug, boards="6", preset="jj")
    assert r.status_code == 303 and r.headers["Location"].endswith(f"/c/{slug}#boards")
    week = the_week(app, slug)
    assert week.boards == 6 and week.rules["jokers"] == "jj"
    r = make_week(ann, slug)  # one week at a time
    assert r.status_code == 409 and "close it before making another" in text(r.get_data(as_text=True))

    for who in (ann, bo):
        block = boards_section(who.get(f"/c/{slug}").get_data(as_text=True))
        words = text(block)
        assert "open" in words and "closes" in words and "Jokers JJ" in words
        for b in boards_of(week):  # each board's commitment, from the start
            assert f"Board {b.number}" in words and b.commitment in block
        assert "Play this week's boards" in words
        assert week.seed not in block and week_secret(week.seed) not in block
    assert "Close this week now" in ann.get(f"/c/{slug}").get_data(as_text=True)
    assert "Close this week now" not in bo.get(f"/c/{slug}").get_data(as_text=True)
    assert post(bo, f"/c/{slug}/boards/{week.id}/close").status_code == 403
    assert app.extensions["spades.tables"].store.board_week(week.id).closed is None


def test_a_week_made_for_later_opens_no_table_before_it_starts(app, circle):
    slug, ann, _, _ = circle
    assert make_week(ann, slug, start="later", starts_at="2099-01-04T20:00").status_code == 303
    week = the_week(app, slug)
    words = text(boards_section(ann.get(f"/c/{slug}").get_data(as_text=True)))
    assert "to come" in words and "opens Sun 4 Jan 2099, 20:00 UTC" in words
    assert "Play this week's boards" not in words
    r = post(ann, f"/c/{slug}/boards/{week.id}/table", tempo="normal")
    assert r.status_code == 409 and "has not started yet" in text(r.get_data(as_text=True))


# -- who may -----------------------------------------------------------------------------------
def boards_urls(slug: str, week_id: str) -> list[tuple[str, str]]:
    return [("get", f"/c/{slug}/boards"), ("post", f"/c/{slug}/boards"), ("get", f"/c/{slug}/boards/{week_id}"),
            ("post", f"/c/{slug}/boards/{week_id}/close"), ("post", f"/c/{slug}/boards/{week_id}/table"),
            ("get", f"/c/{slug}/boards/{week_id}/reveal.json")]


def test_every_boards_address_is_404_to_anyone_not_in_the_circle(app, client, circle):
    slug, ann, bo, cy = circle
    assert make_week(ann, slug).status_code == 303
    week = the_week(app, slug)
    assert close_by(ann, slug, week.id) == 303  # a closed week's reveal is not theirs either
    assert post(bo, f"/c/{slug}/leave").status_code == 303  # someone who left is out too
    for who in (cy, bo, client):
        for slug_asked, week_id in ((slug, week.id), (slug, "nosuchweek"), ("no-such-circle", week.id)):
            for method, path in boards_urls(slug_asked, week_id):
                r = who.get(path) if method == "get" else post(who, path, boards="4", tempo="normal")
                assert r.status_code == 404, (path, r.status_code)
                assert NOT_HERE in text(r.get_data(as_text=True)), path
    assert app.extensions["spades.tables"].store.board_tables(week.id) == []
    # a member asking for a week the circle does not have: 404 too, saying so
    r = ann.get(f"/c/{slug}/boards/nosuchweek")
    assert r.status_code == 404 and "no such week of boards" in text(r.get_data(as_text=True))


def close_by(client, slug: str, week_id: str) -> int:
    return post(client, f"/c/{slug}/boards/{week_id}/close").status_code


# -- tables of the week ---------------------------------------------------------------------------
def test_a_member_starts_a_table_of_the_week_once(app, circle):
    slug, ann, bo, _ = circle
    service = app.extensions["spades.tables"]
    assert make_week(ann, slug).status_code == 303
    week = the_week(app, slug)
    a = start_table(ann, slug, week.id)
    snap = service.snapshot(a, ann.uid)
    assert snap.seat == 0 and snap.view.to_json()["hand_number"] == 1
    # linked to the circle: on its page under "Tables now", counted in the season
    assert a in [t.code for t in app.extensions["spades.circles"].open_tables(slug)]
    words = text(boards_section(ann.get(f"/c/{slug}").get_data(as_text=True)))
    assert "your table" in words and "Back to your table of boards" in words
    assert "Play this week's boards" not in words
    # the second table of the same person: refused with the sentence
    r = post(ann, f"/c/{slug}/boards/{week.id}/table", tempo="days-1")
    assert r.status_code == 409 and "Everyone plays a week's boards once" in text(r.get_data(as_text=True))
    assert len(service.store.board_tables(week.id)) == 1

    # Bo starts a turn-based table of his own
    b = start_table(bo, slug, week.id, tempo="days-1")
    assert service.snapshot(b, bo.uid).around.tempo == "days-1"
    words = text(boards_section(bo.get(f"/c/{slug}").get_data(as_text=True)))
    assert "turn-based" in words and "live" in words
    # Ann leaves her table for good: Bo, who played the boards at his, may not take her seat
    service.handle(a, Player(ann.uid), Leave())
    assert f'href="/j/{a}"' not in boards_section(bo.get(f"/c/{slug}").get_data(as_text=True))
    r = bo.post(f"/j/{a}", data={"csrf": csrf(bo), "name": "Bo", "emoji": "🐼"})
    assert r.status_code == 403 and "Everyone plays a week's boards once" in text(r.get_data(as_text=True))
    assert service.snapshot(a, bo.uid).seat is None
    # Di, a member who has not played them, is offered it and takes it
    di = signed_in(app, "di@example.com", "Di", "🦉")
    assert post(di, invite_link(ann, slug)).status_code == 303
    assert f'href="/j/{a}"' in boards_section(di.get(f"/c/{slug}").get_data(as_text=True))
    r = di.post(f"/j/{a}", data={"csrf": csrf(di), "name": "Di", "emoji": "🦉"})
    assert r.status_code == 303, text(r.get_data(as_text=True))
    assert service.snapshot(a, di.uid).seat is not None
    r = post(di, f"/c/{slug}/boards/{week.id}/table", tempo="normal")
    assert r.status_code == 409 and "Everyone plays a week's boards once" in text(r.get_data(as_text=True))


# -- secrecy ---------------------------------------------------------------------------------------
LABELS = {Card.parse(f"{r}{s}") for r in "23456789TJQKA" for s in "SHDC"}


def card_words(page: str) -> list[str]:
    """Every card named in words on a page (``ace of spades``), as the site draws cards."""
    from spades.web.table.pictures import card
    return [card(str(c)).label for c in LABELS if card(str(c)).label in page]


def test_a_table_of_boards_keeps_its_records_shut_until_the_week_closes(app, circle):
    slug, ann, bo, _ = circle
    service = app.extensions["spades.tables"]
    assert make_week(ann, slug).status_code == 303
    week = the_week(app, slug)
    a = start_table(ann, slug, week.id)
    deals = FairDeals(week_secret(week.seed))
    boards = {k: {str(c) for cards in deals(k, k % 4) for c in cards} for k in range(1, week.boards + 1)}
    secrets_ = [week.seed, week_secret(week.seed)] + [hand_seed(week_secret(week.seed), k) for k in range(1, 5)]

    # while it runs: the seat's own part of the record is as before; Bo (no seat) gets none
    r = ann.get(f"/g/{a}/record.json")
    assert r.status_code == 200 and len(r.get_json()["hands"]) == 1
    r = bo.get(f"/g/{a}/record.json")
    assert r.status_code == 403 and BOARDS_SHUT in text(r.get_data(as_text=True))

    play_through(service, a, ann.uid)
    assert service.snapshot(a, ann.uid).view.to_json()["finished"]

    # over, the week open: every record, replay and analysis route refuses, even to its player
    for who in (ann, bo):
        for path in (f"/g/{a}/record.json", f"/g/{a}/record", f"/g/{a}/record?match=1", f"/g/{a}/replay",
                     f"/g/{a}/replay?hand=1&trick=end", f"/g/{a}/analysis", f"/g/{a}/analysis.json",
                     f"/g/{a}/analysis/ws"):
            r = who.get(path, headers=UPGRADE if path.endswith("/ws") else {})
            assert r.status_code == 403, (path, r.status_code)
            assert SHUT in text(r.get_data(as_text=True)), path
    # the lists of matches show it without links: the circle's recent matches, the games page
    page = ann.get(f"/c/{slug}").get_data(as_text=True)
    recent = re.search(r'<section id="recent".*?</section>', page, re.S).group(0)
    assert "Ann" in text(recent) and f"/g/{a}/replay" not in recent
    games = ann.get("/games").get_data(as_text=True)
    assert a in games and f"/g/{a}/replay" not in games and f"/g/{a}/record" not in games
    r = ann.get(f"/c/{slug}/boards/{week.id}/reveal.json")
    assert r.status_code == 403 and NOT_REVEALED in text(r.get_data(as_text=True))

    # nothing of a board's cards, its seeds or the week's secret to Bo, who has not played
    for path in (f"/c/{slug}", f"/c/{slug}/boards/{week.id}", f"/c/{slug}/boards", f"/g/{a}", f"/g/{a}/view.json",
                 f"/g/{a}/record.json", f"/g/{a}/record", f"/g/{a}/replay", f"/g/{a}/analysis",
                 f"/g/{a}/analysis.json", f"/c/{slug}/boards/{week.id}/reveal.json", "/games"):
        r = bo.get(path, follow_redirects=True)
        body = r.get_data(as_text=True)
        assert not any(s in body for s in secrets_), path
        assert card_words(body) == [], (path, card_words(body))
        if r.is_json:
            assert not any(set(cards) & boards[1] for cards in card_lists(r.get_json(), skip=())), path
    # Ann played the boards: she sees their points at every table; Bo does not
    assert "Its results show once you have played it" not in text(boards_section(
        ann.get(f"/c/{slug}").get_data(as_text=True)))
    bo_block = boards_section(bo.get(f"/c/{slug}").get_data(as_text=True))
    assert "Its results show once you have played it" in text(bo_block) and "board-scores" not in bo_block

    # the owner closes the week early: everything opens, and the reveal verifies
    assert close_by(ann, slug, week.id) == 303
    for path in (f"/g/{a}/record.json", f"/g/{a}/record", f"/g/{a}/replay"):
        assert bo.get(path).status_code == 200, path
    r = bo.get(f"/g/{a}/analysis.json")  # Bo did not play it: the analysis's own refusal, not the boards'
    assert r.status_code == 403 and SHUT not in r.get_json()["error"]
    page = ann.get(f"/c/{slug}").get_data(as_text=True)
    assert f"/g/{a}/replay" in re.search(r'<section id="recent".*?</section>', page, re.S).group(0)
    assert f"/g/{a}/replay" in ann.get("/games").get_data(as_text=True)
    block = boards_section(page)
    assert "Download the reveal" in block and f"/g/{a}/record.json" in block
    r = bo.get(f"/c/{slug}/boards/{week.id}/reveal.json")
    assert r.status_code == 200 and "attachment" in r.headers["Content-Disposition"]
    shown = json.loads(r.get_data(as_text=True))
    assert verify_record(shown) == {"ok": True, "hands": week.boards}
    assert [h["fairness"]["commitment"] for h in shown["hands"]] == [b.commitment for b in boards_of(week)]
    assert verify_record(bo.get(f"/g/{a}/record.json").get_json())["ok"]


def test_a_member_seats_a_partner_from_the_circle_who_finds_it_as_his_table(app, circle):
    slug, ann, bo, _ = circle
    service = app.extensions["spades.tables"]
    assert make_week(ann, slug).status_code == 303
    week = the_week(app, slug)
    bo_h = handle_of(app, bo.uid)
    block = boards_section(ann.get(f"/c/{slug}").get_data(as_text=True))
    assert f'<option value="{bo_h}">Bo</option>' in block and "Partner (across)" in block
    assert bo.uid not in block  # people are named by handle, never by id

    a = start_with(ann, slug, week.id, partner=bo_h)
    assert service.snapshot(a, ann.uid).seat == 0 and service.snapshot(a, bo.uid).seat == 2
    assert [bool(s.player_id) for s in service.store.board_tables(week.id)[0].seats] == [True, False, True, False]
    # Bo is seated: his circle page links to it as his table, and it is on his Rejoin list
    block = boards_section(bo.get(f"/c/{slug}").get_data(as_text=True))
    assert "Back to your table of boards" in text(block) and "Play this week's boards" not in text(block)
    assert f'<a href="/g/{a}">your table</a>' in block
    assert f"/g/{a}" in bo.get("/games").get_data(as_text=True)


def test_choosing_someone_who_played_the_week_is_refused_and_makes_nothing(app, circle):
    slug, ann, bo, _ = circle
    service = app.extensions["spades.tables"]
    assert make_week(ann, slug).status_code == 303
    week = the_week(app, slug)
    bo_h = handle_of(app, bo.uid)
    start_table(bo, slug, week.id)  # Bo plays the boards with bots
    di = signed_in(app, "di@example.com", "Di", "🦉")
    assert post(di, invite_link(ann, slug)).status_code == 303
    block = boards_section(di.get(f"/c/{slug}").get_data(as_text=True))
    assert "Play this week's boards" in text(block) and bo_h not in block  # not offered
    for seat in ("partner", "left", "right"):
        r = post(di, f"/c/{slug}/boards/{week.id}/table", tempo="normal", **{seat: bo_h})
        assert r.status_code == 409, seat
        assert "Everyone plays a week's boards once: Bo has played them already." in text(r.get_data(as_text=True))
    assert len(service.store.board_tables(week.id)) == 1
    assert service.snapshot(start_with(di, slug, week.id), di.uid).seat == 0  # Di alone still may


def test_choosing_a_non_member_or_one_person_twice_is_a_400(app, circle):
    slug, ann, bo, cy = circle
    service = app.extensions["spades.tables"]
    assert make_week(ann, slug).status_code == 303
    week = the_week(app, slug)
    bo_h = handle_of(app, bo.uid)
    for chosen in ({"left": "madeuphandle"}, {"partner": handle_of(app, cy.uid)}, {"right": bo_h, "left": "x" * 99}):
        r = post(ann, f"/c/{slug}/boards/{week.id}/table", tempo="normal", **chosen)
        assert r.status_code == 400, chosen
        assert "That person is not in the circle now" in text(r.get_data(as_text=True))
    for chosen in ({"partner": bo_h, "right": bo_h}, {"partner": handle_of(app, ann.uid)}):
        r = post(ann, f"/c/{slug}/boards/{week.id}/table", tempo="normal", **chosen)
        assert r.status_code == 400 and "is chosen for two seats" in text(r.get_data(as_text=True)), chosen
    assert service.store.board_tables(week.id) == []


def test_a_member_who_blocked_the_starter_cannot_be_seated_at_their_table(app, circle):
    slug, ann, bo, _ = circle
    service = app.extensions["spades.tables"]
    assert make_week(ann, slug).status_code == 303
    week = the_week(app, slug)
    service.store.set_block(bo.uid, ann.uid, True)  # Bo blocked Ann
    r = post(ann, f"/c/{slug}/boards/{week.id}/table", tempo="normal", partner=handle_of(app, bo.uid))
    assert r.status_code == 409 and "cannot be seated at your table" in text(r.get_data(as_text=True))
    assert service.store.board_tables(week.id) == []


def test_the_standings_name_both_partners_of_a_table(app, circle):
    slug, ann, bo, _ = circle
    service = app.extensions["spades.tables"]
    assert make_week(ann, slug).status_code == 303
    week = the_week(app, slug)
    a = start_with(ann, slug, week.id, partner=handle_of(app, bo.uid))
    play_boards(service, a, [ann.uid, bo.uid], 1)
    page = bo.get(f"/c/{slug}").get_data(as_text=True)
    teams = text(re.search(r'<table class="standings boards-teams">.*?</table>', page, re.S).group(0))
    people = re.search(r'<table class="standings boards-people">.*?</table>', page, re.S).group(0)
    assert "N-S Ann & Bo" in teams
    assert sorted(re.findall(r'<th scope="row" class="name">([^<]*)</th>', people)) == ["Ann", "Bo"]
