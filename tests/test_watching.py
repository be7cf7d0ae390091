"""Watching a table, the last trick and the score sheet, over HTTP and the table service:
a watcher sees both teams by name and nothing to play with, the players see how many
watch, the host may turn watching off (open watchers' pages are closed with the reason),
the last trick stays one tap away until the next one is complete, and the score sheet
holds every finished hand's numbers; a full table's join page says whether it may be
watched and the true reason when not (a room not started, deals other tables play, the
host's switch), and a person at the turn-based limit is not told the table is full."""

from __future__ import annotations

import random
import re

from conftest import csrf_of, start_practice
from helpers.web import HX, move, to_my_card_turn, view
from watch import watch

from spades.rules_config import Rules
from spades.storage import SeatRow
from spades.tables import MAX_TURN_TABLES, TOO_MANY_TURN_TABLES


def watcher_page(client, code: str) -> str:
    r = client.get(f"/g/{code}/watch")
    assert r.status_code == 200
    return r.get_data(as_text=True)


def test_a_watcher_sees_both_teams_by_name_and_nothing_to_play_with(app, client, service):
    code = start_practice(client)
    service.wait_idle()
    page = watcher_page(app.test_client(), code)
    assert "<strong>Watching</strong>" in page
    assert 'class="status-private watching' in page  # drawn from seat 0's side, with no seat marked as its own
    labels = re.findall(r'class="team-members">([^<]+)<', page)
    assert len(labels) == 2 and labels[0].endswith(" &amp; Bea") and labels[1] == "Rex &amp; Kit"
    hand = page.split('id="hand"')[1].split("</section>")[0]
    assert 'class="card' not in hand and 'name="action"' not in page  # no hand, no controls
    assert "Watching on: turn off" not in page  # only the host has that switch
    mine = client.get(f"/g/{code}").get_data(as_text=True)
    assert "<strong>Watching</strong>" not in mine
    assert 'class="status-private from-0 us-0' in mine  # its own team is Us (CSS), the other Them


def test_the_players_see_how_many_are_watching(app, client, service):
    code = start_practice(client)
    service.wait_idle()
    host = view(client, code)
    assert "watching</span>" not in client.get(f"/g/{code}").get_data(as_text=True)
    seen = []
    close_a = watch(service, code, "watcher-a", seen.append)
    close_b = watch(service, code, "watcher-b", seen.append)
    assert 'class="watch-count">2 watching<' in client.get(f"/g/{code}").get_data(as_text=True)
    close_a()
    assert 'class="watch-count">1 watching<' in client.get(f"/g/{code}").get_data(as_text=True)
    close_b()
    assert "watching</span>" not in client.get(f"/g/{code}").get_data(as_text=True)
    assert view(client, code)["version"] == host["version"]  # watchers come and go: no move made


def test_the_host_turns_watching_off_and_watchers_are_refused(app, client, service):
    from helpers.lobby import join, new_table, post

    code = new_table(client, humans=2)  # a table of friends: a practice table offers no switch
    join(app.test_client(), code, "Ann")
    post(client, code, "start")
    service.wait_idle()
    stranger = app.test_client()
    watcher_page(stranger, code)
    r = stranger.post(f"/g/{code}/watching", data={"csrf": csrf_of(stranger), "watch": "off"}, headers=HX)
    assert r.status_code == 403 and "no seat" in r.get_data(as_text=True)  # only the host
    assert client.post(f"/g/{code}/watching", data={"csrf": csrf_of(client), "watch": "maybe"}).status_code == 400
    r = client.post(f"/g/{code}/watching", data={"csrf": csrf_of(client), "watch": "off"})
    assert r.status_code == 303 and "Watching off: turn on" in client.get(f"/g/{code}").get_data(as_text=True)
    for path in (f"/g/{code}", f"/g/{code}/watch", f"/g/{code}/view.json"):
        r = stranger.get(path)
        assert r.status_code == 403 and "The host has turned watching off" in r.get_data(as_text=True)
    assert client.get(f"/g/{code}").status_code == 200  # the player still sees the table
    r = client.post(f"/g/{code}/watching", data={"csrf": csrf_of(client), "watch": "on"}, headers=HX)
    assert r.status_code == 200  # from htmx too
    assert "Watching on: turn off" in client.get(f"/g/{code}").get_data(as_text=True)
    watcher_page(stranger, code)


def test_a_full_tables_join_page_links_to_watching_unless_it_is_off(app, client, service):
    code = start_practice(client)  # a practice table: nobody can join it
    service.wait_idle()
    late = app.test_client()
    html = late.get(f"/j/{code}").get_data(as_text=True)
    assert f'href="/g/{code}/watch"' in html and "You can watch the game" in html
    client.post(f"/g/{code}/watching", data={"csrf": csrf_of(client), "watch": "off"})
    html = late.get(f"/j/{code}").get_data(as_text=True)
    assert f'href="/g/{code}/watch"' not in html and "The host has turned watching off" in html


def last_trick_box(html: str) -> str:
    return html.split('id="lasttrick"')[1].split("</div>")[0]


