"""Who may sit at a week of duplicate boards, and what a finished table of boards offers
(docs/boards.md): a person plays a week's boards once, whatever happens to their seat
afterwards (leaving it, someone else taking it, a sign-in moving a seat); a table of
boards seats its circle's members only; its end panel offers no link that would answer
403 and says when they open; and the bots' teams of several tables are told apart."""

from __future__ import annotations

import re
import time

from helpers.boards import boards_section, csrf, make_week, play_boards, start_table, the_week
from helpers.circles import invite_link, post, signed_in, text

from spades.circles.boards import NOT_A_MEMBER
from spades.tables import Join, Leave, Player

PLAYED = "Everyone plays a week's boards once"


def circle_of_three(app):
    """Pia's circle with Di and Bo in it."""
    pia, di, bo = (signed_in(app, "pia@example.com", "Pia"), signed_in(app, "di@example.com", "Di", "🦉"),
                   signed_in(app, "bo@example.com", "Bo", "🐼"))
    r = post(pia, "/c", name="Boards Club")
    assert r.status_code == 303
    slug = r.headers["Location"].rsplit("/", 1)[1]
    for member in (di, bo):
        assert post(member, invite_link(pia, slug)).status_code == 303
    return slug, pia, di, bo


def test_a_person_who_left_a_table_of_the_week_never_plays_its_boards_again(app):
    slug, pia, di, _ = circle_of_three(app)
    service = app.extensions["spades.tables"]
    assert make_week(pia, slug).status_code == 303
    week = the_week(app, slug)
    a = start_table(pia, slug, week.id)
    play_boards(service, a, [pia.uid], 1)  # Pia sees board 1 played out
    service.handle(a, Player(pia.uid), Leave())
    # Di takes the seat Pia left: Pia is still someone who played the week
    r = di.post(f"/j/{a}", data={"csrf": csrf(di), "name": "Di", "emoji": "🦉"})
    assert r.status_code == 303, text(r.get_data(as_text=True))
    assert service.snapshot(a, di.uid).seat == 0
    # so Pia may not start a table of the week, nor is she offered one
    r = post(pia, f"/c/{slug}/boards/{week.id}/table", tempo="normal")
    assert r.status_code == 409 and PLAYED in text(r.get_data(as_text=True))
    assert [t.code for t in service.store.board_tables(week.id)] == [a]
    block = text(boards_section(pia.get(f"/c/{slug}").get_data(as_text=True)))
    assert "Play this week's boards" not in block
    # nor seated at a table another member starts
    from helpers.boards import handle_of
    bo = signed_in(app, "bo@example.com", "Bo", "🐼")
    r = post(bo, f"/c/{slug}/boards/{week.id}/table", tempo="normal", partner=handle_of(app, pia.uid))
    assert r.status_code == 409 and "Pia has played them already" in text(r.get_data(as_text=True))


def test_a_sign_in_never_gives_one_person_two_seats_of_one_week(app):
    """A browser that holds a seat at a table of boards (from before the members-only rule)
    signs in to the account of someone who played the week at another table: that seat
    stays the browser's, and the account keeps its one table of the week."""
    slug, pia, _, bo = circle_of_three(app)
    service = app.extensions["spades.tables"]
    assert make_week(pia, slug).status_code == 303
    week = the_week(app, slug)
    b = start_table(pia, slug, week.id)  # Pia's table
    a = start_table(bo, slug, week.id)
    service.handle(a, Player(bo.uid), Leave())
    guest = "guest-browser"
    service.handle(a, Player(guest), Join("Pip", "🦊"))  # the seat Bo left
    assert service.snapshot(a, guest).seat == 0
    accounts = app.extensions["spades.accounts"]
    user, moved = accounts.store.sign_in("pia@example.com", "unused", guest, "Pia", "🦊", time.time())
    assert user.id == pia.uid and a not in moved
    assert service.snapshot(b, pia.uid).seat == 0
    assert service.snapshot(a, pia.uid).seat is None  # not at both tables
    assert service.store.board_week_players(week.id)[pia.uid] == b


