"""A table's options, each declared once, and everything derived from the declarations.

Each ``Option`` says what one form field chooses: its name (a contract: outside checks post
it), its label, its choices with the settings each one makes, the words the rules line
says of it, and the message when a posted value is not one of its choices. From these
come the options form (``lobby/_options.html`` loops over ``OPTIONS``; the home page's
practice form picks some by name), the parsing of a posted form (``table_options``), the
values a form shows for a table (``option_values``), the rules line (``rules_line``) and
the link to the rules page that shows a table's options (``rules_url``).

House rules (RULES.md, "House rules") are options like the others, marked ``house``: a
preset (``preset``: ``standard``, ``cutthroat-3``, ``cutthroat-4``, ``jjdd``, ``jj`` from
``spades.rules_config.PRESETS``, or ``custom``) and one switch per house key, each field
named as RULES.md names the key (``players``, ``partners``, ``jokers``, ``bidding``,
``min_bid``, ``ten_for_200``, ``spades_lead``). How they combine: a named preset sets every
house key (the switches posted with it are not read), so a form without JavaScript gets
the preset it shows, and a form that posts no ``preset`` at all (an older page, the home
page's quick Practice) gets standard rules; ``custom`` ("one by one") means the switches
as posted. With JavaScript (``static/house_rules.js``), picking a preset sets the
switches to it, and touching a switch sets the preset to ``custom``. A combination
RULES.md does not offer is refused with ``RulesError``'s sentence, and a shape with fewer
seats than the people asked for with a sentence of its own; the form says beside the
choices what whiz, mirror, suicide and the jokers mean (``Choice.note``), and disables a
choice that cannot go with what else is chosen (``house_fences``, worked out from ``Rules``).
The rules line names a named preset ("Cutthroat for 3", "Jokers JJDD"), or each switch away from its default ("3
players", "cutthroat", "whiz bidding"...); Standard goes without saying.

The allowed values of the rules themselves live with ``Rules`` (``spades.rules_config``),
the bots' levels with the table service (``spades.tables.LEVELS``); the ends a table may
choose (``TARGETS``, ``HANDS``) live here.

Imports: the core (``spades.rules_config``) and ``spades.tables``; never Flask.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any, Literal
from urllib.parse import urlencode

from ...bots import DEFAULT_LEVEL
from ...rules_config import (
    BIDDING_VARIANTS,
    CLOCK_TEMPOS,
    FRIENDS_TEMPOS,
    HOUSE_DEFAULTS,
    JOKER_DECKS,
    MIN_BIDS,
    MODES,
    NO_CLOCK,
    PLAY_SPEEDS,
    PLAYER_COUNTS,
    PRESETS,
    SPADES_LEADS,
    SUICIDE_BID,
    TURN_TEMPOS,
    UNTIMED,
    Rules,
    RulesError,
)
from ...tables import LEVELS

TARGETS = (200, 250, 300, 500)  # points a match may be played to
# turn-based tempos, as the options form and the rules line say them
TURN_WORDS = {"hours-12": "12 hours a move", "days-1": "1 day a move", "days-3": "3 days a move"}
HANDS = (5, 9, 11)  # ... or a number of hands


@dataclass(frozen=True, slots=True)
class Choice:
    """One value of an option: what the form posts, what it shows, what it sets."""

    value: str
    label: str
    settings: Mapping[str, Any]  # Rules fields, or the table's bots' ``level``
    note: str = ""  # a sentence the form shows beside the choice, saying what it means


@dataclass(frozen=True, slots=True)
class Option:
    """One field of the options form and what it means for the table."""

    name: str  # the form field
    key: str  # the setting the rules line and the form's current value are read from
    kind: Literal["one_of", "select", "on_off"]  # radio buttons, a drop-down list, a checkbox
    label: str
    choices: tuple[Choice, ...]  # empty for on/off: checked (``on``) sets ``key`` to True
    message: str  # the answer to a value that is not one of the choices
    # the rules line's words by the value of ``key``, formatted with the table's settings;
    # a value missing here is not mentioned (the usual ones go without saying)
    words: Mapping[Any, str]
    line: int  # its place in the rules line
    checked: int  # its place in the order a posted form is checked (its first bad value is told)
    # a house rule (RULES.md "House rules"): the preset, or one of the switches (read only
    # with the preset ``custom``, said in the rules line only when no named preset fits)
    house: bool = False

    def parse(self, posted: str | None) -> Mapping[str, Any] | None:
        """The settings a posted value makes; None when it is not one of the choices."""
        if self.kind == "on_off":
            return {self.key: posted == "on"}
        for choice in self.choices:
            if choice.value == posted:
                return choice.settings
        return None

    def value(self, settings: Mapping[str, Any]) -> str:
        """The form's value for a table with these settings ("" when none of the choices)."""
        if self.kind == "on_off":
            return "on" if settings.get(self.key) else ""
        for choice in self.choices:
            if all(settings.get(k) == v for k, v in choice.settings.items()):
                return choice.value
        return ""

    def said(self, settings: Mapping[str, Any]) -> str:
        """What the rules line says of this option ("" for nothing)."""
        return self.words.get(settings.get(self.key), "").format(**settings)

    @property
    def fences(self) -> tuple[Fence, ...]:
        """This option's choices that cannot go with another option's choice (``house_fences``)."""
        return house_fences().get(self.name, ())


