"""Talk at the table over HTTP and the hub: messages and reactions, the watchers' chat,
every refusal, the flood limit, the host's settings and silencing, mute (also of the
frames a socket is sent) and reports."""

from __future__ import annotations

import re

import pytest
from conftest import FakeClock, csrf_of
from helpers.lobby import join, new_table, post
from helpers.talk import HX, chat_of, say

from spades.rules_config import Rules
from spades.storage import SeatRow
from spades.tables import Player, React, Say, TalkRefused
from spades.web.table.connection import Connection


def test_players_talk_and_everyone_at_the_table_reads_it(talk_table):
    code, hana, ann, watcher = talk_table
    r = say(hana, code, "  nice   cover,\npartner ")
    assert r.status_code == 200 and 'id="composer"' in r.get_data(as_text=True)
    expected = "Hana: nice cover, partner"
    assert any(line.endswith(expected) for line in chat_of(ann, code))
    assert any(line.endswith(expected) for line in chat_of(watcher, code))
    # without JavaScript: a plain form, and back to the table
    r = say(ann, code, "thanks!", hx=False)
    assert r.status_code == 303 and r.headers["Location"].endswith(f"/g/{code}")
    assert any(line.endswith("Ann: thanks!") for line in chat_of(hana, code))


def test_the_watchers_chat_stays_with_the_watchers_while_the_match_runs(talk_table, service):
    code, hana, ann, watcher = talk_table
    assert say(watcher, code, "go Hana").status_code == 200
    assert any("go Hana" in line for line in chat_of(watcher, code))
    assert not any("go Hana" in line for line in chat_of(hana, code))
    assert not any("go Hana" in line for line in chat_of(ann, code))


def test_text_is_kept_as_text(talk_table):
    code, hana, ann, _ = talk_table
    say(hana, code, '<script>alert(1)</script> see https://example.com \x07\u200b')
    html = ann.get(f"/g/{code}").get_data(as_text=True)
    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt; see https://example.com" in html
    assert 'href="https://example.com' not in html


def test_a_line_loses_control_and_direction_characters_and_keeps_its_emoji(talk_table):
    code, hana, ann, watcher = talk_table
    assert say(hana, code, "a\x00b\u202e").status_code == 200
    assert say(watcher, code, "\u2066go\x1b \u200fteam\u2069 👩\u200d💻").status_code == 200
    assert chat_of(ann, code) == ["Hana: ab"]
    assert chat_of(watcher, code) == ["Hana: ab", "A watcher (watching): go team 👩\u200d💻"]
    r = say(hana, code, "\x00\u202e\u2066\u200b")
    assert r.status_code == 400 and "Write something first." in r.get_data(as_text=True)


@pytest.mark.parametrize("text, status, words", [
    ("", 400, "Write something first."),
    ("   \n\t ", 400, "Write something first."),
    ("x" * 201, 400, "at most 200 characters; yours has 201"),
])
def test_bad_messages_are_refused_and_change_nothing(talk_table, text, status, words):
    code, hana, ann, _ = talk_table
    r = say(hana, code, text)
    assert r.status_code == status and words in r.get_data(as_text=True)
    assert chat_of(ann, code) == []


def test_the_flood_limit_and_repeats(talk_table):
    code, hana, ann, _ = talk_table
    assert say(hana, code, "one").status_code == 200
    r = say(hana, code, "one")
    assert r.status_code == 429 and "You just said that." in r.get_data(as_text=True)
    for text in ("two", "three", "four", "five"):
        assert say(hana, code, text).status_code == 200
    r = say(hana, code, "six")
    assert r.status_code == 429 and "at most 5 messages in 10 seconds" in r.get_data(as_text=True)
    assert r.headers["Retry-After"].isdigit()
    assert [line.split(": ", 1)[1] for line in chat_of(ann, code)] == ["one", "two", "three", "four", "five"]
    assert say(ann, code, "my turn to talk").status_code == 200  # the limit is per person


def test_reactions_by_key_or_by_their_words(talk_table):
    code, hana, ann, _ = talk_table
    for posted in ("thumbs", "Good game"):
        r = hana.post(f"/g/{code}/react", data={"csrf": csrf_of(hana), "reaction": posted}, headers=HX)
        assert r.status_code == 200
    assert [line for line in chat_of(ann, code)] == ["Hana: 👍", "Hana: Good game"]
    r = hana.post(f"/g/{code}/react", data={"csrf": csrf_of(hana), "reaction": "🖕"}, headers=HX)
    assert r.status_code == 400 and "Choose one of the reactions" in r.get_data(as_text=True)


