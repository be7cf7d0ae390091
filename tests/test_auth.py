"""Signing in over HTTP: the code read from a real SMTP server's inbox, every refusal with
its words, no account enumeration, rate limits, sessions (rotation, cookie flags, sign out,
sign out on every device) and seats that follow the person to a second browser."""

from __future__ import annotations

import re

import pytest
from conftest import csrf_of, open_ws, start_practice
from helpers.auth import HX, ask, code_in, error_of, sign_in, try_code


def csrf_in(html: str) -> str:
    return re.search(r'name="csrf" value="([^"]+)"', html).group(1)


def wrong(code: str) -> str:
    return f"{(int(code) + 1) % 10**6:06d}"


def test_sign_in_with_the_code_from_the_mail(mail_app, client, smtp):
    anon_csrf = csrf_of(client)
    r = ask(client, "Ann@Example.com")
    assert r.status_code == 303 and r.headers["Location"].endswith("/signin/code")
    msg = smtp.wait_for("ann@example.com")
    assert msg.message["Subject"] == "Your Spades sign-in code"
    page = client.get("/signin/code").get_data(as_text=True)
    assert "ann@example.com" in page and code_in(msg.text) not in page
    r = try_code(client, code_in(msg.text))
    assert r.status_code == 303 and r.headers["Location"].endswith("/me/name")  # a new account: its name first
    cookie = r.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie and "Secure" not in cookie  # plain http here
    me = client.get("/me").get_data(as_text=True)
    assert "Signed in as <strong>ann@example.com</strong>" in me
    assert csrf_in(me) != anon_csrf  # a new session: the old CSRF token is gone
    assert client.post("/me", data={"csrf": anon_csrf, "name": "Ann", "emoji": "🦊"}).status_code == 400
    # the code was used: typing it again is refused
    r = try_code(client, code_in(msg.text))
    assert r.status_code == 303 and r.headers["Location"].endswith("/signin")  # no sign-in pending any more


def test_cookies_are_secure_over_https(mail_app):
    client = mail_app.test_client()
    r = client.get("/signin", base_url="https://localhost")
    assert "Secure" in r.headers["Set-Cookie"] and "HttpOnly" in r.headers["Set-Cookie"]
    mail_app.config["SESSION_COOKIE_SECURE"] = True
    r = mail_app.test_client().get("/signin")
    assert "Secure" in r.headers["Set-Cookie"]


def test_known_and_unknown_addresses_get_the_same_answer(mail_app, smtp):
    sign_in(mail_app.test_client(), smtp, "known@example.com")
    answers = []
    for email in ("known@example.com", "unknown@example.com"):
        client = mail_app.test_client()
        r = ask(client, email)
        page = client.get("/signin/code")
        csrf = csrf_in(page.get_data(as_text=True))
        answers.append((r.status_code, r.get_data(as_text=True), r.headers["Location"],
                        page.status_code, page.get_data(as_text=True).replace(csrf, "CSRF").replace(email, "EMAIL")))
        assert code_in(smtp.wait_for(email).text)  # both get a code
    assert answers[0] == answers[1]


def test_a_wrong_code_says_so_with_the_tries_left_then_too_many(mail_app, client, smtp):
    ask(client, "bob@example.com")
    code = code_in(smtp.wait_for("bob@example.com").text)
    for left in (4, 3, 2, 1):
        r = try_code(client, wrong(code))
        assert r.status_code == 422
        assert error_of(r) == f"That code is not right. You have {left} tr{'y' if left == 1 else 'ies'} left."
    r = try_code(client, wrong(code))
    assert r.status_code == 429 and error_of(r) == "Too many wrong tries. You can ask for a new code in 10 minutes."
    r = try_code(client, code)  # the right code, too late
    assert r.status_code == 429 and "Too many wrong tries" in error_of(r)
    r = ask(client, "bob@example.com")  # and no new code until the locked one expires
    assert r.status_code == 429 and "in 10 minutes" in error_of(r)
    assert "Signed in as" not in client.get("/me").get_data(as_text=True)


