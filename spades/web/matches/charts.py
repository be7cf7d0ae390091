"""Server-rendered SVG charts (no JavaScript): the score by hand of a match.

Imports: stdlib only.
"""

from __future__ import annotations

from html import escape

WIDTH, HEIGHT, PAD = 560, 240, 36
LABEL_ROOM = 40  # right of the last hand, for the team names
# your side (green), then the others: the other team (red), or in cutthroat each player
COLOURS = ("#2e7d32", "#c62828", "#1565c0", "#8d4f00")


def score_chart(results: list[dict], my_team: int = 0, labels: tuple[str, ...] = ("Us", "Them")) -> str:
    """An SVG line chart of every side's running total after each hand (0 before the
    first): ``my_team``'s line first, then the other sides' in their order, one label each
    in that order (two teams, or each player in cutthroat)."""
    sides = len(results[0]["totals"]) if results else len(labels)
    order = [my_team] + [t for t in range(sides) if t != my_team]
    series = [[0] + [r["totals"][t] for r in results] for t in order]
    values = [v for s in series for v in s]
    lo, hi = min(values + [0]), max(values + [100])
    span = (hi - lo) or 1
    n = max(len(series[0]) - 1, 1)

    def x(i: int) -> float:
        return PAD + (WIDTH - 2 * PAD - LABEL_ROOM) * i / n

    def y(v: int) -> float:
        return HEIGHT - PAD - (HEIGHT - 2 * PAD) * (v - lo) / span

    said = ", ".join(f"{label} {line[-1]}" for label, line in zip(labels, series))
    parts = [f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
             f'aria-label="Score by hand: {escape(said)}" '
             f'xmlns="http://www.w3.org/2000/svg">']
    parts.append(f'<line x1="{PAD}" y1="{y(0):.1f}" x2="{x(n):.1f}" y2="{y(0):.1f}" class="axis"/>')
    for v in (lo, hi):
        parts.append(f'<text x="{PAD - 6}" y="{y(v) + 4:.1f}" text-anchor="end" class="tick">{v}</text>')
    for i in range(1, n + 1):
        parts.append(f'<text x="{x(i):.1f}" y="{HEIGHT - PAD + 16}" text-anchor="middle" class="tick">{i}</text>')
    for k, s in enumerate(series):
        points = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(s))
        parts.append(f'<polyline points="{points}" fill="none" stroke="{COLOURS[k]}" stroke-width="3" '
                     f'stroke-linejoin="round"/>')
        for i, v in enumerate(s):
            parts.append(f'<circle cx="{x(i):.1f}" cy="{y(v):.1f}" r="3.5" fill="{COLOURS[k]}"/>')
        parts.append(f'<text x="{x(n) + 6:.1f}" y="{y(s[-1]) + 4:.1f}" class="label" fill="{COLOURS[k]}">'
                     f'{escape(labels[k])}</text>')
    parts.append("</svg>")
    return "".join(parts)
