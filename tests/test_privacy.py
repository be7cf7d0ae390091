"""The privacy page (``/privacy``, linked from the footer of every page but the table,
which fills the screen, and from sign-in) and the retention it states, applied by
``spades.retention.purge`` with an injected clock, on SQLite and PostgreSQL: what is older
than its retention goes, the rest stays."""

from __future__ import annotations

import os
import re
import time

import pytest
from conftest import start_practice

from spades.retention import (
    CODES_DAYS,
    DAY,
    GUARDS_DAYS,
    GUEST_TABLES_DAYS,
    OUTBOX_DAYS,
    REPORTS_DAYS,
    SESSIONS_DAYS,
    purge,
)
from spades.storage.rows import ChatRow


@pytest.fixture
def app_config(database) -> dict:
    return {"DATABASE": database}


def test_the_privacy_page_says_what_is_kept_for_how_long_and_who_sees_it(client):
    r = client.get("/privacy")
    assert r.status_code == 200
    html = r.get_data(as_text=True)
    text = re.sub(r"<[^>]+>", "", html)
    for said in ("What is kept, and why", "Who sees it", "Players at a table", "Watchers", "Members of a circle",
                 "How long it is kept", "Download or delete it", "Delete my account"):
        assert said in text, said
    assert 'href="/me/data.json"' in html
    assert f"deleted {CODES_DAYS} day after it expires" in text
    assert f"Reports of a message: deleted {REPORTS_DAYS} days after they were made" in text
    assert f"deleted with their games and chat {GUEST_TABLES_DAYS} days after the last thing done there" in text
    assert "the site keeps no copy or log of the mail it sends" in text
    assert f"deleted after {OUTBOX_DAYS} days" in text
    assert f"Signed-out devices: deleted {SESSIONS_DAYS} days after" in text


@pytest.mark.parametrize("path", ["/", "/signin", "/me", "/privacy"])
def test_every_page_links_to_it_from_its_footer(client, path):
    html = client.get(path).get_data(as_text=True)
    footer = re.search(r"<footer[^>]*>.*?</footer>", html, re.S).group(0)
    assert 'href="/privacy">Privacy</a>' in footer


def test_sign_in_links_to_it(client):
    main = re.search(r"<main.*?</main>", client.get("/signin").get_data(as_text=True), re.S).group(0)
    assert 'href="/privacy">Privacy</a>' in main


def test_purge_deletes_what_is_older_than_its_retention_and_keeps_the_rest(app, client, service, tmp_path):
    store = service.store
    t0 = time.time()
    service.clock = lambda: t0
    # a guest table (a browser without an account), and one at which an account sits
    guest = start_practice(client)
    account = app.test_client()
    store.sign_in("ann@example.com", "u-ann", None, "Ann", "", t0)
    with account.session_transaction() as s:
        s.update(pid="u-ann", uid="u-ann", gen=0, sid="sid-ann")
    store.start_signin("sid-ann", "u-ann", t0)
    kept = start_practice(account)
    assert service.wait_idle()
    # a sign-in code that expired at once, a signed-out session, a report
    store.new_login_code("bob@example.com", "asker", "x", t0 - 600, 600)
    store.start_signin("sid-old", "u-ann", t0)
    store.end_signin("sid-old")
    line = ChatRow(1, t0, "someone", "Someone", "", 0, "players", "text", "hello")
    store.save_report(guest, line, "u-ann", "Ann")
    outbox = tmp_path / "outbox"
    outbox.mkdir()
    (outbox / "old.eml").write_text("x")
    os.utime(outbox / "old.eml", (t0, t0))
    (outbox / "new.eml").write_text("x")
    os.utime(outbox / "new.eml", (t0 + 5 * DAY, t0 + 5 * DAY))

    def codes() -> int:
        return len(store.guest_tables_idle(t0 + 1e9))

    assert purge(store, t0, outbox).rows.codes == 0  # nothing is old yet
    assert client.get(f"/g/{guest}").status_code == 200
    # a day after the code expired, it goes; nothing else does
    swept = purge(store, t0 + CODES_DAYS * DAY + 60, outbox)
    assert (swept.rows.codes, swept.rows.sessions, swept.rows.reports, swept.rows.tables) == (1, 0, 0, 0)
    assert store.latest_login_code("bob@example.com", "asker") is None
    # the outbox's mails after a week
    assert purge(store, t0 + OUTBOX_DAYS * DAY + 60, outbox).outbox == 1
    assert [p.name for p in outbox.iterdir()] == ["new.eml"]
    # a guest table someone came back to stays; after the retention with nothing done, it goes
    swept = purge(store, t0 + GUEST_TABLES_DAYS * DAY - 60, outbox)
    assert swept.rows.tables == 0 and client.get(f"/g/{guest}").status_code == 200
    later = t0 + max(GUEST_TABLES_DAYS, SESSIONS_DAYS, GUARDS_DAYS) * DAY + 2 * 3600
    # a table a process still holds in memory waits until it is let go (nobody there, idle)
    swept = purge(store, later, outbox, service.in_memory)
    assert swept.rows.tables == 0 and swept.rows.sessions == 1 and swept.rows.reports == 0
    service.clock = lambda: later
    service.sweep()
    before = codes()
    assert purge(store, later, outbox, service.in_memory).rows.tables == 1
    assert codes() == before - 1
    assert client.get(f"/g/{guest}").status_code == 404
    assert client.get(f"/g/{guest}/record.json").status_code == 404
    assert account.get(f"/g/{kept}/record.json").status_code == 200  # an account's table stays
    assert store.signin_live("sid-ann", "u-ann")  # a live session stays
    assert len(store.reports()) == 1
    # reports after their retention
    swept = purge(store, t0 + REPORTS_DAYS * DAY + 2 * 3600, outbox)
    assert swept.rows.reports == 1 and store.reports() == []
    assert account.get(f"/g/{kept}").status_code == 200


def test_a_guest_table_is_never_one_where_an_account_played(client, service):
    store = service.store
    t0 = time.time()
    service.clock = lambda: t0
    code = start_practice(client)
    assert service.wait_idle()
    assert code in store.guest_tables_idle(t0 + GUEST_TABLES_DAYS * DAY + 60)
    # the guest signs in: the seat moves to the account, and the table is theirs to keep
    with client.session_transaction() as s:
        pid = s["pid"]
    store.sign_in("ann@example.com", "u-ann", pid, "Ann", "", t0)
    assert code not in store.guest_tables_idle(t0 + GUEST_TABLES_DAYS * DAY + 60)
    assert purge(store, t0 + GUEST_TABLES_DAYS * DAY + 60).rows.tables == 0
