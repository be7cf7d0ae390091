"""Circles (``spades.circles``, ``/c``): making one, the invite link (join, renewed,
expired, bad), leaving and removing, the 404 every circle address answers to anyone not
in it, a table for the circle with every member invited, the season's standings and
partnerships (worked out by hand here), a removed member's results, and the limits."""

from __future__ import annotations

import dataclasses
import re
import time

import pytest
from conftest import csrf_of
from helpers.circles import BY_HAND, CIRCLE, invite_link, make, post, result, section, signed_in, text

from spades.circles import InviteReplaced, work_out
from spades.circles.standings import figure
from spades.rules_config import Rules
from spades.storage import PutCircleResult, SeatRow
from spades.tables import Player, Stale


@pytest.fixture
def circle(app):
    """Ann's circle with Bo in it; Cy signed in and in no circle."""
    ann, bo, cy = signed_in(app, "ann@example.com", "Ann"), signed_in(app, "bo@example.com", "Bo", "🐼"), \
        signed_in(app, "cy@example.com", "Cy", "🐯")
    slug = make(ann)
    link = invite_link(ann, slug)
    assert post(bo, link).status_code == 303
    return slug, ann, bo, cy


# -- making one --------------------------------------------------------------------------------
def test_post_c_makes_a_circle_and_answers_303_to_its_page(app):
    ann = signed_in(app, "ann@example.com", "Ann")
    r = post(ann, "/c", name="  Friday\u202e Spades ")
    assert r.status_code == 303 and re.fullmatch(r"/c/friday-spades-[a-z0-9]{6}", r.headers["Location"])
    page = ann.get(r.headers["Location"])
    assert page.status_code == 200
    body = page.get_data(as_text=True)
    assert "<h1>Friday Spades</h1>" in body and 'rel="invite"' in body
    assert "Ann" in section(body, "members")
    # the same name again: another address of the same kind, which says nothing of the first
    other = make(ann)
    assert re.fullmatch(r"friday-spades-[a-z0-9]{6}", other) and f"/c/{other}" != r.headers["Location"]
    assert re.fullmatch(r"new-[a-z0-9]{6}", make(ann, "New"))  # a name that is a page of its own too
    assert "Friday Spades" in text(ann.get("/c").get_data(as_text=True))


def test_a_circle_needs_a_name_and_a_signed_in_person(app, client):
    r = post(client, "/c", name=CIRCLE)
    assert r.status_code == 403 and "Sign in to make a circle" in text(r.get_data(as_text=True))
    assert 'href="/signin"' in client.get("/c/new").get_data(as_text=True)
    ann = signed_in(app, "ann@example.com", "Ann")
    for bad, words in (("", "Give the circle a name."), ("\u200b \x00", "Give the circle a name."),
                       ("x" * 41, "at most 40 characters")):
        r = post(ann, "/c", name=bad)
        assert r.status_code == 400 and words in text(r.get_data(as_text=True))
    assert post(ann, "/c", name="♠" * 40).headers["Location"].startswith("/c/circle")


def test_a_new_circle_puts_its_invite_link_first_with_a_copy_button(app):
    """A circle of one: its owner finds the invite link at the top, a Copy button beside
    it; once someone joins, the link goes back with the members."""
    ann, bo = signed_in(app, "ann@example.com", "Ann"), signed_in(app, "bo@example.com", "Bo", "🐼")
    slug = make(ann)
    page = ann.get(f"/c/{slug}").get_data(as_text=True)
    assert re.search(r"· 1 member\b", text(page)) and "1 members" not in text(page)
    first = section(page, "invite-first")
    assert "You are the only member so far" in first
    assert page.index('rel="invite"') < page.index('id="tables"')  # above everything else
    link = re.search(r'<a rel="invite" href="[^"]+" id="([^"]+)"', page).group(1)
    assert re.search(rf'<button type="button" class="btn primary" data-copy="{link}" hidden>Copy the link</button>',
                     page)
    assert page.count('rel="invite"') == 1
    assert post(bo, invite_link(ann, slug)).status_code == 303
    page = ann.get(f"/c/{slug}").get_data(as_text=True)
    assert "· 2 members" in text(page) and 'id="invite-first"' not in page
    members = re.search(r'<section id="members".*?</section>', page, re.S).group(0)
    assert 'rel="invite"' in members and 'data-copy="invite-url"' in members
    assert 'data-copy' not in bo.get(f"/c/{slug}").get_data(as_text=True)  # the owner's alone


