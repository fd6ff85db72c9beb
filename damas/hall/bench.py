"""`damas bench hall`: simulated boards (damas.hall.sim, in worker processes) play through a
Mosquitto of our own and one broadcaster process (`damas broadcast`), as in a hall; then
the same with twice as many boards, and again, until the hall saturates (p99 latency over
1 s, or fewer moves through than the boards make).

Figures: moves per second through the hall, the latency from a board's move (the time
its journal has it) to the broadcast PDN holding it (median, p99), and the broadcaster's
CPU (share of one core) and memory (peak resident). The boards' spools go to /dev/shm
when there is one: in a hall every board has its own disk, here they would all wait on
one.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from .mosquitto import Mosquitto
from .sim import SimBoard, wait_until

PLIES = 20
PACE = 0.5  # wall seconds between one board's moves: ~60 times a classical game's pace
LIMIT_MS = 1000.0
MOST_BOARDS = 800


class _Caster:
    def __init__(self, url: str, event: str):
        self.process = subprocess.Popen(
            [sys.executable, "-m", "damas", "broadcast", "--broker", url, "--event", event,
             "--web", "0"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        for line in self.process.stderr or ():
            match = re.match(r"hall page: (http://\S+)", line)
            if match:
                self.url = match[1].rstrip("/")
                break
        else:
            raise RuntimeError("the broadcaster did not start")

    def stats(self) -> dict:
        with urllib.request.urlopen(self.url + "/stats.json", timeout=10) as r:
            return json.loads(r.read())

    def cpu_seconds(self) -> float:
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def peak_mb(self) -> float:
        return peak_mb(self.process.pid)

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)


PER_PROCESS = 100  # boards per worker process: paho waits on select(), whose file
# numbers stop at 1024, and two cores want more than one process of boards anyway


def _boards_worker(url_host: str, port: int, event: str, numbers: list[int], folder: str,
                   pace: float, plies: int, results) -> None:
    """One process of simulated boards: plays them, waits until the broker has every
    event, and sends back each board's record and its own CPU time."""
    from .topics import Broker

    sims = [SimBoard(Broker(url_host, port), event, "1", str(n), Path(folder) / str(n),
                     plies=plies, pace=pace, seed=n) for n in numbers]
    for s in sims:
        s.start()
    for s in sims:
        s.join()
    for s in sims:
        s.close(timeout=30)
    results.put({"errors": [f"board {s.address.name}: {s.error!r}" for s in sims if s.error],
                 "pdn": {s.address.board: s.pdn.read_text() for s in sims if s.pdn.exists()},
                 "moves": sum(len(s.moves) for s in sims), "cpu": time.process_time()})


def one_run(broker: Mosquitto, boards: int, folder: Path, pace: float = PACE,
            plies: int = PLIES, per_process: int = PER_PROCESS) -> dict:
    import multiprocessing

    event = f"bench{boards}"
    caster = _Caster(broker.url, event)
    context = multiprocessing.get_context("spawn")  # no threads copied into a fork
    results = context.Queue()
    numbers = list(range(1, boards + 1))
    groups = [numbers[i:i + per_process] for i in range(0, boards, per_process)]
    workers = [context.Process(target=_boards_worker, args=(
        broker.broker.host, broker.broker.port, event, group, str(folder / event), pace,
        plies, results), daemon=True) for group in groups]
    try:
        cpu0 = caster.cpu_seconds()
        start = time.monotonic()
        for w in workers:
            w.start()
        outcomes = [results.get(timeout=120 + plies * pace * 4) for _ in workers]
        total = sum(o["moves"] for o in outcomes)
        try:  # a hall that cannot keep up gets there late, or never: that is saturation
            wait_until(lambda: caster.stats()["moves"] >= total, 30 + plies * pace * 4,
                       "every move at the broadcaster", every=0.1)
        except TimeoutError:
            pass
        seconds = time.monotonic() - start
        through = caster.stats()["moves"]
        cpu = caster.cpu_seconds() - cpu0
        stats = caster.stats()
        records = {b: t for o in outcomes for b, t in o["pdn"].items()}
        equal = sum(1 for b, text in records.items()
                    if _get(caster.url, f"/board/1/{b}.pdn") == text)
        return {"boards": boards, "moves": total, "arrived": through,
                "seconds": round(seconds, 2), "moves_per_s": round(through / seconds, 1),
                "offered_per_s": round(boards / pace, 1),
                "latency_ms": stats.get("latency_ms"), "duplicates": stats["duplicates"],
                "broadcaster_cpu_share": round(cpu / seconds, 3),
                "broadcaster_peak_mb": round(caster.peak_mb(), 1),
                "boards_cpu_share": round(sum(o["cpu"] for o in outcomes) / seconds, 3),
                "board_processes": len(workers), "pdn_equal": equal,
                "errors": [e for o in outcomes for e in o["errors"]][:5]}
    finally:
        for w in workers:
            w.join(5)
            if w.is_alive():
                w.kill()
        caster.stop()


