"""A page whose connection drops for 5 s mid-hand, in real Chromium: when the socket is
back it asks for the changes after the last one it applied (``?since=``) and catches up
from there, in one frame of what changed, without loading the page again.

Each person reaches the site through a TCP relay of their own on loopback; Ann's is cut
(every connection reset, new ones refused) for 5 s, as a lost network is. A line said
while she is away reaches her page, and so does one said while the page is fetching those."""

from __future__ import annotations

import time

from conftest import two_friends
from helpers.browser import box
from helpers.sockets import Relay
from playwright.sync_api import expect


def test_a_page_dropped_for_five_seconds_catches_up_from_its_version(live_server, browser):
    hers, annes = Relay(live_server), Relay(live_server)
    contexts = [browser.new_context() for _ in range(2)]
    host, ann = (c.new_page() for c in contexts)
    try:
        code = two_friends(host, ann, hers.base, annes.base)
        for p in (host, ann):
            expect(p.locator("body.live")).to_have_count(1, timeout=10000)
            expect(p.locator("#turn[data-version]")).to_have_count(1, timeout=10000)

        urls: list[str] = []
        frames: list[str] = []
        ann.on("websocket", lambda ws: (urls.append(ws.url), ws.on("framereceived", lambda f: frames.append(
            f if isinstance(f, str) else f.decode("utf-8", "replace")))))
        ann.evaluate("window.samePage = true")  # gone if the page were loaded again
        seen = ann.locator("#turn").get_attribute("data-seq")

        annes.drop()  # Ann's network goes for 5 s; Hana (and the bots) play on
        expect(ann.locator("#offline")).to_be_visible(timeout=10000)
        moved = 0
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            v = host.request.get(f"{hers.base}/g/{code}/view.json").json()
            if v["to_act"] == v["seat"] and v["phase"] in ("bidding", "playing"):
                action = "3" if v["phase"] == "bidding" else v["legal"][0]
                form = {"csrf": host.locator("main").get_attribute("data-csrf"), "version": str(v["version"])}
                form.update({"action": "bid", "bid": "3"} if v["phase"] == "bidding" else {"action": action})
                assert host.request.post(f"{hers.base}/g/{code}/act", form=form).ok
                moved += 1
            host.wait_for_timeout(300)
        assert moved, "Hana never had a turn while Ann was away"
        now = host.request.get(f"{hers.base}/g/{code}/view.json").json()["version"]
        csrf = host.locator("main").get_attribute("data-csrf")
        assert host.request.post(f"{hers.base}/g/{code}/chat", form={"csrf": csrf, "text": "are you there"}).ok

        def late_line(route) -> None:
            """Ann's page asks for the lines said while it was away; one more is said before
            the answer reaches it (it comes over the socket meanwhile)."""
            answer = route.fetch()
            assert host.request.post(f"{hers.base}/g/{code}/chat", form={"csrf": csrf, "text": "still here?"}).ok
            time.sleep(1)
            route.fulfill(response=answer)

        ann.route(f"**/g/{code}/chat", late_line)
        annes.restore()

        # the socket retries by itself, at most 5 s apart (static/site.js)
        expect(ann.locator("#offline")).to_be_hidden(timeout=12000)
        ann.wait_for_function("(v) => +document.getElementById('turn').dataset.version >= v", arg=now, timeout=10000)
        assert ann.evaluate("window.samePage") is True  # caught up without a page load
        # the line said while away and the one said while those were on their way, once each
        expect(ann.locator("#chat-log li", has_text="are you there")).to_have_count(1)
        expect(ann.locator("#chat-log li", has_text="still here?")).to_have_count(1)
        assert any(u.endswith(f"/g/{code}/ws?since={seen}") for u in urls), urls
        first = frames[0]
        assert 'id="hand"' in first and 'id="sheet"' not in first  # what changed (the sheet did not), not all
        expect(ann.locator("#told.my-turn, .status .turn")).not_to_have_count(0)
        # the page shows what a fresh one shows
        fresh = contexts[1].new_page()
        fresh.goto(f"{annes.base}/g/{code}")
        expect(fresh.locator("body.live")).to_have_count(1, timeout=10000)
        for part in ("#scores", "#trick", "#hand .fan"):
            assert ann.locator(part).inner_text() == fresh.locator(part).inner_text(), part
    finally:
        for c in contexts:
            c.close()
        hers.close()
        annes.close()


def test_without_javascript_each_page_draws_the_table_from_its_own_seat(live_server, browser):
    """Plain forms and the page as the site draws it: Ann, in seat 2, sees her plate at the
    bottom (marked as hers) and Hana's across, and her own cards."""
    contexts = [browser.new_context(java_script_enabled=False) for _ in range(2)]
    host, ann = (c.new_page() for c in contexts)
    try:
        code = two_friends(host, ann, live_server, live=False)
        ann.goto(f"{live_server}/g/{code}")
        v = ann.request.get(f"{live_server}/g/{code}/view.json").json()
        assert v["seat"] == 2
        felt = box(ann.locator("#felt"))
        mine, hers = (box(ann.locator(f"#plate-{s}")) for s in (2, 0))
        assert mine["y"] > felt["y"] + felt["height"] / 2 > hers["y"] + hers["height"]  # Ann below, Hana across
        expect(ann.locator("#plate-2 .you-mark")).to_be_visible()
        expect(ann.locator("#plate-0 .you-mark")).to_be_hidden()
        cards = ann.locator("#hand .card")
        assert sorted(cards.nth(i).get_attribute("data-card") for i in range(cards.count())) == sorted(v["hand"])
    finally:
        for c in contexts:
            c.close()
