"""Notices in the browser (Web Push) over HTTP: a browser's subscription posted to
``/push/subscribe``, a notice sent with ``spades.web.accounts.push.notify`` to a push service on
loopback that keeps what it receives, decrypted there with the browser's keys; a push
service that answers 410 makes the site forget the subscription; malformed subscriptions
are refused with a sentence; signing in moves a browser's subscriptions to the account."""

from __future__ import annotations

import base64
import json
import os
import re
import stat
import threading

import pytest
from conftest import csrf_of
from helpers.auth import sign_in
from helpers.push import BrowserKeys, b64url, subscribe, vapid_config
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from py_vapid import Vapid

from spades.push import parse_key, subject_for, vapid_key
from spades.rules_config import Rules
from spades.storage import SeatRow, Store
from spades.tables import EMOJIS
from spades.web import close_app, create_app
from spades.web.accounts.push import notify
from spades.web.site.identity import CSRF_MESSAGE
from spades.web.site.limits import limiter


@pytest.fixture
def app_config() -> dict:
    return vapid_config()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def person_of(client) -> str:
    with client.session_transaction() as s:
        return s["pid"]


def jwt_claims(authorization: str) -> dict:
    token = authorization.split(" ", 1)[1].split(",")[0].removeprefix("t=")
    return json.loads(unb64url(token.split(".")[1]))


# -- the tests ---------------------------------------------------------------------------------
def test_a_notice_reaches_the_push_service_encrypted_to_the_browser_and_a_410_forgets_it(app, client,
                                                                                           push_service):
    key = client.get("/push/key")
    assert key.status_code == 200
    site_key = key.get_json()["key"]
    assert unb64url(site_key)[0] == 4 and len(unb64url(site_key)) == 65  # an uncompressed P-256 point

    browser = BrowserKeys()
    endpoint = f"{push_service.base}/push/abc123"
    r = subscribe(client, browser.subscription(endpoint))
    assert r.status_code == 204, r.get_data(as_text=True)
    person = person_of(client)

    assert notify(app, person, "Your turn at ABCDEF", "Ann, Bo and Rex are waiting for your bid.", "/g/ABCDEF") == 1
    [got] = push_service.received
    assert got.path == "/push/abc123"
    assert got.headers["content-encoding"] == "aes128gcm"
    assert got.headers["ttl"] == str(12 * 3600)
    assert b"Your turn" not in got.body  # encrypted on the way
    assert browser.decrypt(got.body) == {"title": "Your turn at ABCDEF",
                                         "body": "Ann, Bo and Rex are waiting for your bid.", "url": "/g/ABCDEF"}
    # signed with the site's key, for this push service, by this site
    authorization = got.headers["authorization"]
    assert authorization.startswith("vapid t=") and f"k={site_key}" in authorization
    assert Vapid.verify(authorization)
    claims = jwt_claims(authorization)
    assert claims["aud"] == push_service.base and claims["sub"] == "mailto:games@spades.test"

    # another browser's keys cannot read it
    with pytest.raises(Exception):  # noqa: B017 - http_ece raises cryptography's InvalidTag
        BrowserKeys().decrypt(got.body)

    # the browser is gone: the push service says 410, and the site forgets the subscription
    push_service.answer = 410
    assert notify(app, person, "Your turn at ABCDEF", "Your bid.", "/g/ABCDEF") == 0
    assert len(push_service.received) == 2
    assert app.extensions["spades.tables"].store.push_subscriptions(person) == []
    assert notify(app, person, "Your turn at ABCDEF", "Your bid.", "/g/ABCDEF") == 0
    assert len(push_service.received) == 2  # nothing more is sent to it