def saturated(run: dict) -> bool:
    late = (run["latency_ms"] or {}).get("p99", 0) > LIMIT_MS or run["arrived"] < run["moves"]
    # the boards' own pace stretches a run a little: 80 % of what they offer is "keeping up"
    return late or run["moves_per_s"] < 0.8 * run["offered_per_s"]


def run_bench(args) -> int:
    boards = getattr(args, "boards", None) or 100
    shm = Path("/dev/shm")
    folder = Path(tempfile.mkdtemp(prefix="damas-hall-bench-",
                                   dir=shm if shm.is_dir() else None))
    runs = []
    import shutil

    try:
        with Mosquitto() as broker:
            n = boards
            while True:
                run = one_run(broker, n, folder)
                runs.append(run)
                if not getattr(args, "json", False):
                    _print(run)
                if saturated(run) or n * 2 > MOST_BOARDS:
                    break
                n *= 2
    finally:  # the boards' spools and records, however the bench ended
        shutil.rmtree(folder, ignore_errors=True)
    first_bad = next((r["boards"] for r in runs if saturated(r)), None)
    if getattr(args, "json", False):
        print(json.dumps({"runs": runs, "saturates_at": first_bad}))
        return 0
    if first_bad is None:
        print(f"not saturated up to {runs[-1]['boards']} boards")
    else:
        good = [r["boards"] for r in runs if not saturated(r)]
        print(f"saturates at {first_bad} boards (keeps up with "
              f"{max(good) if good else 'none of these'}); a board makes a move every "
              f"{PACE:g} s here, about 60 times a classical game's pace")
    return 0


def _get(url: str, path: str) -> str | None:
    try:
        with urllib.request.urlopen(url + path, timeout=10) as r:
            return r.read().decode()
    except OSError:
        return None


def _print(run: dict) -> None:
    lat = run["latency_ms"] or {}
    print(f"{run['boards']} boards, {run['arrived']} of {run['moves']} moves in "
          f"{run['seconds']} s: "
          f"{run['moves_per_s']} moves/s through the hall (the boards offer "
          f"{run['offered_per_s']}); latency move -> broadcast PDN median "
          f"{lat.get('median')} ms, p99 {lat.get('p99')} ms; broadcaster CPU "
          f"{run['broadcaster_cpu_share'] * 100:.0f} % of a core, peak memory "
          f"{run['broadcaster_peak_mb']} MB; boards ({run['board_processes']} processes) "
          f"CPU {run['boards_cpu_share'] * 100:.0f} %; PDN equal on {run['pdn_equal']} of "
          f"{run['boards']}", flush=True)
    for error in run["errors"]:
        print(f"  {error}")


def peak_mb(pid: int) -> float:
    """A running process's peak memory (VmHWM), in MB."""
    status = Path(f"/proc/{pid}/status").read_text()
    peak = re.search(r"VmHWM:\s+(\d+)", status)
    return int(peak[1]) / 1024 if peak else float("nan")
