"""The profile (/me) and Rejoin Games (/games and the home page) over HTTP: name and emoji
checked and prefilled, the record, figures, chart and rating of finished matches, the
history, and a game left to a bot that no longer counts."""

from __future__ import annotations

import re

import pytest
from conftest import csrf_of, start_practice
from helpers.accounts import finished_match
from helpers.lobby import new_table
from watch import watch

from spades.storage import SeatRow
from spades.web.accounts.profile import EMOJI

CARD = re.compile(r"\b(?:10|[2-9TJQKA])[SHDC]\b")


def pid_of(client) -> str:
    with client.session_transaction() as s:
        return s["pid"]


def save(client, name, emoji):
    return client.post("/me", data={"csrf": csrf_of(client), "name": name, "emoji": emoji})


def error_of(response) -> str:
    m = re.search(r'class="field-error"[^>]*>([^<]+)<', response.get_data(as_text=True))
    return m.group(1) if m else ""


def test_name_and_emoji_are_saved_and_prefilled(client):
    r = save(client, "  Ann   Lee ", "🦊")
    assert r.status_code == 303
    me = client.get("/me").get_data(as_text=True)
    assert 'value="Ann Lee"' in me and 'value="🦊" checked' in me and "Saved." in me
    assert 'name="name" value="Ann Lee"' in client.get("/").get_data(as_text=True)


def test_a_new_name_reaches_the_tables_where_the_person_sits_at_once(client, service):
    code = start_practice(client, name="Ann")
    room = new_table(client, humans=2, name="Ann")  # a table of friends, waiting for them
    service.wait_idle()
    told: list[tuple[str, ...]] = []
    close = watch(service, code, None, lambda snap: told.append(snap.around.names))  # a watcher's page, live
    try:
        assert save(client, "Annie", "🦊").status_code == 303
        assert told and told[-1][0] == "Annie"  # pushed to the pages at the table
    finally:
        close()
    page = client.get(f"/g/{code}").get_data(as_text=True)
    assert 'class="plate-name">Annie<span class="you-mark"> (you)</span>' in page and "🦊" in page
    assert save(client, "Annie", "🦊").status_code == 303  # nothing new: nothing to tell
    assert service.snapshot(code, None).around.names[0] == "Annie"
    members = service.room_snapshot(room, None).members
    assert [(m.name, m.emoji) for m in members] == [("Annie", "🦊")]
    assert "Annie" in client.get(f"/g/{room}").get_data(as_text=True)


@pytest.mark.parametrize("name, emoji, message", [
    ("", "🦊", "Choose a name of 1 to 20 characters."),
    ("   ", "🦊", "Choose a name of 1 to 20 characters."),
    ("A" * 21, "🦊", "A name has at most 20 characters."),
    ("\u200b\x07", "🦊", "Choose a name of 1 to 20 characters."),  # nothing left once they are taken out
    ("Ann\ue000", "🦊", "A name may not hold invisible or control characters."),
    ("Ann", "💩", "Choose one of the emoji offered."),
    ("<b>Ann</b>", "<img>", "Choose one of the emoji offered."),
])
def test_bad_names_and_emoji_are_refused_inline(client, name, emoji, message):
    r = save(client, name, emoji)
    assert r.status_code == 422 and error_of(r) == message
    assert "<b>Ann" not in r.get_data(as_text=True)


def test_the_emoji_is_optional_the_current_one_kept_or_the_offered_one_given(app, client):
    """A name saved without an emoji picked: a person who never chose one gets the one the
    form offers them; one who chose keeps theirs."""
    assert save(client, "Ann", "").status_code == 303
    me = client.get("/me").get_data(as_text=True)
    given = re.search(r'name="emoji" value="([^"]+)" checked', me).group(1)
    assert given in EMOJI and f"<h1>{given} Ann</h1>" in me and "Saved." in me
    assert save(client, "Ann", "").status_code == 303  # the same again
    assert f"<h1>{given} Ann</h1>" in client.get("/me").get_data(as_text=True)
    assert save(client, "Ann", "🐙").status_code == 303
    r = client.post("/me", data={"csrf": csrf_of(client), "name": "Annie"})  # no emoji field at all
    assert r.status_code == 303
    assert "<h1>🐙 Annie</h1>" in client.get("/me").get_data(as_text=True)
    assert app.extensions["spades.tables"].store.known_player(pid_of(client)) == ("Annie", "🐙")