def test_a_turn_based_table_tells_the_browsers_of_the_person_to_move_once(app, push_service):
    service = app.extensions["spades.tables"]
    browsers = {name: (app.test_client(), BrowserKeys()) for name in ("Ann", "Bo")}
    for name, (browser, keys) in browsers.items():
        assert subscribe(browser, keys.subscription(f"{push_service.base}/{name}")).status_code == 204
    people = {name: person_of(browser) for name, (browser, _) in browsers.items()}
    seats = [SeatRow(0, "human", people["Ann"], "Ann", EMOJIS[0]), SeatRow(1, "human", people["Bo"], "Bo", EMOJIS[1]),
             SeatRow(2, "bot", None, "Rex", "🤖"), SeatRow(3, "bot", None, "Kit", "🤖")]
    code = service.create_seated(seats, Rules(tempo="hours-12"),
                                 {"kind": "friends", "humans": 2, "rules": {"tempo": "hours-12"}}, host=people["Ann"])
    assert service.wait_idle()
    to_move = ("Ann", "Bo")[service.snapshot(code, None).view.to_json()["to_act"]]

    app.extensions["spades.notices"].tick()
    [got] = push_service.received  # the one person the table waits on, nobody else
    assert got.path == f"/{to_move}"
    notice = browsers[to_move][1].decrypt(got.body)
    assert notice["title"] == f"Your turn at {code}" and notice["url"] == f"https://spades.example/g/{code}"
    assert "left" in notice["body"]
    assert not re.search(r"\b[2-9TJQKA][SHDC]\b|[♠♥♦♣]", json.dumps(notice, ensure_ascii=False))  # never a card
    app.extensions["spades.notices"].tick()
    assert len(push_service.received) == 1  # told once


def test_notify_works_from_a_background_thread_and_only_to_that_person(app, push_service):
    ann, bo = app.test_client(), app.test_client()
    ann_keys, bo_keys = BrowserKeys(), BrowserKeys()
    assert subscribe(ann, ann_keys.subscription(f"{push_service.base}/ann")).status_code == 204
    assert subscribe(bo, bo_keys.subscription(f"{push_service.base}/bo")).status_code == 204
    result: list[int] = []
    thread = threading.Thread(target=lambda: result.append(notify(app, person_of(bo), "Your turn at QWERTY",
                                                                  "Play a card.", "/g/QWERTY")))
    thread.start()
    thread.join(10)
    assert result == [1]
    [got] = push_service.received
    assert got.path == "/bo"
    assert bo_keys.decrypt(got.body)["url"] == "/g/QWERTY"

    # a notice far too long for a push service is cut to a line or two
    assert notify(app, person_of(bo), "T" * 1000, "B" * 5000, "/g/QWERTY") == 1
    notice = bo_keys.decrypt(push_service.received[-1].body)
    assert (notice["title"], notice["body"]) == ("T" * 100, "B" * 300)


def test_a_push_service_that_fails_or_cannot_be_reached_keeps_the_subscription(app, client, push_service,
                                                                               unused_port):
    store = app.extensions["spades.tables"].store
    assert subscribe(client, BrowserKeys().subscription(f"{push_service.base}/x")).status_code == 204
    person = person_of(client)
    push_service.answer = 500
    assert notify(app, person, "Your turn at ABCDEF", "Your bid.", "/g/ABCDEF") == 0
    assert len(store.push_subscriptions(person)) == 1

    # a second browser of the same person whose push service does not answer at all
    assert subscribe(client, BrowserKeys().subscription(f"http://127.0.0.1:{unused_port}/y")).status_code == 204
    push_service.answer = 201
    assert notify(app, person, "Your turn at ABCDEF", "Your bid.", "/g/ABCDEF") == 1
    assert len(store.push_subscriptions(person)) == 2


def test_subscribing_again_keeps_one_subscription_with_the_new_keys_and_unsubscribe_forgets_it(app, client,
                                                                                               push_service):
    store = app.extensions["spades.tables"].store
    endpoint = f"{push_service.base}/same"
    first, second = BrowserKeys(), BrowserKeys()
    assert subscribe(client, first.subscription(endpoint)).status_code == 204
    assert subscribe(client, second.subscription(endpoint)).status_code == 204
    person = person_of(client)
    assert [s.endpoint for s in store.push_subscriptions(person)] == [endpoint]
    assert notify(app, person, "Your turn at ABCDEF", "Your bid.", "/g/ABCDEF") == 1
    assert second.decrypt(push_service.received[-1].body)["title"] == "Your turn at ABCDEF"

    # someone else cannot turn this person's notices off
    other = app.test_client()
    r = other.post("/push/unsubscribe", json={"endpoint": endpoint}, headers={"X-CSRF-Token": csrf_of(other)})
    assert r.status_code == 204
    assert len(store.push_subscriptions(person)) == 1
    r = client.post("/push/unsubscribe", json={"endpoint": endpoint}, headers={"X-CSRF-Token": csrf_of(client)})
    assert r.status_code == 204
    assert store.push_subscriptions(person) == []
    assert notify(app, person, "Your turn at ABCDEF", "Your bid.", "/g/ABCDEF") == 0


