"""The installable app in real Chromium: the manifest the page links loads with its
icons, the service worker registers, becomes active and controls the page after a
reload, keeping the static files; a push message shows its notice with the table's link;
and the profile page offers notices in this browser."""

from __future__ import annotations

import json

import pytest
from conftest import csrf_of
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from helpers.auth import sign_in
from playwright.sync_api import expect


@pytest.fixture
def app_config() -> dict:
    """A VAPID key of the test's own (none is made in the repository's instance folder)."""
    key = ec.generate_private_key(ec.SECP256R1())
    return {"VAPID_PRIVATE_KEY": key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                   serialization.NoEncryption()).decode()}

MANIFEST = """async () => {
  const link = document.querySelector('link[rel=manifest]');
  const response = await fetch(link.href);
  const manifest = await response.json();
  const icons = [];
  for (const icon of manifest.icons) {
    const r = await fetch(new URL(icon.src, link.href));
    const bitmap = await createImageBitmap(await r.blob());
    icons.push({sizes: icon.sizes, purpose: icon.purpose, type: r.headers.get('content-type'),
                width: bitmap.width, height: bitmap.height});
  }
  return {type: response.headers.get('content-type'), name: manifest.name, display: manifest.display,
          start: manifest.start_url, icons};
}"""

WORKER = """async () => {
  const reg = await navigator.serviceWorker.ready;
  const worker = reg.active;
  if (worker.state !== 'activated') {
    await new Promise((done) => worker.addEventListener('statechange', () => worker.state === 'activated' && done()));
  }
  return {scope: reg.scope, script: worker.scriptURL, state: worker.state};
}"""

CACHED = """async () => {
  const names = await caches.keys();
  const cache = await caches.open(names.find((n) => n.startsWith('spades-static-')));
  return (await cache.keys()).map((r) => new URL(r.url).pathname);
}"""


def test_the_manifest_and_service_worker_load(live_server, browser):
    context = browser.new_context()
    page = context.new_page()
    try:
        page.goto(live_server + "/")
        manifest = page.evaluate(MANIFEST)
        assert manifest["type"] == "application/manifest+json"
        assert (manifest["name"], manifest["display"], manifest["start"]) == ("Spades with friends", "standalone", "/")
        assert {(i["sizes"], i["purpose"]) for i in manifest["icons"]} == {
            ("192x192", "any"), ("512x512", "any"), ("512x512", "maskable")}
        for icon in manifest["icons"]:
            assert icon["type"] == "image/png"
            assert icon["sizes"] == f"{icon['width']}x{icon['height']}"

        worker = page.evaluate(WORKER)
        assert worker == {"scope": live_server + "/", "script": live_server + "/sw.js", "state": "activated"}
        page.reload()
        assert page.evaluate("navigator.serviceWorker.controller.scriptURL") == live_server + "/sw.js"
        cached = page.evaluate(CACHED)
        assert {"/static/site.css", "/static/htmx-2.0.11.min.js", "/static/icon-192.png"} <= set(cached)
        # a page under the worker still works: the lobby's form is there
        expect(page.locator("form").first).to_be_visible()
    finally:
        context.close()


def test_offline_a_kept_page_shows_but_never_one_marked_no_store(live_server, browser):
    context = browser.new_context()
    page = context.new_page()
    try:
        page.goto(live_server + "/")
        page.evaluate(WORKER)
        page.reload()  # under the worker now: the home page is kept
        page.goto(live_server + "/me")  # no-store: the profile is one person's, never kept
        context.set_offline(True)
        page.goto(live_server + "/")
        expect(page.get_by_role("button", name="Practice now")).to_be_visible()
        page.goto(live_server + "/me")
        expect(page.get_by_role("heading", name="No connection")).to_be_visible()
        expect(page.locator("#profile-form")).to_have_count(0)
    finally:
        context.close()


def test_chromium_finds_the_site_installable(live_server, browser_type, browser_type_launch_args, tmp_path):
    """What Lighthouse's installability audit asks Chromium, in a profile kept on disk (a
    private window is never offered an install)."""
    context = browser_type.launch_persistent_context(str(tmp_path / "profile"), **browser_type_launch_args)
    try:
        page = context.new_page()
        page.goto(live_server + "/")
        page.evaluate(WORKER)
        cdp = context.new_cdp_session(page)
        assert cdp.send("Page.getAppManifest")["errors"] == []
        assert cdp.send("Page.getInstallabilityErrors") == {"installabilityErrors": []}
    finally:
        context.close()


def test_a_push_message_shows_the_notice_with_the_tables_link(live_server, browser):
    context = browser.new_context()
    context.grant_permissions(["notifications"], origin=live_server)
    page = context.new_page()
    try:
        page.goto(live_server + "/")
        page.evaluate(WORKER)
        cdp = context.new_cdp_session(page)
        registrations: list[dict] = []
        cdp.on("ServiceWorker.workerRegistrationUpdated", lambda e: registrations.extend(e["registrations"]))
        cdp.send("ServiceWorker.enable")
        for _ in range(50):
            if registrations:
                break
            page.wait_for_timeout(100)
        [registration] = [r for r in registrations if r["scopeURL"] == live_server + "/"][:1]
        cdp.send("ServiceWorker.deliverPushMessage", {
            "origin": live_server, "registrationId": registration["registrationId"],
            "data": '{"title": "Your turn at ABCDEF", "body": "Ann, Bo and Rex wait for your bid.", '
                    '"url": "/g/ABCDEF"}'})
        shown = page.evaluate("""async () => {
          const reg = await navigator.serviceWorker.ready;
          for (let i = 0; i < 100; i++) {
            const shown = await reg.getNotifications();
            if (shown.length) return shown.map((n) => ({title: n.title, body: n.body, url: n.data.url, tag: n.tag}));
            await new Promise((r) => setTimeout(r, 100));
          }
          return [];
        }""")
        assert shown == [{"title": "Your turn at ABCDEF", "body": "Ann, Bo and Rex wait for your bid.",
                          "url": live_server + "/g/ABCDEF", "tag": live_server + "/g/ABCDEF"}]
    finally:
        context.close()


