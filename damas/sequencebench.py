"""`damas bench vision --sequences DIR`: labelled photo sequences of whole games played
through `damas record`, the command a tournament board runs, with and without a
calibration. It lives here, not in `vision/`, because it drives the application's own
commands (`damas calibrate board`, `damas record`); the labels are `damas.vision.sequences`.

DIR holds a `sequences.json` (the format of `../shared/data/real-sequences/README.md`):
per game its variant, its frames in order, a label grid per frame, the move (or the
irregularity) between two frames, and a photo of the start position (`calibration.full`).
Each photo becomes `COPIES` frames of a temporary frame folder read at `FPS` frames a
second, with a settle time of `SETTLE` seconds, so the record settles on every photo
once. A game that does not start at the start position is recorded with `--fen`, the
first frame's position from its labels (the side to move the one of its first move).

Each game is read with the occupancy model that never saw its source (`repo`): the
shipped one, or the one trained without that source, as the photo bench does.

Each game is recorded twice: with a calibration (`damas calibrate board` on the start
position's photo, then `record --calibration`) and without one. Then:
- squares: the reading the record settled on for each photo (the same reader, settle
  loop and frames again, which read what the record read) against the label grid, in
  the squares `damas.vision.sequences` gives the labels (White where the light men
  start); with a calibration that is the only way round scored, without one a reading
  is also scored up to a half turn and a swap of the colours (the labels' convention
  for single photos);
- moves: the record's moves (the journal's) against the labelled regular steps, in
  order: right, missed, invented;
- irregularities: the steps labelled irregular against the tracker's flags (with their
  article); a flag on the photo of an irregular step or the next one counts for it;
- the frames the calibrated record read worse than the uncalibrated one.
"""

from __future__ import annotations

import contextlib
import difflib
import io
import math
import os
import shutil
import tempfile
from pathlib import Path

from damas.journal import read_journal
from damas.rules import Position
from damas.vision.errors import VisionError
from damas.vision.occupancy import never_trained_on, standing_in
from damas.vision.photos import score
from damas.vision.sequences import Labels, Sequence, load_sequences, move_text

COPIES = 6  # frames per photo: three to settle, then the record's settle time
FPS = 1.0
SETTLE = 1.5  # seconds a board must stay: a photo's frames after the settle loop passes it
MODES = ("with calibration", "without calibration")


# --- one game through `damas record` ---------------------------------------------------

def _frame_folder(seq: Sequence, out: Path) -> None:
    """Every photo as COPIES frames, in order (links where the system allows)."""
    out.mkdir(parents=True)
    for i, photo in enumerate(seq.frames):
        for c in range(COPIES):
            target = out / f"{i:04d}-{c}{photo.suffix.lower()}"
            try:
                os.symlink(photo.resolve(), target)
            except OSError:
                shutil.copyfile(photo, target)


def _cli(argv: list[str]) -> tuple[int, str, str]:
    """`damas ARGV` in this process: (status, stdout, stderr)."""
    from damas.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(argv)
    return status, out.getvalue(), err.getvalue()


def _photo_of(t: float | None) -> int | None:
    """The photo shown at time t of the record (frame k is at k / FPS)."""
    return None if t is None else math.floor(t * FPS + 1e-9) // COPIES


def _replay(seq: Sequence, calibration: Path | None, known: Position) -> list[dict]:
    """What the record's reader settled on for each photo: the same reader, settle loop
    and frames again (reading is deterministic)."""
    from damas.vision.pipeline import BoardReader
    from damas.vision.settle import SettleLoop
    from damas.vision.sources import read_image

    out: list[dict] = []
    try:
        reader = (BoardReader.from_calibration(calibration, seq.size, known=known)
                  if calibration is not None else BoardReader(seq.size, known=known))
    except VisionError as e:
        return [{"reading": None, "settled": False, "error": str(e)} for _ in seq.frames]
    loop = SettleLoop(reader)
    for photo in seq.frames:
        image = read_image(photo)
        look, error = None, None
        for _ in range(COPIES):
            try:
                look = loop.look(image)
            except VisionError as e:
                look, error = None, str(e)
        if look is None:
            out.append({"reading": None, "settled": False, "error": error})
        else:
            reading = look.settled or look.reading
            out.append({"reading": reading.squares, "settled": look.settled is not None,
                        "white_at": reading.white_at})
    return out


