"""Kings by the height of their stack. Seen at a slant, a piece covers the board from
the near edge of its base to the far edge of its top; that length is 2R + H * slant,
where slant is the tangent of the camera ray's angle from the vertical. Fitted on the
men of a known position (R and a man's height h), a king is a piece whose length is
nearer 2R + 2h * slant than 2R + h * slant — told only where h * slant stands clear of
the measuring noise; elsewhere (a camera nearly overhead) the crown must tell.
Off-centre placement cancels out: both ends move together."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from damas.calibration.colour import ColourModel

from .sampler import MAN_HEIGHT, PROFILE

# a gap this long (squares) in a piece's run is a groove or a seam, not its end
MAX_GAP = 0.06


def piece_lengths(profile_feats: np.ndarray, labels: list[str], model: ColourModel,
                  limit: float) -> np.ndarray:
    """Per square (profile features (N, len(PROFILE), 3)), the length of the run of its
    piece's own colour through the centre; NaN for empty squares or no run."""
    out = np.full(len(labels), np.nan)
    step = PROFILE[1] - PROFILE[0]
    centre = int(np.argmin(np.abs(PROFILE)))
    max_gap = int(round(MAX_GAP / step))
    for i, lab in enumerate(labels):
        if lab not in ("w", "b"):
            continue
        own = _looks_like(profile_feats[i], lab, model, limit)
        if not own[centre - 2:centre + 3].any():
            continue
        near = _run_end(own, centre, -1, max_gap)
        far = _run_end(own, centre, +1, max_gap)
        out[i] = (far - near) * step
    return out


def _looks_like(feats: np.ndarray, label: str, model: ColourModel, limit: float):
    """Points explained by the piece's own colour, lit or turned from the light, better
    than by the board."""
    def shaded_d2(mean, inv):
        delta = feats - mean
        rest = delta - np.clip(delta.mean(axis=1, keepdims=True), np.log(0.4), np.log(1.25))
        return np.einsum("ij,jk,ik->i", rest, inv, rest)

    own = np.full(len(feats), np.inf)
    board = np.full(len(feats), np.inf)
    for comp in model.components:
        if comp.label == label:
            own = np.minimum(own, shaded_d2(comp.mean, comp.inv))
        elif comp.label == "e":
            board = np.minimum(board, shaded_d2(comp.mean, comp.inv))
    # the light squares: the light field itself, so zero after normalising
    light = shaded_d2(np.zeros(3), np.eye(3) / (model.light_spread ** 2 + 0.04 ** 2))
    return (own <= limit) & (own < board) & (own < light)


def _run_end(own: np.ndarray, start: int, direction: int, max_gap: int) -> int:
    i, last = start, start
    while 0 <= i < len(own):
        if own[i]:
            last = i
        elif abs(i - last) > max_gap:
            break
        i += direction
    return last


@dataclass(frozen=True)
class StackModel:
    """length = base + height * slant for a man (fitted), twice the height for a king."""

    base: float
    height: float
    noise: float

    @classmethod
    def fit(cls, lengths: np.ndarray, slant: np.ndarray) -> StackModel | None:
        """From the lengths of men (NaN elsewhere) and their squares' slant. The height
        is fitted when the slants spread widely enough to show it, else a typical
        man's height is assumed; the base is the robust rest."""
        ok = np.isfinite(lengths)
        if ok.sum() < 8:
            return None
        height = MAN_HEIGHT
        if np.ptp(slant[ok]) > 0.4:
            A = np.column_stack([np.ones(ok.sum()), slant[ok]])
            (_, fitted), *_ = np.linalg.lstsq(A, lengths[ok], rcond=None)
            if 0.12 < fitted < 0.3:
                height = float(fitted)
        rest = lengths[ok] - height * slant[ok]
        base = float(np.median(rest))
        noise = max(1.4826 * float(np.median(np.abs(rest - base))), 0.02)
        return cls(base, height, noise)

    def kings(self, lengths: np.ndarray, slant: np.ndarray) -> np.ndarray:
        """True: a king; False: a man, or too flat a view to tell."""
        rise = self.height * slant
        tellable = (rise > 6 * self.noise) & (rise > 0.12)
        # longer than any king: the run ran on into a neighbour of the same colour
        plausible = lengths < self.base + 2.5 * rise
        return tellable & plausible & np.isfinite(lengths) & (lengths > self.base + 1.5 * rise)

    def to_dict(self) -> dict:
        return {"base": round(self.base, 5), "height": round(self.height, 5),
                "noise": round(self.noise, 5)}

    @classmethod
    def from_dict(cls, d: dict | None) -> StackModel | None:
        return None if not d else cls(float(d["base"]), float(d["height"]), float(d["noise"]))