def test_the_emoji_offered_are_the_curated_list(client):
    me = client.get("/me").get_data(as_text=True)
    assert re.findall(r'name="emoji" value="([^"]+)"', me) == list(EMOJI)


def test_rejoin_games_on_the_home_page_show_partner_score_and_turn_never_cards(client, service):
    home = client.get("/").get_data(as_text=True)
    assert re.search(r'<section id="rejoin"[^>]*hidden', home)  # nothing to rejoin yet
    code = start_practice(client, name="Ann")
    assert service.wait_idle()
    home = client.get("/").get_data(as_text=True)
    section = re.search(r'<section id="rejoin".*?</section>', home, re.S).group(0)
    assert "hidden" not in section.split(">", 1)[0]
    assert f'href="/g/{code}">Back to {code}</a>' in section
    assert "With <strong>Bea</strong> against Rex and Kit" in section and "us 0, them 0" in section
    view = client.get(f"/g/{code}/view.json").get_json()
    turn = "Your turn to bid" if view["to_act"] == 0 else f"{['Ann', 'Rex', 'Bea', 'Kit'][view['to_act']]} to bid"
    assert turn in section
    assert not CARD.search(section)
    games = client.get("/games").get_data(as_text=True)
    assert f'data-code="{code}"' in games and "No finished matches yet." in games


def test_finished_matches_give_the_record_chart_rating_and_history(client, app):
    save(client, "Ann", "🦊")
    pid = pid_of(client)
    store = app.extensions["spades.tables"].store
    seats = [SeatRow(0, "human", pid, "Ann"), SeatRow(1, "bot", None, "Rex"), SeatRow(2, "bot", None, "Bea"),
             SeatRow(3, "bot", None, "Kit")]
    m = finished_match(store, "HHHHHH", seats, "r1")
    me = client.get("/me").get_data(as_text=True)
    outcome = "won" if m.winner == 0 else "lost"
    assert re.search(r'class="played">1<', me) and re.search(rf'class="{outcome}">1<', me)
    assert re.search(r'class="hands">1<', me)
    assert f'<rect class="result-{outcome}"' in me and "<svg" in me
    assert re.search(r"Rating <strong>\d+</strong>, number 1 of 1 rated player\b", me)
    assert "μ" not in me and "σ" not in me
    games = client.get("/games").get_data(as_text=True)
    assert 'data-code="HHHHHH"' not in games  # finished: not in Rejoin Games...
    history = re.search(r'<section id="history".*?</section>', games, re.S).group(0)
    us, them = m.scores
    assert "HHHHHH" in history and f"{outcome.capitalize()}</span> {us} to {them}" in history


def test_a_game_left_to_a_bot_does_not_count_for_the_leaver(client, app):
    save(client, "Ann", "🦊")
    pid = pid_of(client)
    store = app.extensions["spades.tables"].store
    seats = [SeatRow(0, "human", pid, "Ann"), SeatRow(1, "bot", None, "Rex"), SeatRow(2, "bot", None, "Bea"),
             SeatRow(3, "bot", None, "Kit")]
    finished_match(store, "JJJJJJ", seats, "r1", left=0)
    me = client.get("/me").get_data(as_text=True)
    assert re.search(r'class="played">0<', me) and "Finish a match to get a rating." in me
    assert "JJJJJJ" not in client.get("/games").get_data(as_text=True)