def record_game(seq: Sequence, labels: Labels, work: Path, calibration: Path | None) -> dict:
    """One game through `damas record` (calibrated when `calibration` is a folder)."""
    tag = "cal" if calibration is not None else "plain"
    frames = work / f"frames-{tag}"
    _frame_folder(seq, frames)
    journal, pdn = work / f"{tag}.jsonl", work / f"{tag}.pdn"
    config = work / "empty.toml"  # never the user's own damas.toml
    config.write_text("", encoding="utf-8")
    fen = None if seq.at_start else labels.fen()
    argv = ["record", "--camera", str(frames), "--variant", seq.variant, "--settle",
            f"{SETTLE:g}", "--fps", f"{FPS:g}", "--journal", str(journal), "--pdn", str(pdn),
            "--config", str(config)]
    if fen is not None:
        argv += ["--fen", fen]
    if calibration is not None:
        argv += ["--calibration", str(calibration)]
    status, _, err = _cli(argv)
    shutil.rmtree(frames, ignore_errors=True)
    events = read_journal(journal) if journal.exists() else []
    known = Position.from_fen(fen, seq.variant) if fen else Position.start(seq.variant)
    readings = _replay(seq, calibration, known)

    # squares
    frame_rows = []
    for i, r in enumerate(readings):
        truth = labels.truth(i)
        if r["reading"] is None:
            total = sum(ch != "?" for ch in truth.values())
            frame_rows.append({"frame": i, "right": 0, "right_any_way": 0, "total": total,
                               "settled": False, "error": r["error"]})
            continue
        strict = score(r["reading"], truth, turns=False)
        loose = score(r["reading"], truth)
        frame_rows.append({"frame": i, "right": strict.right, "right_any_way": loose.right,
                           "total": strict.total, "settled": r["settled"],
                           "misses": [list(m) for m in strict.misses]})

    # moves
    expected = [(k, mv) for k, mv in ((k, labels.move(k)) for k in range(len(seq.steps)))
                if mv is not None]
    recorded = []
    for e in events:
        if e.get("kind") == "move" and isinstance(e.get("move"), dict):
            path = tuple(e["move"]["path"])
            key = (e["side"], path[0], path[-1], frozenset(e["move"].get("captured", ())))
            recorded.append({"key": key, "notation": e.get("notation"),
                             "photo": _photo_of(e.get("t"))})
    exp_keys = [mv.key for _, mv in expected]
    rec_keys = [r["key"] for r in recorded]
    matched_exp: set[int] = set()
    matched_rec: set[int] = set()
    for block in difflib.SequenceMatcher(None, exp_keys, rec_keys,
                                         autojunk=False).get_matching_blocks():
        matched_exp.update(range(block.a, block.a + block.size))
        matched_rec.update(range(block.b, block.b + block.size))

    # irregularities
    flags = [{"article": e.get("article"), "photo": _photo_of(e.get("t")),
              "offender": e.get("offender"), "message": e.get("message_en")}
             for e in events if e.get("kind") == "tracker-irregular"]
    used: set[int] = set()
    irregular_rows = []
    for step in sorted(seq.irregular):
        hit = next((j for j, f in enumerate(flags) if j not in used and f["photo"] is not None
                    and step + 1 <= f["photo"] <= step + 2), None)
        if hit is not None:
            used.add(hit)
        irregular_rows.append({"step": step, "flagged": hit is not None,
                               "article": flags[hit]["article"] if hit is not None else None})

    steps = []
    for k in range(len(seq.steps)):
        mv = labels.move(k)
        steps.append({
            "step": k, "label": move_text(mv.key) if mv else labels.irregular_text(k),
            "irregular": mv is None,
            "recorded": [r["notation"] for r in recorded if r["photo"] == k + 1],
            "flagged": [f["article"] for f in flags if f["photo"] == k + 1]})
    kinds: dict[str, int] = {}
    for e in events:
        kinds[e.get("kind", "?")] = kinds.get(e.get("kind", "?"), 0) + 1
    return {
        "record_status": status, "record_error": err.strip().splitlines()[-1:] if status else [],
        "fen": fen, "frames": frame_rows, "steps": steps,
        "moves": {"labelled": len(expected), "recorded": len(recorded),
                  "right": len(matched_exp), "missed": len(expected) - len(matched_exp),
                  "invented": len(recorded) - len(matched_rec),
                  "missed_moves": [move_text(exp_keys[i]) for i in range(len(expected))
                                   if i not in matched_exp],
                  "invented_moves": [r["notation"] for j, r in enumerate(recorded)
                                     if j not in matched_rec]},
        "irregular": {"labelled": len(seq.irregular),
                      "flagged": sum(r["flagged"] for r in irregular_rows),
                      "steps": irregular_rows,
                      "extra": [f for j, f in enumerate(flags) if j not in used]},
        "events": kinds,
        "white_at": sorted({r.get("white_at") for r in readings if r.get("white_at")}),
    }