def test_an_expired_code_says_so_and_offers_a_new_one(mail_app, client, smtp):
    accounts = mail_app.extensions["spades.accounts"]
    now = [1_000_000.0]
    accounts.clock = lambda: now[0]
    ask(client, "cat@example.com")
    code = code_in(smtp.wait_for("cat@example.com").text)
    now[0] += 600
    r = try_code(client, code)
    html = r.get_data(as_text=True)
    assert r.status_code == 410 and error_of(r) == "That code has expired. Codes last 10 minutes: ask for a new one."
    assert 'class="btn primary" type="submit">Send a new code' in html and 'value="cat@example.com"' in html
    smtp.messages.clear()
    assert client.post("/signin", data={"csrf": csrf_in(html), "email": "cat@example.com"}).status_code == 303
    fresh = code_in(smtp.wait_for("cat@example.com").text)
    if fresh != code:
        assert try_code(client, code).status_code == 422  # the old code is void
    assert try_code(client, fresh).status_code == 303


@pytest.mark.parametrize("email", ["", "ann", "ann@", "ann@example", "<script>alert(1)</script>@x.com",
                                  "a" * 300 + "@example.com", "ann@exa mple.com", "ann\x00@example.com"])
def test_a_malformed_email_gets_an_inline_error(mail_app, client, smtp, email):
    r = ask(client, email)
    html = r.get_data(as_text=True)
    assert r.status_code == 422
    assert error_of(r) == "That does not look like an email address. Check it and try again."
    assert 'aria-invalid="true"' in html and "<script>alert" not in html
    assert smtp.messages == []


def test_a_malformed_code_costs_no_try(mail_app, client, smtp):
    ask(client, "dan@example.com")
    code = code_in(smtp.wait_for("dan@example.com").text)
    for text in ("", "12", "abcdef", "1234567", "x" * 40):
        r = try_code(client, text)
        assert r.status_code == 422 and error_of(r) == "A code is 6 digits, as in the mail we sent."
    assert try_code(client, code).status_code == 303


def from_address(client, address: str):
    """Every request of ``client`` comes from the client address ``address``."""
    client.environ_base["REMOTE_ADDR"] = address
    return client


def test_requests_are_limited_per_address_first(app):
    # no SMTP server: mail goes to the console and instance/outbox (app.instance_path is shared
    # with the project, so keep it in tmp)
    client = from_address(app.test_client(), "10.0.0.1")
    for i in range(15):  # a household's asks, each for its own email
        assert ask(client, f"eve{i}@example.com").status_code == 303
    r = ask(client, "eve@example.com")
    assert r.status_code == 429 and error_of(r) == "Too many tries. Try again in 10 minutes."
    other = from_address(app.test_client(), "10.0.0.2")
    assert ask(other, "eve@example.com").status_code == 303  # another address is not held up


def test_a_stranger_cannot_keep_a_person_from_signing_in(mail_app, smtp):
    ann = from_address(mail_app.test_client(), "198.51.100.4")
    sign_in(ann, smtp, "ann@example.com")  # her browser has signed in before
    assert ann.post("/signout", data={"csrf": csrf_of(ann)}).status_code == 303
    stranger = from_address(mail_app.test_client(), "203.0.113.7")
    statuses = [ask(stranger, "ann@example.com").status_code for _ in range(7)]  # as often as allowed
    assert statuses.count(303) == 4 and statuses[-1] == 429  # 5 codes an hour to new browsers: hers was one
    tries = [try_code(stranger, "123456").status_code for _ in range(12)]  # burning every try they can
    assert 429 in tries and 303 not in tries
    sign_in(ann, smtp, "ann@example.com")  # the code she asks for is hers alone, and it works
    assert "Sign out" in ann.get("/me").get_data(as_text=True)


def test_code_tries_are_limited_per_address(app):
    client = from_address(app.test_client(), "10.0.2.1")
    ask(client, "hal@example.com")
    for _i in range(10):
        assert try_code(client, "12").status_code == 422  # malformed: refused, but a request all the same
    r = try_code(client, "12")
    assert r.status_code == 429 and error_of(r) == "Too many tries. Try again in 2 minutes."


def test_the_code_tried_is_for_the_address_the_session_holds(mail_app, smtp):
    client = from_address(mail_app.test_client(), "10.0.3.1")
    ask(client, "ida@example.com")
    code = code_in(smtp.wait_for("ida@example.com").text)
    # a decoy email field changes nothing: the try counts against the code sent to ida@
    r = client.post("/signin/code", data={"csrf": csrf_of(client), "code": wrong(code), "email": "decoy@example.com"})
    assert r.status_code == 422 and error_of(r) == "That code is not right. You have 4 tries left."
    assert try_code(client, code).status_code == 303


@pytest.fixture(autouse=True)
def _outbox_in_tmp(app, tmp_path):
    app.instance_path = str(tmp_path / "instance")


