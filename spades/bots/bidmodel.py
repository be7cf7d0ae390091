"""The calibrated bid model: how many tricks a hand takes, how often a nil with it is made,
and the bid with the best expected value.

The numbers come from ``bidmodel.json`` beside this module, written by
``python -m spades.bots.calibrate`` from hundreds of thousands of dealt hands played out
(see that module): a small linear model turns a hand's features into a predicted trick
count, and a table keyed by that prediction (in quarter tricks) and the spade length gives
the distribution of the tricks such hands really took; a logistic model gives the chance
of a nil. The file is read once, on first use, and checked against ``SCHEMA``.

``choose_bid`` is the Normal bot's bid: for every contract it adds up the hand's points
over the team's trick distribution (made: 10 a trick of the contract and the bags at
their cost under the bag penalty; set: minus 10 a trick, or nothing when a set scores
zero), and takes the best; nil when its chance at the table (``table_nil_chance``: the
model's chance as measured at arena tables, with the bids made before ours) makes it worth
more than the best number.
Near the match end only the bags are valued differently (the penalty they trigger now):
there is no bonus for the points that would win or lose the match this hand (one of 300
points, the opponents' points guessed from their bids, lost 3-4 matches in 100 against
``punisher`` and 2-3 against the yardstick: docs/bots.md). The first bidder of a team
bids its own tricks; the second adds its tricks to what the partner's bid says the
partner holds (the distribution of tricks of hands that bid that number). The other
seats' bids shift the team's distribution (the four seats share 13 tricks), and so does
the gift: in a bidding hand a team takes more than its tricks played to win, since
opponents who have made their contract duck.

Imports: ``spades.cards``, ``spades.rules_config`` (the ``Rules`` value) and the
standard library.
"""

from __future__ import annotations

import importlib.resources
import json
import math
from dataclasses import dataclass, field
from pathlib import Path

from ..cards import SPADE_MASK
from ..rules_config import Rules

SCHEMA = 2
# beside the package's source (this module may run compiled from elsewhere: ``native``)
PATH = Path(str(importlib.resources.files("spades.bots") / "bidmodel.json"))
MAX_T = 13
ACE, KING, QUEEN, JACK, TEN, NINE = 12, 11, 10, 9, 8, 7
SIDE_SUITS = (1, 2, 3)
LOW_CARDS = 6  # ranks 2-7 count as low cards that guard a high one in a nil

TRICK_FEATURES = (
    "spades", "ace_s", "king_s_guarded", "king_s_bare", "queen_s_guarded", "queen_s_short", "jack_s_long",
    "spades_over_3", "spades_over_4", "spades_over_5", "aces_side", "aces_side_long", "ak_side", "kx_side",
    "king_side_bare", "queen_side_honour", "queen_side_plain", "voids", "singletons", "doubletons",
    "ruffs", "ruffs_long",
)
NIL_FEATURES = (
    "spades", "spades_over_2", "spades_over_3", "ace_s", "king_s", "queen_s", "jack_s", "ten_s", "nine_s",
    "aces_bare", "aces_guarded", "kings_bare", "kings_guarded", "queens_bare", "queens_guarded", "jacks_bare",
    "short_high", "voids", "leads",
)
SPADE_GROUPS = (2, 3, 4, 5)  # spade lengths up to 2, 3, 4, 5 and more: a table each
# The gift is measured in the Normal bot's own games; opponents who duck less give less,
# so the bids count a little under it (against the yardstick this keeps sets under 8%; with
# the table's nil chance below, fewer nils leave more numbers to bid, and 0.23 keeps Normal's
# sets under 8% against ``punisher``).
GIFT_MARGIN = 0.23
# A team ahead has more to lose by a set than to win by a trick more, so it counts further
# under: LEAD_MARGIN more tricks at a lead of LEAD_SCALE points or more, in proportion below
# (nothing when level or behind). Against ``punisher`` (8,000 matches) it cut Normal's sets
# from 8.3-8.9% of hands to 7.3-7.8% for 24 matches fewer won (docs/bots.md).
LEAD_MARGIN = 0.25
LEAD_SCALE = 150
# Tricks a team gives up when an opponent has bid nil: it spends high cards and leads to
# break the nil, and the nil's partner overtakes to cover it. Measured in the arena: against
# ``punisher``, a contract beside a nil to break was set 20% of the time without it, 7% with
# it (bids after such a nil count 1 trick under; 0.6 and 1.5 did worse).
NIL_ATTACK = 1.0
# A nil's chance at a table (``table_nil_chance``). The calibrated chance reads the 13 cards
# and was fitted on play-outs where a weak hand bid nil at random; the nils the model chose
# at real tables were made less often than it said (65-66% of those it put at 71%, against
# Normal itself and ``punisher``), its chances too close together, and the bids known
# before ours told more. Fitted on 15,600 of Normal's nils in the arena, against Normal, the
# yardstick and ``punisher`` pooled (docs/bots.md, "A nil's chance at the table"): the
# calibrated log-odds times NIL_SLOPE plus NIL_SHIFT, NIL_PARTNER_BID for each trick the
# partner bid above NIL_PARTNER_MEAN (a strong partner covers), NIL_OPPONENT_NIL when an
# opponent bid nil (its side plays to keep its own nil, not to break ours).
NIL_SHIFT = -0.451
NIL_SLOPE = 1.362
NIL_PARTNER_BID = 0.224
NIL_PARTNER_MEAN = 3.5
NIL_OPPONENT_NIL = 0.812