def _calibrate(seq: Sequence, out: Path) -> tuple[Path | None, str | None]:
    """`damas calibrate board` on the start position's photo: (folder, None), or (None,
    why not)."""
    if seq.full is None:
        return None, "no calibration photo"
    status, _, err = _cli(["calibrate", "board", str(seq.full), "--variant", seq.variant,
                           "--out", str(out)])
    if status != 0:
        return None, err.strip().splitlines()[-1] if err.strip() else f"status {status}"
    return out, None


def run(folder: str | Path, progress=None, modes: tuple[str, ...] = MODES,
        games: tuple[int, ...] | None = None) -> dict:
    """Every game of the folder (or the `games` given by index), in each of `modes`."""
    sequences = load_sequences(folder)
    labelled = [(seq, Labels(seq)) for seq in sequences]  # every label checked first
    if games is not None:
        labelled = [labelled[k] for k in games]
    models = {seq.source: never_trained_on(seq.source) for seq, _ in labelled}
    rows: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="damas-sequences-") as tmp:
        calibrations: dict[tuple, tuple[Path | None, str | None]] = {}
        for k, (seq, labels) in enumerate(labelled):
            model, how = models[seq.source]
            game: dict = {"name": seq.name, "variant": seq.variant,
                          "frames": len(seq.frames), "model": how, "modes": {}}
            with standing_in(model):
                _record_both_ways(seq, labels, modes, Path(tmp) / f"game{k}", calibrations,
                                  game, progress)
            rows.append(game)
    return {"games": rows, "summary": {mode: summarise(rows, mode) for mode in modes},
            "calibrated_worse": calibrated_worse(rows),
            "copies": COPIES, "fps": FPS, "settle": SETTLE}


def calibrated_worse(games: list[dict]) -> list[dict]:
    """The frames a calibrated record read fewer squares of right than the uncalibrated
    one did, scored for it up to a turn and a swap of the colours (a calibration must
    never read worse)."""
    worse = []
    for g in games:
        cal, plain = (g["modes"].get(mode, {}) for mode in MODES)
        if "frames" not in cal or "frames" not in plain:
            continue
        for c, p in zip(cal["frames"], plain["frames"], strict=True):
            if c["right"] < p["right_any_way"]:
                worse.append({"game": g["name"], "frame": c["frame"],
                              "with": c["right"], "without": p["right_any_way"]})
    return worse


def _record_both_ways(seq: Sequence, labels: Labels, modes: tuple[str, ...], work: Path,
                      calibrations: dict, game: dict, progress) -> None:
    """The game through `damas record` in each of `modes`, into game["modes"]; the
    calibration of each start position's photo made once, in `calibrations`."""
    for mode in modes:
        cal = None
        if mode == MODES[0]:
            key = (seq.full, seq.source)  # a calibration belongs to its model
            if seq.full is not None and key not in calibrations:
                calibrations[key] = _calibrate(seq, work.parent / f"cal{len(calibrations)}")
            cal, why = (calibrations[key] if seq.full is not None
                        else (None, "no calibration photo"))
            if cal is None:
                game["modes"][mode] = {"skipped": why}
                continue
        folder = work.with_name(f"{work.name}-{mode.split()[0]}")
        folder.mkdir()
        game["modes"][mode] = record_game(seq, labels, folder, cal)
        if progress is not None:
            m = game["modes"][mode]["moves"]
            print(f"  {seq.name}, {mode}: {m['right']}/{m['labelled']} moves", file=progress)