def test_the_host_sets_the_chat_and_silences_a_person(talk_table):
    code, hana, ann, watcher = talk_table
    r = ann.post(f"/g/{code}/chat-settings", data={"csrf": csrf_of(ann), "chat": "off"}, headers=HX)
    assert r.status_code == 403 and "Only the host" in r.get_data(as_text=True)
    r = hana.post(f"/g/{code}/chat-settings", data={"csrf": csrf_of(hana), "chat": "reactions"}, headers=HX)
    assert r.status_code == 200
    assert chat_of(ann, code)[-1] == "The host allowed reactions only."
    r = say(ann, code, "hello?")
    assert r.status_code == 403 and "reactions only" in r.get_data(as_text=True)
    assert ann.post(f"/g/{code}/react", data={"csrf": csrf_of(ann), "reaction": "sorry"}, headers=HX).status_code == 200
    hana.post(f"/g/{code}/chat-settings", data={"csrf": csrf_of(hana), "chat": "on", "filter": "on"}, headers=HX)
    say(ann, code, "what the hell")
    assert chat_of(hana, code)[-1] == "Ann: what the ****"
    number = re.findall(r'id="line-(\d+)"', hana.get(f"/g/{code}").get_data(as_text=True))[-1]
    r = hana.post(f"/g/{code}/silence", data={"csrf": csrf_of(hana), "line": number}, headers=HX)
    assert r.status_code == 200 and chat_of(ann, code)[-1] == "The host silenced Ann."
    r = say(ann, code, "but")
    assert r.status_code == 403 and "silenced you" in r.get_data(as_text=True)
    r = hana.post(f"/g/{code}/silence", data={"csrf": csrf_of(hana), "line": number, "on": "off"}, headers=HX)
    assert r.status_code == 200 and chat_of(ann, code)[-1] == "The host let Ann talk again."
    assert say(ann, code, "thank you").status_code == 200
    hana.post(f"/g/{code}/chat-settings", data={"csrf": csrf_of(hana), "chat": "off"}, headers=HX)
    r = hana.post(f"/g/{code}/react", data={"csrf": csrf_of(hana), "reaction": "nice"}, headers=HX)
    assert r.status_code == 403 and "turned the chat off" in r.get_data(as_text=True)
    r = say(watcher, code, "hi")
    assert r.status_code == 403


def test_mute_hides_a_person_here_and_after_a_reload_and_unmute_brings_them_back(talk_table):
    code, hana, ann, _ = talk_table
    say(ann, code, "blah")
    number = re.search(r'id="line-(\d+)"', hana.get(f"/g/{code}").get_data(as_text=True)).group(1)
    r = hana.post(f"/g/{code}/mute", data={"csrf": csrf_of(hana), "line": number}, headers=HX)
    body = r.get_data(as_text=True)
    assert r.status_code == 200 and "You muted Ann" in body and f'id="line-{number}" hx-swap-oob="delete"' in body
    say(ann, code, "blah blah")
    assert chat_of(hana, code) == []
    assert len(chat_of(ann, code)) == 2  # Ann still sees what she said
    r = hana.post(f"/g/{code}/mute", data={"csrf": csrf_of(hana), "line": number, "on": "off"}, headers=HX)
    assert r.status_code == 200 and len(chat_of(hana, code)) == 2
    r = ann.post(f"/g/{code}/mute", data={"csrf": csrf_of(ann), "line": number}, headers=HX)
    assert r.status_code == 400 and "cannot mute yourself" in r.get_data(as_text=True)
    for line in ("", "x", "999"):
        r = hana.post(f"/g/{code}/mute", data={"csrf": csrf_of(hana), "line": line}, headers=HX)
        assert r.status_code in (400, 404)


