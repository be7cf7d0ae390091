"""The people one plays with, over HTTP with a real SMTP server: the profile's list,
Invite again (mail and the Rejoin list), blocking (joins refused, chat hidden), unmuting,
and the reports page for the accounts that run the site."""

from __future__ import annotations

import re

import pytest
from conftest import csrf_of
from servers import smtp  # noqa: F401 - the fixture
from test_auth import sign_in
from test_lobby import join, new_table, post
from test_talk import HX, chat_of, say


@pytest.fixture
def people(app, smtp):  # noqa: F811
    """Hana and Ann, signed in, who played at a table together; Bo, signed out."""
    app.config.update(smtp.config(), ADMIN_EMAILS=("boss@example.com",))
    hana, ann, bo = app.test_client(), app.test_client(), app.test_client()
    sign_in(hana, smtp, "hana@example.com")
    sign_in(ann, smtp, "ann@example.com")
    code = new_table(hana, humans=3, name="Hana", tempo="relaxed")
    assert join(ann, code, "Ann").status_code == 303
    assert join(bo, code, "Bo").status_code == 303
    assert post(hana, code, "start").status_code == 303
    return code, hana, ann, bo


def listed(client) -> dict[str, str]:
    """Name -> handle of the people listed on the profile."""
    html = client.get("/me").get_data(as_text=True)
    section = re.search(r'<section id="people".*?</section>', html, re.S).group(0)
    return {name: h for h, name in re.findall(
        r'name="person" value="([0-9a-f]+)"> \S+ ([^<]+?)</label>', section)}


def test_the_profile_lists_the_people_with_an_account_one_played_with(people):
    code, hana, ann, bo = people
    assert listed(hana) == {"Ann": listed(hana)["Ann"]}  # Bo has no account; bots are left out
    assert set(listed(ann)) == {"Hana"}
    assert "player_id" not in hana.get("/me").get_data(as_text=True)


def test_invite_again_makes_a_table_and_invites_by_mail_and_on_the_rejoin_list(app, people, smtp):  # noqa: F811
    code, hana, ann, bo = people
    before = len(smtp.messages)
    r = hana.post("/people/invite", data={"csrf": csrf_of(hana), "person": listed(hana)["Ann"]})
    assert r.status_code == 303
    new_code = r.headers["Location"].rsplit("/", 1)[1]
    assert new_code != code
    room = hana.get(f"/g/{new_code}").get_data(as_text=True)
    assert "Relaxed tempo" in room or "relaxed tempo" in room  # the last options
    mail = smtp.wait_for("ann@example.com")
    assert len(smtp.messages) == before + 1 and f"/j/{new_code}" in mail.text and "Hana" in mail.text
    home = ann.get("/").get_data(as_text=True)
    assert f'href="/j/{new_code}"' in home and "Hana invited you to a table." in home
    assert join(ann, new_code, "Ann").status_code == 303
    assert f'href="/j/{new_code}"' not in ann.get("/").get_data(as_text=True)  # joined: the invitation goes
    # nobody else can be named, and nobody is a refusal
    assert hana.post("/people/invite", data={"csrf": csrf_of(hana), "person": "0" * 20}).status_code == 400
    r = hana.post("/people/invite", data={"csrf": csrf_of(hana)})
    assert r.status_code == 303 and "Choose the people to invite." in hana.get("/me").get_data(as_text=True)


def test_a_blocked_person_cannot_join_and_their_chat_is_hidden(app, people):
    code, hana, ann, bo = people
    say(ann, code, "hello Hana")
    r = hana.post("/people/block", data={"csrf": csrf_of(hana), "person": listed(hana)["Ann"]})
    assert r.status_code == 303
    assert "You blocked Ann" in hana.get("/me").get_data(as_text=True)
    assert not any("hello Hana" in line for line in chat_of(hana, code))
    assert any("hello Hana" in line for line in chat_of(bo, code))
    fresh = new_table(hana, humans=2, name="Hana")
    r = join(ann, fresh, "Ann")
    assert r.status_code == 403 and "You cannot join this table." in r.get_data(as_text=True)
    assert join(bo, fresh, "Bo").status_code == 303
    handle = re.search(r'name="person" value="([0-9a-f]+)"><input type="hidden" name="on" value="off"><button[^>]*>'
                       r'Unblock', hana.get("/me").get_data(as_text=True)).group(1)
    r = hana.post("/people/block", data={"csrf": csrf_of(hana), "person": handle, "on": "off"})
    assert r.status_code == 303 and "You unblocked Ann" in hana.get("/me").get_data(as_text=True)
    assert any("hello Hana" in line for line in chat_of(hana, code))


def test_unmute_from_the_profile(people):
    code, hana, ann, bo = people
    say(bo, code, "psst")
    number = re.search(r'id="line-(\d+)"', hana.get(f"/g/{code}").get_data(as_text=True)).group(1)
    hana.post(f"/g/{code}/mute", data={"csrf": csrf_of(hana), "line": number}, headers=HX)
    profile = hana.get("/me").get_data(as_text=True)
    handle = re.search(r'Bo <small>\(muted\)</small> <form method="post" action="/people/mute".*?'
                       r'name="person" value="([0-9a-f]+)"', profile, re.S).group(1)
    r = hana.post("/people/mute", data={"csrf": csrf_of(hana), "person": handle, "on": "off"})
    assert r.status_code == 303 and any("psst" in line for line in chat_of(hana, code))


def test_the_reports_page_is_for_the_accounts_that_run_the_site(app, people, smtp):  # noqa: F811
    code, hana, ann, bo = people
    say(bo, code, "something rude")
    number = re.search(r'id="line-(\d+)"', ann.get(f"/g/{code}").get_data(as_text=True)).group(1)
    assert ann.post(f"/g/{code}/report", data={"csrf": csrf_of(ann), "line": number}, headers=HX).status_code == 200
    assert bo.get("/admin/reports").status_code == 403
    assert ann.get("/admin/reports").status_code == 403
    boss = app.test_client()
    sign_in(boss, smtp, "Boss@Example.com")
    page = boss.get("/admin/reports").get_data(as_text=True)
    assert "something rude" in page and "Reported by Ann" in page and code in page