def test_a_member_without_a_chosen_name_shows_the_name_they_played_under(app, circle, service):
    """An account that never chose a name is not "Someone" in the circle once it has sat
    at a table with a name (a seat from before the name was kept with the player too)."""
    slug, ann, bo, cy = circle
    eve = signed_in(app, "eve@example.com", "")
    assert post(eve, invite_link(ann, slug)).status_code == 303
    assert "Someone" in section(ann.get(f"/c/{slug}").get_data(as_text=True), "members")  # nothing known yet
    seats = [SeatRow(0, "human", eve.uid, "Eve", "🐸")] + [SeatRow(s, "bot", None, n, "🤖")
                                                         for s, n in ((1, "Rex"), (2, "Bea"), (3, "Kit"))]
    service.store.create_table("EVEEVE", eve.uid, {"kind": "practice", "level": "easy"}, seats, "eve",
                               dataclasses.asdict(Rules()))
    for who in (ann, bo, eve):
        members = section(who.get(f"/c/{slug}").get_data(as_text=True), "members")
        assert "🐸 Eve" in members and "Someone" not in members
    page = cy.get(invite_link(ann, slug)).get_data(as_text=True)  # the join page names the members too
    assert "🐸 Eve" in text(page) and "Someone" not in text(page)


# -- who may see it ----------------------------------------------------------------------------
def circle_urls(slug: str) -> list[tuple[str, str]]:
    return [("get", f"/c/{slug}"), ("get", f"/c/{slug}?season=1"), ("get", f"/c/{slug}/table"),
            ("post", f"/c/{slug}/table"), ("post", f"/c/{slug}/invite/renew"), ("post", f"/c/{slug}/leave"),
            ("post", f"/c/{slug}/remove"), ("post", f"/c/{slug}/season/next")]


def test_every_circle_address_is_404_to_anyone_not_in_it(app, client, circle):
    slug, ann, bo, cy = circle
    csrf_of(client)
    for who in (cy, client):
        for method, path in circle_urls(slug) + circle_urls("no-such-circle"):
            r = who.get(path) if method == "get" else post(who, path, person="x", name="A")
            assert r.status_code == 404, (path, r.status_code)
            assert "There is no circle at this address." in text(r.get_data(as_text=True))
    assert ann.get(f"/c/{slug}").status_code == 200 and bo.get(f"/c/{slug}").status_code == 200
    assert ann.get(f"/c/{slug}?season=7").status_code == 404  # a member asking for a season it does not have


def test_following_the_invite_link_and_pressing_join_makes_a_member(app, circle):
    slug, ann, bo, cy = circle
    link = invite_link(ann, slug)
    page = cy.get(link)
    assert page.status_code == 200
    body = page.get_data(as_text=True)
    assert CIRCLE in body and f'action="{link}"' in body and ">Join</button>" in body
    assert cy.get(f"/c/{slug}").status_code == 404  # following the link is not joining
    r = post(cy, link)
    assert r.status_code == 303 and r.headers["Location"] == f"/c/{slug}"
    for who in (ann, bo, cy):
        members = section(who.get(f"/c/{slug}").get_data(as_text=True), "members")
        assert "Ann" in members and "Bo" in members and "Cy" in members
    assert 'rel="invite"' not in cy.get(f"/c/{slug}").get_data(as_text=True)  # the owner's alone
    anon = app.test_client()
    r = anon.get(link)
    assert r.status_code == 200 and "Sign in first" in text(r.get_data(as_text=True))


def test_a_renewed_link_replaces_the_old_one(app, circle):
    slug, ann, bo, cy = circle
    old = invite_link(ann, slug)
    assert post(bo, f"/c/{slug}/invite/renew").status_code == 403  # a member, not the owner
    assert cy.get(old).status_code == 200  # the link still stands (each showing of it is signed anew, timed)
    assert post(ann, f"/c/{slug}/invite/renew").status_code == 303
    new = invite_link(ann, slug)
    assert new != old
    for r in (cy.get(old), post(cy, old)):
        assert r.status_code == 410
        assert "This invite link was replaced by a newer link." in text(r.get_data(as_text=True))
    assert cy.get(f"/c/{slug}").status_code == 404
    assert post(cy, new).status_code == 303