def _either(values: tuple[object, ...]) -> str:
    """``a, b or c``."""
    words = [str(v) for v in values]
    return f"{', '.join(words[:-1])} or {words[-1]}"


def _one_of(name: str, label: str, values: tuple[str, ...], message: str, line: int, checked: int,
            key: str | None = None, words: str | Mapping[str, str] = "") -> Option:
    """Radio buttons over ``values`` (``no_bidding`` shows as "No bidding"), each setting
    ``key`` (the field's name unless told) to itself; said in the rules line as ``words``
    (one format for every value, or by value)."""
    key = key or name
    choices = tuple(Choice(v, v.replace("_", " ").capitalize(), {key: v}) for v in values)
    said = words if isinstance(words, Mapping) else {v: words for v in values if words}
    return Option(name, key, "one_of", label, choices, message, said, line, checked)


def _on_off(name: str, label: str, words: str, line: int, checked: int | None = None, house: bool = False,
            said_when: bool = True) -> Option:
    """A checkbox for the Rules field ``name``, said in the rules line as ``words`` when
    it is ``said_when`` (on, unless told)."""
    return Option(name, name, "on_off", label, (), "", {said_when: words}, line,
                  checked=line if checked is None else checked, house=house)


def _house(name: str, label: str, choices: tuple[tuple[object, str], ...], message: str, line: int,
           words: Mapping[Any, str], key: str | None = None, kind: Literal["one_of", "select"] = "one_of",
           notes: Mapping[Any, str] | None = None) -> Option:
    """A house rule's switch over the values of its Rules field (``key``: the field, the
    form field's name unless told), each posted as its text, with the label shown and the
    sentence ``notes`` has for it."""
    key = key or name
    notes = notes or {}
    return Option(name, key, kind, label,
                  tuple(Choice(str(v), shown, {key: v}, notes.get(v, "")) for v, shown in choices),
                  message, words, line, checked=line, house=True)


# what the house rules a friend may not know mean, a sentence each beside the choice (RULES.md)
JJDD_NOTE = "Joker-Joker-Deuce-Deuce: the 2♣ and 2♥ go out, the two jokers come in, and the big joker, " \
    "the little joker, the 2♦ and the 2♠ are the highest spades, above the ace."
BIDDING_NOTES = {
    "whiz": "Each player bids nil or exactly the number of spades they hold.",
    "mirror": "Each player bids exactly the number of spades they hold, nil with none (no blind nil).",
    "suicide": f"In each team one partner bids nil and the other {SUICIDE_BID} or more.",
}
JOKER_NOTES = {"jj": "The 2♣ and 2♦ go out and the two jokers come in as the highest spades.", "jjdd": JJDD_NOTE}
PRESET_NOTES = {"jjdd": f"{JJDD_NOTE} A team bids at least 4, and a contract of 10 or more counts double."}

CUSTOM = "custom"  # the preset value "the house rules one by one, as the switches say"
_PRESET_CHOICES = tuple(Choice(name, label, {**HOUSE_DEFAULTS, **keys}, PRESET_NOTES.get(name, ""))
                        for name, (label, keys) in PRESETS.items()) + \
    (Choice(CUSTOM, "One by one", {}),)  # last: its empty settings fit every table


