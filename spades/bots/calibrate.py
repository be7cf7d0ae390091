"""Fit the bid model (``bidmodel.json``) on dealt hands played out by the Normal bot.

``python -m spades.bots.calibrate --hands N --out PATH [--seed S] [--against punisher]`` deals N hands and
plays each one out with ``search.playout`` (the bit-mask play-out that Hard's search
uses, which is exactly the Normal bot's card play: full Normal play-outs), once to win
every trick and once bid, and a few tens of thousands more times to fit the gift:

1. **Tricks.** Every seat plays to win every trick (the play of no-bidding mode, the way a
   team plays until its contract is made). Each seat's features (``bidmodel.trick_features``)
   and the tricks it took are counted. A linear model (least squares over the counts)
   predicts the tricks; for each spade length group and each quarter trick of prediction
   a table keeps the distribution of tricks those hands really took (a sparse cell borrows
   from its nearest well-filled neighbour, moved to its place).
2. **Nils.** The same deal is bid by the fitted model (numbers only), except that one seat
   with a weak hand (predicted under 4 tricks) bids nil in 60% of the deals that have one,
   or about one deal in six a seat bids blind nil, and the hand is played out in bidding
   mode (the partner covers, the opponents attack). A logistic model of
   ``bidmodel.nil_features`` (Newton's method over the counts) gives a nil's chance; the
   blind nils give the blind nil's. The deals without a nil measure how many of the
   tricks over a made contract come in as bags (``duck``: the rest are ducked).
   With ``--against punisher`` the nil bidder's opponents play ``punisher``'s cards
   instead, attacking the nil the way strong players do.
3. **Bids.** Every seat's cards of step 1 are bid by the model as a team's first bidder
   (no other bid known, no score); the tricks of the hands that bid n give the
   distribution a partner reads from a bid of n. Contracts are made more often in a
   bidding hand than the tricks played to win say (opponents who have made their
   contract duck): ``gift`` is the move of the team's distribution that makes the
   predicted chance of making the contract match how often the model's own contracts
   were made, bid by the model with the gift found so far and played out in bidding mode
   (a few rounds on fresh deals, each halfway to the new fit). With ``--against
   punisher`` one team's contract is measured per deal, in turn, against opponents who
   play ``punisher``'s cards to set it (twice the deals, for as many contracts).

The shipped model is the Normal bot's own play (the default). A model fitted against
``punisher`` (the gift 0.51 instead of 0.64, a weak hand's nil chance 0.19 instead of
0.31) made the Normal bot weaker in the arena, against ``punisher`` too: see
docs/bots.md, "Bids against opponents who attack".

Everything is pure Python on the seeded ``random.Random``; 200,000 hands take about six
minutes on one core of the project machine. ``build`` is the same work as a function
(the tests fit a tiny model with it and check that its shape is the shipped one's).

Imports: ``spades.cards``, ``spades.rules_config`` and the bots' own modules (``punisher``
for the attacking opponents).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from collections import defaultdict
from pathlib import Path

from ..rules_config import Rules
from . import bidmodel, policy, punisher
from .bidmodel import MAX_T, SPADE_GROUPS, BidModel, Situation, nil_features, spade_group, trick_features
from .policy import HandCtx
from .search import playout

STEP = 0.25  # width of a bucket of predicted tricks
BUCKETS = int(MAX_T / STEP) + 1
FULL = 200  # hands a table cell needs before it stands on its own
RIDGE = 1e-3  # a touch of ridge keeps the solve stable when a feature never varies
NIL_RIDGE = 1.0  # the nil model's prior toward zero (log-odds per unit of feature)
BLIND_SHARE = 6  # one deal in this many (at random) is played with a blind nil
WEAK = 4.0  # predicted tricks under which a hand may be bid nil in step 2
NIL_SHARE = 0.6  # of the other deals with such a hand, the share played with a nil
GIFT_ROUNDS = 4  # rounds of bidding with the gift found so far and fitting it again
GIFT_DEALS = 15_000  # deals per round (twice as many against attackers: one contract measured in each)
AGAINST = {"normal": None, "punisher": punisher.play_card}  # the opponents' card play in steps 2 and 3
NO_NIL = [-30.0] + [0.0] * len(bidmodel.NIL_FEATURES)


def deal(rng: random.Random) -> list[int]:
    """Four random hands of 13 cards, as masks."""
    deck = list(range(52))
    rng.shuffle(deck)
    hands = [0, 0, 0, 0]
    for i, c in enumerate(deck):
        hands[i // 13] |= 1 << c
    return hands


def solve(a: list[list[float]], b: list[float]) -> list[float]:
    """x with a x = b (Gaussian elimination with partial pivoting; a is small and dense)."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for col in range(n):
        piv = max(range(col, n), key=lambda r: abs(m[r][col]))
        m[col], m[piv] = m[piv], m[col]
        d = m[col][col]
        if abs(d) < 1e-12:
            continue
        for r in range(n):
            if r != col and m[r][col]:
                f = m[r][col] / d
                row, prow = m[r], m[col]
                for k in range(col, n + 1):
                    row[k] -= f * prow[k]
    return [m[i][n] / m[i][i] if abs(m[i][i]) > 1e-12 else 0.0 for i in range(n)]


