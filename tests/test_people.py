"""The people one plays with, over HTTP with a real SMTP server: the profile's list,
Invite again (mail; the Rejoin list once joined; once an hour, never while a room waits),
blocking (joins refused, from the blocked person's browser too; chat hidden), unmuting,
and the reports page for the accounts that run the site."""

from __future__ import annotations

import re

import pytest
from conftest import csrf_of
from helpers.auth import sign_in
from helpers.lobby import join, new_table, post
from helpers.talk import HX, chat_of, say


@pytest.fixture
def people(app, smtp):
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


def invite(client, *names: str):
    return client.post("/people/invite", data={"csrf": csrf_of(client), "person": [listed(client)[n] for n in names]})


def to_ann(smtp) -> int:
    return sum("ann@example.com" in m.rcpt_tos for m in smtp.messages)


def test_invite_again_makes_a_table_and_invites_by_mail_and_it_is_on_the_rejoin_list_once_joined(app, people,
                                                                                                   smtp):
    code, hana, ann, bo = people
    before = len(smtp.messages)
    r = invite(hana, "Ann")
    assert r.status_code == 303
    new_code = r.headers["Location"].rsplit("/", 1)[1]
    assert new_code != code
    room = hana.get(f"/g/{new_code}").get_data(as_text=True)
    assert "Relaxed tempo" in room or "relaxed tempo" in room  # the last options
    mail = smtp.wait_for("ann@example.com")
    assert len(smtp.messages) == before + 1 and f"/j/{new_code}" in mail.text and "Hana" in mail.text
    assert new_code not in ann.get("/").get_data(as_text=True)  # not on her Rejoin list before she joins
    assert join(ann, new_code, "Ann").status_code == 303
    assert f'href="/g/{new_code}"' in ann.get("/").get_data(as_text=True)  # joined: her way back
    # nobody else can be named, and nobody is a refusal
    assert hana.post("/people/invite", data={"csrf": csrf_of(hana), "person": "0" * 20}).status_code == 400
    r = hana.post("/people/invite", data={"csrf": csrf_of(hana)})
    assert r.status_code == 303 and "Choose the people to invite." in hana.get("/me").get_data(as_text=True)


def test_one_invitation_an_hour_to_a_person_and_none_while_their_room_waits(app, people, smtp, service):
    code, hana, ann, bo = people
    tables, mails = service.store.db["tables"].count, to_ann(smtp)
    r = invite(hana, "Ann")
    assert r.status_code == 303
    room = r.headers["Location"].rsplit("/", 1)[1]
    smtp.wait_for("ann@example.com")
    for _ in range(24):  # "Invite again" pressed and pressed
        again = invite(hana, "Ann")
        assert again.status_code == 409
    page = again.get_data(as_text=True)
    assert f"You invited Ann to table {room} and they have not joined it yet." in page
    assert f'<a class="btn small" href="/g/{room}">Go to table {room}</a>' in page
    assert to_ann(smtp) == mails + 1 and service.store.db["tables"].count == tables + 1
    assert join(ann, room, "Ann").status_code == 303
    again = invite(hana, "Ann")  # she came: the room waits no more, but the hour is not over
    assert again.status_code == 429 and 3000 < int(again.headers["Retry-After"]) <= 3600
    assert "You invited Ann less than an hour ago. You can invite them again in 60 minutes." in \
        again.get_data(as_text=True)
    assert to_ann(smtp) == mails + 1 and service.store.db["tables"].count == tables + 1
    assert "You invited Ann" not in ann.get("/me").get_data(as_text=True)  # the refusal was Hana's


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


def test_a_block_holds_for_the_blocked_persons_browser_signed_out_or_signed_in_as_someone_else(app, people,
                                                                                                smtp):
    code, hana, ann, bo = people
    assert hana.post("/people/block", data={"csrf": csrf_of(hana), "person": listed(hana)["Ann"]}).status_code == 303
    fresh = new_table(hana, humans=3, name="Hana")
    assert ann.post("/signout", data={"csrf": csrf_of(ann)}).status_code == 303
    for attempt in (lambda: join(ann, fresh, "Annie"), lambda: ann.get(f"/j/{fresh}")):
        r = attempt()  # anonymous now, with a new player id
        assert r.status_code == 403 and "You cannot join this table." in r.get_data(as_text=True)
    sign_in(ann, smtp, "other-ann@example.com")  # another account on the same browser
    r = join(ann, fresh, "Annie")
    assert r.status_code == 403 and "You cannot join this table." in r.get_data(as_text=True)
    assert join(bo, fresh, "Bo").status_code == 303  # the others are not held back
    assert join(app.test_client(), fresh, "Cy").status_code == 303


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


def test_the_reports_page_is_for_the_accounts_that_run_the_site(app, people, smtp):
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