def test_a_report_keeps_the_line_and_what_was_said_before_it(app, talk_table, service):
    code, hana, ann, _ = talk_table
    clock = FakeClock()
    service.clock = clock  # the table's time, moved on between lines: said slowly, under the flood limit
    for i in range(22):
        clock.now += 3
        assert say(ann if i % 2 else hana, code, f"line {i}").status_code == 200
    numbers = re.findall(r'id="line-(\d+)"', hana.get(f"/g/{code}").get_data(as_text=True))
    r = hana.post(f"/g/{code}/report", data={"csrf": csrf_of(hana), "line": numbers[-1]}, headers=HX)
    assert r.status_code == 200 and "Thank you" in r.get_data(as_text=True)
    [report] = service.store.reports()
    assert report.code == code and report.reported_name == "Ann" and report.reporter_name == "Hana"
    assert len(report.context) == 20 and report.context[-1]["number"] == int(numbers[-1]) - 1
    # the reports page: only for the accounts that run the site
    assert hana.get("/admin/reports").status_code == 403


def test_no_socket_gets_the_line_of_a_person_its_person_muted(app, talk_table, service):
    code, hana, ann, watcher = talk_table
    hub = app.extensions["spades.hub"]
    with hana.session_transaction() as s:
        hana_id = s["pid"]
    with watcher.session_transaction() as s:
        watcher_id = s["pid"]
    conns = {who: Connection(code, pid, "127.0.0.1", "tok")
             for who, pid in (("hana", hana_id), ("watcher", watcher_id))}
    for conn in conns.values():
        assert hub.open(conn) is None
    say(ann, code, "kumquat one")
    number = re.search(r'id="line-(\d+)"', hana.get(f"/g/{code}").get_data(as_text=True)).group(1)
    hana.post(f"/g/{code}/mute", data={"csrf": csrf_of(hana), "line": number}, headers=HX)
    say(ann, code, "kumquat two")
    say(watcher, code, "from the stands")

    def frames(conn):
        out = []
        while not conn.queue.empty():
            item = conn.queue.get_nowait()
            out.append(hub.render(item, conn))
        return "\n".join(out)

    hana_frames, watcher_frames = frames(conns["hana"]), frames(conns["watcher"])
    assert "kumquat one" in hana_frames and "kumquat two" not in hana_frames and "from the stands" not in hana_frames
    assert "kumquat two" in watcher_frames and "from the stands" in watcher_frames
    for conn in conns.values():
        hub.close(conn)


def test_a_tourney_table_takes_reactions_only(service):
    seats = [SeatRow(0, "human", "ann", "Ann", "🦊"), SeatRow(1, "human", "bo", "Bo", "🐼"),
             SeatRow(2, "human", "cy", "Cy", "🐨"), SeatRow(3, "human", "di", "Di", "🐯")]
    code = service.create_seated(seats, Rules(), {"kind": "tourney", "tourney": "T1", "chat": "on"})
    with pytest.raises(TalkRefused, match="only reactions are allowed: partners may not signal"):
        service.handle(code, Player("ann"), Say("I have the ace"))
    service.handle(code, Player("ann"), React("gg"))
    assert [(x.name, x.text) for x in service.store.chat_lines(code)] == [("Ann", "Good game")]


def test_the_host_chooses_the_chat_in_the_room_before_the_start(app, client):
    code = new_table(client, humans=2, name="Hana")
    ann = app.test_client()
    join(ann, code, "Ann")
    r = post(client, code, "options", mode="bidding", end="target-500", bag_penalty="on", tempo="normal",
             level="easy", speed="fast", chat="reactions", filter="on")
    assert r.status_code == 303
    room = client.get(f"/g/{code}").get_data(as_text=True)
    assert re.search(r'name="chat" value="reactions" checked', room) and re.search(r'name="filter" value="on" checked',
                                                                                  room)
    post(client, code, "start")
    r = say(ann, code, "hi")
    assert r.status_code == 403 and "reactions only" in r.get_data(as_text=True)
    assert 'id="chat-text"' not in ann.get(f"/g/{code}").get_data(as_text=True)


def test_the_lines_again_for_a_page_whose_socket_was_away(talk_table):
    code, hana, ann, watcher = talk_table
    say(ann, code, "while you were away")
    say(watcher, code, "watchers only")
    log = hana.get(f"/g/{code}/chat").get_data(as_text=True)
    assert log.startswith('<ol id="chat-log"') and "while you were away" in log and "watchers only" not in log
    assert "watchers only" in watcher.get(f"/g/{code}/chat").get_data(as_text=True)
    assert hana.get("/g/ZZZZZZ/chat").status_code == 404
