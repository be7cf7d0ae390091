"""The home page and the practice form: one click starts a match against three bots.

Imports: Flask, ``spades.tables`` and the core.
"""

from __future__ import annotations

from flask import Blueprint, abort, current_app, redirect, render_template, request, session

from ..rules_config import Rules
from ..tables import LEVELS, TableService
from .identity import player_id

bp = Blueprint("lobby", __name__)

SPEEDS = ("slow", "normal", "fast")
ENDS = {f"target-{t}": {"end": "target", "target": t} for t in (200, 250, 300, 500)} | \
       {f"hands-{h}": {"end": "hands", "hands": h} for h in (5, 9, 11)}
MAX_NAME = 20


def service() -> TableService:
    return current_app.extensions["spades.tables"]


@bp.get("/")
def home():
    return render_template("lobby/home.html", name=session.get("name", ""), last_table=session.get("last_table"))


@bp.post("/practice")
def practice():
    """Start a practice match from the form; 303 to its table. Bad values are a 400."""
    form = request.form
    level = form.get("level", "normal")
    speed = form.get("speed", "normal")
    end = form.get("end", "target-500")
    if level not in LEVELS:
        abort(400, description="Choose a level: easy, normal or hard.")
    if speed not in SPEEDS:
        abort(400, description="Choose a play speed: slow, normal or fast.")
    if end not in ENDS:
        abort(400, description="Choose how the match ends: a target of 200, 250, 300 or 500 points, or 5, 9 or 11 hands.")
    name = " ".join(form.get("name", "").split())[:MAX_NAME] or "You"
    rules = Rules(**ENDS[end], bag_penalty=form.get("bag_penalty") == "on",
                  blind_nil=form.get("blind_nil") == "on", tempo="off", play_speed=speed)
    session["name"] = name if name != "You" else session.get("name", "")
    code = service().create_practice(player_id(create=True), name, rules, level)
    return redirect(f"/g/{code}", 303)
