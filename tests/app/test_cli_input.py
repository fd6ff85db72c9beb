"""Bad input at the command line, in the TOML config and in a journal: one line on stderr
and status 2, never a traceback, and nothing wrong accepted. Property tests (hypothesis)
throw generated TOML files and journals at the real command line."""

import json
import socket
import subprocess
import sys
import tomllib

import pytest
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from damas.cli import main, parse
from damas.rules import DamasError


def one_line_error(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert err[0].startswith("damas"), err
    return err[0]


def test_no_command_prints_an_overview_and_version_is_known():
    none = subprocess.run([sys.executable, "-m", "damas"], capture_output=True, text=True,
                          timeout=60)
    assert none.returncode == 0 and none.stderr == ""
    lines = none.stdout.splitlines()
    assert lines[0].startswith("damas: a controller for physical draughts boards")
    assert "damas demo" in lines[2] and "start here" in lines[2]
    assert len(lines) < 15 and "damas --help" in lines[-1]
    version = subprocess.run([sys.executable, "-m", "damas", "--version"],
                             capture_output=True, text=True, timeout=60)
    assert version.returncode == 0 and version.stdout.startswith("damas 0.")
    group = subprocess.run([sys.executable, "-m", "damas", "calibrate"], capture_output=True,
                           text=True, timeout=60)
    assert group.returncode == 2 and "robot" in group.stderr and "markers" in group.stderr


def test_help_lists_the_commands_by_use_play_record_kiosk_then_tools(capsys):
    with pytest.raises(SystemExit) as done:
        main(["--help"])
    assert done.value.code == 0
    text = capsys.readouterr().out
    titles = [line for line in text.splitlines() if line.endswith(":") and
              not line.startswith(" ")]
    assert titles == ["play against the machine:", "record tournament games:",
                      "run a kiosk:", "tools:", "options:"]
    listed = [line.split()[0] for line in text.splitlines() if line.startswith("  ")
              and not line.startswith("   ") and not line.lstrip().startswith("-")]
    assert listed[:5] == ["demo", "play", "record", "broadcast", "kiosk"]
    assert listed[5] == "doctor" and "bench" in listed and len(listed) == len(set(listed))


@pytest.mark.parametrize("argv, says", [
    (["demo", "--web", "99999"], "a port is 0 to 65535, not 99999"),
    (["demo", "--web", "9" * 5000], "a port is a number"),
    (["play", "--web", "-1"], "a port is 0 to 65535"),
    (["demo", "--level", "99"], "a level is 1 to 10, not 99"),
    (["play", "--level", "high"], "a level is a whole number 1 to 10, not 'high'"),
    (["kiosk", "--level", "0"], "a level is 1 to 10"),
    (["play", "--settle", "nan"], "seconds are a finite number"),
    (["kiosk", "--idle", "inf"], "seconds are a finite number"),
    (["play", "--settle", "1e308"], "seconds are a finite number 0 to 86400 (a day)"),
    (["demo", "--irregular-rate", "2"], "a share is 0 to 1"),
    (["demo", "--games", "0"], "give 1 or more"),
    (["record", "--time-control", "\u0663"], "time control"),
    (["record", "--fps", "0"], "more than 0"),
])
def test_bad_flags_are_one_line_and_status_2(argv, says, capsys):
    assert main(argv) == 2
    line = one_line_error(capsys)
    assert says in line and line.startswith(f"damas: {argv[0]}: argument")


def test_a_busy_port_is_one_line(tmp_path, capsys):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert main(["demo", "--web", str(port), "--journal", str(tmp_path / "j.jsonl")]) == 2
    assert f"cannot serve the live page on port {port}: Address already in use" in \
        one_line_error(capsys)
    assert not (tmp_path / "j.jsonl").exists()


@pytest.mark.parametrize("toml, says", [
    ('level = "high"', "level = 'high': a level is a whole number 1 to 10"),
    ("level = 99", "level = 99: a level is 1 to 10"),
    ("level = true", "level = true: give a string or a number"),
    ("level = 3.5", "level = 3.5: a level is a whole number"),
    ("[record]\ntime_control = true", "time_control = true: give a string or a number"),
    ("[record]\ntime_control = 0", "time_control = 0: time control '0'"),
    ("web = 70000", "web = 70000: a port is 0 to 65535"),
    ("[play]\nsettle = nan", "settle = nan: seconds are a finite number"),
    ("json = 1", "json = 1: write true or false"),
    ("[play]\ncamera = [0, 1]", "camera = [0, 1]: give a string or a number"),
    ("[dmeo]\nlevel = 3", "unknown table [dmeo]"),
    ("[demo]\nrecord = 1", "unknown option 'record' for damas demo"),
    ("level = " + "9" * 5000, "Exceeds the limit (4300 digits)"),
    ("a = " + "[" * 5000 + "]" * 5000, "nested too deeply"),
])
def test_bad_config_values_are_one_line_and_status_2(toml, says, tmp_path, capsys):
    cfg = tmp_path / "damas.toml"
    cfg.write_text(toml, encoding="utf-8")
    command = next((c for c in ("record", "play") if f"[{c}]" in toml), "demo")
    assert main([command, "--config", str(cfg)]) == 2
    line = one_line_error(capsys)
    assert says in line and str(cfg) in line


def test_a_time_control_written_as_a_number_is_minutes(tmp_path):
    cfg = tmp_path / "damas.toml"
    cfg.write_text("[record]\ntime_control = 45\n")
    assert parse(["record", "--config", str(cfg)]).time_control.minutes == 45
    cfg.write_bytes(b'event = "Caf\xe9"\n')
    with pytest.raises(DamasError, match="not UTF-8"):
        parse(["record", "--config", str(cfg)])


# --- property tests -----------------------------------------------------------------------

KEYS = ["variant", "level", "seed", "games", "web", "camera", "robot", "settle", "json",
        "time_control", "time-control", "max_plies", "irregular-rate", "journal", "human",
        "data_dir", "colour", "config", ""]
SCALARS = (st.text(max_size=12) | st.integers() | st.floats() | st.booleans()
           | st.sampled_from(["english", "international", "45+0", "sim-python", "1e999",
                              "٣", "²", "inf", "nan", "-0", "0x10", "white"])
           | st.integers(min_value=-10, max_value=70000))
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, min_size=1, max_size=3)
                      | st.dictionaries(st.sampled_from(KEYS), inner, min_size=1, max_size=3),
                      max_leaves=6)