SUIT_BITS = 0x1FFF  # the 13 bits of one suit, shifted down to ranks 0-12 (as ``cards.SUIT_MASKS[0]``)


def _spade_part(sp: int) -> tuple[tuple[int, ...], int, int]:
    """The trick features a hand's spades (ranks) give alone, its spare spades (beyond the
    honours that count) and its spades beyond three."""
    ns = sp.bit_count()
    a = sp >> ACE & 1
    k = sp >> KING & 1
    q = sp >> QUEEN & 1
    j = sp >> JACK & 1
    counted = a + (k if ns >= 2 else 0) + (q if ns >= 3 else 0)
    feats = (ns, a, k if ns >= 2 else 0, k if ns == 1 else 0, q if ns >= 3 else 0, q if ns < 3 else 0,
             j if ns >= 4 else 0, max(0, ns - 3), max(0, ns - 4), max(0, ns - 5))
    return feats, max(0, ns - counted), max(0, ns - 3)


def _side_part(suit: int) -> tuple[tuple[int, ...], int]:
    """The trick features one side suit (ranks) gives (aces, aces in a long suit, A-K, K-x,
    bare kings, queens beside an honour, plain queens, voids, singletons, doubletons) and its
    shortness for ruffing (a void 2, a singleton 1)."""
    n = suit.bit_count()
    sa = suit >> ACE & 1
    sk = suit >> KING & 1
    sq = suit >> QUEEN & 1
    return ((sa if n <= 5 else 0, sa if n > 5 else 0,
             sk if n >= 2 and sa else 0, sk if n >= 2 and not sa else 0, sk if n == 1 else 0,
             1 if sq and n >= 3 and (sa or sk) else 0, 1 if sq and n >= 3 and not (sa or sk) else 0,
             1 if n == 0 else 0, 1 if n == 1 else 0, 1 if n == 2 else 0),
            2 if n == 0 else 1 if n == 1 else 0)


def trick_features(hand: int) -> tuple[int, ...]:
    """The features of 13 cards that the trick model reads (``TRICK_FEATURES``), small ints:
    the spades' part, the side suits' parts added up, and the ruffs the two make together."""
    spade, spare, over3 = _spade_part(hand & SUIT_BITS)
    side = [0] * 10
    short = 0
    for s in SIDE_SUITS:
        feats, sh = _side_part(hand >> (13 * s) & SUIT_BITS)
        short += sh
        for i, f in enumerate(feats):
            side[i] += f
    ruffs = min(short, spare)
    return (*spade, *side, ruffs, min(ruffs, over3))


def _nil_spade_part(sp: int) -> tuple[int, ...]:
    """The nil features a hand's spades (ranks) give."""
    ns = sp.bit_count()
    return (ns, max(0, ns - 2), max(0, ns - 3), sp >> ACE & 1, sp >> KING & 1, sp >> QUEEN & 1, sp >> JACK & 1,
            sp >> TEN & 1, sp >> NINE & 1)