_ENDS = tuple(Choice(f"target-{t}", f"at {t} points", {"end": "target", "target": t}) for t in TARGETS) + \
    tuple(Choice(f"hands-{h}", f"after {h} hands", {"end": "hands", "hands": h}) for h in HANDS)

# In the order of the options form. The rules line begins with the bots' level (``line``),
# and a posted form is checked in the order it always was (``checked``), the house rules last.
OPTIONS: tuple[Option, ...] = (
    _one_of("mode", "Rules", MODES, "Choose bidding or no-bidding rules.", line=3, checked=2,
            words={"no_bidding": "no bidding"}),
    Option("end", "end", "select", "The match ends", _ENDS,
           f"Choose how the match ends: a target of {_either(TARGETS)} points, or {_either(HANDS)} hands.",
           {"target": "to {target}", "hands": "{hands} hands"}, line=20, checked=4),
    _on_off("bag_penalty", "Bag penalty (−100 for every 10 bags)", "bag penalty", line=21, checked=5),
    _on_off("blind_nil", "Blind nil (bid nil before looking, ±200)", "blind nil", line=22, checked=6),
    _on_off("set_scores_zero", "A set contract scores zero (not minus)", "a set scores zero", line=23, checked=7),
    # a table without clocks (one person's: ``NO_CLOCK``) says nothing of its tempo; friends
    # who chose to play untimed see it said
    Option("tempo", "tempo", "one_of", "Tempo (with friends)",
           tuple(Choice(v, v.capitalize(), {"tempo": v}) for v in CLOCK_TEMPOS) +
           tuple(Choice(v, TURN_WORDS[v].capitalize(), {"tempo": v}) for v in TURN_TEMPOS) +
           (Choice(UNTIMED, "No clock", {"tempo": UNTIMED}),),
           f"Choose a tempo: {_either(FRIENDS_TEMPOS)}.",
           {**{v: "{tempo} tempo" for v in CLOCK_TEMPOS}, **TURN_WORDS, UNTIMED: "no clock"}, line=2, checked=3),
    _one_of("level", "Bots", LEVELS, f"Choose the bots' level: {_either(LEVELS)}.", line=0, checked=0,
            words="{level} bots"),
    _one_of("speed", "Play speed", PLAY_SPEEDS, f"Choose a play speed: {_either(PLAY_SPEEDS)}.", line=1, checked=1,
            key="play_speed", words="{play_speed} play"),
    # the house rules: the preset, then each switch (RULES.md's keys, in its order)
    Option("preset", "preset", "select", "House rules", _PRESET_CHOICES,
           f"Choose the house rules: {_either(tuple(c.label for c in _PRESET_CHOICES))}.",
           {name: label for name, (label, keys) in PRESETS.items() if keys}, line=4, checked=8, house=True),
    _house("players", "Players", tuple((n, f"{n} players") for n in PLAYER_COUNTS),
           f"Choose the players: {_either(PLAYER_COUNTS)}.", line=5, words={3: "3 players"}),
    _on_off("partners", "Partners (two teams of two; off: cutthroat, everyone alone)", "cutthroat", line=6,
            house=True, said_when=False),
    _house("jokers", "Jokers", (("none", "No jokers"), ("jj", "Jokers (JJ)"), ("jjdd", "Jokers (JJDD)")),
           f"Choose the jokers: {_either(JOKER_DECKS)}.", line=7, words={"jj": "jokers (JJ)", "jjdd": "jokers (JJDD)"},
           notes=JOKER_NOTES),
    _house("bidding", "Bidding", tuple((v, v.capitalize()) for v in BIDDING_VARIANTS),
           f"Choose the bidding: {_either(BIDDING_VARIANTS)}.", line=8, key="bidding_variant",
           words={v: f"{v} bidding" for v in BIDDING_VARIANTS[1:]}, notes=BIDDING_NOTES),
    _house("min_bid", "Minimum bid of a team", tuple((n, str(n) if n else "None") for n in MIN_BIDS),
           f"Choose the minimum bid: {_either(MIN_BIDS)}.", line=9, kind="select",
           words={n: f"minimum bid {n}" for n in MIN_BIDS[1:]}),
    _on_off("ten_for_200", "10-for-200 (a contract of 10 or more counts double)", "10-for-200", line=10, house=True),
    _house("spades_lead", "Leading spades", (("broken", "Once broken"), ("any", "Any time")),
           f"Choose when spades may be led: {_either(SPADES_LEADS)}.", line=11, words={"any": "spades led any time"}),
)
OPTION = {o.name: o for o in OPTIONS}
_LINE = sorted(OPTIONS, key=lambda o: o.line)
_CHECKED = sorted(OPTIONS, key=lambda o: o.checked)