def fit_linear(counts: dict[tuple[int, ...], list[int]]) -> list[float]:
    """Least squares of tricks on features (with an intercept) over ``counts``
    (features -> histogram of tricks)."""
    k = len(next(iter(counts))) + 1
    xtx = [[0.0] * k for _ in range(k)]
    xty = [0.0] * k
    for feats, hist in counts.items():
        n = sum(hist)
        s = sum(t * c for t, c in enumerate(hist))
        x = (1,) + feats
        nz = [(i, v) for i, v in enumerate(x) if v]
        for i, vi in nz:
            xty[i] += vi * s
            row = xtx[i]
            for j, vj in nz:
                row[j] += n * vi * vj
    total = xtx[0][0]
    for i in range(1, k):
        xtx[i][i] += RIDGE * total
    return solve(xtx, xty)


def predict(coef: list[float], feats: tuple[int, ...]) -> float:
    return coef[0] + sum(c * f for c, f in zip(coef[1:], feats) if f)


def _normal(mu: float, sd: float) -> list[float]:
    """A normal distribution of tricks, discretised to 0..13."""
    cdf = [0.5 * (1 + math.erf((t + 0.5 - mu) / (sd * math.sqrt(2)))) for t in range(MAX_T + 1)]
    out = [cdf[0]] + [cdf[t] - cdf[t - 1] for t in range(1, MAX_T)] + [1 - cdf[MAX_T - 1]]
    return out


def _norm(h: list[float]) -> list[float]:
    s = sum(h)
    return [v / s for v in h]


def fill_tables(cells: list[list[list[float]]]) -> list[list[list[float]]]:
    """Each cell's distribution: its own counts when it has ``FULL`` hands, otherwise
    blended with the nearest full cell of its group moved to its place (a normal curve
    when the group has none)."""
    out = []
    for group in cells:
        full = [i for i, h in enumerate(group) if sum(h) >= FULL]
        rows = []
        for i, h in enumerate(group):
            n = sum(h)
            if n >= FULL:
                rows.append(_norm(h))
                continue
            if full:
                j = min(full, key=lambda f: abs(f - i))
                borrowed = bidmodel.shift(_norm(group[j]), (i - j) * STEP)
            else:
                borrowed = _normal(i * STEP, 1.3)
            rows.append(_norm([(hv + FULL * bv) for hv, bv in zip(h, borrowed)]))
        out.append(rows)
    return out


def fit_logistic(counts: dict[tuple[int, ...], list[int]], iterations: int = 12) -> list[float]:
    """Logistic regression of made/failed on features by Newton's method over ``counts``
    (features -> [made, tried]), with a ridge prior of ``NIL_RIDGE``."""
    k = len(next(iter(counts))) + 1
    w = [0.0] * k
    rows = [((1,) + f, made, tried) for f, (made, tried) in counts.items()]
    for _ in range(iterations):
        grad = [-NIL_RIDGE * wi for wi in w]
        grad[0] = 0.0
        hess = [[0.0] * k for _ in range(k)]
        for i in range(1, k):
            hess[i][i] = NIL_RIDGE
        for x, made, tried in rows:
            nz = [(i, v) for i, v in enumerate(x) if v]
            z = sum(w[i] * v for i, v in nz)
            p = 1 / (1 + math.exp(-max(-30.0, min(30.0, z))))
            g = made - tried * p
            h = tried * p * (1 - p)
            for i, vi in nz:
                grad[i] += g * vi
                row = hess[i]
                for j, vj in nz:
                    row[j] += h * vi * vj
        step = solve(hess, grad)
        w = [wi + si for wi, si in zip(w, step)]
        if max(abs(s) for s in step) < 1e-6:
            break
    return w


def fit_gift(seen: list[tuple[list[float], int, bool]]) -> float:
    """The move of the team's distribution (tricks played to win) that makes its predicted
    chance of making the contract match how often the contracts of step 2 were made:
    the tricks that opponents who duck give away (bisection)."""
    if not seen:
        return 0.0
    made = sum(1 for _d, _c, ok in seen if ok) / len(seen)

    def predicted(delta: float) -> float:
        return sum(sum(bidmodel.shift(d, delta)[c:]) for d, c, _ok in seen) / len(seen)

    lo, hi = -1.0, 2.0
    for _ in range(20):
        mid = (lo + hi) / 2
        if predicted(mid) < made:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def _neutral(seat: int = 0) -> Situation:
    return Situation(seat, [None, None, None, None], Rules(), [0, 0], [0, 0], dealer=(seat + 2) % 4)


