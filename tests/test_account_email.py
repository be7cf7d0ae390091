"""Changing an account's email on /me: a code to the new address (a real SMTP server's
inbox), the change when it is typed, a notice to the old address, a taken address refused,
and each address's sign-in limits kept to itself."""

from __future__ import annotations

import re

from conftest import csrf_of
from helpers.auth import code_in

from spades.accounts import GUARD, MAX_FAILURES, MAX_TRIES


def error_of(response) -> str:
    m = re.search(r'class="field-error"[^>]*>([^<]+)<', response.get_data(as_text=True))
    return m.group(1) if m else ""


def sign_in(client, smtp, email: str) -> None:
    client.post("/signin", data={"csrf": csrf_of(client), "email": email})
    code = code_in(smtp.wait_for(email).text)
    assert client.post("/signin/code", data={"csrf": csrf_of(client), "code": code}).status_code == 303


def ask_change(client, email: str):
    return client.post("/me/email", data={"csrf": csrf_of(client), "email": email})


def confirm(client, code: str):
    return client.post("/me/email/code", data={"csrf": csrf_of(client), "code": code})


def mails_to(smtp, email: str) -> list:
    return [m for m in smtp.messages if email in m.rcpt_tos]


def test_the_address_changes_with_the_code_mailed_to_it_and_the_old_one_is_told(mail_app, smtp):
    client = mail_app.test_client()
    sign_in(client, smtp, "ann@example.com")
    assert 'action="/me/email"' in client.get("/me").get_data(as_text=True)
    r = ask_change(client, "Nina@Example.com")
    assert r.status_code == 303 and r.headers["Location"].endswith("/me#email")
    msg = smtp.wait_for("nina@example.com")
    assert msg.message["Subject"] == "Your Spades code to change your address"
    me = client.get("/me").get_data(as_text=True)
    assert "We mailed a 6-digit code to <strong class=\"new-email\">nina@example.com</strong>" in me
    assert "Signed in as <strong>ann@example.com</strong>" in me  # nothing changes before the code
    code = code_in(msg.text)
    wrong = f"{(int(code) + 1) % 10**6:06d}"
    r = confirm(client, wrong)
    assert r.status_code == 422 and error_of(r) == f"That code is not right. You have {MAX_TRIES - 1} tries left."
    r = confirm(client, code)
    assert r.status_code == 303
    me = client.get("/me").get_data(as_text=True)
    email_part = me[me.index('<section id="email"'):]
    assert "Signed in as <strong>nina@example.com</strong>" in me
    assert "Your address is now nina@example.com." in email_part[:email_part.index("</section>")]
    notice = smtp.wait_for("ann@example.com")
    assert notice.message["Subject"] == "Your Spades address was changed"
    assert "Your Spades account's address was changed to n…@example.com" in notice.text
    assert "If this was not you" in notice.text and code not in notice.text
    # the account signs in with the new address, and the old one makes a new account
    other = mail_app.test_client()
    sign_in(other, smtp, "nina@example.com")
    assert "Signed in as <strong>nina@example.com</strong>" in other.get("/me").get_data(as_text=True)
    with client.session_transaction() as a, other.session_transaction() as b:
        assert a["uid"] == b["uid"]
    fresh = mail_app.test_client()
    sign_in(fresh, smtp, "ann@example.com")
    with fresh.session_transaction() as c:
        assert c["uid"] != b["uid"]


def test_a_change_code_does_not_sign_in_and_a_sign_in_code_does_not_change(mail_app, smtp):
    client = mail_app.test_client()
    sign_in(client, smtp, "ann@example.com")
    assert ask_change(client, "nina@example.com").status_code == 303
    change_code = code_in(smtp.wait_for("nina@example.com").text)
    stranger = mail_app.test_client()  # the same code typed at sign-in, for the same address
    stranger.post("/signin", data={"csrf": csrf_of(stranger), "email": "nina@example.com"})
    r = stranger.post("/signin/code", data={"csrf": csrf_of(stranger), "code": change_code})
    assert r.status_code != 303
    assert "Signed in as" not in stranger.get("/me").get_data(as_text=True)


