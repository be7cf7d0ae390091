"""The rules page (``/rules``): how to play in plain words, with pictures of cards; the
scoring with worked examples (worked out by ``spades.scoring``, so the page and the
engine agree); the house rules (RULES.md "House rules"), each with a worked example whose
figures come from the table's shape and ``spades.scoring``; this site's options; and,
when the address carries a table's options (``rules_url``, linked from every table's
rules line), "the rules at this table".

A query value that is not one of an option's choices is answered 400 with that option's
message; unknown query keys are ignored.

Imports: Flask, the core (``spades.scoring``, ``spades.rules_config``) and ``spades.web.rooms.options``.
"""

from __future__ import annotations

from dataclasses import dataclass

from flask import Blueprint, Flask, render_template, request

from ...rules_config import Rules, RulesError
from ...scoring import score_hand
from ..rooms.options import CUSTOM, DEFAULTS, OPTION, OPTIONS, Option, house_settings, rules_line

bp = Blueprint("rules", __name__)


@dataclass(frozen=True, slots=True)
class Example:
    """A worked example: the story, the bids and tricks, and each team's points."""

    title: str
    story: str
    points: tuple[int, int]
    bags: tuple[int, int]


def _example(title: str, story: str, bids: list[int], tricks: list[int], rules: Rules | None = None,
             bags_before: tuple[int, int] = (0, 0)) -> Example:
    s = score_hand(rules or Rules(), list(bids), [False] * 4, tricks, list(bags_before))
    return Example(title, story, (s.teams[0].total, s.teams[1].total), (s.teams[0].bags_after, s.teams[1].bags_after))


EXAMPLES = (
    _example("A contract made, with bags", "You bid 4 and your partner 3: the contract is 7. "
             "Together you take 9 tricks; the others bid 3 + 2 and take 4.", [4, 3, 3, 2], [5, 2, 4, 2]),
    _example("A contract set", "You bid 4 and your partner 3 (7), and take only 6 tricks; the others bid 5 "
             "and take 7.", [4, 2, 3, 3], [3, 4, 3, 3]),
    _example("A nil that fails", "You bid 4 and your partner nil. Your partner takes 2 tricks, you take 5; "
             "the others bid 3 + 3 and take 6.", [4, 3, 0, 3], [5, 3, 2, 3]),
    _example("A nil made", "Your partner bids nil and takes nothing; you bid 5 and take 6. The others bid 4 + 3 "
             "and take 7.", [5, 4, 0, 3], [6, 4, 0, 3]),
    _example("The bag penalty", "Your team had 8 bags. You bid 6 together and take 11: 5 more bags make 13, "
             "so 100 points come off and 3 bags are carried.", [3, 1, 3, 1], [6, 1, 5, 1], bags_before=(8, 0)),
)


def _house_examples() -> dict:
    """The figures of the house rules' worked examples, from the shapes and the scoring."""
    three = Rules(players=3, partners=False)
    cut = score_hand(three, [4, 5, 6], [False] * 3, [6, 5, 6], [0, 0, 0]).teams
    ten = Rules(ten_for_200=True)
    made = score_hand(ten, [6, 2, 4, 1], [False] * 4, [7, 1, 4, 1], [0, 0]).teams[0]
    set_ = score_hand(ten, [6, 2, 4, 1], [False] * 4, [5, 3, 4, 1], [0, 0]).teams[0]
    jjdd, jj = Rules(jokers="jjdd").shape, Rules(jokers="jj").shape
    return {
        "three": {"cards": three.shape.hand_size, "deck": len(three.shape.deck),
                  "removed": [str(c) for c in three.shape.removed]},
        # you bid 4 and take 6; the others bid 5 and 6 and take 5 and 6
        "cutthroat": {"points": cut[0].total, "bags": cut[0].bags_after, "others": (cut[1].total, cut[2].total)},
        "jjdd": {"trumps": [str(c) for c in jjdd.trumps[:6]], "lowest": str(jjdd.trumps[-1]),
                 "removed": [str(c) for c in jjdd.removed]},
        "jj": {"trumps": [str(c) for c in jj.trumps[:4]], "removed": [str(c) for c in jj.removed]},
        "ten_made": (made.total, made.bags_after), "ten_set": set_.total,
    }


HOUSE = _house_examples()


@dataclass(frozen=True, slots=True)
class Setting:
    """One option as the page explains it, with this table's value when asked."""

    option: Option
    value: str  # this table's choice, in the form's words ("" when not asked)


def _asked() -> tuple[dict, str] | str | None:
    """This table's settings from the query (None: no table asked), or the message for a
    value that is not a choice."""
    if not any(o.name in request.args for o in OPTIONS):
        return None
    settings: dict = dict(DEFAULTS)
    for o in OPTIONS:
        if o.house:
            continue  # the preset and the switches together, below
        posted = request.args.get(o.name, "" if o.kind == "on_off" else None)
        if posted is None:
            continue
        if posted == "" and o.kind != "on_off":
            settings[o.key] = None  # a table without that option (no clock at a practice table)
            continue
        chosen = o.parse(posted)
        if chosen is None or (o.kind == "on_off" and posted not in ("", "on")):
            return o.message
        settings.update(chosen)
    house = house_settings(request.args)
    if isinstance(house, str):
        return house
    try:  # a combination RULES.md does not offer is no table's
        Rules(mode=settings.get("mode") or "bidding", **house)
    except RulesError as e:
        return str(e)
    settings.update(house)
    settings["preset"] = OPTION["preset"].value(settings)
    return settings, settings.get("level", "normal")


def _shown_value(o: Option, settings: dict, asked: set[str]) -> str:
    if o.kind == "on_off":
        return "on" if settings.get(o.key) else "off"
    if o.name not in asked and not o.house:  # the house rules are always known (a preset says them)
        return "–"
    v = o.value(settings)
    return next((c.label for c in o.choices if c.value == v), "–")


@bp.get("/rules")
def page():
    """How to play; with a table's options in the query, that table's rules too."""
    asked = _asked()
    if isinstance(asked, str):
        return render_template("errors/error.html", status=400, title="Not a table's option", message=asked), 400
    table = None
    if asked is not None:
        settings, level = asked
        table = {"line": rules_line(settings, level),
                 "settings": [Setting(o, _shown_value(o, settings, {k for k, v in request.args.items() if v}))
                              for o in OPTIONS],
                 "bidding": settings.get("mode") == "bidding", "bag_penalty": settings.get("bag_penalty"),
                 "blind_nil": settings.get("blind_nil"), "set_scores_zero": settings.get("set_scores_zero"),
                 "end": settings.get("end"), "target": settings.get("target"), "hands": settings.get("hands"),
                 "house": {k: settings.get(k) for k in ("players", "partners", "jokers", "bidding_variant", "min_bid",
                                                        "ten_for_200", "spades_lead")},
                 "preset": settings.get("preset"), "custom": settings.get("preset") == CUSTOM}
    return render_template("rules/rules.html", examples=EXAMPLES, options=OPTIONS, table=table, house=HOUSE)


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