CONFIGS = st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=6), VALUES, max_size=5)
TABLES = st.dictionaries(st.sampled_from(["demo", "play", "kiosk", "record", "doctor",
                                          "robot", "x"]), CONFIGS, max_size=2)


def toml_text(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return {"inf": "inf", "-inf": "-inf", "nan": "nan"}.get(str(value), repr(value))
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_text(v) for v in value) + "]"
    return "{" + ", ".join(f"{json.dumps(k)} = {toml_text(v)}" for k, v in value.items()) + "}"


def toml_file(top: dict, tables: dict) -> str:
    lines = [f"{json.dumps(k)} = {toml_text(v)}" for k, v in top.items()
             if not isinstance(v, dict)]
    for name, table in tables.items():
        lines.append(f"[{name}]")
        lines += [f"{json.dumps(k)} = {toml_text(v)}" for k, v in table.items()]
    return "\n".join(lines) + "\n"


@pytest.mark.slow
@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(top=CONFIGS, tables=TABLES, noise=st.binary(max_size=4), cut=st.integers(0, 400),
       command=st.sampled_from(["demo", "play", "kiosk", "record", "doctor"]))
@example(top={"level": "high"}, tables={}, noise=b"", cut=400, command="demo")
@example(top={}, tables={"record": {"time_control": 45}}, noise=b"", cut=400,
         command="record")
def test_any_config_file_is_a_clean_error_or_checked_values(top, tables, noise, cut,
                                                           command, tmp_path_factory):
    text = toml_file(top, tables).encode("utf-8")
    text = text[:cut] + noise + text[cut:]  # now and then a file that is not TOML
    cfg = tmp_path_factory.mktemp("cfg") / "damas.toml"
    cfg.write_bytes(text)
    try:
        args = parse([command, "--config", str(cfg)])
    except DamasError as e:
        assert "\n" not in str(e) and str(cfg) in str(e)
        event("refused")
        return
    event("accepted")
    # accepted: every value the file set for this command is what its flag would give
    table = tomllib.loads(text.decode("utf-8"))
    if "level" in table.get(command, {}) or "level" in table:
        assert 1 <= args.level <= 10
    if getattr(args, "web", None) is not None:
        assert 0 <= args.web <= 65535
    for name in ("settle", "idle", "movetime"):
        if getattr(args, name, None) is not None:
            assert 0 <= getattr(args, name) < float("inf")


