"""A person's devices on /me: each signed-in browser in words, first and last seen, this
one marked, and a Sign out per device that ends that session (its cookie, and any copy of
it, is signed out; its open table socket closes) while the others stay signed in."""

from __future__ import annotations

import re

import pytest
from conftest import csrf_of, open_ws, start_practice
from helpers.auth import code_in

FIREFOX = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0"
IPHONE = ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
          "Version/17.5 Mobile/15E148 Safari/604.1")


def browser(app, agent: str):
    client = app.test_client()
    client.environ_base["HTTP_USER_AGENT"] = agent
    return client


def sign_in(client, smtp, email: str) -> None:
    before = len(smtp.messages)
    client.post("/signin", data={"csrf": csrf_of(client), "email": email})
    assert len(smtp.messages) == before + 1
    code = code_in(smtp.wait_for(email).text)
    assert client.post("/signin/code", data={"csrf": csrf_of(client), "code": code}).status_code == 303


def devices(client) -> list[tuple[str, str, bool]]:
    """(id, words, this one) of each device /me lists."""
    html = client.get("/me").get_data(as_text=True)
    section = re.search(r'<section id="devices".*?</section>', html, re.S).group(0)
    return [(m.group(2), m.group(3), bool(m.group(1)))
            for m in re.finditer(r'<li class="device( this-device)?" data-device="([0-9a-f]+)">\s*'
                                 r'<strong class="device-name">([^<]+)</strong>', section)]


def signed_in(client) -> bool:
    return "Signed in as" in client.get("/me").get_data(as_text=True)


def test_each_device_is_listed_in_words_with_this_one_marked(mail_app, smtp):
    laptop, phone = browser(mail_app, FIREFOX), browser(mail_app, IPHONE)
    sign_in(laptop, smtp, "ann@example.com")
    sign_in(phone, smtp, "ann@example.com")
    listed = devices(phone)
    assert [(words, this) for _, words, this in listed] == [("Safari on iPhone", True), ("Firefox on Windows", False)]
    assert [(words, this) for _, words, this in devices(laptop)] == [("Firefox on Windows", True),
                                                                    ("Safari on iPhone", False)]
    html = phone.get("/me").get_data(as_text=True)
    assert "this one" in html and "First signed in " in html and "last used " in html
    assert "Sign out on every device" in html  # stays
    with phone.session_transaction() as s:
        assert s["sid"] not in html  # a device is never named by its session id


def test_signing_out_one_device_ends_that_session_only(mail_app, smtp):
    laptop, phone = browser(mail_app, FIREFOX), browser(mail_app, IPHONE)
    sign_in(laptop, smtp, "ann@example.com")
    sign_in(phone, smtp, "ann@example.com")
    copy = mail_app.test_client()  # a copy of the laptop's cookie, elsewhere
    copy.set_cookie("session", laptop.get_cookie("session").value)
    assert signed_in(copy)
    [(laptop_id, _, _)] = [d for d in devices(phone) if not d[2]]
    r = phone.post(f"/me/devices/{laptop_id}/signout", data={"csrf": csrf_of(phone)})
    assert r.status_code == 303 and r.headers["Location"].endswith("/me#devices")
    page = phone.get("/me").get_data(as_text=True)
    devices_part = page[page.index('<section id="devices"'):]
    devices_part = devices_part[:devices_part.index("</section>")]
    assert "Signed out: Firefox on Windows." in devices_part  # beside the devices, not under People
    assert page.count("Signed out: Firefox on Windows.") == 1
    assert not signed_in(laptop) and not signed_in(copy)
    assert signed_in(phone)
    assert [(words, this) for _, words, this in devices(phone)] == [("Safari on iPhone", True)]
    # a device of another account, or one already signed out, is not found
    other = browser(mail_app, FIREFOX)
    sign_in(other, smtp, "bob@example.com")
    [(phone_id, _, _)] = devices(phone)
    assert other.post(f"/me/devices/{phone_id}/signout", data={"csrf": csrf_of(other)}).status_code == 404
    assert phone.post(f"/me/devices/{laptop_id}/signout", data={"csrf": csrf_of(phone)}).status_code == 404
    assert signed_in(phone)
    # this one's own Sign out is signing out here
    r = phone.post(f"/me/devices/{phone_id}/signout", data={"csrf": csrf_of(phone)})
    assert r.status_code == 303 and not signed_in(phone)


def test_signing_out_a_device_closes_its_open_table_socket(mail_app, live_server, smtp):
    from simple_websocket import ConnectionClosed

    mail_app.config["SESSION_CHECK_S"] = 0.2
    phone, laptop = browser(mail_app, IPHONE), browser(mail_app, FIREFOX)
    sign_in(phone, smtp, "ann@example.com")
    code = start_practice(phone)
    sign_in(laptop, smtp, "ann@example.com")
    ws = open_ws(live_server, code, phone.get_cookie("session").value)
    laptop_ws = open_ws(live_server, code, laptop.get_cookie("session").value)
    try:
        assert 'id="hand"' in ws.receive(timeout=5)  # the phone's seat, live
        assert 'id="hand"' in laptop_ws.receive(timeout=5)
        [(phone_id, _, _)] = [d for d in devices(laptop) if not d[2]]
        assert laptop.post(f"/me/devices/{phone_id}/signout", data={"csrf": csrf_of(laptop)}).status_code == 303
        with pytest.raises(ConnectionClosed):
            while True:  # updates may still be on their way; then the socket is closed
                if ws.receive(timeout=5) is None:
                    raise AssertionError("the socket stayed open after its device was signed out")
        assert laptop_ws.connected  # the laptop's own socket stays
        assert laptop.get(f"/g/{code}/view.json").get_json()["seat"] == 0
    finally:
        for s in (ws, laptop_ws):
            if s.connected:
                s.close()


def test_signed_out_people_have_no_devices_to_end(mail_app):
    client = mail_app.test_client()
    r = client.post("/me/devices/0123456789abcdef/signout", data={"csrf": csrf_of(client)})
    assert r.status_code == 303 and r.headers["Location"].endswith("/signin")
    assert 'id="devices"' not in client.get("/me").get_data(as_text=True)