# Which choices cannot go together. ``Rules`` refuses a combination of house rules RULES.md
# does not offer (``RulesError``); the options form disables a choice that cannot go with
# what else is chosen (static/site.js, from each field's ``Option.fences``), and the server
# refuses it anyway. Worked out from ``Rules`` itself, once: every combination of the house
# switches and the options those combinations name (``_BESIDE_HOUSE``), and of each named
# preset with those options; two choices are fenced apart when no combination allowed holds
# both, with the sentence ``Rules`` refuses them with.
_BESIDE_HOUSE = ("mode", "blind_nil")  # the options besides the house rules that their combinations name
Fence = tuple[str, str, str, str]  # (a choice of this option, another option, its choice, why not together)


def _values_of(option: Option) -> tuple[str, ...]:
    """The form values of an option that set something (a named preset, not "one by one")."""
    return ("on", "") if option.kind == "on_off" else tuple(c.value for c in option.choices if c.settings)


def _apart(group: tuple[Option, ...]) -> dict[tuple[tuple[str, str], tuple[str, str]], str]:
    """The pairs of choices of ``group`` that no rules allowed hold together, each with the
    sentence of a combination refused for that pair alone."""
    together: set[tuple[tuple[str, str], tuple[str, str]]] = set()
    refused: list[tuple[set[tuple[tuple[str, str], tuple[str, str]]], str]] = []
    defaults = asdict(Rules())
    for values in itertools.product(*(_values_of(o) for o in group)):
        settings: dict[str, Any] = dict(defaults)
        for option, value in zip(group, values):
            settings.update(option.parse(value) or {})
        pairs = set(itertools.combinations(tuple((o.name, v) for o, v in zip(group, values)), 2))
        try:
            Rules(**settings)
        except RulesError as e:
            refused.append((pairs, str(e)))
            continue
        together |= pairs
    apart: dict[tuple[tuple[str, str], tuple[str, str]], str] = {}
    for pairs, why in sorted(refused, key=lambda r: len(r[0] - together)):  # the pair alone first
        for pair in pairs - together:
            apart.setdefault(pair, why)
    return apart


@functools.cache
def house_fences() -> dict[str, tuple[Fence, ...]]:
    """Each option's fences by its name: the choices of it that cannot go with another
    option's choice, and why (both ways round)."""
    beside = tuple(OPTION[name] for name in _BESIDE_HOUSE)
    switches = tuple(o for o in OPTIONS if o.house and o.name != "preset")
    fences: dict[str, list[Fence]] = {}
    for group in (switches + beside, (OPTION["preset"],) + beside):
        for ((a, x), (b, y)), why in _apart(group).items():
            fences.setdefault(a, []).append((x, b, y, why))
            fences.setdefault(b, []).append((y, a, x, why))
    return {name: tuple(dict.fromkeys(found)) for name, found in fences.items()}


# A new table's settings: the rules' defaults and the bots' usual level.
DEFAULTS: Mapping[str, Any] = {**asdict(Rules()), "level": DEFAULT_LEVEL}
END_CHOICES = {c.value: dict(c.settings) for c in _ENDS}  # the match's ends by form value


def settings_of(rules: Mapping[str, Any], level: str) -> dict[str, Any]:
    """A table's settings as the options read them: the defaults, its rules (as stored,
    ``dataclasses.asdict``, or as a seat view or a record carries them: the bidding variant
    under ``bidding``), its bots' level, and the preset its house rules are (``custom``
    when none fits)."""
    settings = {**DEFAULTS, **rules, "level": level}
    if isinstance(rules.get("bidding"), str):
        settings["bidding_variant"] = rules["bidding"]
    settings.pop("bidding", None)
    settings["preset"] = OPTION["preset"].value(settings)
    return settings


def option_values(rules: Mapping[str, Any], level: str) -> dict[str, str]:
    """A table's options as the options form shows them, by field name."""
    settings = settings_of(rules, level)
    return {o.name: o.value(settings) for o in OPTIONS}