def test_a_bad_or_expired_link_says_so(app, circle):
    slug, ann, bo, cy = circle
    link = invite_link(ann, slug)
    for bad in (link[:-3] + "xyz", f"/c/{slug}/join/nonsense", link.replace(f"/c/{slug}/", "/c/other/")):
        r = cy.get(bad)
        assert r.status_code == 404 and "This invite link is not valid" in text(r.get_data(as_text=True))
    app.extensions["spades.circles"].invite_max_age_s = -1  # every link is older than that
    r = cy.get(link)
    assert r.status_code == 410 and "This invite link has expired." in text(r.get_data(as_text=True))


def test_leave_and_remove(app, circle):
    slug, ann, bo, cy = circle
    link = invite_link(ann, slug)
    assert post(cy, link).status_code == 303
    r = post(ann, f"/c/{slug}/leave")
    assert r.status_code == 409 and "The owner keeps the circle" in text(r.get_data(as_text=True))
    assert post(bo, f"/c/{slug}/leave").headers["Location"] == "/c"
    assert bo.get(f"/c/{slug}").status_code == 404
    assert post(bo, link).status_code == 303  # back by the link
    handles = re.findall(r'name="person" value="([0-9a-f]+)"', ann.get(f"/c/{slug}").get_data(as_text=True))
    assert len(handles) == 2  # Bo's and Cy's: nobody removes the owner
    assert 'name="person"' not in bo.get(f"/c/{slug}").get_data(as_text=True)
    assert post(bo, f"/c/{slug}/remove", person=handles[0]).status_code == 403
    circles = app.extensions["spades.circles"]
    r = post(ann, f"/c/{slug}/remove", person=_handle_of(ann, slug, "Cy"))
    assert r.status_code == 303
    assert circles.member(slug, cy.uid) is None and cy.get(f"/c/{slug}").status_code == 404
    r = post(cy, link)
    assert r.status_code == 403 and "removed you" in text(r.get_data(as_text=True))
    assert post(ann, f"/c/{slug}/remove", person="0" * 20).status_code == 400


def _handle_of(client, slug: str, name: str) -> str:
    page = client.get(f"/c/{slug}").get_data(as_text=True)
    for item in re.findall(r"<li><span>(.*?)</li>", page, re.S):
        if name in item:
            return re.search(r'name="person" value="([0-9a-f]+)"', item).group(1)
    raise AssertionError(f"{name} has no Remove button")


def test_standings_and_partnerships_of_a_season_worked_out_by_hand():
    s = work_out(BY_HAND)
    rows = {r.person: (r.played, r.won, r.points_for, r.points_against) for r in s.rows}
    assert rows == {"u-ann": (3, 2, 250 + 90 + 200, 120 + 310 + 150),
                    "u-bo": (3, 3, 250 + 310 + 200, 120 + 90 + 150),
                    "u-cy": (3, 0, 120 + 90 + 150, 250 + 310 + 200),
                    "u-di": (2, 1, 120 + 310, 250 + 90)}
    # Bo won all three: first; Cy lost all three: last (the rating within the circle)
    assert [r.person for r in s.rows][0] == "u-bo" and [r.person for r in s.rows][-1] == "u-cy"
    assert s.rows[0].rating > s.rows[1].rating > s.rows[-1].rating
    pairs = {(p.a, p.b): (p.played, p.won, p.points_for, p.points_against) for p in s.partnerships}
    assert pairs == {("u-ann", "u-bo"): (2, 2, 450, 270), ("u-cy", "u-di"): (1, 0, 120, 250),
                     ("u-ann", "u-cy"): (1, 0, 90, 310), ("u-bo", "u-di"): (1, 1, 310, 90)}
    assert s.partnerships[0].a == "u-ann" and s.partnerships[0].b == "u-bo"  # the most won together
    best = {person: p.other(person) for person, p in s.best_partner.items()}
    assert best == {"u-ann": "u-bo", "u-bo": "u-ann", "u-cy": "u-di", "u-di": "u-bo"}
    # head to head: Ann against Cy 2-0 (matches 1 and 3), Ann against Bo 0-1, Bo against Cy 3-0
    assert sorted(s.against("u-ann")) == [("u-bo", 0, 1), ("u-cy", 2, 0), ("u-di", 1, 1)]
    assert sorted(s.against("u-cy")) == [("u-ann", 0, 2), ("u-bo", 0, 3), ("u-di", 0, 1)]
    # without partners: by final score, each side alone
    three = work_out([result(9, ["u-ann", "u-bo", "u-cy"], (120, 300, -40), 1, partners=False)])
    assert {r.person: (r.won, r.points_against) for r in three.rows} == {
        "u-ann": (0, 300), "u-bo": (1, 120), "u-cy": (0, 300)}
    assert sorted(three.against("u-ann")) == [("u-bo", 0, 1), ("u-cy", 1, 0)] and not three.partnerships