def _nil_side_part(suit: int) -> tuple[int, ...]:
    """The nil features one side suit (ranks) gives: its aces, kings and queens bare or with
    two low cards to guard them, a bare jack, high cards in a short suit, a void."""
    n = suit.bit_count()
    if n == 0:
        return (0, 0, 0, 0, 0, 0, 0, 0, 1)
    guarded = 1 if (suit & ((1 << LOW_CARDS) - 1)).bit_count() >= 2 else 0
    counts = [0] * 7  # aces bare/guarded, kings bare/guarded, queens bare/guarded, jacks bare
    for i, r in enumerate((ACE, KING, QUEEN)):
        if suit >> r & 1:
            counts[2 * i + guarded] += 1
    if suit >> JACK & 1 and not guarded:
        counts[6] += 1
    return (*counts, (suit >> TEN).bit_count() if n <= 2 else 0, 0)


def nil_features(hand: int, leads: bool) -> tuple[int, ...]:
    """The features of 13 cards that the nil model reads (``NIL_FEATURES``); ``leads``:
    the seat leads the first trick."""
    side = [0] * 9
    for s in SIDE_SUITS:
        for i, f in enumerate(_nil_side_part(hand >> (13 * s) & SUIT_BITS)):
            side[i] += f
    return (*_nil_spade_part(hand & SUIT_BITS), *side, 1 if leads else 0)


def _dot(coef: list[float], feats: tuple[int, ...], start: int) -> float:
    """The coefficients from ``coef[start]`` on times ``feats``."""
    return sum((coef[start + i] * f for i, f in enumerate(feats) if f), 0.0)


@dataclass(slots=True)
class _Parts:
    """A linear model's terms looked up by suit: every spade holding's and every side
    suit's share of the sum (8,192 holdings each), worked out once for a set of
    coefficients, so a hand's prediction is a few lookups instead of its features."""

    coef: list[float]  # the coefficients the tables were made from
    spade: list[float]
    side: list[float]
    spare: list[int] = field(default_factory=list)  # trick model: spare spades, by holding
    over3: list[int] = field(default_factory=list)  # trick model: spades beyond three
    short: list[int] = field(default_factory=list)  # trick model: a side suit's shortness

    @classmethod
    def tricks(cls, coef: list[float]) -> _Parts:
        spade = [_spade_part(m) for m in range(SUIT_BITS + 1)]
        side = [_side_part(m) for m in range(SUIT_BITS + 1)]
        return cls(coef, [coef[0] + _dot(coef, f, 1) for f, _, _ in spade],
                   [_dot(coef, f, 11) for f, _ in side],
                   [sp for _, sp, _ in spade], [o for _, _, o in spade], [sh for _, sh in side])

    @classmethod
    def nils(cls, coef: list[float]) -> _Parts:
        return cls(coef, [coef[0] + _dot(coef, _nil_spade_part(m), 1) for m in range(SUIT_BITS + 1)],
                   [_dot(coef, _nil_side_part(m), 10) for m in range(SUIT_BITS + 1)])


def spade_group(ns: int) -> int:
    """Which table of the trick model a spade length reads."""
    for i, top in enumerate(SPADE_GROUPS):
        if ns <= top:
            return i
    return len(SPADE_GROUPS)


