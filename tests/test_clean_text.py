"""What a person types loses its control and direction characters wherever it comes in
(``spades.text.clean_text``): a name at a table's join form, at practice and on the
profile, and a tourney's name; a text left empty is refused like an empty one. (The
chat's lines: ``tests/test_talk.py``.)"""

from __future__ import annotations

import pytest
from conftest import csrf_of, start_practice
from helpers.lobby import join, new_table
from helpers.tourney import create, new_tourney

from spades.text import clean_text

NUL_AND_RLO = "\x00\u202e"  # what issue 60 typed: a NUL and a right-to-left override
TRICKS = ("\x00", "\x07", "\x1b", "\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068",
          "\u2069", "\u200e", "\u200f", "\u061c", "\u200b", "\ufeff")


@pytest.mark.parametrize("trick", TRICKS)
def test_each_hidden_character_is_taken_out(trick):
    assert clean_text(f"a{trick}b {trick}") == "ab"
    assert clean_text(trick * 3) == ""


def test_whitespace_controls_become_one_space_and_joiners_stay_inside_an_emoji():
    assert clean_text(" Ann\t\n\r\x0b\x0c\x85\u2028Lee ") == "Ann Lee"
    assert clean_text("👩\u200d💻 \u200dx\u200d") == "👩\u200d💻 x"


def _no_tricks(html: str) -> bool:
    return not any(t in html for t in TRICKS)


def test_a_name_at_the_join_form_loses_them(app, client, service):
    code = new_table(client, humans=3, name=f"Ha{NUL_AND_RLO}na")
    ann = app.test_client()
    assert join(ann, code, f"\u202eA{NUL_AND_RLO}nn\u2066").status_code == 303
    assert [m.name for m in service.room_snapshot(code, None).members] == ["Hana", "Ann"]
    page = client.get(f"/g/{code}").get_data(as_text=True)
    assert "Ann" in page and _no_tricks(page)
    # a name of nothing but them is no name
    bo = app.test_client()
    r = join(bo, code, NUL_AND_RLO * 3)
    assert r.status_code == 400 and "Choose a name" in r.get_data(as_text=True)
    assert len(service.room_snapshot(code, None).members) == 2


def test_a_practice_name_of_nothing_but_them_is_the_default(client, service):
    code = start_practice(client, name=NUL_AND_RLO)
    assert service.snapshot(code, None).around.names[0] == "You"
    code = start_practice(client, name=f"Zo{NUL_AND_RLO}ë")
    assert service.snapshot(code, None).around.names[0] == "Zoë"


def test_the_profile_name_loses_them(client):
    r = client.post("/me", data={"csrf": csrf_of(client), "name": f"\u202eAnn\u200f Lee{NUL_AND_RLO}", "emoji": "🦊"})
    assert r.status_code == 303
    page = client.get("/me").get_data(as_text=True)
    assert 'value="Ann Lee"' in page and _no_tricks(page)
    r = client.post("/me", data={"csrf": csrf_of(client), "name": NUL_AND_RLO, "emoji": "🦊"})
    assert "Choose a name" in r.get_data(as_text=True)


def test_a_tourney_name_and_its_creators_name_lose_them(client):
    code = new_tourney(client, tourney_name=f"Spring{NUL_AND_RLO} cup\u2067", name=f"A{NUL_AND_RLO}nn")
    page = client.get(f"/t/{code}").get_data(as_text=True)
    assert "Spring cup" in page and _no_tricks(page)
    r = create(client, tourney_name=NUL_AND_RLO + "\u2066 \u2069")
    assert r.status_code == 400 and "Give the tourney a name." in r.get_data(as_text=True)
