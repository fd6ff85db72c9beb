"""A journal damaged in the middle: for every line of a real game's journal, the line
deleted, duplicated, corrupted, emptied of its keys or swapped with the next; resuming
keeps every move before the damaged line, never a move that was not played, and says
what it dropped. Then `damas play --resume` goes on from there, and a second resume
keeps what the first one played."""

import json

import pytest

from damas.cli import main
from damas.events import GameStart, Interrupted, RecordedMove
from damas.journal import Journal, JournalError, replay_last_game
from damas.rules.pdn import read_pdn

PLIES = 16


def play(journal, pdn, *extra):
    return main(["play", "--camera", "sim-board", "--robot", "sim-python", "--variant",
                 "english", "--level", "1", "--settle", "0.3", "--journal", str(journal),
                 "--pdn", str(pdn), *extra])


@pytest.fixture(scope="module")
def game(tmp_path_factory):
    folder = tmp_path_factory.mktemp("journal")
    journal = folder / "j.jsonl"
    assert play(journal, folder / "g.pdn", "--max-plies", str(PLIES)) == 0
    lines = journal.read_text(encoding="utf-8").splitlines()
    moves = [json.loads(line)["notation"] for line in lines
             if json.loads(line)["kind"] == "move"]
    assert len(moves) == PLIES
    return lines, moves


def moves_in(lines):
    return sum(1 for line in lines if json.loads(line)["kind"] == "move")


def emptied(line):
    event = json.loads(line)
    return json.dumps({"kind": event["kind"], "seq": event["seq"]})