GOOD = BrowserKeys().subscription("https://fcm.googleapis.com/fcm/send/abc:def")


def changed(**parts) -> dict:
    sub = json.loads(json.dumps(GOOD))
    for name, value in parts.items():
        if name in ("p256dh", "auth"):
            sub["keys"][name] = value
        else:
            sub[name] = value
    return sub


@pytest.mark.parametrize(("subscription", "sentence"), [
    (b"{not json", "Send the browser's push subscription as a JSON object."),
    ([GOOD], "Send the browser's push subscription as a JSON object."),
    ({"keys": GOOD["keys"]}, "The subscription has no endpoint."),
    (changed(endpoint=42), "The subscription has no endpoint."),
    (changed(endpoint="http://fcm.googleapis.com/fcm/send/x"), "The subscription's endpoint must be an https address."),
    (changed(endpoint="https://attacker.example/collect"),
     "This browser's push service is not one this site sends notices to."),
    (changed(endpoint="https://fcm.googleapis.com.attacker.example/x"),
     "This browser's push service is not one this site sends notices to."),
    (changed(endpoint="https://10.0.0.1/push"), "This browser's push service is not one this site sends notices to."),
    (changed(endpoint="https://fcm.googleapis.com:99999/x"), "The subscription's endpoint is not a web address."),
    (changed(endpoint="https://fcm.googleapis.com:7299/x"),
     "This browser's push service is not one this site sends notices to."),
    (changed(endpoint="https://attacker.fcm.googleapis.com/x"),
     "This browser's push service is not one this site sends notices to."),
    (changed(endpoint="https://anything.web.push.apple.com/x"),
     "This browser's push service is not one this site sends notices to."),
    (changed(endpoint="https://a.wns2-bl2p.notify.windows.com/w/"),
     "This browser's push service is not one this site sends notices to."),
    (changed(endpoint="https://wns2-bl2p.notify.windows.com:8443/w/"),
     "This browser's push service is not one this site sends notices to."),
    (changed(endpoint="https://fcm.googleapis.com/" + "x" * 1100), "The subscription's endpoint is not a web address."),
    (changed(endpoint="https://fcm.googleapis.com/é"), "The subscription's endpoint is not a web address."),
    (changed(keys=None), "The subscription has no keys."),
    (changed(p256dh="not a key!"), "The subscription's p256dh key is not a P-256 public key."),
    (changed(p256dh=b64url(b"\x04" + b"\x01" * 64)), "The subscription's p256dh key is not a P-256 public key."),
    (changed(p256dh=None), "The subscription's p256dh key is not a P-256 public key."),
    (changed(auth=b64url(b"short")), "The subscription's auth secret must be 16 bytes."),
    (changed(auth=["x"]), "The subscription's auth secret is not base64url."),
])
def test_a_malformed_subscription_is_refused_with_a_sentence(app, client, subscription, sentence):
    kept = BrowserKeys().subscription("https://web.push.apple.com/kept")
    assert subscribe(client, kept).status_code == 204
    r = subscribe(client, subscription)
    assert r.status_code == 400
    assert r.get_json() == {"error": sentence}
    assert [s.endpoint for s in app.extensions["spades.tables"].store.push_subscriptions(person_of(client))] == \
        [kept["endpoint"]]


def test_a_real_push_service_endpoint_is_taken(app, client):
    r = subscribe(client, GOOD)
    assert r.status_code == 204
    assert [s.endpoint for s in app.extensions["spades.tables"].store.push_subscriptions(person_of(client))] == \
        [GOOD["endpoint"]]


@pytest.mark.parametrize("endpoint", [
    "https://fcm.googleapis.com:443/fcm/send/abc", "https://updates.push.services.mozilla.com/wpush/v2/abc",
    "https://web.push.apple.com/QGx1", "https://wns2-bl2p.notify.windows.com/w/?token=abc"])
def test_each_browsers_push_service_is_taken_at_its_own_host(app, client, endpoint):
    assert subscribe(client, BrowserKeys().subscription(endpoint)).status_code == 204