def test_mail_that_cannot_be_sent_is_said_not_a_500(app, client):
    from servers import free_port
    app.config.update({"SPADES_SMTP_HOST": "127.0.0.1", "SPADES_SMTP_PORT": free_port()})
    r = ask(client, "ivy@example.com")
    assert r.status_code == 503 and "could not be sent" in error_of(r)


def test_garbage_never_gives_a_500(app, client):
    assert client.get("/signin/code").status_code == 303
    assert client.post("/signin/code", data={"csrf": csrf_of(client), "code": "123456"}).status_code == 303
    for data in ({}, {"email": ["a@b.co", "c@d.co"]}, {"email": "é" * 5000}, {"code": "1" * 10000}):
        for path in ("/signin", "/signin/code", "/me", "/signout", "/signout/everywhere"):
            r = client.post(path, data={"csrf": csrf_of(client), **data})
            assert r.status_code < 500, (path, data, r.status_code)
    assert client.post("/signin", data={"email": "a@b.co"}).status_code == 400  # no CSRF token


def test_the_browsers_game_name_and_emoji_move_to_the_account(mail_app, client, smtp, service):
    csrf = csrf_of(client)
    assert client.post("/me", data={"csrf": csrf, "name": "Ann", "emoji": "🦉"}).status_code == 303
    code = start_practice(client, name="Ann")
    assert service.wait_idle()
    assert sign_in(client, smtp, "ann@example.com").headers["Location"].endswith("/games")  # named: no name step
    games = client.get("/games").get_data(as_text=True)
    assert f'data-code="{code}"' in games and "With <strong>Bea</strong> against Rex and Kit" in games
    me = client.get("/me").get_data(as_text=True)
    assert 'value="Ann"' in me and 'value="🦉" checked' in me
    assert 'value="Ann"' in client.get("/").get_data(as_text=True)  # prefilled where a name is asked
    # the table (already in the service's memory) knows its seat's new owner at once
    v = client.get(f"/g/{code}/view.json").get_json()
    assert v["seat"] == 0 and v["hand"] is not None
    if v["to_act"] == 0 and v["phase"] == "bidding":
        r = client.post(f"/g/{code}/act", data={"csrf": csrf_of(client), "action": "bid", "bid": "3",
                                                "version": str(v["version"])}, headers=HX)
        assert r.status_code == 200


def test_a_first_sign_in_without_a_name_asks_for_one_prefilled_with_the_name_at_a_table(mail_app, smtp,
                                                                                        service):
    laptop = mail_app.test_client()
    assert sign_in(laptop, smtp, "ann@example.com").headers["Location"].endswith("/me/name")
    step = laptop.get("/me/name").get_data(as_text=True)
    assert "What should friends call you?" in step and 'name="name" value=""' in step
    assert re.search(r'name="emoji" value="[^"]+" checked', step)  # an emoji offered, changeable
    # she goes on without one and plays as Annie: where she is named, she is Annie
    start_practice(laptop, name="Annie")
    assert service.wait_idle()
    assert re.search(r'id="account-link".*Annie', laptop.get("/").get_data(as_text=True), re.S)
    assert 'value="Annie"' in laptop.get("/me").get_data(as_text=True)
    # the account has no name of its own yet: the next sign-in asks, with the name she played under
    phone = mail_app.test_client()
    assert sign_in(phone, smtp, "ann@example.com").headers["Location"].endswith("/me/name")
    assert 'name="name" value="Annie"' in phone.get("/me/name").get_data(as_text=True)
    for name, emoji, words in (("", "", "Choose a name of 1 to 20 characters."),
                               ("A" * 21, "🦉", "A name has at most 20 characters."),
                               ("Ann", "💩", "Choose one of the emoji offered.")):
        r = phone.post("/me/name", data={"csrf": csrf_of(phone), "name": name, "emoji": emoji})
        assert r.status_code == 422 and words in r.get_data(as_text=True)
    r = phone.post("/me/name", data={"csrf": csrf_of(phone), "name": "Ann", "emoji": "🦉"})
    assert r.status_code == 303 and r.headers["Location"].endswith("/games")
    assert "🦉 Ann</a>" in phone.get("/games").get_data(as_text=True)
    assert sign_in(mail_app.test_client(), smtp, "ann@example.com").headers["Location"].endswith("/games")