MUTATIONS = {
    # name: (the lines after it, how many original lines stay trusted before the damage)
    "deleted": (lambda ls, i: ls[:i] + ls[i + 1:], lambda i: i),
    "duplicated": (lambda ls, i: ls[:i + 1] + ls[i:], lambda i: i + 1),
    "corrupted": (lambda ls, i: ls[:i] + [ls[i][: len(ls[i]) // 2] + "#"] + ls[i + 1:],
                  lambda i: i),
    "emptied": (lambda ls, i: ls[:i] + [emptied(ls[i])] + ls[i + 1:], lambda i: i),
    "swapped": (lambda ls, i: ls[:i] + ls[i:i + 2][::-1] + ls[i + 2:], lambda i: i),
}


@pytest.mark.parametrize("mutation", sorted(MUTATIONS))
def test_every_damaged_line_keeps_what_came_before(game, mutation, tmp_path):
    lines, moves = game
    mutate, trusted = MUTATIONS[mutation]
    path = tmp_path / "j.jsonl"
    for i in range(len(lines) - (mutation == "swapped")):
        path.write_text("\n".join(mutate(lines, i)) + "\n", encoding="utf-8")
        damaged = mutate(lines, i) != lines
        try:
            replay = replay_last_game(path)
        except JournalError as e:  # only the game's start gone leaves nothing to resume
            assert i == 0 and mutation != "duplicated" and "game" in str(e)
            continue
        kept = replay.game.notations()
        assert kept == moves[:len(kept)], f"line {i + 1} {mutation}: a move never played"
        assert len(kept) >= moves_in(lines[:trusted(i)]), \
            f"line {i + 1} {mutation}: moves before the damage were lost"
        last_line = i == len(lines) - 1
        if damaged and not last_line and replay.damage is None:
            # only harmless damage goes unremarked: nothing of the game was dropped
            assert kept == moves, f"line {i + 1} {mutation}: silently dropped moves"
        if replay.damage is not None:
            assert f"journal line {replay.damage.line}" in replay.lost
            assert f"after ply {len(kept)}" in replay.lost
            dropped = [str(e.get("notation", "?")) for e in replay.dropped
                       if e.get("kind") == "move"]
            assert " ".join(dropped) in replay.lost


def test_resume_goes_on_after_the_damage_and_a_second_resume_keeps_it(game, tmp_path,
                                                                       capsys):
    lines, moves = game
    journal, pdn = tmp_path / "j.jsonl", tmp_path / "g.pdn"
    middle = next(i for i, line in enumerate(lines)
                  if json.loads(line).get("ply") == PLIES // 2)
    journal.write_text("\n".join(lines[:middle] + ['{"kind":"move"}'] + lines[middle + 1:])
                       + "\n", encoding="utf-8")
    assert play(journal, pdn, "--resume", "--max-plies", str(PLIES)) == 0
    err = capsys.readouterr().err
    assert f"journal line {middle + 1}: a move event without notation, fen, ply" in err
    assert f"after ply {PLIES // 2 - 1}" in err
    (first,) = read_pdn(pdn.read_text(encoding="utf-8"))
    played = first.game.notations()
    assert played[:PLIES // 2 - 1] == moves[:PLIES // 2 - 1] and len(played) == PLIES
    # the damaged line stays in the file; the `resumed` event holds the game so far
    assert play(journal, pdn, "--resume", "--max-plies", str(PLIES + 4)) == 0
    assert "damaged" not in capsys.readouterr().err
    (second,) = read_pdn(pdn.read_text(encoding="utf-8"))
    assert second.game.notations()[:PLIES] == played and len(second.game.notations()) == 20


def test_a_valid_json_line_without_its_keys_is_one_clear_line(tmp_path, capsys):
    journal = tmp_path / "j.jsonl"
    for text in ('{"kind":"game-start"}\n', '{"kind":"move"}\n', '[1, 2]\n', "\n", "\x00\n"):
        journal.write_text(text)
        assert play(journal, tmp_path / "g.pdn", "--resume") == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "game" in err[0], err


def test_a_kiosk_archives_what_it_can_of_a_damaged_game_and_starts(game, tmp_path):
    lines, moves = game
    journal, archive = tmp_path / "k.jsonl", tmp_path / "k.pdn"
    cut = next(i for i, line in enumerate(lines) if json.loads(line).get("ply") == 5)
    # the run crashed (no game-end) after a line in its middle was broken
    journal.write_text("\n".join(lines[:cut] + ["{broken"] + lines[cut + 1:-1]) + "\n")
    assert main(["kiosk", "--camera", "sim-board", "--robot", "sim-python", "--variant",
                 "english", "--level", "1", "--settle", "0.3", "--games", "1",
                 "--attract-plies", "4", "--journal", str(journal), "--archive",
                 str(archive), "--json"]) == 0
    unfinished, played = read_pdn(archive.read_text(encoding="utf-8"))
    assert unfinished.game.notations() == moves[:4] and unfinished.tags["Result"] == "*"
    assert len(played.game.notations()) == 4
    kinds = [json.loads(line)["kind"] for line in journal.read_text().splitlines()
             if line.startswith("{\"")]
    assert "journal-damaged" in kinds


def test_the_numbering_goes_on_across_runs_and_a_new_journal_is_synced(tmp_path):
    path = tmp_path / "new" / "j.jsonl"
    with Journal(path) as j:
        assert j.write(Interrupted())["seq"] == 1
    with open(path, "a") as f:
        f.write('{"kind":"b","seq":2,"wall":1}\n{"kind": "torn", "se')
    with Journal(path) as j:
        assert j.write(Interrupted())["seq"] == 3
    assert [json.loads(line)["seq"] for line in path.read_text().splitlines()
            if line.endswith("}")] == [1, 2, 3]


def test_a_kiosk_starts_whatever_the_journal_holds(tmp_path):
    journal, archive = tmp_path / "k.jsonl", tmp_path / "k.pdn"
    journal.write_text('{"kind":"game-start"}\n{"kind":"move"}\n')  # valid JSON, no keys
    assert main(["kiosk", "--camera", "sim-board", "--robot", "sim-python", "--variant",
                 "english", "--level", "1", "--settle", "0.3", "--games", "1",
                 "--attract-plies", "2", "--journal", str(journal), "--archive",
                 str(archive), "--json"]) == 0
    (played,) = read_pdn(archive.read_text(encoding="utf-8"))
    assert len(played.game.notations()) == 2


def test_a_record_resumes_up_to_the_damage_with_its_clock(tmp_path):
    from damas.clock import parse_time_control
    from damas.record import Recorder
    from damas.rules import BLACK, WHITE, Game
    from damas.rules.tracker.events import MoveSeen

    journal = tmp_path / "j.jsonl"
    game = Game("english")
    with Journal(journal) as j:
        j.write(GameStart("english", game.position.fen(), control="3+0"))
        for ply, notation in enumerate(["11-15", "23-19", "8-11", "22-17"], 1):
            side = "white" if game.position.turn == WHITE else "black"
            game.push(notation)
            clock = {"white": 180.0 - ply, "black": 170.0 - ply}
            seen = MoveSeen(None, notation, game.position.fen(), ply, side, game.moves[-1])
            j.write(RecordedMove(seen, clock, f"[%clock w0:0{ply}:00]"))
    lines = journal.read_text().splitlines()
    lines[3] = lines[3].replace('"clock":{', '"clocks":{')  # ply 3 without its clock
    journal.write_text("\n".join(lines) + "\n")
    said = []
    recorder = Recorder("english", parse_time_control("3+0"), journal, tmp_path / "g.pdn",
                        resume=True, out=said.append)
    assert recorder.tracker.game.notations() == ["11-15", "23-19"]
    assert sorted(recorder.clock_comments) == [1, 2]
    assert recorder.clock.left == {WHITE: 178.0, BLACK: 168.0}  # the last kept move's
    assert any("journal line 4: a move event without the clock times" in s for s in said)