def test_an_address_another_account_has_is_refused(mail_app, smtp):
    ann, bob = mail_app.test_client(), mail_app.test_client()
    sign_in(ann, smtp, "ann@example.com")
    sign_in(bob, smtp, "bob@example.com")
    before = len(smtp.messages)
    r = ask_change(ann, "bob@example.com")
    assert r.status_code == 409
    assert error_of(r) == "Another account has that address. Sign in with it there, or choose another address."
    assert len(smtp.messages) == before  # no code was mailed
    r = ask_change(ann, "ann@example.com")
    assert r.status_code == 422 and error_of(r) == "That is already your address."
    # taken between the code and its use: still refused, and nothing changes
    assert ask_change(ann, "nina@example.com").status_code == 303
    code = code_in(smtp.wait_for("nina@example.com").text)
    nina = mail_app.test_client()
    sign_in(nina, smtp, "nina@example.com")
    r = confirm(ann, code)
    assert r.status_code == 409 and error_of(r).startswith("Another account has that address.")
    assert "Signed in as <strong>ann@example.com</strong>" in ann.get("/me").get_data(as_text=True)
    assert not mails_to(smtp, "ann@example.com")[1:]  # only the sign-in code: no notice


def test_bad_addresses_and_signed_out_people_are_refused(mail_app, smtp):
    client = mail_app.test_client()
    r = ask_change(client, "nina@example.com")
    assert r.status_code == 303 and r.headers["Location"].endswith("/signin")
    sign_in(client, smtp, "ann@example.com")
    r = ask_change(client, "not an address")
    assert r.status_code == 422 and error_of(r).startswith("That does not look like an email address")


def test_each_address_keeps_its_own_sign_in_limits(mail_app, smtp):
    store = mail_app.extensions["spades.accounts"].store
    clock = mail_app.extensions["spades.accounts"].clock
    client = mail_app.test_client()
    sign_in(client, smtp, "ann@example.com")
    # strangers guessed at ann's address until it closed to browsers that never signed in to it
    code_id = store.new_login_code("ann@example.com", "stranger", "x", clock(), 600)
    for _ in range(MAX_FAILURES):
        store.spend_login_try(code_id, 10**6, "ann@example.com", clock(), GUARD)
    locked = mail_app.test_client()
    r = locked.post("/signin", data={"csrf": csrf_of(locked), "email": "ann@example.com"})
    assert r.status_code == 429 and "Too many wrong codes for this address" in error_of(r)
    # the change to nina is not held up by ann's lock, nor does it carry it along
    assert ask_change(client, "nina@example.com").status_code == 303
    assert confirm(client, code_in(smtp.wait_for("nina@example.com").text)).status_code == 303
    newcomer = mail_app.test_client()
    assert newcomer.post("/signin", data={"csrf": csrf_of(newcomer), "email": "nina@example.com"}).status_code == 303
    stranger = mail_app.test_client()
    r = stranger.post("/signin", data={"csrf": csrf_of(stranger), "email": "ann@example.com"})
    assert r.status_code == 429 and "Too many wrong codes for this address" in error_of(r)  # still ann's


def test_asks_for_a_change_count_as_codes_to_the_new_address(mail_app, smtp):
    client = mail_app.test_client()
    sign_in(client, smtp, "ann@example.com")
    others = [mail_app.test_client() for _ in range(4)]
    for other in others:  # four sign-in codes asked for zed's address by other browsers
        assert other.post("/signin", data={"csrf": csrf_of(other), "email": "zed@example.com"}).status_code == 303
    assert ask_change(client, "zed@example.com").status_code == 303  # the fifth this hour
    r = ask_change(client, "zed@example.com")
    assert r.status_code == 429 and error_of(r).startswith("This address has been sent 5 codes in the last hour")
    assert len(mails_to(smtp, "zed@example.com")) == 5
    # ann's own address is untouched: a browser new to it still gets a code
    new = mail_app.test_client()
    assert new.post("/signin", data={"csrf": csrf_of(new), "email": "ann@example.com"}).status_code == 303