def test_a_second_browser_signed_in_with_the_same_email_lands_in_the_same_seat(mail_app, smtp, service):
    first, second = mail_app.test_client(), mail_app.test_client()
    code = start_practice(first, name="Ann")
    sign_in(first, smtp, "ann@example.com")
    assert service.wait_idle()
    assert f'data-code="{code}"' not in second.get("/games").get_data(as_text=True)
    assert second.get(f"/g/{code}/view.json").get_json()["seat"] is None
    sign_in(second, smtp, "ANN@example.com")
    for c in (first, second):
        home = c.get("/").get_data(as_text=True)
        assert f'href="/g/{code}">Back to {code}</a>' in home
    a, b = (c.get(f"/g/{code}/view.json").get_json() for c in (first, second))
    assert a["seat"] == b["seat"] == 0 and a["hand"] == b["hand"] and a["hand"]


def test_sign_out_and_sign_out_on_every_device(mail_app, smtp, service):
    first, second, third = (mail_app.test_client() for _ in range(3))
    code = start_practice(first)
    for c in (first, second, third):
        sign_in(c, smtp, "ann@example.com")
    assert service.wait_idle()
    copy = mail_app.test_client()  # someone holding a copy of the first browser's cookie
    copy.set_cookie("session", first.get_cookie("session").value)
    assert "Signed in as" in copy.get("/me").get_data(as_text=True)
    assert first.post("/signout", data={"csrf": csrf_of(first)}).status_code == 303
    assert "Signed in as" not in first.get("/me").get_data(as_text=True)
    assert "Signed in as" not in copy.get("/me").get_data(as_text=True)  # signed out on the server too
    assert first.get(f"/g/{code}/view.json").get_json()["seat"] is None
    assert second.get(f"/g/{code}/view.json").get_json()["seat"] == 0  # the others stay signed in
    assert second.post("/signout/everywhere", data={"csrf": csrf_of(second)}).status_code == 303
    assert third.get(f"/g/{code}/view.json").get_json()["seat"] is None
    assert "Signed in as" not in third.get("/me").get_data(as_text=True)
    assert f'data-code="{code}"' not in third.get("/games").get_data(as_text=True)
    sign_in(third, smtp, "ann@example.com")  # signing in again works, with the seat
    assert third.get(f"/g/{code}/view.json").get_json()["seat"] == 0


def test_an_anonymous_cookie_never_carries_an_accounts_player_id(mail_app, smtp):
    client = mail_app.test_client()
    sign_in(client, smtp, "ann@example.com")
    with client.session_transaction() as s:
        uid = s["uid"]
    forged = mail_app.test_client()
    forged.get("/")
    with forged.session_transaction() as s:
        s["pid"] = uid  # as if an old session had it, without the account's generation
    forged.get("/")
    with forged.session_transaction() as s:
        assert s.get("pid") != uid


def test_a_waiting_room_follows_the_person_to_a_second_browser(mail_app, smtp):
    from helpers.lobby import join, new_table
    host, friend, friend_phone = (mail_app.test_client() for _ in range(3))
    code = new_table(host, humans=2)
    assert join(friend, code, "Ari").status_code == 303
    assert f'data-code="{code}"' in friend.get("/").get_data(as_text=True)  # rejoin the room
    sign_in(friend, smtp, "ari@example.com")
    sign_in(friend_phone, smtp, "ari@example.com")
    games = friend_phone.get("/games").get_data(as_text=True)
    assert f'data-code="{code}"' in games and "Waiting for the host to start" in games
    room = mail_app.extensions["spades.tables"].room_snapshot(code, None)
    assert [m.name for m in room.members] == ["Hana", "Ari"]  # still one member, now the account
    with friend_phone.session_transaction() as s:
        assert mail_app.extensions["spades.tables"].store.load_room(code).members[1].player_id == s["pid"]


def test_sign_out_on_every_device_closes_open_sockets(mail_app, live_server, smtp):
    from simple_websocket import ConnectionClosed

    mail_app.config["SESSION_CHECK_S"] = 0.2
    phone, laptop = mail_app.test_client(), mail_app.test_client()
    sign_in(phone, smtp, "ann@example.com")
    code = start_practice(phone)
    sign_in(laptop, smtp, "ann@example.com")
    ws = open_ws(live_server, code, phone.get_cookie("session").value)
    try:
        assert 'id="hand"' in ws.receive(timeout=5)  # the phone's seat, live
        assert laptop.post("/signout/everywhere", data={"csrf": csrf_of(laptop)}).status_code == 303
        with pytest.raises(ConnectionClosed):
            while True:  # updates may still be on their way; then the socket is closed
                if ws.receive(timeout=5) is None:
                    raise AssertionError("the socket stayed open after signing out everywhere")
    finally:
        if ws.connected:
            ws.close()