def players(team: int, against: str) -> tuple | None:
    """Each seat's card play in a play-out where ``team`` plays the Normal bot's cards
    against opponents of ``against`` (None: Normal's everywhere, ``playout``'s own)."""
    attack = AGAINST[against]
    if attack is None:
        return None
    return tuple(policy.play_card if s & 1 == team else attack for s in range(4))


def build(hands: int, seed: int = 1, log=None, against: str = "normal") -> BidModel:
    """Deal ``hands`` hands, play them out and fit the model (see the module's docstring);
    ``against`` names the opponents of steps 2 and 3 (``AGAINST``)."""
    say = log or (lambda *a: None)
    rng = random.Random(seed)
    start = time.monotonic()
    # 1. tricks when every seat plays to win
    deals = []
    capacity = []
    counts: dict[tuple[int, ...], list[int]] = defaultdict(lambda: [0] * (MAX_T + 1))
    win_all = HandCtx(False, [None, None, None, None])
    for _ in range(hands):
        hs = deal(rng)
        taken, _plays = playout(win_all, hs, [], 0, 0, [0, 0, 0, 0], False)
        deals.append(hs)
        capacity.append(taken)
        for s in range(4):
            counts[trick_features(hs[s])][taken[s]] += 1
    say(f"step 1: {hands} hands played to win, {len(counts)} kinds of hand, {time.monotonic() - start:.0f} s")
    coef = fit_linear(counts)
    cells = [[[0.0] * (MAX_T + 1) for _ in range(BUCKETS)] for _ in range(len(SPADE_GROUPS) + 1)]
    prior = [0.0] * (MAX_T + 1)
    for feats, hist in counts.items():
        b = min(BUCKETS - 1, max(0, int(predict(coef, feats) / STEP + 0.5)))
        cell = cells[spade_group(feats[0])][b]
        for t, c in enumerate(hist):
            cell[t] += c
            prior[t] += c
    tables = fill_tables(cells)
    prior = _norm(prior)
    model = BidModel(coef, STEP, tables, NO_NIL, 0.0, [prior] * (MAX_T + 1), prior, 0.6, 0.0, 1.5, hands)
    model.by_bid = _by_bid(model, deals, capacity)
    model.refresh()

    # 2. nils, blind nils and ducking, in bidding mode
    nil_counts: dict[tuple[int, ...], list[int]] = defaultdict(lambda: [0, 0])
    blind = [0, 0]
    nil_bags = [0, 0]
    duck = [0.0, 0.0]
    rules = Rules()
    for i, hs in enumerate(deals):
        bids: list[int | None] = [None, None, None, None]
        blinds = [False] * 4
        weak = [s for s in range(4) if model.mean(hs[s]) < WEAK]
        nil_seat = -1
        if rng.randrange(BLIND_SHARE) == 0:
            nil_seat = rng.randrange(4)
            blinds[nil_seat] = True
        elif weak and rng.random() < NIL_SHARE:
            nil_seat = rng.choice(weak)
        for s in range(4):  # seat 0 leads (dealer 3) and bids first
            if s == nil_seat:
                bids[s] = 0
            else:
                bids[s] = bidmodel.choose_bid(hs[s], Situation(s, bids, rules, [0, 0], [0, 0], 3), model) or 1
        ctx = HandCtx(True, bids, blinds)
        seats = players(nil_seat & 1, against) if nil_seat >= 0 else None
        taken, _plays = playout(ctx, hs, [], 0, 0, [0, 0, 0, 0], False, seats)
        if nil_seat < 0:
            for team in (0, 1):
                c = _contract(bids, team)
                got = taken[team] + taken[team + 2]
                cap = capacity[i][team] + capacity[i][team + 2]
                if got >= c and cap > c:
                    duck[0] += got - c
                    duck[1] += cap - c
            continue
        made = taken[nil_seat] == 0
        if blinds[nil_seat]:
            blind[0] += made
            blind[1] += 1
        else:
            row = nil_counts[nil_features(hs[nil_seat], nil_seat == 0)]
            row[0] += made
            row[1] += 1
        if not made:
            nil_bags[0] += taken[nil_seat]
            nil_bags[1] += 1
    say(f"step 2: {sum(r[1] for r in nil_counts.values())} nils, {blind[1]} blind nils, "
        f"{time.monotonic() - start:.0f} s")
    model.nil_coef = fit_logistic(nil_counts) if nil_counts else NO_NIL
    model.blind_nil = blind[0] / blind[1] if blind[1] else 0.0
    model.nil_bags = nil_bags[0] / nil_bags[1] if nil_bags[1] else 1.5
    model.duck = duck[0] / duck[1] if duck[1] else 0.6

    # 3. the gift, and what a first bid says about the hand, with the finished model
    model.by_bid = _by_bid(model, deals, capacity)
    model.refresh()
    per_round = GIFT_DEALS * (1 if AGAINST[against] is None else 2)
    chunk = max(1, min(per_round, len(deals) // GIFT_ROUNDS))
    for k in range(GIFT_ROUNDS):
        seen = _contracts(model, deals[k * chunk:(k + 1) * chunk], against)
        model.gift = (model.gift + fit_gift(seen)) / 2
        model.by_bid = _by_bid(model, deals, capacity)
        model.refresh()
        say(f"step 3: gift {model.gift:.2f} from {len(seen)} contracts, {time.monotonic() - start:.0f} s")
    return model


def _contract(bids: list[int | None], team: int) -> int:
    """A team's contract once every seat has bid: its two bids together."""
    a, b = bids[team], bids[team + 2]
    assert a is not None and b is not None, bids
    return a + b


def _contracts(model: BidModel, deals: list[list[int]], against: str = "normal") -> list[tuple[list[float], int, bool]]:
    """Bid ``deals`` with ``model`` and play them out in bidding mode; for each team whose
    second bidder bid a number after a number: (the team's tricks as that bidder saw them
    without the gift, the contract, made). Against attackers, one team per deal (in turn)
    plays the Normal bot's cards and the other ``against``'s."""
    rules = Rules()
    out = []
    for i, hs in enumerate(deals):
        bids: list[int | None] = [None, None, None, None]
        views: list[list[float] | None] = [None, None]
        for s in range(4):
            sit = Situation(s, list(bids), rules, [0, 0], [0, 0], 3)
            bids[s] = bidmodel.choose_bid(hs[s], sit, model)
            if s >= 2 and bids[s] and bids[s - 2]:
                views[s - 2] = bidmodel.team_dist(hs[s], sit, model, gift=False)[0]
        seats = players(i & 1, against)
        taken, _plays = playout(HandCtx(True, bids), hs, [], 0, 0, [0, 0, 0, 0], False, seats)
        for team in (0, 1) if seats is None else (i & 1,):
            view = views[team]
            if view is not None:
                c = _contract(bids, team)
                out.append((view, c, taken[team] + taken[team + 2] >= c))
    return out


def _by_bid(model: BidModel, deals: list[list[int]], capacity: list[list[int]]) -> list[list[float]]:
    """P(tricks | first bid of a team) over the dealt hands, bid by ``model``; a bid that no
    hand made borrows the nearest bid's row moved by the difference."""
    hist = [[0.0] * (MAX_T + 1) for _ in range(MAX_T + 1)]
    sit = _neutral()
    for hs, taken in zip(deals, capacity):
        for s in range(4):
            b = bidmodel.choose_bid(hs[s], sit, model)
            hist[b][taken[s]] += 1
    rows = []
    full = [b for b in range(1, MAX_T + 1) if sum(hist[b]) >= FULL]
    for b in range(MAX_T + 1):
        h = hist[b]
        if b == 0:
            rows.append(bidmodel.NIL_TRICKS)
        elif full:
            j = min(full, key=lambda f: abs(f - b))
            borrowed = bidmodel.shift(_norm(hist[j]), b - j)
            rows.append(_norm([hv + FULL * bv for hv, bv in zip(h, borrowed)]))
        else:
            rows.append(_normal(b + 0.5, 1.3))
    return rows


def rounded(model: BidModel) -> dict:
    """The model's JSON with its numbers rounded (a small file that diffs well)."""
    data = model.to_json()

    def r(v, digits):
        if isinstance(v, list):
            return [r(x, digits) for x in v]
        return round(v, digits) if isinstance(v, float) else v

    for key in ("tables", "by_bid", "prior"):
        data[key] = r(data[key], 5)
    for key in ("coef", "nil_coef"):
        data[key] = r(data[key], 4)
    for key in ("blind_nil", "duck", "gift", "nil_bags"):
        data[key] = round(data[key], 4)
    return data


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m spades.bots.calibrate", description=__doc__.split("\n")[0])
    p.add_argument("--hands", type=int, default=200_000, help="hands to deal (default 200000)")
    p.add_argument("--out", default=str(bidmodel.PATH), help="where to write the model")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--against", choices=sorted(AGAINST), default="normal",
                   help="the opponents' card play when nils and contracts are measured (default normal)")
    args = p.parse_args(argv)
    model = build(args.hands, args.seed, log=lambda m: print(m, file=sys.stderr, flush=True), against=args.against)
    Path(args.out).write_text(json.dumps(rounded(model), separators=(",", ":")) + "\n")
    print(json.dumps({"hands": args.hands, "out": args.out, "blind_nil": round(model.blind_nil, 3),
                      "duck": round(model.duck, 3), "gift": round(model.gift, 2)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
