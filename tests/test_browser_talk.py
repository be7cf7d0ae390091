"""Talk at the table in real Chromium: three players (one on a phone) and a watcher, each
in their own browser context. Messages and reactions arrive live for the right people;
the watchers' chat never reaches a player's socket (every frame is checked as it
arrives); a mute hides a person's messages and bubbles and survives a reload; the host
silences a person and allows reactions only; markup in a message shows as text."""

from __future__ import annotations

from conftest import csrf_of
from helpers.lobby import join, new_table, post
from playwright.sync_api import Page, expect

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


def open_as(browser, live_server: str, client, url: str, **options) -> tuple[Page, list[str]]:
    """A page in its own context with ``client``'s cookie, and the frames its socket receives."""
    context = browser.new_context(**options)
    context.add_cookies([{"name": "session", "value": client.get_cookie("session").value, "url": live_server}])
    page = context.new_page()
    frames: list[str] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda p: frames.append(
        p if isinstance(p, str) else p.decode("utf-8", "replace"))))
    page.goto(live_server + url)
    expect(page.locator("body.live")).to_have_count(1, timeout=15000)
    return page, frames


def send(page: Page, text: str) -> None:
    page.locator("#chat-text").fill(text)
    page.locator("#chat-text").press("Enter")
    expect(page.locator("#chat-text")).to_have_value("", timeout=10000)


def test_friends_and_a_watcher_talk_react_mute_and_silence(app, live_server, browser):
    hana_c, ann_c, bo_c, eve_c = (app.test_client() for _ in range(4))
    code = new_table(hana_c, humans=3, name="Hana", tempo="relaxed")
    assert join(ann_c, code, "Ann").status_code == 303
    assert join(bo_c, code, "Bo").status_code == 303
    assert post(hana_c, code, "start").status_code == 303
    csrf_of(eve_c)  # the watcher's browser has a session
    hana, hana_frames = open_as(browser, live_server, hana_c, f"/g/{code}")
    ann, ann_frames = open_as(browser, live_server, ann_c, f"/g/{code}", **PHONE)
    bo, _ = open_as(browser, live_server, bo_c, f"/g/{code}")
    eve, _ = open_as(browser, live_server, eve_c, f"/g/{code}/watch")
    try:
        # the table as it stands once all three are here (a plate gains its "here" line when
        # its person's page connects, which may reach Ann's page after hers opened)
        expect(ann.locator(".plate .presence-here")).to_have_count(3, timeout=15000)
        felt = ann.locator("#felt").bounding_box()
        send(hana, "<script>window.owned = 1</script> good luck")
        for page in (ann, bo, eve):
            expect(page.locator("#chat-log")).to_contain_text("<script>window.owned = 1</script> good luck")
        assert ann.evaluate("window.owned") is None
        assert ann.locator("#felt").bounding_box() == felt  # the chat never moves the table

        # the watchers' own chat: the watcher reads it, no player's socket ever gets it
        send(eve, "go Bo")
        expect(eve.locator("#chat-log")).to_contain_text("go Bo")
        hana.wait_for_timeout(500)
        for page, frames in ((hana, hana_frames), (ann, ann_frames)):
            expect(page.locator("#chat-log")).not_to_contain_text("go Bo")
            assert not any("go Bo" in f for f in frames)

        # a reaction: a bubble at Bo's plate for the others, and a line in the chat
        bo.get_by_role("button", name="👍").click()
        expect(hana.locator("#chat-log")).to_contain_text("Bo: 👍")
        expect(hana.locator(".plate[data-seat='1'] .bubble")).to_have_text("👍")

        # Hana mutes Bo: his lines leave her page and no longer reach it, also after a reload
        hana.locator("#chat-log li", has_text="Bo: 👍").locator("summary").click()
        hana.get_by_role("button", name="Mute Bo").click()
        expect(hana.locator(".chat-note")).to_contain_text("You muted Bo")
        expect(hana.locator("#chat-log")).not_to_contain_text("Bo:")
        # Bo reacts while typing: the reaction's answer draws the tools again and keeps his text
        bo.locator("#chat-text").fill("can anyone hear me")
        bo.evaluate("document.getElementById('composer').dataset.drawn = 'before'")
        bo.get_by_role("button", name="😂").click()
        expect(bo.locator("#composer[data-drawn]")).to_have_count(0)
        expect(bo.locator("#chat-text")).to_have_value("can anyone hear me")
        bo.locator("#chat-text").press("Enter")
        expect(bo.locator("#chat-text")).to_have_value("", timeout=10000)
        expect(ann.locator("#chat-log")).to_contain_text("can anyone hear me")
        expect(ann.locator(".plate[data-seat='1'] .bubble")).to_have_text("😂")
        expect(ann.locator(".plate[data-seat='1'] .bubble")).to_have_text("", timeout=10000)  # and goes
        hana.reload()
        expect(hana.locator("body.live")).to_have_count(1, timeout=15000)
        expect(hana.locator("#chat-log")).to_contain_text("good luck")
        expect(hana.locator("#chat-log")).not_to_contain_text("Bo:")
        expect(hana.locator(".plate[data-seat='1'] .bubble")).to_have_text("")

        # the host silences Ann, then allows reactions only
        hana.locator("#chat-log li", has_text="good luck").first.wait_for()
        send(ann, "hello from the phone")
        expect(hana.locator("#chat-log")).to_contain_text("hello from the phone")
        hana.locator("#chat-log li", has_text="hello from the phone").locator("summary").click()
        expect(hana.locator("#chat-log button", has_text="talk again")).to_have_count(0)  # she talks: nothing to undo
        for page in (ann, bo, eve):  # the host's choices are on the host's page only
            expect(page.locator("#chat-log li", has_text="hello from the phone")).to_have_count(1)
            expect(page.locator("#chat-log button", has_text="Silence")).to_have_count(0)
        hana.get_by_role("button", name="Silence Ann").click()
        expect(ann.locator("#chat-log")).to_contain_text("The host silenced Ann.")
        # Hana's menu on Ann's lines follows at once: the one choice that applies now
        expect(hana.locator("#chat-log")).to_contain_text("The host silenced Ann.")
        ann_line = hana.locator("#chat-log li", has_text="hello from the phone")
        expect(ann_line).to_have_count(1)
        expect(ann_line.locator("button", has_text="Silence Ann")).to_have_count(0)
        ann_line.locator("summary").click()
        expect(ann_line.get_by_role("button", name="Let Ann talk again")).to_be_visible()
        ann_line.locator("summary").click()
        ann.locator("#chat-text").fill("but why")
        ann.locator("#chat-text").press("Enter")
        expect(ann.locator(".chat-note")).to_contain_text("The host has silenced you at this table.")
        hana.locator(".chat-settings summary").click()
        hana.locator(".chat-settings label:has(input[value='reactions'])").click()
        hana.locator(".chat-settings").get_by_role("button", name="Save").click()
        for page in (ann, bo, eve):
            expect(page.locator("#chat-log")).to_contain_text("The host allowed reactions only.")
            expect(page.locator("#chat-text")).to_have_count(0)
            expect(page.locator(".reactions button").first).to_be_visible()
    finally:
        for page in (hana, ann, bo, eve):
            page.context.close()