def summarise(games: list[dict], mode: str) -> dict:
    runs = [g["modes"][mode] for g in games if "frames" in g["modes"].get(mode, {})]
    frames = [f for r in runs for f in r["frames"]]
    flags = [f["article"] for r in runs for f in r["irregular"]["steps"] if f["flagged"]]
    return {
        "games": len(runs), "skipped": len(games) - len(runs),
        "squares_right": sum(f["right"] for f in frames),
        "squares_right_any_way": sum(f["right_any_way"] for f in frames),
        "squares": sum(f["total"] for f in frames),
        "frames_exact": sum(f["right"] == f["total"] for f in frames),
        "frames": len(frames), "frames_settled": sum(f["settled"] for f in frames),
        **{k: sum(r["moves"][k] for r in runs)
           for k in ("labelled", "recorded", "right", "missed", "invented")},
        "irregular_labelled": sum(r["irregular"]["labelled"] for r in runs),
        "irregular_flagged": len(flags), "irregular_articles": flags,
        "irregular_extra": sum(len(r["irregular"]["extra"]) for r in runs),
    }


def _pct(a: int, b: int) -> str:
    return f"{100 * a / b:.1f} %" if b else "-"


def print_report(report: dict) -> None:
    print(f"each photo {report['copies']} frames at {report['fps']:g} fps, settle "
          f"{report['settle']:g} s; squares scored on the playing squares")
    for game in report["games"]:
        for mode, r in game["modes"].items():
            print(f"\n{game['name']}, {game['variant']}, {mode}:")
            print(f"  occupancy model: {game['model']}")
            if "skipped" in r:
                print(f"  not run: {r['skipped']}")
                continue
            if r["record_status"]:
                print(f"  record stopped (status {r['record_status']}): "
                      f"{' '.join(r['record_error'])}")
            if r["fen"]:
                print(f"  from --fen {r['fen']}")
            plain = mode != MODES[0]
            for f in r["frames"]:
                line = f"  frame {f['frame']:2d}: squares {f['right']:2d}/{f['total']}"
                if plain and f["right_any_way"] != f["right"]:
                    line += f" ({f['right_any_way']} turned or colours swapped)"
                if f.get("misses"):
                    line += " (" + " ".join(f"{sq}:{t}>{g}" for sq, t, g in f["misses"]) + ")"
                if not f["settled"]:
                    line += f" not settled{': ' + f['error'] if f.get('error') else ''}"
                if f["frame"] > 0:
                    s = r["steps"][f["frame"] - 1]
                    seen = ", ".join(s["recorded"] + [f"flag {a}" for a in s["flagged"]])
                    line += f"   step {s['step']}: {s['label']}  ->  {seen or 'nothing'}"
                print(line)
            m, irr = r["moves"], r["irregular"]
            print(f"  moves: {m['recorded']} recorded, {m['right']} of {m['labelled']} "
                  f"right, {m['missed']} missed, {m['invented']} invented"
                  + (f"; missed {', '.join(m['missed_moves'])}" if m["missed_moves"] else "")
                  + (f"; invented {', '.join(m['invented_moves'])}"
                     if m["invented_moves"] else ""))
            steps = ", ".join(f"step {s['step']} " + (f"flagged {s['article']}" if s["flagged"]
                                                       else "not flagged")
                              for s in irr["steps"])
            print(f"  irregularities: {irr['flagged']} of {irr['labelled']} flagged"
                  + (f" ({steps})" if steps else "")
                  + (f"; {len(irr['extra'])} flagged at regular steps ("
                     + ", ".join(f"{f['article']} at frame {f['photo']}" for f in irr["extra"])
                     + ")" if irr["extra"] else ""))
    print()
    worse = report.get("calibrated_worse")
    if worse is not None and all(m in report["summary"] for m in MODES):
        print("calibrated read worse than uncalibrated on "
              + (", ".join(f"{w['game']} frame {w['frame']} ({w['with']} against "
                           f"{w['without']})" for w in worse) if worse else "no frame"))
    for mode, s in report["summary"].items():
        arts = ", ".join(s["irregular_articles"])
        print(f"{mode:20s}: {s['games']} games, squares {s['squares_right']}/{s['squares']} "
              f"({_pct(s['squares_right'], s['squares'])}"
              + (f"; {s['squares_right_any_way']} up to a turn or swap" if mode != MODES[0]
                 else "")
              + f"), frames exact {s['frames_exact']}/{s['frames']}, "
              f"settled {s['frames_settled']}/{s['frames']}; moves {s['recorded']} recorded, "
              f"{s['right']}/{s['labelled']} right, {s['missed']} missed, "
              f"{s['invented']} invented; irregularities {s['irregular_flagged']}/"
              f"{s['irregular_labelled']} flagged" + (f" ({arts})" if arts else "")
              + f", {s['irregular_extra']} at regular steps"
              + (f"; {s['skipped']} games not run" if s["skipped"] else ""))
