"""Pictures of the benches that compare things: `damas bench vision --plot F` (accuracy
by condition) and `damas match --plot F` (A's running score with its error band).
matplotlib is an optional extra (`pip install 'damas[plot]'`); the picture's format is
its file's suffix (.png, .svg, .pdf), written atomically."""

from __future__ import annotations

import io
from pathlib import Path

from damas.rules import DamasError

FORMATS = (".png", ".svg", ".pdf")


def check_plot(path: str | None) -> None:
    """Before a long bench: matplotlib is there and the suffix is one it writes."""
    if path is None:
        return
    if Path(path).suffix.lower() not in FORMATS:
        raise DamasError(f"--plot {path}: the picture is a .png, .svg or .pdf file")
    _pyplot()


def _pyplot():
    try:
        import matplotlib

        matplotlib.use("Agg")  # no screen needed
        import matplotlib.pyplot as plt
    except ImportError:
        raise DamasError("--plot needs matplotlib: pip install 'damas[plot]'") from None
    return plt


def _save(fig, path: str) -> None:
    from damas.calibration.store import atomic_write_bytes

    buffer = io.BytesIO()
    fig.savefig(buffer, format=Path(path).suffix.lower()[1:], dpi=120, bbox_inches="tight")
    _pyplot().close(fig)
    try:
        atomic_write_bytes(path, buffer.getvalue())
    except OSError as e:
        raise DamasError(f"cannot write {path}: {e.strerror or e}") from None


def plot_vision(report: dict, path: str) -> None:
    """Boards and squares read right under each condition of the rendered set."""
    plt = _pyplot()
    rows = report["per_condition"]
    names = list(rows)
    fig, ax = plt.subplots(figsize=(9, 0.32 * len(names) + 1.5))
    y = range(len(names))
    ax.barh([k + 0.2 for k in y], [100 * rows[n]["boards"] for n in names], height=0.4,
            label="boards exactly right", color="#3d6fb6")
    ax.barh([k - 0.2 for k in y], [100 * rows[n]["squares"] for n in names], height=0.4,
            label="squares right", color="#b07c3c")
    ax.set_yticks(list(y), [f"{n} ({rows[n]['frames']})" for n in names])
    low = min(min(100 * rows[n]["boards"] for n in names), 99.0)
    ax.set_xlim(max(0.0, low - 1), 100.05)
    ax.invert_yaxis()
    ax.set_xlabel("% right")
    ax.set_title(f"damas bench vision: {report['frames']} rendered frames, "
                 f"{100 * report['board_accuracy']:.2f} % of boards right")
    ax.legend(loc="lower left")
    _save(fig, path)


def plot_match(a: str, b: str, points: list[float], path: str) -> None:
    """A's score after each game (1 a win, 0.5 a draw) with a 95 % band."""
    plt = _pyplot()
    games = list(range(1, len(points) + 1))
    running, band = [], []
    total = 0.0
    for n, p in enumerate(points, 1):
        total += p
        mean = total / n
        spread = sum((q - mean) ** 2 for q in points[:n]) / n
        running.append(100 * mean)
        band.append(100 * 1.96 * (spread / n) ** 0.5)
    fig, ax = plt.subplots(figsize=(8, 4))
    ax.fill_between(games, [r - e for r, e in zip(running, band, strict=True)],
                    [r + e for r, e in zip(running, band, strict=True)], color="#3d6fb6",
                    alpha=0.2, label="95 % band")
    ax.plot(games, running, color="#3d6fb6", marker="o", ms=3, label=f"{a}'s score")
    ax.axhline(50, color="#888", lw=0.8)
    ax.set_ylim(0, 100)
    ax.set_xlabel("games")
    ax.set_ylabel("% of the points")
    ax.set_title(f"{a} vs {b}: {total:g} of {len(points)} points")
    ax.legend(loc="lower right")
    _save(fig, path)