def test_the_page_shows_the_seasons_standings_and_a_removed_members_results_stay(app, circle):
    slug, ann, bo, cy = circle
    circles = app.extensions["spades.circles"]
    di = signed_in(app, "di@example.com", "Di", "🐸")
    link = invite_link(ann, slug)
    assert post(cy, link).status_code == 303 and post(di, link).status_code == 303
    now = time.time()
    circles.store.commit([PutCircleResult(slug, result(r.match_id, [s[1] for s in r.seats], r.scores, r.winner,
                                                       at=now - 100 + r.match_id)) for r in BY_HAND])
    page = ann.get(f"/c/{slug}").get_data(as_text=True)
    standings = section(page, "standings")
    assert "🐼 Bo 3 3 760 360" in standings and "🦊 Ann 3 2 540 580" in standings
    assert "🐸 Di 2 1 430 340" in standings and "🐯 Cy 3 0 360 760" in standings
    assert standings.index("Bo") < standings.index("Ann") < standings.index("Cy")
    partners = section(page, "partnerships")
    assert "🦊 Ann & 🐼 Bo: won 2 of 2" in partners
    assert "You against each member" in partners and "🐯 Cy: you won 2, they won 0" in partners
    recent = section(page, "recent")
    assert "Ann & Bo 200" in recent and "replay" in recent
    # Bo is removed: his results stay, marked
    assert post(ann, f"/c/{slug}/remove", person=_handle_of(ann, slug, "Bo")).status_code == 303
    standings = section(ann.get(f"/c/{slug}").get_data(as_text=True), "standings")
    assert "🐼 Bo (removed) 3 3 760 360" in standings
    assert circles.standings(slug, 1).rows[0].person == bo.uid


def test_standings_read_points_for_and_against_and_explain_the_rating(app, circle):
    slug, ann, bo, cy = circle
    circles = app.extensions["spades.circles"]
    circles.store.commit([PutCircleResult(slug, result(1, ["u-ann", None, "u-bo", None], (-59, 254), 1,
                                                       at=time.time() - 5))])
    page = ann.get(f"/c/{slug}").get_data(as_text=True)
    standings = section(page, "standings")
    assert "Player P W For Against Rating" in standings
    rating = re.search(r"🦊 Ann 1 0 −59 254 (\S+)", standings).group(1)
    assert rating == figure(circles.standings(slug, 1).rows[0].rating, 1) and rating.startswith("−")
    assert not re.search(r"-\d", standings)  # every negative figure with a minus sign, none as a dash
    assert "a skill rating within this circle (openskill" in standings and "Everyone starts at 0" in standings
    assert 'title="Rating within the circle' in page
    assert "won 0 of 1 (−59 for, 254 against)" in section(page, "partnerships")


def test_the_table_form_asks_for_as_many_people_as_the_circle_has(app):
    ann = signed_in(app, "ann@example.com", "Ann")
    slug = make(ann)

    def people() -> str:
        form = ann.get(f"/c/{slug}/table").get_data(as_text=True)
        return re.search(r'name="humans" value="(\d)" checked', form).group(1)
    assert people() == "2"  # a circle of one: the smallest table for friends, ...
    assert "You are the only member so far" in text(ann.get(f"/c/{slug}/table").get_data(as_text=True))
    counts = []
    for name in ("Bo", "Cy", "Di", "Eve"):
        assert post(signed_in(app, f"{name.lower()}@example.com", name), invite_link(ann, slug)).status_code == 303
        counts.append(people())
    assert counts == ["2", "3", "4", "4"]  # ... then one person a member, up to a full table
    assert "only member" not in ann.get(f"/c/{slug}/table").get_data(as_text=True)
    for bad in ("1", "5", "x", ""):
        r = post(ann, f"/c/{slug}/table", name="Ann", emoji="🦊", humans=bad)
        assert r.status_code == 400 and "Choose how many people will play: 2 to 4." in text(r.get_data(as_text=True))