def test_one_address_subscribing_again_and_again_is_stopped(app, push_service):
    limiter.reset()
    statuses = []
    for n in range(61):
        browser = app.test_client()  # a new browser each time, as a script would be
        statuses.append(subscribe(browser, BrowserKeys().subscription(f"{push_service.base}/{n}")).status_code)
        if statuses[-1] != 204:
            break
    assert statuses == [204] * 60 + [429]
    assert subscribe(browser, BrowserKeys().subscription(f"{push_service.base}/x")).get_json() == {
        "error": "Too many browsers asked for notices from here. Try again later."}
    limiter.reset()


def test_posts_without_the_csrf_header_are_refused(app, client, push_service):
    sub = BrowserKeys().subscription(f"{push_service.base}/x")
    for csrf in (None, "forged"):
        r = subscribe(client, sub, csrf=csrf)
        assert r.status_code == 400
        assert r.get_json() == {"error": CSRF_MESSAGE}
    r = client.post("/push/unsubscribe", json={"endpoint": sub["endpoint"]})
    assert r.status_code == 400 and r.get_json() == {"error": CSRF_MESSAGE}
    r = client.post("/push/subscribe", data="x" * 100_000, content_type="application/json",
                    headers={"X-CSRF-Token": csrf_of(client)})
    assert r.status_code == 413 and r.get_json()["error"]


def test_loopback_endpoints_are_refused_unless_allowed(app, client, push_service):
    app.config["PUSH_ALLOW_LOOPBACK"] = False
    r = subscribe(client, BrowserKeys().subscription(f"{push_service.base}/x"))
    assert r.status_code == 400
    assert r.get_json()["error"] == "The subscription's endpoint must be an https address."


def test_a_kept_subscription_the_check_would_refuse_now_is_dropped_unsent(app, client):
    """One taken before the hosts were matched exactly (a port of a push service's host)."""
    assert subscribe(client, GOOD).status_code == 204  # a session and a person
    store, person = app.extensions["spades.tables"].store, person_of(client)
    keys = GOOD["keys"]
    store.add_push_subscription(person, "https://fcm.googleapis.com:7299/x", keys["p256dh"], keys["auth"])
    store.remove_push_subscription(GOOD["endpoint"])
    assert notify(app, person, "Your turn at ABCDEF", "Your bid.", "/g/ABCDEF") == 0
    assert store.push_subscriptions(person) == []


def test_subscriptions_are_kept_by_endpoint_twenty_a_person_on_either_engine(database):
    store = Store(database)
    keys = BrowserKeys().subscription("x")["keys"]
    mozilla = "https://updates.push.services.mozilla.com/wpush/v2/"
    for n in range(22):
        store.add_push_subscription("ann", f"{mozilla}{n}", keys["p256dh"], keys["auth"], now=1000.0 + n)
    kept = store.push_subscriptions("ann")
    assert [s.endpoint for s in kept] == [f"{mozilla}{n}" for n in range(21, 1, -1)]  # the newest 20
    store.add_push_subscription("bo", f"{mozilla}21", "other", "keys", now=2000.0)  # Bo signed in on that browser
    assert store.push_subscriptions("bo")[0].p256dh == "other"
    assert f"{mozilla}21" not in [s.endpoint for s in store.push_subscriptions("ann")]
    assert store.remove_push_subscription(f"{mozilla}20", person="bo") is False  # not Bo's to remove
    assert store.remove_push_subscription(f"{mozilla}20") is True
    assert store.remove_push_subscription(f"{mozilla}20") is False
    assert len(store.push_subscriptions("ann")) == 18
    store.close()


def test_signing_in_moves_the_browsers_subscriptions_to_the_account(database):
    store = Store(database)
    keys = BrowserKeys().subscription("https://updates.push.services.mozilla.com/wpush/v2/abc")["keys"]
    store.add_push_subscription("browser-1", "https://updates.push.services.mozilla.com/wpush/v2/abc",
                                keys["p256dh"], keys["auth"])
    user, _ = store.sign_in("ann@example.com", "user-1", "browser-1", "Ann", "", 1_800_000_000.0)
    assert store.push_subscriptions("browser-1") == []
    assert [s.endpoint for s in store.push_subscriptions(user.id)] == [
        "https://updates.push.services.mozilla.com/wpush/v2/abc"]
    store.close()