def test_a_table_of_boards_seats_members_of_its_circle_only(app, client):
    slug, pia, _, _ = circle_of_three(app)
    service = app.extensions["spades.tables"]
    assert make_week(pia, slug).status_code == 303
    week = the_week(app, slug)
    a = start_table(pia, slug, week.id)
    service.handle(a, Player(pia.uid), Leave())  # a seat is free
    cy = signed_in(app, "cy@example.com", "Cy", "🐯")  # signed in, in no circle
    for who in (client, cy):  # a browser signed out, and a stranger
        page = who.get(f"/j/{a}")
        assert page.status_code == 403 and NOT_A_MEMBER in text(page.get_data(as_text=True))
        assert 'name="name"' not in page.get_data(as_text=True)  # no join form
        r = who.post(f"/j/{a}", data={"csrf": csrf(who), "name": "Cy", "emoji": "🐯"})
        assert r.status_code == 403 and NOT_A_MEMBER in text(r.get_data(as_text=True))
    assert all(s.player_id is None for s in service.store.board_tables(week.id)[0].seats)  # nobody sat down
    # a member who leaves the circle is a stranger to its tables too
    di = signed_in(app, "di@example.com", "Di", "🦉")
    assert post(di, f"/c/{slug}/leave").status_code == 303
    r = di.post(f"/j/{a}", data={"csrf": csrf(di), "name": "Di", "emoji": "🦉"})
    assert r.status_code == 403 and NOT_A_MEMBER in text(r.get_data(as_text=True))


def test_a_finished_table_of_boards_offers_no_link_that_is_shut_and_says_when_they_open(app):
    slug, pia, _, _ = circle_of_three(app)
    service = app.extensions["spades.tables"]
    assert make_week(pia, slug).status_code == 303
    week = the_week(app, slug)
    a = start_table(pia, slug, week.id)
    play_boards(service, a, [pia.uid], week.boards)
    assert service.snapshot(a, pia.uid).view.to_json()["finished"]
    panel = pia.get(f"/g/{a}").get_data(as_text=True)
    result = re.search(r'<div id="result".*?<table', panel, re.S).group(0)
    for path in ("replay", "analysis", "record"):
        assert f"/g/{a}/{path}" not in result
        assert pia.get(f"/g/{a}/{path}").status_code == 403  # shut, as the panel says
    words = text(result)
    assert "open when the week closes" in words and "Home" in words
    # the week closed: the panel offers them, and they open
    assert post(pia, f"/c/{slug}/boards/{week.id}/close").status_code == 303
    result = re.search(r'<div id="result".*?<table', pia.get(f"/g/{a}").get_data(as_text=True), re.S).group(0)
    for path in ("replay", "analysis", "record"):
        assert f'href="/g/{a}/{path}"' in result
    assert "open when the week closes" not in text(result)
    assert pia.get(f"/g/{a}/replay").status_code == 200


def test_the_bots_teams_of_several_tables_are_told_apart_in_the_standings(app):
    slug, pia, di, _ = circle_of_three(app)
    service = app.extensions["spades.tables"]
    assert make_week(pia, slug).status_code == 303
    week = the_week(app, slug)
    a, b = start_table(pia, slug, week.id), start_table(di, slug, week.id)
    play_boards(service, a, [pia.uid], 1)
    play_boards(service, b, [di.uid], 1)
    page = pia.get(f"/c/{slug}").get_data(as_text=True)
    teams = re.findall(r'<th scope="row" class="name"><span class="dir">([^<]*)</span>([^<]*)</th>',
                       re.search(r'<table class="standings boards-teams">.*?</table>', page, re.S).group(0))
    names = [f"{d} {n.strip()}" for d, n in teams]
    assert len(names) == 4 and len(set(names)) == 4, names  # no team listed twice under one name
    assert any(n.startswith("E-W") and "bots" in n and "Pia" in n for n in names), names
    assert any(n.startswith("E-W") and "bots" in n and "Di" in n for n in names), names


def test_every_page_of_a_circle_is_kept_by_no_cache(app, client):
    slug, pia, di, _ = circle_of_three(app)
    assert make_week(pia, slug).status_code == 303
    week = the_week(app, slug)
    invite = invite_link(pia, slug)
    stranger = signed_in(app, "cy@example.com", "Cy", "🐯")
    for who, path in ((pia, "/c"), (pia, f"/c/{slug}"), (pia, f"/c/{slug}/table"), (pia, f"/c/{slug}/boards/{week.id}"),
                      (di, f"/c/{slug}"), (stranger, invite), (stranger, "/c"), (client, f"/c/{slug}")):
        r = who.get(path)
        assert r.status_code in (200, 404), (path, r.status_code)
        assert r.headers.get("Cache-Control") == "no-store", path