def test_the_last_trick_stays_until_the_next_one_is_complete(client, service):
    code = start_practice(client)
    rng = random.Random(3)
    v = to_my_card_turn(client, service, code, rng)
    page = client.get(f"/g/{code}").get_data(as_text=True)
    assert "No trick has been played in this hand yet" in last_trick_box(page)
    while len(v["tricks"]) < 2:
        assert move(client, code, rng.choice(v["legal"]), v["version"]).status_code == 200
        v = to_my_card_turn(client, service, code, rng)
    box = last_trick_box(client.get(f"/g/{code}").get_data(as_text=True))
    last = v["tricks"][-1]
    assert f"Trick {len(v['tricks'])}:" in box
    assert re.findall(r'data-card="(\w\w)"', box) == last["cards"]  # in the order played
    winner = "You" if last["winner"] == 0 else ("Rex", "Bea", "Kit")[last["winner"] - 1]
    assert f"{winner} win" in box
    # a card of the next trick on the felt leaves the last trick one tap away
    if v["trick"]["cards"]:
        assert re.findall(r'data-card="(\w\w)"', box) != v["trick"]["cards"]


def test_the_score_sheet_holds_every_finished_hand(client, service):
    code = start_practice(client, end="hands-5")
    rng = random.Random(5)
    while True:
        assert service.wait_idle()
        v = view(client, code)
        if v["finished"] or len(v["results"]) >= 2:
            break
        if v["phase"] == "hand_over":
            assert move(client, code, "deal", v["version"]).status_code == 200
            continue
        action = "3" if v["phase"] == "bidding" else rng.choice(v["legal"])
        assert move(client, code, action, v["version"]).status_code == 200
    page = client.get(f"/g/{code}").get_data(as_text=True)
    sheet = page.split('id="sheet"')[1].split("</table>")[0]
    rows = re.findall(r"<tr>\s*<th scope=\"row\">(\d+)</th>(.*?)</tr>", sheet, re.S)
    assert [int(n) for n, _ in rows] == [r["number"] for r in v["results"]]
    for (_, cells), r in zip(rows, v["results"]):
        running = [int(x) for x in re.findall(r'class="running">(-?\d+)', cells)]
        assert running == [r["totals"][0], r["totals"][1]]  # seat 0's team first
        points = [int(x) for x in re.findall(r"<td>([+-]\d+)", cells)]
        assert points == [r["teams"][0]["total"], r["teams"][1]["total"]]


def refused_page(client, code: str) -> tuple[int, str, str]:
    """A join refused: the status, the page's heading and its sentence."""
    r = client.get(f"/j/{code}")
    html = r.get_data(as_text=True)
    heading = re.search(r"<h1>([^<]*)</h1>", html).group(1)
    return r.status_code, heading, re.search(r'<p class="message" role="alert">([^<]*)</p>', html).group(1)


def test_a_full_room_says_it_is_full_and_that_its_game_may_be_watched_once_it_starts(app, client, service):
    from helpers.lobby import join, new_table, post

    code = new_table(client, humans=2)  # two people, two bots: the host never touched watching
    join(app.test_client(), code, "Ann")
    late = app.test_client()
    status, heading, said = refused_page(late, code)
    assert (status, heading) == (409, "This table is full")
    assert "turned watching off" not in said and "not started yet" in said and "you can watch it" in said
    post(client, code, "start")
    service.wait_idle()
    status, heading, said = refused_page(late, code)
    assert (status, heading) == (409, "This table is full") and said.endswith("You can watch the game.")
    assert f'href="/g/{code}/watch"' in late.get(f"/j/{code}").get_data(as_text=True)


def test_a_full_table_whose_deals_other_tables_play_says_so_and_not_that_the_host_turned_watching_off(
        app, service):
    seats = [SeatRow(n, "human", f"p-{n}", f"P{n}", "🦊") for n in range(4)]
    code = service.create_seated(seats, Rules(end="hands", hands=1), {"kind": "friends", "level": "easy",
                                                                       "duplicate": True, "watch": False})
    late = app.test_client()
    status, heading, said = refused_page(late, code)
    assert (status, heading) == (409, "This table is full")
    assert "turned watching off" not in said
    assert said.endswith("Nobody watches this table: other tables play the same deals.")
    assert f'href="/g/{code}/watch"' not in late.get(f"/j/{code}").get_data(as_text=True)


def test_a_person_at_the_turn_based_limit_is_told_so_not_that_the_table_is_full(app, client, service):
    from helpers.lobby import new_table

    code = new_table(client, humans=2, tempo="days-3")
    ann = app.test_client()
    csrf_of(ann)
    with ann.session_transaction() as s:
        s["pid"] = "p-ann"  # a browser of the person at the limit
    rules = Rules(tempo="days-3")
    for _ in range(MAX_TURN_TABLES):
        service.create_room("p-ann", "Ann", "🐼", rules, "easy", 2)
    status, heading, said = refused_page(ann, code)
    assert status == 409 and heading == "Cannot join" and said == TOO_MANY_TURN_TABLES.replace("'", "&#39;")
