"""The evaluation's weights: one JSON file per variant in `engine/weights/`, read into the
native core (engine/native/eval.c holds the terms).

The evaluation is a weighted sum of terms, each the side to move's minus the opponent's
(`FEATURES`: material, men by rows advanced, centre, edges, back-row guard, balance,
mobility, locked men, runaway men, outposts, locked wings, and the kings' squares and
mobility), plus three adjustments: the side ahead gains by trading, one-square kings ahead
hunt the last pieces, and flying-king endings the draw rules end early score near 0.

Weights are in sixteenths of a hundredth of a man (`scale`: a man is 1600), so the score
is in hundredths of a man. A weights file may name a pattern table beside it (`patterns`:
int16 little-endian, [2 phases][windows][3^8], engine/native/search.h): the men of each
4x4 window of the board index a learned score. `damas train engine` fits the terms to
game results, or terms and patterns to a stronger engine's scores (`--teacher`), and
rewrites the files; kind "material" keeps the men and kings only (for tests of the search
itself).

>>> w = load_weights("english")
>>> w.terms["man"], w.scale
(1600, 16)
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from damas.rules import Variant
from damas.rules import variant as get_variant

WEIGHTS_DIR = Path(__file__).resolve().parent / "weights"
KINDS = ("full", "material")


class WeightsError(ValueError):
    """A weights file that cannot be used."""


@dataclass(frozen=True)
class Weights:
    variant: str
    terms: dict[str, int]  # feature name -> weight, in 1/scale of a hundredth of a man
    trade: int = 0
    chase: int = 0
    flying_ending_divisor: int = 1
    scale: int = 16
    # what a draw costs the side a player searches for, hundredths of a man (not for a
    # judge: the evaluation bar and the teacher search without it)
    contempt: int = 0
    note: str = ""
    provenance: dict = field(default_factory=dict, compare=False)
    patterns: bytes | None = field(default=None, compare=False, repr=False)

    def vector(self, names: tuple[str, ...]) -> list[int]:
        """The weights in the core's feature order (a missing term weighs 0)."""
        return [int(self.terms.get(name, 0)) for name in names]

    def to_json(self, patterns_file: str | None = None) -> dict:
        doc = {"kind": "damas.weights", "version": 1, "variant": self.variant,
               "scale": self.scale, "note": self.note, "weights": dict(self.terms),
               "trade": self.trade, "chase": self.chase,
               "flying_ending_divisor": self.flying_ending_divisor,
               "contempt": self.contempt, "provenance": self.provenance}
        if patterns_file:
            doc["patterns"] = patterns_file
        return doc


def weights_path(variant: Variant | str) -> Path:
    return WEIGHTS_DIR / f"{get_variant(variant).name}.json"


def read_weights(path: Path) -> Weights:
    try:
        doc = json.loads(Path(path).read_text())
    except (OSError, ValueError) as e:
        raise WeightsError(f"{path}: cannot read weights ({e})") from None
    if not isinstance(doc, dict) or doc.get("kind") != "damas.weights" or doc.get("version") != 1:
        raise WeightsError(f"{path}: not a damas.weights v1 file")
    terms = doc.get("weights")
    if not isinstance(terms, dict) or not all(isinstance(v, int) for v in terms.values()):
        raise WeightsError(f"{path}: 'weights' must map term names to ints")
    contempt = doc.get("contempt", 0)
    if not isinstance(contempt, int) or not 0 <= contempt <= 100:
        raise WeightsError(f"{path}: 'contempt' must be a whole number of hundredths of a "
                           "man, 0 to 100")
    patterns = None
    if doc.get("patterns"):
        name = doc["patterns"]
        if not isinstance(name, str) or Path(name).name != name:
            raise WeightsError(f"{path}: 'patterns' must name a file beside it")
        try:
            patterns = (Path(path).parent / name).read_bytes()
        except OSError as e:
            raise WeightsError(f"{path}: cannot read its patterns ({e})") from None
    return Weights(doc["variant"], dict(terms), int(doc.get("trade", 0)),
                   int(doc.get("chase", 0)), int(doc.get("flying_ending_divisor", 1)),
                   int(doc.get("scale", 16)), contempt,
                   str(doc.get("note", "")), dict(doc.get("provenance", {})), patterns)


def load_weights(variant: Variant | str, kind: str = "full") -> Weights:
    """The shipped weights of a variant, only its material with kind "material", or those
    of a weights file (kind: its path, ending in .json; e.g. one `damas train engine
    --out` wrote, to play it against the shipped ones)."""
    name = get_variant(variant).name
    if kind.endswith(".json"):
        w = read_weights(Path(kind))
        if w.variant != name:
            raise WeightsError(f"{kind}: weights of {w.variant}, not {name}")
        return w
    if kind not in KINDS:
        raise ValueError(f"unknown evaluation {kind!r} ({' or '.join(KINDS)}, or a "
                         "weights file's path)")
    w = read_weights(weights_path(variant))
    if kind == "material":
        return Weights(w.variant, {"man": w.terms["man"], "king": w.terms["king"]},
                       scale=w.scale, note="material only")
    return w


def write_weights(weights: Weights, path: Path) -> None:
    """Write atomically: a reader never sees half a file. The patterns go beside it
    (`<name>.patterns`), written first, so the JSON never names a file not yet whole."""
    from damas.calibration.store import atomic_write_bytes, atomic_write_text

    path = Path(path)
    patterns_file = None
    if weights.patterns is not None:
        patterns_file = path.with_suffix(".patterns").name
        atomic_write_bytes(path.with_suffix(".patterns"), weights.patterns)
    atomic_write_text(path, json.dumps(weights.to_json(patterns_file), indent=1) + "\n")