def test_signing_out_on_every_device_turns_every_browsers_notices_off(app, push_service, smtp):
    app.config.update(smtp.config())
    laptop, phone = app.test_client(), app.test_client()
    for device in (laptop, phone):
        sign_in(device, smtp, "ann@example.com")
        assert subscribe(device, BrowserKeys().subscription(f"{push_service.base}/{id(device)}")).status_code == 204
    ann = person_of(laptop)
    assert ann == person_of(phone)
    assert notify(app, ann, "Your turn at ABCDEF", "Your bid.", "/g/ABCDEF") == 2
    r = laptop.post("/signout/everywhere", data={"csrf": csrf_of(laptop)})
    assert r.status_code == 303
    assert notify(app, ann, "Your turn at ABCDEF", "Your bid.", "/g/ABCDEF") == 0
    assert len(push_service.received) == 2


def test_a_site_nobody_subscribed_to_makes_no_key(tmp_path):
    app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "x.db"), "SECRET_KEY": "x", "RESUME_TABLES": False,
                      "TOURNEY_TICK_S": 0, "NOTICE_TICK_S": 0})
    app.instance_path = str(tmp_path / "instance")
    try:
        assert notify(app, "nobody", "Your turn at ABCDEF", "Your bid.", "/g/ABCDEF") == 0
        assert not os.path.exists(tmp_path / "instance" / "vapid_private.pem")
        assert app.test_client().get("/push/key").status_code == 200  # a browser asks: the key is made
        assert os.path.exists(tmp_path / "instance" / "vapid_private.pem")
    finally:
        close_app(app)


def test_the_vapid_key_is_made_once_and_kept_in_the_instance_folder(tmp_path):
    made = vapid_key(None, str(tmp_path))
    path = tmp_path / "vapid_private.pem"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    again = vapid_key(None, str(tmp_path))
    assert again.application_server_key == made.application_server_key
    # a raw base64url key, as some tools print it, is the same key as its PEM
    raw = made.private.private_numbers().private_value.to_bytes(32, "big")
    assert parse_key(b64url(raw)).application_server_key == made.application_server_key


@pytest.mark.parametrize("key", ["not a key", "c2hvcnQ",
                                 "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----"])
def test_a_bad_vapid_key_setting_stops_the_start(tmp_path, key):
    with pytest.raises(ValueError):
        create_app({"TESTING": True, "DATABASE": str(tmp_path / "x.db"), "SECRET_KEY": "x", "VAPID_PRIVATE_KEY": key})


@pytest.mark.parametrize("subject", ["admin@example.com", "mailto:", "http://spades.example", "mailto:a b@c.d"])
def test_a_bad_vapid_subject_stops_the_start(tmp_path, subject):
    with pytest.raises(ValueError, match="VAPID_SUBJECT"):
        create_app({"TESTING": True, "DATABASE": str(tmp_path / "x.db"), "SECRET_KEY": "x", "VAPID_SUBJECT": subject})


@pytest.mark.parametrize(("setting", "sender", "subject"), [
    (None, None, "mailto:admin@localhost"),
    (None, "Spades <games@spades.example>", "mailto:games@spades.example"),
    ("https://spades.example/contact", "Spades <games@spades.example>", "https://spades.example/contact"),
])
def test_the_vapid_subject_is_the_setting_else_the_mail_sender(setting, sender, subject):
    assert subject_for(setting, sender) == subject


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=40),
                    lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(st.text(max_size=10), inner, max_size=3),
                    max_leaves=8)
ENDPOINTS = st.sampled_from(["https://fcm.googleapis.com/fcm/send/x", "http://127.0.0.1:1/x", "https://[::1]/x",
                             "https://fcm.googleapis.com:0/x", "https://user@fcm.googleapis.com/x", "", "//x", "é"])
PARTS = st.fixed_dictionaries({}, optional={"endpoint": ENDPOINTS | JSON, "keys": st.fixed_dictionaries(
    {}, optional={"p256dh": JSON | st.sampled_from([GOOD["keys"]["p256dh"], "BA", "=" * 5]),
                  "auth": JSON | st.sampled_from([GOOD["keys"]["auth"], "A" * 22, "A" * 21 + "="])}) | JSON})


@settings(max_examples=200, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=PARTS | JSON, path=st.sampled_from(["/push/subscribe", "/push/unsubscribe"]))
def test_junk_json_is_a_204_or_a_400_with_a_sentence(client, body, path):
    limiter.reset()  # the examples come from one address; the limit is the next test's
    r = client.post(path, json=body, headers={"X-CSRF-Token": csrf_of(client)})
    assert r.status_code in (204, 400), (body, r.status_code)
    if r.status_code == 400:
        assert r.get_json()["error"].endswith(".")