@dataclass(slots=True)
class BidModel:
    """The fitted numbers of ``bidmodel.json`` (see ``calibrate`` for how they are made)."""

    coef: list[float]  # intercept, then one per TRICK_FEATURES
    step: float  # width of a bucket of predicted tricks
    tables: list[list[list[float]]]  # [spade group][bucket of prediction] -> P(tricks = 0..13)
    nil_coef: list[float]  # intercept, then one per NIL_FEATURES (log-odds of making the nil)
    blind_nil: float  # share of blind nils made
    by_bid: list[list[float]]  # first bid of a team (1..13; 0 unused) -> P(tricks = 0..13)
    prior: list[float]  # P(tricks = 0..13) of a hand not seen
    duck: float  # share of the tricks over a made contract that come in as bags (the rest are ducked)
    gift: float  # tricks a team takes in a bidding hand beyond its tricks played to win (others duck)
    nil_bags: float  # tricks a failed nil takes on average
    hands: int  # deals the model was fitted on
    prior_stats: tuple[float, float] = (0.0, 0.0)  # mean and variance of ``prior``
    by_bid_stats: list[tuple[float, float]] = field(default_factory=list)  # the same of each ``by_bid`` row
    # the lookup tables of ``mean`` and ``nil_chance``, made on first use and again when
    # ``coef`` or ``nil_coef`` is given a new list (the calibration does)
    _trick_parts: _Parts | None = field(default=None, repr=False, compare=False)
    _nil_parts: _Parts | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.refresh()

    def refresh(self) -> None:
        """Work out the means and variances again (after ``prior`` or ``by_bid`` changed)."""
        self.prior_stats = _stats(self.prior)
        self.by_bid_stats = [_stats(row) for row in self.by_bid]

    def bid_stats(self, bid: int) -> tuple[float, float]:
        """Mean and variance of the tricks of a hand that bid ``bid`` first for its team."""
        return _stats(NIL_TRICKS) if bid <= 0 else self.by_bid_stats[min(MAX_T, bid)]

    def mean(self, hand: int) -> float:
        """The predicted number of tricks of 13 cards (``coef`` times ``trick_features``)."""
        p = self._trick_parts
        if p is None or p.coef is not self.coef:
            p = self._trick_parts = _Parts.tricks(self.coef)
        sp = hand & SUIT_BITS
        a, b, c = hand >> 13 & SUIT_BITS, hand >> 26 & SUIT_BITS, hand >> 39 & SUIT_BITS
        side = p.side
        x = p.spade[sp] + side[a] + side[b] + side[c]
        short = p.short
        ruffs = min(short[a] + short[b] + short[c], p.spare[sp])
        if ruffs:
            x += self.coef[21] * ruffs + self.coef[22] * min(ruffs, p.over3[sp])
        return x

    def dist(self, hand: int) -> list[float]:
        """P(tricks = 0..13) for 13 cards (when the seat plays to win them)."""
        mu = self.mean(hand)
        table = self.tables[spade_group((hand & SPADE_MASK).bit_count())]
        i = min(len(table) - 1, max(0, int(mu / self.step + 0.5)))
        return table[i]

    def nil_chance(self, hand: int, leads: bool = False) -> float:
        """The chance that a nil with these 13 cards is made (the logistic of ``nil_coef``
        times ``nil_features``)."""
        p = self._nil_parts
        if p is None or p.coef is not self.nil_coef:
            p = self._nil_parts = _Parts.nils(self.nil_coef)
        side = p.side
        x = (p.spade[hand & SUIT_BITS] + side[hand >> 13 & SUIT_BITS] + side[hand >> 26 & SUIT_BITS]
             + side[hand >> 39 & SUIT_BITS])
        if leads:
            x += self.nil_coef[-1]
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, x))))

    def bid_dist(self, bid: int) -> list[float]:
        """P(tricks = 0..13) of a hand that bid ``bid`` first for its team (0: a nil)."""
        if bid <= 0:
            return NIL_TRICKS
        return self.by_bid[min(MAX_T, bid)]

    def to_json(self) -> dict:
        return {"schema": SCHEMA, "hands": self.hands, "trick_features": list(TRICK_FEATURES),
                "nil_features": list(NIL_FEATURES), "spade_groups": list(SPADE_GROUPS), "coef": self.coef,
                "step": self.step, "tables": self.tables, "nil_coef": self.nil_coef, "blind_nil": self.blind_nil,
                "by_bid": self.by_bid, "prior": self.prior, "duck": self.duck, "gift": self.gift,
                "nil_bags": self.nil_bags}

    @classmethod
    def from_json(cls, data: dict) -> BidModel:
        """The model of a parsed ``bidmodel.json``; raises ValueError when it is not this schema."""
        if data.get("schema") != SCHEMA or data.get("trick_features") != list(TRICK_FEATURES) \
                or data.get("nil_features") != list(NIL_FEATURES) or data.get("spade_groups") != list(SPADE_GROUPS):
            raise ValueError("bidmodel.json does not match this code: run python -m spades.bots.calibrate")
        return cls(data["coef"], data["step"], data["tables"], data["nil_coef"], data["blind_nil"],
                   data["by_bid"], data["prior"], data["duck"], data["gift"], data["nil_bags"],
                   data["hands"])


NIL_TRICKS = [0.85, 0.12, 0.03] + [0.0] * (MAX_T - 2)  # a nil bidder's tricks (for the table's count)

_loaded: BidModel | None = None


def load(path: Path = PATH) -> BidModel:
    """Read a model file; raises ValueError (bad schema) or OSError (no file)."""
    return BidModel.from_json(json.loads(Path(path).read_text()))


def model() -> BidModel:
    """The shipped model, read once."""
    global _loaded
    if _loaded is None:
        _loaded = load()
    return _loaded


# -- the decision -----------------------------------------------------------------------