def test_the_owner_closes_the_season_and_the_next_starts_empty(app, circle):
    slug, ann, bo, cy = circle
    circles = app.extensions["spades.circles"]
    circles.store.commit([PutCircleResult(slug, result(1, ["u-ann", None, "u-bo", None], (300, 100), 0,
                                                       at=time.time() - 5))])
    assert post(bo, f"/c/{slug}/season/next").status_code == 403
    r = post(ann, f"/c/{slug}/season/next")
    assert r.status_code == 303
    page = ann.get(f"/c/{slug}").get_data(as_text=True)
    assert "Season 2" in page and "No match of this season has finished yet." in page
    old = section(ann.get(f"/c/{slug}?season=1").get_data(as_text=True), "standings")
    assert "Season 1 (over)" in old and "Ann 1 1 300 100" in old
    assert [s.number for s in circles.seasons(slug)] == [1, 2] and circles.seasons(slug)[0].closed is not None


def test_a_season_is_a_month_and_the_next_starts_by_itself(app, circle):
    slug, ann, bo, cy = circle
    circles = app.extensions["spades.circles"]
    first = circles.current_season(slug)
    assert 28 * 86400 <= round(first.ends - first.started) <= 31 * 86400
    circles.clock = lambda: first.ends + 60
    second = circles.current_season(slug)
    assert (second.number, second.started) == (2, first.ends)
    assert circles.seasons(slug)[0].closed == first.ends


# -- a table for the circle, played out ---------------------------------------------------------
def play_all(service, code: str, pids: list[str]) -> None:
    """The people at the table bid 3 (or look first) and play their first legal card until
    the match is over; bots play the rest."""
    for _ in range(5000):
        assert service.wait_idle()
        for pid in pids:
            snap = service.snapshot(code, pid)
            v = snap.view.to_json()
            if v["finished"]:
                return
            if v["to_act"] != snap.seat:
                continue
            legal = v["legal"]
            move = "look" if "look" in legal else "3" if v["phase"] == "bidding" else str(legal[0])
            try:
                service.act(code, Player(pid), move, v["version"])
            except Stale:
                pass
    raise AssertionError("the match did not end")


def test_a_table_for_the_circle_invites_every_member_and_its_result_counts(app, circle, service):
    slug, ann, bo, cy = circle
    circles = app.extensions["spades.circles"]
    r = post(ann, f"/c/{slug}/table", name="Ann", emoji="🦊", humans="2", **{
        "mode": "bidding", "level": "easy", "speed": "fast", "end": "target-500", "tempo": "normal",
        "bag_penalty": "on"})
    assert r.status_code == 303, text(r.get_data(as_text=True))
    code = r.headers["Location"].rsplit("/", 1)[1]
    assert service.store.table_options(code)["circle"] == slug
    assert service.store.pending_invitation(ann.uid, bo.uid) == code  # Bo is invited
    assert service.store.pending_invitation(ann.uid, cy.uid) is None  # Cy is in no circle of Ann's
    tables = section(bo.get(f"/c/{slug}").get_data(as_text=True), "tables")
    assert code in tables and "waiting for people" in tables
    # a seated table of the circle (as a game night makes one), played out: one hand
    rules = Rules(end="hands", hands=1, tempo="off", play_speed="fast")
    seats = [SeatRow(0, "human", ann.uid, "Ann", "🦊"), SeatRow(1, "bot", None, "Rex", "🤖"),
             SeatRow(2, "human", bo.uid, "Bo", "🐼"), SeatRow(3, "bot", None, "Kit", "🤖")]
    played = service.create_seated(seats, rules, {"kind": "friends", "level": "easy", "circle": slug},
                                   host=ann.uid)
    assert circles.link_table(slug, played, ann.uid) == 1
    play_all(service, played, [ann.uid, bo.uid])
    final = service.snapshot(played, ann.uid).view.to_json()["scores"]
    assert circles.record(slug) == 1 and circles.record(slug) == 0  # recorded once
    [row] = circles.standings(slug, 1).partnerships
    assert (row.a, row.b, row.played, row.points_for, row.points_against) == \
        (ann.uid, bo.uid, 1, final[0], final[1])
    page = bo.get(f"/c/{slug}").get_data(as_text=True)
    assert f"Ann 1 {int(final[0] > final[1])} {figure(final[0])} {figure(final[1])}" in section(page, "standings")
    assert f'href="/g/{played}/replay?match=1"' in page