def test_the_profile_page_offers_notices_in_this_browser(live_server, browser):
    context = browser.new_context()
    page = context.new_page()
    try:
        page.goto(live_server + "/me")
        box = page.locator("#push-notices")
        expect(box).to_be_visible()
        expect(box.get_by_role("button", name="Allow notices in this browser")).to_be_enabled()
        expect(box.locator(".push-note")).to_contain_text("when it is your turn")
    finally:
        context.close()


def test_without_javascript_the_profile_page_shows_no_notice_button(live_server, browser):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    try:
        page.goto(live_server + "/me")
        expect(page.locator("#push-notices")).to_be_hidden()
        expect(page.get_by_role("button", name="Save")).to_be_visible()
    finally:
        context.close()


# The browser's own push service is out of reach here, so its two calls answer as it would
# for the endpoint and keys the test gives; everything else (permission, the site's key,
# the posts, the page's words) is the real thing.
FAKE_PUSH_SERVICE = """([endpoint, keys]) => {
  if (!self.PushManager) return;
  const subscription = {endpoint, toJSON: () => ({endpoint, expirationTime: null, keys}),
                        unsubscribe: async () => { localStorage.removeItem('subscribed'); return true; }};
  PushManager.prototype.subscribe = async function (options) {
    window.askedWithKey = btoa(String.fromCharCode(...new Uint8Array(options.applicationServerKey)))
      .replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
    window.askedVisible = options.userVisibleOnly;
    localStorage.setItem('subscribed', '1');
    return subscription;
  };
  PushManager.prototype.getSubscription = async function () {
    return localStorage.getItem('subscribed') ? subscription : null;
  };
}"""


def test_allowing_and_turning_off_notices_from_the_profile_page(live_server, browser, app, client):
    store = app.extensions["spades.tables"].store
    # a person (Ann, who saved her profile), whose session the browser below shares
    assert client.post("/me", data={"csrf": csrf_of(client), "name": "Ann", "emoji": "🦊"}).status_code == 303
    with client.session_transaction() as session:
        person = session["pid"]
    endpoint = "https://fcm.googleapis.com/fcm/send/browser-1"
    keys = {"p256dh": "BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM",
            "auth": "tBHItJI5svbpez7KI4CCXg"}
    context = browser.new_context()
    context.grant_permissions(["notifications"], origin=live_server)
    context.add_cookies([{"name": "session", "value": client.get_cookie("session").value, "url": live_server}])
    context.add_init_script(f"({FAKE_PUSH_SERVICE})({json.dumps([endpoint, keys])})")
    page = context.new_page()
    try:
        page.goto(live_server + "/me")
        box = page.locator("#push-notices")
        box.get_by_role("button", name="Allow notices in this browser").click()
        expect(box.locator(".push-note")).to_contain_text("Notices are on in this browser")
        expect(box.get_by_role("button", name="Turn off notices in this browser")).to_be_enabled()
        assert page.evaluate("window.askedWithKey") == client.get("/push/key").get_json()["key"]
        assert page.evaluate("window.askedVisible") is True
        assert [(s.endpoint, s.p256dh, s.auth) for s in store.push_subscriptions(person)] == [
            (endpoint, keys["p256dh"], keys["auth"])]

        page.reload()  # the page knows this browser's notices are on
        box.get_by_role("button", name="Turn off notices in this browser").click()
        expect(box.get_by_role("button", name="Allow notices in this browser")).to_be_enabled()
        expect(box.locator(".push-note")).to_contain_text("when it is your turn")
        assert store.push_subscriptions(person) == []
    finally:
        context.close()


def test_signing_out_turns_this_browsers_notices_off(live_server, browser, app, client, smtp):
    app.config.update(smtp.config())
    sign_in(client, smtp, "ann@example.com")
    with client.session_transaction() as session:
        account = session["uid"]
    endpoint = "https://fcm.googleapis.com/fcm/send/shared-computer"
    keys = {"p256dh": "BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM",
            "auth": "tBHItJI5svbpez7KI4CCXg"}
    context = browser.new_context()
    context.grant_permissions(["notifications"], origin=live_server)
    context.add_cookies([{"name": "session", "value": client.get_cookie("session").value, "url": live_server}])
    context.add_init_script(f"({FAKE_PUSH_SERVICE})({json.dumps([endpoint, keys])})")
    page = context.new_page()
    try:
        page.goto(live_server + "/me")
        page.get_by_role("button", name="Allow notices in this browser").click()
        expect(page.locator(".push-note")).to_contain_text("Notices are on in this browser")
        assert [s.endpoint for s in app.extensions["spades.tables"].store.push_subscriptions(account)] == [endpoint]

        page.get_by_role("button", name="Sign out", exact=True).click()
        page.wait_for_url(live_server + "/")
        assert app.extensions["spades.tables"].store.push_subscriptions(account) == []
        assert page.evaluate("localStorage.getItem('subscribed')") is None  # the browser's side is off too
    finally:
        context.close()