def _stats(d: list[float]) -> tuple[float, float]:
    m = sum((i * p for i, p in enumerate(d)), 0.0)
    v = sum(((i - m) ** 2 * p for i, p in enumerate(d)), 0.0)
    return m, v


def convolve(a: list[float], b: list[float]) -> list[float]:
    """The distribution of the sum of two independent trick counts, capped at 13."""
    out = [0.0] * (MAX_T + 1)
    for i, p in enumerate(a):
        if p:
            for j, q in enumerate(b):
                out[min(MAX_T, i + j)] += p * q
    return out


def shift(d: list[float], delta: float) -> list[float]:
    """The distribution moved by ``delta`` tricks (a fraction spread over two counts)."""
    if abs(delta) < 1e-9:
        return d
    lo = math.floor(delta)
    frac = delta - lo
    out = [0.0] * (MAX_T + 1)
    for i, p in enumerate(d):
        if p:
            for k, w in ((lo, 1 - frac), (lo + 1, frac)):
                if w:
                    out[min(MAX_T, max(0, i + k))] += p * w
    return out


@dataclass(slots=True)
class Situation:
    """What a bid depends on besides the cards: the table, the score, the bids so far."""

    seat: int
    bids: list[int | None]
    rules: Rules
    scores: list[int]
    bags: list[int]
    dealer: int
    final_hand: bool = False  # a match by number of hands: this is the last

    @property
    def team(self) -> int:
        return self.seat & 1

    @property
    def opponent_bid_nil(self) -> bool:
        """Whether an opponent has bid nil (or blind nil) before this seat's bid."""
        return 0 in (self.bids[(self.seat + 1) & 3], self.bids[(self.seat + 3) & 3])


def _bag_value(x: float, bags_now: int, rules: Rules, near_end: bool) -> float:
    """Points of ``x`` more bags: under the penalty each costs a tenth of 100 in the long
    run; near the match end only the penalty it triggers now counts."""
    if not rules.bag_penalty:
        return x
    if near_end:
        return x - 100 * math.floor((bags_now % 10 + x) / 10)
    return -9.0 * x


def near_end(sit: Situation) -> bool:
    """Whether the match may end with this hand or the next few: the last hand of a match by
    hands, or a score within 150 of the target; bags then count only by the penalty they
    bring now."""
    r = sit.rules
    if r.end == "hands":
        return sit.final_hand
    return max(sit.scores) >= r.target - 150


def contract_values(sit: Situation, m: BidModel, dist: list[float], contracts: range,
                    extra: float = 0.0) -> list[tuple[float, int]]:
    """(expected value, contract) for each team contract over the team's trick distribution
    ``dist``; ``extra`` is added to every outcome's points (a partner's nil, for instance)."""
    r = sit.rules
    near = near_end(sit)
    bags_now = sit.bags[sit.team]
    out = []
    for c in contracts:
        ev = 0.0
        for t, p in enumerate(dist):
            if not p:
                continue
            if t >= c:
                pts = 10 * c + _bag_value(m.duck * (t - c), bags_now, r, near)
            else:
                pts = 0.0 if r.set_scores_zero else -10.0 * c
            ev += p * (pts + extra)
        out.append((ev, c))
    return out


def _others_shift(sit: Situation, m: BidModel, mean_us: float, var_us: float, us: set[int]) -> float:
    """How far the bids of the seats outside ``us`` move our expected tricks: the four seats
    share 13, so bids above what our cards leave them mean fewer tricks for us."""
    others = [s for s in range(4) if s not in us]
    if not others:
        return 0.0
    neutral = (MAX_T - mean_us) / len(others)
    excess = 0.0
    var_others = 0.0
    pv = m.prior_stats[1]
    for s in others:
        b = sit.bids[s]
        if b is None:
            var_others += pv
            continue
        bm, bv = m.bid_stats(b)
        excess += bm - neutral
        var_others += bv
    if not excess:
        return 0.0
    return max(-2.0, min(2.0, -excess * var_us / (var_us + var_others)))


def gift_margin(sit: Situation) -> float:
    """The tricks the team counts under the gift: ``GIFT_MARGIN``, and up to
    ``LEAD_MARGIN`` more as its lead grows to ``LEAD_SCALE`` points."""
    lead = sit.scores[sit.team] - sit.scores[1 - sit.team]
    return GIFT_MARGIN + LEAD_MARGIN * min(1.0, max(0.0, lead / LEAD_SCALE))