DEFAULT_VALUES = option_values(DEFAULTS, DEFAULT_LEVEL)  # a new table's form
# each named preset as the house switches show it, by field name (the form's script sets them)
PRESET_VALUES = {c.value: {o.name: o.value(c.settings) for o in OPTIONS if o.house and o.name != "preset"}
                 for c in _PRESET_CHOICES if c.settings}


def house_settings(form: Mapping[str, str]) -> Mapping[str, Any] | str:
    """The house rules a posted form chooses (every house key): a named preset's, standard
    when the form posts none, or with ``custom`` each switch as posted; the message for
    the first value that is not one of the choices."""
    preset = OPTION["preset"]
    chosen = preset.parse(form.get("preset", "standard"))
    if chosen is None:
        return preset.message
    if form.get("preset") != CUSTOM:
        return chosen
    settings: dict[str, Any] = {}
    for option in _CHECKED:
        if option.house and option is not preset:
            # a switch not posted keeps its default (an unticked checkbox is off)
            switch = option.parse(form.get(option.name, "" if option.kind == "on_off" else DEFAULT_VALUES[option.name]))
            if switch is None:
                return option.message
            settings.update(switch)
    return settings


def table_options(form: Mapping[str, str], people: int) -> tuple[Rules, str] | str:
    """A table's rules and bots' level from a posted options form (a new table, or the
    room before the first deal); the message for the first value that is not allowed, a
    combination of house rules RULES.md does not offer (``RulesError``'s sentence), or
    more people than the table seats."""
    settings: dict[str, Any] = {}
    for option in _CHECKED:
        if option.house:
            continue
        chosen = option.parse(form.get(option.name))
        if chosen is None:
            return option.message
        settings.update(chosen)
    house = house_settings(form)
    if isinstance(house, str):
        return house
    settings.update(house)
    level = settings.pop("level")
    if people == 1:
        settings["tempo"] = NO_CLOCK  # one person plays without clocks
    try:
        rules = Rules(**settings)
    except RulesError as e:
        return str(e)
    if people > rules.players:
        return f"A table of {rules.players} players is for 1 to {rules.players} people."
    return rules, level


# what a no-bidding table (the tourney rules: no bids, no nil, no bags) never says
BIDDING_ONLY = frozenset({"bag_penalty", "blind_nil", "set_scores_zero"})
TOURNEY_CLOCK = "tourney clock"  # what it says of its clock instead of a tempo


def rules_url(rules: Mapping[str, Any], level: str) -> str:
    """The rules page showing this table's options (``/rules?mode=…#this-table``); a
    no-bidding table's link leaves out the options it has no use for, as its rules line does,
    and a table of a named preset the house switches (the preset says them)."""
    values = option_values(rules, level)
    if values.get("mode") == "no_bidding":
        values = {k: v for k, v in values.items() if k not in BIDDING_ONLY}
    if values.get("preset") != CUSTOM:  # a named preset says every house rule
        values = {k: v for k, v in values.items() if not (OPTION[k].house and k != "preset")}
    return "/rules?" + urlencode(values) + "#this-table"


def rules_line(rules: Mapping[str, Any], level: str) -> str:
    """A table's options in a line: ``Easy bots · normal play · relaxed tempo · to 500 · bag penalty``;
    with house rules, their preset or each switch away from its default after the tempo
    (``… · normal tempo · Cutthroat for 3 · to 500 …``)."""
    settings = settings_of(rules, level)
    no_bidding = settings.get("mode") == "no_bidding"
    one_by_one = settings["preset"] == CUSTOM
    said = [o for o in _LINE if not (no_bidding and o.name in BIDDING_ONLY)
            and not (o.house and o.name != "preset" and not one_by_one)]
    # a no-bidding table runs the tourney clock whatever its tempo, unless it has no clock
    # at all (``spades.clocks``)
    tourney_clock = no_bidding and settings.get("tempo") in CLOCK_TEMPOS
    words = (TOURNEY_CLOCK if tourney_clock and o.name == "tempo" else o.said(settings) for o in said)
    line = " · ".join(w for w in words if w).replace(" 1 hands", " 1 hand")
    return line[:1].upper() + line[1:]  # "Easy bots · …": the level, said first, with a capital
