"""`damas diagram`: a board picture (SVG or PNG) for broadcasts and books."""

from __future__ import annotations


def register(sub) -> None:
    p = sub.add_parser("diagram", help="draw a position as an SVG or PNG diagram")
    p.add_argument("--variant", default="international",
                   help="international (default), brazilian or english")
    p.add_argument("--fen", help="the position (default: the start position)")
    out = p.add_mutually_exclusive_group(required=True)
    out.add_argument("--svg", metavar="OUT", help="write an SVG file")
    out.add_argument("--png", metavar="OUT", help="write a PNG file")
    p.add_argument("--arrow", metavar="MOVE",
                   help="a move's arrow and highlighted squares, e.g. 32-28 or 28x19x10")
    p.add_argument("--no-numbers", action="store_true",
                   help="leave the square numbers off the empty squares")
    p.add_argument("--pixels", type=int, default=800, help="the picture's side (default 800)")
    p.set_defaults(run=run_diagram)


def run_diagram(args) -> int:
    from damas.calibration.store import atomic_write_bytes, atomic_write_text
    from damas.diagram import parse_path, shapes, to_png, to_svg
    from damas.rules import DamasError, Position, variant

    v = variant(args.variant)
    position = Position.from_fen(args.fen, v) if args.fen else Position.start(v)
    if not 64 <= args.pixels <= 8000:
        raise DamasError(f"--pixels {args.pixels}: give 64 to 8000")
    arrow = parse_path(args.arrow, v.size) if args.arrow else None
    side, drawn = shapes(position, numbers=not args.no_numbers, arrow=arrow)
    target = args.svg or args.png
    try:
        if args.svg:
            atomic_write_text(target, to_svg(side, drawn, args.pixels))
        else:
            atomic_write_bytes(target, to_png(side, drawn, args.pixels))
    except OSError as e:
        raise DamasError(f"cannot write {target}: {e.strerror or e}") from None
    print(f"diagram: {target}")
    return 0
