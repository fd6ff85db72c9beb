"""`damas render`, `damas read`, `damas calibrate markers|camera|board` and
`damas bench vision`. OpenCV and the vision stages are imported inside the commands, so
`damas moves` does not pay for them."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from damas.cli import command_group
from damas.rules import DamasError, Occupancy, Position, variant

SIDES = ("bottom", "top", "left", "right")


def register(sub) -> None:
    p = sub.add_parser("render", help="draw a simulated camera frame of a physical board")
    p.add_argument("--variant", default="international")
    p.add_argument("--fen", help="the position (default: the start position)")
    p.add_argument("--out", required=True, help="image file to write (.png, .jpg)")
    p.add_argument("--seed", type=int, default=0,
                   help="draws everything not given below (same seed, same frame)")
    p.add_argument("--tilt", type=float, help="camera tilt from straight down, 0..45 degrees")
    p.add_argument("--rotation", type=float, help="camera direction about the vertical, degrees")
    p.add_argument("--scheme", choices=("wood", "green", "bw"))
    p.add_argument("--markers", action="store_true", help="ArUco markers on the corners")
    p.add_argument("--no-markers", action="store_true")
    p.add_argument("--hand", action="store_true", help="a hand and arm over the board")
    p.add_argument("--kings", choices=("crown", "plain"), default="crown",
                   help="kings as two men with a crown on top, or two plain men stacked")
    p.add_argument("--noise", type=float, help="sensor noise, grey levels")
    p.add_argument("--blur", type=float, help="blur sigma, pixels")
    p.add_argument("--jpeg", type=int, help="JPEG quality (0: none)")
    p.add_argument("--size", default="1280x720", help="frame size, WxH")
    p.set_defaults(run=run_render)

    p = sub.add_parser("read", help="read the position on a board from a photo")
    p.add_argument("image")
    p.add_argument("--variant", default="international")
    p.add_argument("--white-at", choices=SIDES,
                   help="the image side White sits on (default: markers, the start "
                        "position, the pieces' halves, or a guess that the output notes)")
    p.add_argument("--calibration", metavar="DIR", help="folder from `damas calibrate`")
    p.add_argument("--playing-squares", choices=("dark", "light"),
                   help="the squares the set is played on (default dark, as the rules say)")
    p.add_argument("--turn", choices=("w", "b"), default="w", help="side to move in the FEN")
    p.add_argument("--json", action="store_true")
    p.add_argument("--annotate", metavar="OUT", help="write the frame with grid and readings")
    p.set_defaults(run=run_read)

    t = command_group(sub, "train", "train a learned part (needs the train extra)")
    a = t.add_parser("vision", help="train the occupancy model on synthetic patches")
    a.add_argument("--out", default=None, metavar="DIR",
                   help="the folder to write the models to (default: the ones damas ships)")
    a.add_argument("--photos", metavar="DIR", nargs="+", default=[],
                   help="folders of labelled real photos (labels.json) or games "
                        "(sequences.json) to fine-tune on as well, once with every source "
                        "and once without each")
    a.add_argument("--samples", type=int, default=120_000)
    a.add_argument("--epochs", type=int, default=5)
    a.add_argument("--fine-epochs", type=int, default=2)
    a.add_argument("--seed", type=int, default=1, help="the same seed trains the same model")
    a.add_argument("--workers", type=int, default=2, help="processes drawing patches")
    a.add_argument("--cache", metavar="FILE.npz", help="keep the drawn patches here for reuse")
    a.set_defaults(run=run_train)

    actions = command_group(sub, "calibrate", "calibrate the camera, board or robot")
    a = actions.add_parser("markers", help="print the corner markers to scale")
    a.add_argument("--out", required=True, help="PNG to write (A4 page)")
    a.add_argument("--marker-mm", type=float, default=30.0)
    a.add_argument("--dpi", type=int, default=300)
    a.set_defaults(run=run_markers)

    a = actions.add_parser("camera", help="camera intrinsics from chessboard photos")
    a.add_argument("images", nargs="+")
    a.add_argument("--pattern", default="9x6", help="inner corners, COLSxROWS (chessboard) "
                   "or squares (ChArUco)")
    a.add_argument("--square-mm", type=float, default=25.0)
    a.add_argument("--charuco", action="store_true", help="a ChArUco board, not a chessboard")
    a.add_argument("--marker-mm", type=float, default=18.0, help="ChArUco marker size")
    a.add_argument("--out", required=True, metavar="DIR")
    a.set_defaults(run=run_calibrate_camera)

    a = actions.add_parser("board", help="board pose, White's side and colours from a photo")
    a.add_argument("image", nargs="?", help="a photo of the board (or use --camera)")
    a.add_argument("--camera", metavar="SOURCE",
                   help="take the photo from a camera index, stream URL or video instead")
    a.add_argument("--variant", default="international")
    a.add_argument("--fen", help="the position in the photo (default: the start position)")
    a.add_argument("--white-at", choices=SIDES)
    a.add_argument("--intrinsics", metavar="DIR",
                   help="folder holding camera.json (default: the --out folder's, if any)")
    a.add_argument("--out", required=True, metavar="DIR")
    a.add_argument("--annotate", metavar="OUT")
    a.add_argument("--playing-squares", choices=("dark", "light"),
                   help="the squares the set is played on (default dark)")
    a.set_defaults(run=run_calibrate_board)


# --- render ---------------------------------------------------------------------------

def _pair(flag: str, text: str, least: int, example: str) -> tuple[int, int]:
    """Two whole numbers written AxB, each at least `least`."""
    try:
        a, b = (int(v) for v in text.lower().split("x"))
        if a < least or b < least:
            raise ValueError
        return a, b
    except ValueError:
        raise DamasError(f"{flag} {text!r}: give {example}") from None


def run_render(args) -> int:
    import random

    import cv2

    from damas.vision.render import render
    from damas.vision.scene import hand_over, random_scene

    v = variant(args.variant)
    pos = Position.from_fen(args.fen, v) if args.fen else Position.start(v)
    rng = random.Random(args.seed)
    width, height = _pair("--size", args.size, 64, "WIDTHxHEIGHT, e.g. 1280x720")
    fixed: dict[str, Any] = {"size": v.size, "width": width, "height": height,
                             "king_mark": "none" if args.kings == "plain" else "crown"}
    for key, value in (("tilt_deg", args.tilt), ("rotation_deg", args.rotation),
                       ("scheme", args.scheme), ("noise", args.noise), ("blur", args.blur),
                       ("jpeg_quality", args.jpeg)):
        if value is not None:
            fixed[key] = value
    if args.tilt is not None and not 0 <= args.tilt <= 60:
        raise DamasError("--tilt must be between 0 and 60 degrees")
    if args.markers or args.no_markers:
        fixed["markers"] = bool(args.markers)
    scene = random_scene(rng, **fixed)
    if args.hand:
        half = scene.size * scene.square_mm / 2
        scene = scene.with_(hands=(hand_over(scene, rng.uniform(-half, half) * 0.7,
                                             rng.uniform(-half, half) * 0.7, rng),))
    frame = render(scene, pos.pieces()).image
    if not cv2.imwrite(args.out, frame):
        raise DamasError(f"{args.out}: cannot write an image there (folder? extension?)")
    print(f"{args.out}: {v.name} {pos.fen()} scheme={scene.scheme} tilt={scene.tilt_deg:.1f} "
          f"rotation={scene.rotation_deg:.1f} markers={scene.markers} seed={args.seed}")
    return 0


# --- read -----------------------------------------------------------------------------

def _reader_for(args, size: int, known=None):
    """A BoardReader set up from --calibration / --intrinsics / --white-at /
    --playing-squares."""
    from damas.calibration.board import load_board, load_camera
    from damas.calibration.errors import CalibrationError
    from damas.vision.calibrated import load_head
    from damas.vision.height import StackModel
    from damas.vision.pipeline import BoardReader

    calibration = camera = None
    folder = getattr(args, "calibration", None) or getattr(args, "intrinsics", None)
    if folder:
        camera = load_camera(folder)
    if getattr(args, "calibration", None):
        calibration = load_board(args.calibration)
        if calibration.size != size:
            raise CalibrationError(
                f"{args.calibration}: calibrated for a {calibration.size}x{calibration.size} "
                f"board, not {size}x{size}: check --variant or calibrate again")
    white = args.white_at or (calibration.white_at if calibration else None)
    playing = (getattr(args, "playing_squares", None)
               or (calibration.playing if calibration else "dark"))
    reader = BoardReader(size, model=calibration.colour if calibration else None,
                         intrinsics=camera.intrinsics if camera else None, white_at=white,
                         known=known, playing=playing,
                         stack=StackModel.from_dict(calibration.stack) if calibration else None,
                         head=load_head(args.calibration) if calibration else None)
    return reader, calibration


def run_read(args) -> int:
    from damas.vision.annotate import annotate
    from damas.vision.board import BoardPose
    from damas.vision.errors import BoardNotFound
    from damas.vision.sources import read_image

    v = variant(args.variant)
    image = read_image(args.image)
    reader, calibration = _reader_for(args, v.size)
    try:
        reading = reader.read(image)
    except BoardNotFound as e:
        if calibration is None:
            if args.json:
                print(json.dumps({"fen": None, "squares": {}, "confidence": {},
                                  "board_found": False, "error": str(e)}))
            raise
        # the board may be hard to find alone (a hand on its edge): trust the calibration
        pose = BoardPose(v.size, calibration.camera, "calibration")
        reader.set_pose(pose.turned(1) if calibration.playing == "light" else pose)
        reading = reader.read(image)
    turn = args.turn.upper()
    if args.json:
        print(reading.to_json(turn))
    else:
        print(reading.diagram())
        print(reading.fen(turn))
        if reading.unknown:
            print(f"unknown: {', '.join(map(str, reading.unknown))}"
                  + (" (something covers the board)" if reading.hand else ""))
        for note in reading.notes:
            print(f"note: {note}")
    if args.annotate:
        _write(args.annotate, annotate(image, reader.pose, reading))
    return 0


def _write(path: str, image) -> None:
    import cv2

    if not cv2.imwrite(path, image):
        raise DamasError(f"{path}: cannot write an image there (folder? extension?)")


# --- calibrate ------------------------------------------------------------------------

def run_markers(args) -> int:
    from damas.vision.markers import png_with_dpi, sheet

    if not 5 <= args.marker_mm <= 150:
        raise DamasError("--marker-mm must be between 5 and 150")
    data = png_with_dpi(sheet(args.marker_mm, args.dpi), args.dpi)
    try:
        with open(args.out, "wb") as f:
            f.write(data)
    except OSError as e:
        raise DamasError(f"{args.out}: cannot write ({e.strerror})") from None
    print(f"{args.out}: four {args.marker_mm:g} mm markers on an A4 page at {args.dpi} dpi; "
          "print at 100 % and put id 0 at White's left corner")
    return 0


def run_calibrate_camera(args) -> int:
    from damas.calibration.board import save_camera
    from damas.calibration.intrinsics import calibrate_charuco, calibrate_chessboard
    from damas.vision.sources import read_image

    images = [read_image(p) for p in args.images]
    pattern = _pair("--pattern", args.pattern, 2, "COLSxROWS, e.g. 9x6")
    if args.charuco:
        cal = calibrate_charuco(images, pattern, args.square_mm, args.marker_mm)
    else:
        cal = calibrate_chessboard(images, pattern, args.square_mm)
    path = save_camera(args.out, cal)
    k = cal.intrinsics
    print(f"{path}: fx={k.fx:.1f} fy={k.fy:.1f} cx={k.cx:.1f} cy={k.cy:.1f} "
          f"k1={k.dist[0]:.4f} from {cal.images} of {len(images)} photos, "
          f"reprojection error {cal.rms:.3f} px")
    return 0


def _board_photo(args):
    from damas.vision.errors import SourceError
    from damas.vision.sources import open_source, read_image

    if (args.image is None) == (args.camera is None):
        raise DamasError("give a photo of the board or --camera SOURCE (one of them)")
    if args.image is not None:
        return read_image(args.image)
    for frame in open_source(args.camera):
        return frame
    raise SourceError(f"{args.camera}: gave no frame")


def run_calibrate_board(args) -> int:
    from damas.calibration.board import BoardCalibration, save_board
    from damas.vision.annotate import annotate
    from damas.vision.calibrated import save_head

    v = variant(args.variant)
    known = Position.from_fen(args.fen, v) if args.fen else Position.start(v)
    image = _board_photo(args)
    if args.intrinsics is None and (Path(args.out) / "camera.json").exists():
        args.intrinsics = args.out
    args.calibration = None
    reader, _ = _reader_for(args, v.size, known=known)
    reader.locate(image)
    reading = reader.read(image)
    wrong = reading.occupancy().differing(Occupancy.of_position(known))
    pose = reader.pose
    side = pose.white_side_in_image()
    cal = BoardCalibration(v.name, v.size, pose.camera, (float(side[0]), float(side[1])),
                           reader.model, known.fen(),
                           reader.stack.to_dict() if reader.stack else None, reader.playing)
    path = save_board(args.out, cal)
    if reader.head is not None:
        save_head(args.out, reader.head)
    print(f"{path}: {v.size}x{v.size} board found ({pose.method}), White at the "
          f"{reading.white_at} of the image, colours learned from {known.fen()}")
    if wrong:
        print(f"warning: {len(wrong)} squares read back differently from the position given "
              f"({', '.join(map(str, wrong[:10]))}): check the photo and --fen",
              file=sys.stderr)
    if args.annotate:
        _write(args.annotate, annotate(image, pose, reading))
    return 0


def run_train(args) -> int:
    from damas.vision.occupancy import WEIGHTS
    from damas.vision.train import BATCH, HELD_OUT, MIN_SAMPLES, recall_text, train_all

    for name, value in (("--samples", args.samples), ("--epochs", args.epochs),
                        ("--fine-epochs", args.fine_epochs), ("--workers", args.workers)):
        if value < 1:
            raise DamasError(f"{name} must be at least 1")
    if args.samples < MIN_SAMPLES:
        raise DamasError(f"--samples must be at least {MIN_SAMPLES} (a held-out slice of "
                         f"{HELD_OUT} and a batch of {BATCH} to train on)")
    folder = Path(args.out) if args.out else WEIGHTS.parent
    report = train_all(folder, args.samples, args.epochs, args.fine_epochs, args.seed,
                       args.workers, tuple(Path(p) for p in args.photos),
                       progress=lambda line: print(line, file=sys.stderr),
                       cache=Path(args.cache) if args.cache else None)
    for name, r in report.items():
        print(f"{name}: {r['samples']} patches, {r['epochs']} epochs, "
              f"{r['seconds'] / 60:.1f} min, held-out accuracy "
              f"{100 * r['held_out_accuracy']:.2f} % ({recall_text(r['held_out_recall'])})")
    print(f"models in {folder} (seed {args.seed})")
    return 0


# --- bench ----------------------------------------------------------------------------

def _print(report: dict, as_json: bool, print_report) -> None:
    if as_json:
        print(json.dumps(report, indent=1))
    else:
        print_report(report)


def run_bench(args) -> int:
    photos = getattr(args, "photos", None)
    perturbed = getattr(args, "perturbed", False)
    annotate = getattr(args, "annotate", None)
    if perturbed and not photos:
        raise DamasError("--perturbed reads the labelled photos of --photos DIR again")
    if annotate and (not photos or perturbed):
        raise DamasError("--annotate draws the misses of --photos DIR (not --perturbed)")
    sequences = getattr(args, "sequences", None)
    if sequences and (photos or getattr(args, "unseen", False)):
        raise DamasError("--sequences is a bench of its own: not with --photos or --unseen")
    progress = None if args.json else sys.stderr
    if sequences:
        from damas import sequencebench

        _print(sequencebench.run(sequences, progress=progress), args.json,
               sequencebench.print_report)
        return 0
    if perturbed:
        from damas.vision import perturbbench

        _print(perturbbench.run(photos, progress=progress), args.json,
               perturbbench.print_report)
        return 0
    if photos:
        from damas.vision import photobench

        _print(photobench.run(photos, annotate, progress=progress), args.json,
               photobench.print_report)
        return 0
    from damas.plots import check_plot, plot_vision
    from damas.progress import Progress
    from damas.vision.bench import print_report, run

    seed = args.seed if args.seed is not None else 1
    if getattr(args, "varied", False) and not getattr(args, "unseen", False):
        raise DamasError("--varied goes with --unseen")
    if getattr(args, "unseen", False):
        from damas.vision import unseenbench

        frames = args.frames or 200
        with Progress("bench vision --unseen", total=frames, unit="frame") as progress:
            report = unseenbench.run(frames, seed, progress=progress,
                                     varied=getattr(args, "varied", False))
        _print(report, args.json, unseenbench.print_report)
        return 0
    check_plot(getattr(args, "plot", None))
    frames = args.frames or 2000
    with Progress("bench vision", total=frames, unit="frame") as progress:
        report = run(frames, seed, progress=progress)
    _print(report, args.json, print_report)
    if getattr(args, "plot", None):
        plot_vision(report, args.plot)
        print(f"plot: {args.plot}", file=sys.stderr if args.json else sys.stdout)
    return 0


BENCHES = {"vision": run_bench}
