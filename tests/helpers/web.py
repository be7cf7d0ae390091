"""The table page over HTTP: views read and moves made."""

from __future__ import annotations

from conftest import csrf_of

HX = {"HX-Request": "true"}


def view(client, code) -> dict:
    return client.get(f"/g/{code}/view.json").get_json()


def move(client, code, action, version, htmx=True, **extra):
    data = {"csrf": csrf_of(client), "action": action, "version": str(version), **extra}
    return client.post(f"/g/{code}/act", data=data, headers=HX if htmx else {})


def to_my_card_turn(client, service, code, rng) -> dict:
    """Bid 3 / play random legal cards for seat 0 until it is seat 0's turn to play."""
    while True:
        assert service.wait_idle()
        v = view(client, code)
        if v["phase"] == "playing" and v["to_act"] == 0:
            return v
        assert v["to_act"] == 0, v
        assert move(client, code, "bid", v["version"], bid="3").status_code == 200
