"""`damas record --publish` end to end: a video of a game played by hand (the renderer as
the camera, read by the real vision pipeline), recorded and published through Mosquitto
to a broadcaster, whose PDN is the record's."""

import subprocess
import sys

import pytest

from damas.hall.broadcaster import Broadcaster, Hall
from damas.hall.sim import wait_until
from damas.rules import Game
from damas.rules.pdn import read_pdn
from damas.sim.video import hand_played_video
from damas.vision.scene import SceneRanges


def _video(path, plies=4, seed=3) -> Game:
    return hand_played_video(path, SceneRanges(sizes=(8,), tilt=(0, 10), noise=(0, 1),
                                               blur=(0, 0.3)), plies=plies, seed=seed)


@pytest.mark.slow
def test_record_publish_reaches_the_broadcaster(mosquitto, tmp_path):
    game = _video(tmp_path / "game.avi")
    hall = Hall("open", out=lambda line: None)
    caster = Broadcaster(mosquitto.broker, hall)
    pdn = tmp_path / "live.pdn"
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "damas", "record", "--camera", str(tmp_path / "game.avi"),
             "--variant", "english", "--time-control", "3+2", "--fps", "10", "--settle",
             "0.3", "--pdn", str(pdn), "--journal", str(tmp_path / "j.jsonl"),
             "--white", "Ana", "--black", "Bia", "--spool", str(tmp_path / "spool.jsonl"),
             "--publish", f"{mosquitto.url}/open/2/7"],
            capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, proc.stderr
        assert f"hall: publishing to {mosquitto.url}/open/2/7" in proc.stdout
        (recorded,) = read_pdn(pdn.read_text(), "english")
        assert recorded.game.notations() == game.notations()
        assert (recorded.tags["Event"], recorded.tags["Round"], recorded.tags["Board"]) == \
            ("open", "2", "7")
        wait_until(lambda: hall.board_pdn("2/7") == pdn.read_text(), 20,
                   "the record at the broadcaster")
        assert hall.board_detail("2/7")["online"] is False  # it said goodbye
    finally:
        caster.stop()
