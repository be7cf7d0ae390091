"""The chat's routes refused, each with its status and its words: mute and report of a
line that is not there, of one's own, of a host's notice, of a line not heard; the
chat's lines at a table that is not there or not watchable; a plain form's refusal
carried back to the table."""

from __future__ import annotations

import html
import re

import pytest
from conftest import csrf_of
from helpers.talk import HX, say

from spades.tables import WATCHING_OFF

NOT_IN_CHAT = "That message is not in this table's chat."


def _last_line(client, code: str) -> str:
    return re.findall(r'id="line-(\d+)"', client.get(f"/g/{code}/chat").get_data(as_text=True))[-1]


def _text(r) -> str:
    return html.unescape(r.get_data(as_text=True))


def _post(client, code: str, route: str, hx: bool = True, **form: str):
    return client.post(f"/g/{code}/{route}", data={"csrf": csrf_of(client), **form}, headers=HX if hx else {})


@pytest.mark.parametrize("route", ["mute", "report"])
def test_a_line_that_is_not_one_or_not_there_is_refused(talk_table, route):
    code, hana, ann, _ = talk_table
    say(ann, code, "hello")
    r = _post(hana, code, route, line="x")
    assert r.status_code == 400 and "Say which message you mean." in _text(r)
    r = _post(hana, code, route, line="999")
    assert r.status_code == 404 and NOT_IN_CHAT in _text(r)
    r = _post(hana, "ZZZZZZ", route, line=_last_line(hana, code))
    assert r.status_code == 404 and 'id="composer"' not in _text(r)


def test_one_s_own_line_and_the_host_s_notice_are_refused_in_the_chat_s_form(talk_table):
    code, hana, ann, _ = talk_table
    say(ann, code, "mine")
    mine = _last_line(ann, code)
    r = _post(ann, code, "mute", line=mine)
    body = _text(r)
    assert r.status_code == 400 and "You cannot mute yourself." in body and 'id="composer"' in body
    r = _post(ann, code, "report", line=mine)
    assert r.status_code == 400 and "You cannot report your own message." in _text(r)
    assert _post(hana, code, "silence", line=mine).status_code == 200  # the host's notice
    r = _post(ann, code, "mute", line=_last_line(ann, code))
    assert r.status_code == 400 and "The host's notices cannot be muted." in _text(r)


def test_a_plain_form_s_refusal_goes_back_to_the_table_with_its_words(talk_table):
    code, _, ann, _ = talk_table
    say(ann, code, "mine")
    r = _post(ann, code, "mute", hx=False, line=_last_line(ann, code))
    assert r.status_code == 303 and r.headers["Location"].endswith(f"/g/{code}")
    assert "You cannot mute yourself." in _text(ann.get(f"/g/{code}"))


def test_a_line_a_player_does_not_hear_cannot_be_reported(talk_table):
    code, hana, _, watcher = talk_table
    say(watcher, code, "from the stands")
    r = _post(hana, code, "report", line=_last_line(watcher, code))
    assert r.status_code == 404 and NOT_IN_CHAT in _text(r)


def test_mute_then_unmute_say_so(talk_table):
    code, hana, ann, _ = talk_table
    say(ann, code, "hello")
    number = _last_line(hana, code)
    r = _post(hana, code, "mute", line=number)
    assert r.status_code == 200 and "You muted Ann: you will not see their messages or reactions, here or at " \
        "other tables." in _text(r)
    r = _post(hana, code, "mute", line=number, on="off")
    assert r.status_code == 200 and "You unmuted Ann. Reload to see what they said." in _text(r)


def test_a_refused_request_makes_no_player_id(app, talk_table):
    code, _, ann, _ = talk_table
    say(ann, code, "hello")
    stranger = app.test_client()
    csrf_of(stranger)
    r = _post(stranger, code, "report", line="999")
    assert r.status_code == 404
    with stranger.session_transaction() as s:
        assert "pid" not in s


def test_the_chat_s_lines_of_a_table_not_watchable_are_refused_to_a_watcher(talk_table):
    code, hana, _, watcher = talk_table
    assert watcher.get(f"/g/{code}/chat").status_code == 200
    assert _post(hana, code, "watching", hx=False, watch="off").status_code == 303
    r = watcher.get(f"/g/{code}/chat")
    assert r.status_code == 403 and WATCHING_OFF in _text(r)