def team_dist(hand: int, sit: Situation, m: BidModel, dist: list[float] | None = None,
              gift: bool = True) -> tuple[list[float], int]:
    """(the team's trick distribution as this seat sees it, the partner's bid already in the
    contract). Our tricks when we play to win, plus the partner's by its bid, moved by what
    the other bids say, by ``m.gift`` (tricks that come our way in a bidding hand) and by
    ``NIL_ATTACK`` when an opponent has bid nil; with ``gift`` False (the generator
    measuring the gift) by the other bids alone."""
    seat = sit.seat
    partner = seat ^ 2
    pb = sit.bids[partner]
    mine = dist if dist is not None else m.dist(hand)
    if pb is None or pb == 0:
        team = mine
        us = {seat}
        already = 0
    else:
        team = convolve(mine, m.bid_dist(pb))
        us = {seat, partner}
        already = pb
    mean_us, var_us = _stats(team)
    moved = _others_shift(sit, m, mean_us, var_us, us) + (m.gift - gift_margin(sit) if gift else 0.0)
    if gift and sit.opponent_bid_nil:
        moved -= NIL_ATTACK
    return shift(team, moved), already


def choose_bid(hand: int, sit: Situation, m: BidModel | None = None, dist: list[float] | None = None,
               allow_nil: bool = True) -> int:
    """The Normal bot's bid (0 for nil) for 13 cards in a situation; ``dist`` is the hand's
    trick distribution when the caller has it already."""
    m = m or model()
    pb = sit.bids[sit.seat ^ 2]
    team, already = team_dist(hand, sit, m, dist)
    mean_us, _var = _stats(team)
    lo = max(already + 1, int(mean_us) - 3)
    hi = min(already + 13, MAX_T, int(mean_us) + 3)
    if lo > hi:
        lo = hi = max(already + 1, min(already + 13, MAX_T))
    values = contract_values(sit, m, team, range(lo, hi + 1))
    best_value, best_c = max(values)
    if allow_nil and pb != 0 and mean_us - already < 4.5:
        # nil: its points at its chance, the failed nil's bags, and the partner's contract alone
        p = table_nil_chance(hand, sit, m)
        nil_pts = (2 * p - 1) * 100
        bags = (1 - p) * _bag_value(m.nil_bags, sit.bags[sit.team], sit.rules, False)
        if pb is None:
            nil_value = nil_pts + bags  # the partner bids alone either way: only our parts differ
        else:
            nil_value = contract_values(sit, m, m.bid_dist(pb), range(pb, pb + 1), nil_pts)[0][0] + bags
        if nil_value > best_value:
            return 0
    return max(1, min(13, best_c - already))


def table_nil_chance(hand: int, sit: Situation, m: BidModel | None = None) -> float:
    """The chance that a nil bid with these 13 cards in this situation is made: the model's
    chance (``BidModel.nil_chance``) as the arena measured it at tables, with the bids
    made before ours (``NIL_SHIFT`` and the constants after it)."""
    m = m or model()
    p = min(max(m.nil_chance(hand, (sit.dealer + 1) % 4 == sit.seat), 1e-6), 1 - 1e-6)
    x = NIL_SHIFT + NIL_SLOPE * math.log(p / (1 - p))
    pb = sit.bids[sit.seat ^ 2]
    if pb:
        x += NIL_PARTNER_BID * (pb - NIL_PARTNER_MEAN)
    if sit.opponent_bid_nil:
        x += NIL_OPPONENT_NIL
    return 1 / (1 + math.exp(-x))


def wants_blind_nil(sit: Situation, m: BidModel | None = None) -> bool:
    """Whether to bid blind nil (decided before looking). At its chance in the data (about
    one in four made with the Normal bot's play) it loses points on average, so it is a
    gamble kept for a team far behind: 200 points, or 120 when the opponents are within
    120 of the target; never after a partner's nil or a partner's bid under 3, and only
    while the model gives it a fair chance."""
    m = m or model()
    team = sit.team
    behind = sit.scores[1 - team] - sit.scores[team]
    partner_bid = sit.bids[sit.seat ^ 2]
    if partner_bid is not None and partner_bid < 3:
        return False  # a nil partner, or one too weak to cover a blind nil
    if m.blind_nil < 0.15:
        return False
    if behind >= 200:
        return True
    r = sit.rules
    return r.end == "target" and behind >= 120 and sit.scores[1 - team] >= r.target - 120
