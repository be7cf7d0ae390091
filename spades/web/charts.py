"""Server-rendered SVG charts (no JavaScript): the score by hand of a match.

Imports: stdlib only.
"""

from __future__ import annotations

from html import escape

WIDTH, HEIGHT, PAD = 560, 240, 36
LABEL_ROOM = 40  # right of the last hand, for the team names
COLOURS = ("#2e7d32", "#c62828")  # your team (green), the other team (red)


def score_chart(results: list[dict], my_team: int = 0, labels: tuple[str, str] = ("Us", "Them")) -> str:
    """An SVG line chart of both teams' running totals after each hand (0 before the first)."""
    series = [[0] + [r["totals"][t] for r in results] for t in (my_team, 1 - my_team)]
    values = [v for s in series for v in s]
    lo, hi = min(values + [0]), max(values + [100])
    span = (hi - lo) or 1
    n = max(len(series[0]) - 1, 1)

    def x(i: int) -> float:
        return PAD + (WIDTH - 2 * PAD - LABEL_ROOM) * i / n

    def y(v: int) -> float:
        return HEIGHT - PAD - (HEIGHT - 2 * PAD) * (v - lo) / span

    parts = [f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
             f'aria-label="Score by hand: {escape(labels[0])} {series[0][-1]}, {escape(labels[1])} {series[1][-1]}" '
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
