"""`damas broadcast` (the tournament hall: every board of an event, served over HTTP) and
`damas bench hall`."""

from __future__ import annotations

import sys

from damas.argtypes import broker_url, event_name, port


def register(sub) -> None:
    p = sub.add_parser("broadcast", help="the tournament hall: every board of an event "
                                         "from the MQTT broker, served as live PDN and a page")
    p.add_argument("--broker", type=broker_url, default="mqtt://127.0.0.1",
                   help="the broker the boards publish to: mqtt://HOST[:PORT]")
    p.add_argument("--event", type=event_name, help="the event (as in the boards' "
                                                    "mqtt://BROKER/EVENT/ROUND/BOARD)")
    p.add_argument("--web", type=port, default=8080, metavar="PORT",
                   help="serve the hall on http://HOST:PORT/ (0: any free port; 8080)")
    p.add_argument("--host", default="127.0.0.1",
                   help="the address the hall is served on (0.0.0.0: every network)")
    p.add_argument("--config", help="TOML file with defaults for these options")
    p.set_defaults(run=run_broadcast)


def _say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def run_broadcast(args) -> int:
    import signal
    import threading

    from damas.hall.broadcaster import Broadcaster, Hall
    from damas.hall.server import HallServer
    from damas.rules import DamasError

    if not args.event:
        raise DamasError("broadcast: give the event with --event (the EVENT of the boards' "
                         "mqtt://BROKER/EVENT/ROUND/BOARD)")
    hall = Hall(args.event, out=_say)
    broadcaster = Broadcaster(args.broker, hall)  # a broker we cannot reach: one line
    try:
        server = HallServer(hall, host=args.host, port=args.web).start()
    except OSError as e:
        broadcaster.stop()
        raise DamasError(f"cannot serve the hall on port {args.web}: {e.strerror} (host "
                         f"{args.host}): choose another --web port or --host") from None
    _say(f"hall page: {server.url} (event {args.event} from {args.broker})")
    stopped = threading.Event()
    signal.signal(signal.SIGTERM, lambda *a: stopped.set())
    try:
        stopped.wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
        broadcaster.stop()
    return 0


def bench_hall(args) -> int:
    from damas.hall.bench import run_bench

    return run_bench(args)


def bench_hall_fuzz(args) -> int:
    """Hostile messages through a Mosquitto of our own to one broadcaster process."""
    import json

    from damas.hall.fuzz import run

    figures = run(args.messages or 20_000, seed=args.seed or 1,
                  out=(lambda line: None) if args.json else print)
    print(json.dumps({k: v for k, v in vars(figures).items() if k != "problems"})
          if args.json else figures.line())
    for problem in figures.problems[:10]:
        print(f"    {problem}")
    clean = not (figures.stops or figures.non_json_states or figures.unreadable_pdns)
    return 0 if clean and figures.peak_rss_mb < 100 else 1


BENCHES = {"hall": bench_hall, "hall-fuzz": bench_hall_fuzz}