@settings(max_examples=100, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(top=CONFIGS, tables=TABLES, noise=st.binary(max_size=4), cut=st.integers(0, 400))
def test_any_config_file_at_the_command_line_is_one_line_and_status_2(top, tables, noise,
                                                                      cut, tmp_path_factory,
                                                                      capsys):
    """`damas record` with any config file and a camera that is not there: whatever the
    file holds, the command ends with one line on stderr and status 2 (the config's
    error, or else the missing camera's). Every path is a flag, so the file cannot send
    a journal anywhere."""
    folder = tmp_path_factory.mktemp("cfg")
    text = toml_file(top, tables).encode("utf-8")
    (folder / "damas.toml").write_bytes(text[:cut] + noise + text[cut:])
    capsys.readouterr()
    status = main(["record", "--config", str(folder / "damas.toml"), "--camera",
                   str(folder / "none.avi"), "--journal", str(folder / "j.jsonl"), "--pdn",
                   str(folder / "g.pdn"), "--data-dir", str(folder)])
    assert status == 2
    line = one_line_error(capsys)
    event("the config's error" if "damas.toml" in line else "the missing camera")


def test_config_errors_at_the_process_boundary(tmp_path):
    """The same as the process a user runs: one line, status 2, no traceback."""
    for toml in ('level = "high"', "[record]\ntime_control = []", "x = \x00"):
        cfg = tmp_path / "damas.toml"
        cfg.write_text(toml)
        proc = subprocess.run([sys.executable, "-m", "damas", "record", "--config", str(cfg)],
                              capture_output=True, text=True, timeout=60)
        assert proc.returncode == 2 and "Traceback" not in proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1


LINES = st.one_of(
    st.text(max_size=30),
    st.dictionaries(st.sampled_from(["kind", "seq", "variant", "fen", "notation", "ply",
                                     "start", "moves", "machine", "clock"]),
                    st.none() | st.integers() | st.text(max_size=8) | st.floats()
                    | st.sampled_from(["game-start", "move", "resumed", "english",
                                       "B:W21-32:B1-12", "11-15", "W:W21-32:B1-10,12,15"])
                    | st.lists(st.integers(), max_size=2)
                    | st.dictionaries(st.sampled_from(["kind", "variant", "fen"]),
                                      st.sampled_from(["game-start", "english", "x"]),
                                      max_size=3),
                    max_size=7).map(json.dumps))
START = ('{"kind":"game-start","seq":1,"variant":"english","fen":"B:W21-32:B1-12",'
         '"machine":["black"]}')
FIRST = '{"kind":"move","seq":2,"notation":"11-15","fen":"W:W21-32:B1-10,12,15","ply":1}'


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(LINES, max_size=6), prefix=st.sampled_from([[], [START], [START, FIRST]]))
def test_any_journal_resumes_cleanly_or_is_one_clear_line(lines, prefix, tmp_path_factory,
                                                          capsys):
    folder = tmp_path_factory.mktemp("journal")
    journal = folder / "j.jsonl"
    journal.write_text("\n".join(prefix + lines) + "\n", encoding="utf-8")
    capsys.readouterr()
    status = main(["play", "--resume", "--camera", "sim-board", "--robot", "sim-python",
                   "--variant", "english", "--level", "1", "--max-plies", "1", "--journal",
                   str(journal), "--pdn", str(folder / "g.pdn")])
    err = capsys.readouterr().err.strip().splitlines()
    event(f"status {status}" + (", damage said" if any("damaged" in e for e in err) else ""))
    if status == 2:
        assert len(err) == 1 and err[0].startswith("damas: "), err
        assert not prefix or "game" in err[0] or "journal" in err[0]
        return
    assert status == 0, (status, err)
    if prefix == [START, FIRST] and not any('"game-start"' in line or '"resumed"' in line
                                            for line in lines):
        # the move before any damage is kept, and nothing the journal does not hold
        from damas.rules.pdn import read_pdn

        (game,) = read_pdn((folder / "g.pdn").read_text(encoding="utf-8"))
        assert game.game.notations()[0] == "11-15"


def test_a_recording_that_is_not_there_is_one_line_before_any_page(tmp_path, capsys):
    # with a page asked for (port 0: any free one) its address would be a second line
    status = main(["record", "--web", "0", "--camera", str(tmp_path / "none.avi"),
                   "--journal", str(tmp_path / "j.jsonl"), "--pdn", str(tmp_path / "g.pdn"),
                   "--data-dir", str(tmp_path)])
    assert status == 2
    assert "none.avi" in one_line_error(capsys)
