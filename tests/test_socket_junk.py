"""Messages a table's socket cannot read are answered 400 with the words that say so, and
the socket stays open: nested deeper than the JSON parser goes, bytes that are not UTF-8,
fields that are not text or hold a lone surrogate (an unknown route: 404). Through a real socket against a
live server; the same socket then takes a bid."""

from __future__ import annotations

import html
import json
import re

import pytest
from conftest import open_ws, start_practice

MESSAGE = re.compile(r'<p class="message" role="alert"([^>]*)>([^<]*)</p>')
DEEP = 2000  # levels: past the parser's recursion limit, well inside the message size cap


def refusal(ws) -> tuple[dict[str, str], str]:
    """The next refusal ``ws`` gets: its message's marks and words (frames of the table's
    own changes before it are passed over)."""
    while True:
        frame = ws.receive(timeout=10)
        assert frame is not None, "the socket was closed with no answer"
        if "data-status=" in frame:
            m = MESSAGE.search(frame)
            assert m, frame[:500]
            return dict(re.findall(r"(data-\w+)=\"([^\"]*)\"", m.group(1))), html.unescape(m.group(2))


@pytest.fixture
def seat(client, service, live_server):
    """A practice table whose bots bid up to the person's seat, and the page's socket."""
    code = start_practice(client)
    ws = open_ws(live_server, code, client.get_cookie("session").value)
    assert ws.receive(timeout=5)
    yield code, ws
    ws.close()


@pytest.mark.parametrize(("text", "status", "said"), [
    ("[" * DEEP + "]" * DEEP, "400", "not understood"),
    ('{"route": "act", "ack": 3, "x": ' + "[" * DEEP + "]" * DEEP + "}", "400", "not understood"),
    (b"\xff\xfe{not utf-8}", "400", "not understood"),
    ('{"route": "act", "action": {"nested": ["bid"]}}', "400", "not text"),
    ('{"route": "act", "action": "\\ud800", "version": "1"}', "400", "is not a card"),  # a lone surrogate
    ('{"route": "\\udfff", "\\ud800": 1}', "404", "No such route"),
], ids=["nested-lists", "nested-field", "bytes", "field-not-text", "surrogate-field", "surrogate-route"])
def test_a_message_it_cannot_read_is_answered_400_and_the_socket_stays_open(seat, service, text, status, said,
                                                                             caplog):
    code, ws = seat
    assert service.wait_idle()
    v = service.snapshot(code, None).view.to_json()["version"]
    ws.send(text)
    marks, words = refusal(ws)
    assert marks["data-status"] == status and said in words
    ws.send(json.dumps({"route": "act", "action": "bid", "bid": "3", "version": str(v)}))
    while f'data-version="{v + 1}"' not in (frame := ws.receive(timeout=10) or ""):
        assert frame, "the socket was closed"
    assert "Traceback" not in caplog.text
