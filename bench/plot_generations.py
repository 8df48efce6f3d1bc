"""Each generation's Elo against a reference, from arena runs: a table and an SVG plot.

A generation is ``LABEL=NAME@RUN``: the brain ``NAME`` of the arena run ``RUN``, which
played the reference (``--reference``, the brain's name in that run). Its Elo and 95 %
interval come from the run's games as ``arena rate`` computes them (pentanomial, from the
game pairs), so the plot says what the runs' own reports say. The reference is drawn at 0.

Run: ``.venv/bin/python bench/plot_generations.py --reference gen0 --generation
"lrl-9 gen 1=gen1@runs/ladder" "deep 1=deep1@runs/ladder" --svg docs/img/generations.svg``
"""

from __future__ import annotations

import argparse
import math
from dataclasses import dataclass
from functools import cache
from html import escape
from pathlib import Path

from tabulate import tabulate

from arena.report import Report, build_report
from arena.rundir import RunDir


@dataclass(frozen=True)
class Generation:
    """One point of the plot: a generation's Elo against the reference."""

    label: str
    elo: float
    error: float
    record: str  # the generation's W-L-D against the reference
    pentanomial: str  # from the generation's side, its pairs' 0 to 2 points


@cache
def run_report(run: str) -> Report:
    """The standings of an arena run (read once however many generations it holds)."""
    return build_report(RunDir(run).load_games())


def measure(label: str, name: str, run: str, reference: str) -> Generation:
    """``name``'s result against ``reference`` in ``run``.

    :raises SystemExit: if the run has no game between them.
    """
    report = run_report(run)
    for match in report.matches:
        if {match.first, match.second} != {name, reference} or match.elo is None:
            continue
        ours = match.first == name
        wdl = match.wdl if ours else match.wdl.reversed()
        penta = match.penta if ours else match.penta.reversed()
        elo = match.elo.elo if ours else -match.elo.elo
        return Generation(label, elo, match.elo.error, f"{wdl.wins}-{wdl.losses}-{wdl.draws}",
                          " ".join(str(c) for c in penta.counts))
    raise SystemExit(f"{run}: no games between {name!r} and {reference!r} "
                     f"(its brains: {', '.join(p.name for p in report.players)})")


def svg(points: list[Generation], reference: str, title: str) -> str:
    """A plot of ``points`` (Elo with 95 % whiskers) after the reference at 0."""
    width, height, left, right, top, bottom = 640, 360, 64, 24, 40, 64
    values = [0.0] + [p.elo + s * p.error for p in points for s in (-1, 1)]
    finite = [v for v in values if math.isfinite(v)]
    low = 50 * math.floor(min(finite) / 50)
    high = 50 * math.ceil(max(finite) / 50)
    if high == low:
        high = low + 50

    def y(elo: float) -> float:
        elo = min(max(elo, low), high)  # an infinite bound is drawn at the frame
        return top + (high - elo) / (high - low) * (height - top - bottom)

    step = (width - left - right) / (len(points) + 1)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'font-family="sans-serif" font-size="12">',
             f'<rect width="{width}" height="{height}" fill="white"/>',
             f'<text x="{width / 2}" y="20" text-anchor="middle" font-size="14">'
             f'{escape(title)}</text>']
    for tick in range(int(low), int(high) + 1, 50):
        colour = "#888" if tick == 0 else "#ddd"
        parts.append(f'<line x1="{left}" x2="{width - right}" y1="{y(tick):.1f}" '
                     f'y2="{y(tick):.1f}" stroke="{colour}"/>')
        parts.append(f'<text x="{left - 6}" y="{y(tick) + 4:.1f}" text-anchor="end">'
                     f'{tick:+d}</text>')
    parts.append(f'<text x="16" y="{(top + height - bottom) / 2}" text-anchor="middle" '
                 f'transform="rotate(-90 16 {(top + height - bottom) / 2})">'
                 f'Elo against {escape(reference)} (95 %)</text>')
    labels = [(reference, 0.0, 0.0)] + [(p.label, p.elo, p.error) for p in points]
    for i, (label, elo, error) in enumerate(labels):
        x = left + step * (i + 0.5)
        if error:
            parts.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{y(elo - error):.1f}" '
                         f'y2="{y(elo + error):.1f}" stroke="#246" stroke-width="2"/>')
            for end in (elo - error, elo + error):
                parts.append(f'<line x1="{x - 6:.1f}" x2="{x + 6:.1f}" y1="{y(end):.1f}" '
                             f'y2="{y(end):.1f}" stroke="#246" stroke-width="2"/>')
        parts.append(f'<circle cx="{x:.1f}" cy="{y(elo):.1f}" r="4" fill="#c33"/>')
        parts.append(f'<text x="{x:.1f}" y="{height - bottom + 18}" text-anchor="middle">'
                     f'{escape(label)}</text>')
        if error:
            parts.append(f'<text x="{x:.1f}" y="{height - bottom + 34}" text-anchor="middle" '
                         f'fill="#555">{elo:+.0f} ± {error:.0f}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reference", required=True,
                        help="the first generation's name in the runs")
    parser.add_argument("--generation", nargs="+", required=True, metavar="LABEL=NAME@RUN")
    parser.add_argument("--title", default="Each generation against the first")
    parser.add_argument("--svg", type=Path, help="write the plot there")
    args = parser.parse_args()
    points = []
    for spec in args.generation:
        label, sep, rest = spec.partition("=")
        name, at, run = rest.partition("@")
        if not (sep and at and label and name and run):
            parser.error(f"--generation {spec!r}: write it LABEL=NAME@RUN")
        points.append(measure(label, name, run, args.reference))
    print(tabulate([(p.label, p.record, p.pentanomial, f"{p.elo:+.0f} ± {p.error:.0f}")
                    for p in points],
                   headers=("generation", f"W-L-D against {args.reference}",
                            "pentanomial", "Elo (95 %)")))
    if args.svg:
        args.svg.parent.mkdir(parents=True, exist_ok=True)
        args.svg.write_text(svg(points, args.reference, args.title), encoding="utf-8")
        print(f"plot: {args.svg}")


if __name__ == "__main__":
    main()