def test_a_table_for_the_circle_links_back_to_it_for_its_members_only(app, circle, service):
    slug, ann, bo, cy = circle
    rules = Rules(end="hands", hands=1, tempo="off", play_speed="fast")
    seats = [SeatRow(0, "human", ann.uid, "Ann", "🦊"), SeatRow(1, "human", cy.uid, "Cy", "🐯"),
             SeatRow(2, "human", bo.uid, "Bo", "🐼"), SeatRow(3, "bot", None, "Kit", "🤖")]
    code = service.create_seated(seats, rules, {"kind": "friends", "level": "easy", "circle": slug}, host=ann.uid)
    link = f'href="/c/{slug}"'
    for member in (ann, bo):
        page = member.get(f"/g/{code}").get_data(as_text=True)
        assert link in page and CIRCLE in page
    # Cy sits at the table but is not in the circle: nothing of it shows, nor to a watcher
    for outsider in (cy, app.test_client()):
        page = outsider.get(f"/g/{code}").get_data(as_text=True)
        assert slug not in page and CIRCLE not in page
    circles = app.extensions["spades.circles"]
    circles.leave(slug, bo.uid)
    assert slug not in bo.get(f"/g/{code}").get_data(as_text=True)  # once out of it, no more


# -- limits ---------------------------------------------------------------------------------------
def test_circles_a_person_may_make(app):
    ann = signed_in(app, "ann@example.com", "Ann")
    circles = app.extensions["spades.circles"]
    for n in range(5):
        make(ann, f"Circle {n}")
    r = post(ann, "/c", name="One more")
    assert r.status_code == 429 and "5 circles today" in text(r.get_data(as_text=True))
    start = time.time()
    for day in range(1, 4):  # days later: five more a day, up to twenty in all
        circles.clock = lambda day=day: start + day * 86400 + 1
        for n in range(5):
            assert circles.create(ann.uid, f"Day {day} circle {n}")
    circles.clock = lambda: start + 9 * 86400
    r = post(ann, "/c", name="Twenty-first")
    assert r.status_code == 429 and "You have made 20 circles, the most one person may." in \
        text(r.get_data(as_text=True))


def test_invitations_an_hour(app, circle):
    slug, ann, bo, cy = circle
    app.config["CIRCLE_INVITES_PER_PERSON"] = "2 per hour"
    assert post(ann, f"/c/{slug}/invite/renew").status_code == 303
    assert post(ann, f"/c/{slug}/invite/renew").status_code == 303
    r = post(ann, f"/c/{slug}/invite/renew")
    assert r.status_code == 429 and "circle invitations" in text(r.get_data(as_text=True))


def test_the_service_tells_a_replaced_link_from_a_bad_one(app, circle):
    slug, ann, bo, cy = circle
    circles = app.extensions["spades.circles"]
    token = circles.invite_token(slug)
    circles.renew_invite(slug, ann.uid)
    with pytest.raises(InviteReplaced):
        circles.join(slug, token, cy.uid)
    assert circles.join(slug, circles.invite_token(slug), cy.uid).state == "in"


def test_the_game_nights_block_shows_what_a_registered_part_gives(app, circle):
    from spades.web.circles.home import PAGE_PARTS, page_part
    slug, ann, bo, cy = circle
    assert 'id="nights"' not in ann.get(f"/c/{slug}").get_data(as_text=True)  # no nights: nothing shown
    seen = []

    def nights(s: str, person: str) -> dict:
        seen.append((s, person))
        return {"nights": ["Friday"]}
    page_part(nights)
    try:
        assert 'id="nights"' in bo.get(f"/c/{slug}").get_data(as_text=True)
        assert cy.get(f"/c/{slug}").status_code == 404 and seen == [(slug, bo.uid)]  # members only
    finally:
        PAGE_PARTS.remove(nights)
