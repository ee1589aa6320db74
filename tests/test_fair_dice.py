"""Provably fair dice (tawla.match.fair_dice): the published test vector, an independent
implementation of the scheme, matches played and replayed on them, verification of a finished
match and of tampered documents, and ``tawla verify-dice``."""

import hashlib
import hmac
import json
import struct
import subprocess
import sys

import numpy as np
import pytest
from match_helpers import Clock, drive

import tawla
from tawla import errors
from tawla.match import fair_dice
from tawla.match.fair_dice import FairDice, roll_dice

SEED = bytes(range(32))
CLIENT_SEEDS = ("alice", "bob")
COMMITMENT = "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
# The test vector of docs/fair-dice.md: the first 20 rolls for SEED and CLIENT_SEEDS.
VECTOR = [(6, 4), (2, 3), (3, 2), (4, 3), (4, 3), (6, 1), (2, 1), (4, 4), (5, 6), (3, 2),
          (4, 5), (5, 6), (1, 6), (6, 5), (5, 6), (5, 6), (5, 3), (4, 2), (6, 6), (6, 5)]


def scheme_by_hand(seed, client_seeds, n):
    """The scheme as docs/fair-dice.md words it, written apart from the engine's code."""
    def field(b):
        return struct.pack(">I", len(b)) + b
    commitment = hashlib.sha256(seed).digest()
    msg = (field(commitment) + field(client_seeds[0].encode()) + field(client_seeds[1].encode())
           + field(struct.pack(">Q", n)))
    stream = hmac.new(seed, msg, "sha256").digest()
    for k in range(1, 100):
        stream += hmac.new(seed, msg + field(struct.pack(">I", k)), "sha256").digest()
    faces = [b % 6 + 1 for b in stream if b < 252]
    return faces[0], faces[1]


def test_the_published_test_vector():
    assert hashlib.sha256(SEED).hexdigest() == COMMITMENT == FairDice(SEED).commitment.hex()
    assert [roll_dice(SEED, CLIENT_SEEDS, n) for n in range(20)] == VECTOR
    assert [scheme_by_hand(SEED, CLIENT_SEEDS, n) for n in range(20)] == VECTOR


def test_the_engine_agrees_with_the_scheme_by_hand_and_is_unbiased():
    rng = np.random.default_rng(7)
    counts = np.zeros(7, int)
    for i in range(3000):
        seed = rng.bytes(32)
        seeds = ("", "x" * int(rng.integers(0, 65)))
        n = int(rng.integers(0, 2**40))
        d = roll_dice(seed, seeds, n)
        assert d == scheme_by_hand(seed, seeds, n)
        np.add.at(counts, list(d), 1)
    # 6,000 dice, 1,000 expected per face: a chi-square of 5 degrees of freedom under 20.5
    # (p = 0.001) unless the faces are biased.
    chi2 = float(((counts[1:] - 1000) ** 2 / 1000).sum())
    assert chi2 < 20.5, counts


def test_a_stream_that_runs_out_goes_on_with_the_counter(monkeypatch):
    real = hmac.new
    calls = []

    def first_block_all_skipped(key, msg, digestmod):
        calls.append(msg)
        if len(calls) == 1:
            class Spent:
                def digest(self):
                    return b"\xfc" * 31 + b"\x05"  # one usable byte (a 6), then nothing
            return Spent()
        return real(key, msg, digestmod)

    monkeypatch.setattr(fair_dice.hmac, "new", first_block_all_skipped)
    d = roll_dice(SEED, ("", ""), 3)
    assert len(calls) == 2 and calls[1] == calls[0] + struct.pack(">II", 4, 1)
    nxt = [b % 6 + 1 for b in real(SEED, calls[1], "sha256").digest() if b < 252]
    assert d == (6, nxt[0])


def _played(length=3, seed=SEED, client_seeds=CLIENT_SEEDS, *, house="international", clock=None, n=400):
    dice = FairDice(seed, client_seeds)
    kw = {"clock": clock} if clock is not None else {}
    m = tawla.Match("backgammon", house, length, rng=dice, **kw)
    return drive(m, np.random.default_rng(3), clock or Clock(0.0), n), dice


def test_a_match_on_fair_dice_rolls_the_scheme_and_replays_byte_for_byte():
    clock = Clock(0.0)
    m, dice = _played(5, house=tawla.get_house("international", turn_time=30), clock=clock, n=600)
    doc = json.loads(m.to_json())
    rolls = tawla.match.dice_verify.logged_rolls(doc["events"])
    assert len(rolls) == dice.n > 20
    assert [d for _, d in rolls] == [roll_dice(SEED, CLIENT_SEEDS, k) for k in range(dice.n)]
    assert [d for _, d in rolls[:20]] == VECTOR
    kinds = {doc["events"][i]["type"] for i, _ in rolls}
    assert {"opening", "roll", "timeout"} <= kinds  # timeouts rolled for a player count too
    assert doc["config"]["rng"] == {"scheme": fair_dice.SCHEME, "seed": SEED.hex(), "commitment": COMMITMENT,
                                    "client_seeds": list(CLIENT_SEEDS), "n": 0}
    text = m.to_json()
    assert tawla.Match.from_json(text).to_json() == text
    assert tawla.Match.replay(text).to_json() == text


def test_client_seeds_change_the_dice_and_are_fixed_at_the_first_roll():
    d = FairDice(SEED)
    d.set_client_seed(1, "bob")
    d.set_client_seed(0, "alice")
    assert d.client_seeds == CLIENT_SEEDS
    m = tawla.Match("backgammon", length=1, rng=d)
    assert d.n >= 1
    with pytest.raises(errors.InvalidAction, match="fixed"):
        d.set_client_seed(0, "late")
    assert d.client_seeds == CLIENT_SEEDS and m.to_json() == m.to_json()
    other = FairDice(SEED, ("alice", "carol"))
    assert [other.throw() for _ in range(20)] != VECTOR
    for bad in (2, -1, True, "0"):
        with pytest.raises(errors.InvalidAction):
            FairDice(SEED).set_client_seed(bad, "x")
    for bad in ("x" * 65, "a\nb", None, b"x"):
        with pytest.raises(errors.InvalidAction):
            FairDice(SEED).set_client_seed(0, bad)
    for seed in (b"short", "00" * 32, 5):
        with pytest.raises(errors.ConfigError):
            FairDice(seed)
    assert FairDice().seed != FairDice().seed  # a new secret seed each time


def test_a_finished_match_verifies():
    m, dice = _played(3, n=3000)
    assert m.phase == "over"
    v = tawla.verify_dice(m.to_json())
    assert v.ok and v.commitment_ok and v.rolls == dice.n and not v.mismatches


@pytest.mark.parametrize("tamper", ["dice", "seed", "commitment", "client_seed", "count", "drop"])
def test_a_tampered_document_fails_verification(tamper):
    m, _ = _played(3, n=3000)
    doc = m.to_dict()
    rolls = tawla.match.dice_verify.logged_rolls(doc["events"])
    i, d = rolls[5]
    if tamper == "dice":
        doc["events"][i]["dice"] = [7 - d[0], d[1]]
    elif tamper == "seed":
        doc["config"]["rng"]["seed"] = "ff" * 32
    elif tamper == "commitment":
        doc["config"]["rng"]["commitment"] = "00" * 32
    elif tamper == "client_seed":
        doc["config"]["rng"]["client_seeds"][1] = "mallory"
    elif tamper == "count":
        doc["state"]["rng"]["n"] += 1
    else:
        del doc["events"][i]
    v = tawla.verify_dice(doc)
    assert not v.ok
    if tamper == "dice":
        assert [(x.roll, x.event, x.recorded) for x in v.mismatches] == [(5, i, (7 - d[0], d[1]))]
    if tamper == "commitment":
        assert not v.commitment_ok and not v.mismatches
    with pytest.raises(errors.FormatError):
        tawla.Match.from_json(doc)  # nor does it load as a match


def test_what_cannot_be_verified_says_why():
    m = tawla.Match("backgammon", length=1, rng=5)
    with pytest.raises(errors.FormatError, match="not fair dice"):
        tawla.verify_dice(m.to_json())
    doc = _played(1, n=10)[0].to_dict()
    del doc["config"]["rng"]["seed"]
    with pytest.raises(errors.FormatError, match="not revealed"):
        tawla.verify_dice(doc)
    for bad in ("{", "[]", json.dumps({"format": "other"})):
        with pytest.raises(errors.FormatError):
            tawla.verify_dice(bad)
    doc = _played(1, n=10)[0].to_dict()
    doc["config"]["rng"]["seed"] = "zz" * 32
    with pytest.raises(errors.FormatError):
        tawla.verify_dice(doc)
    doc["config"]["rng"]["seed"] = SEED.hex()
    doc["state"]["rng"]["seed"] = "ff" * 32  # the state's seed not the commitment's: refused on load
    with pytest.raises(errors.FormatError, match="commitment"):
        tawla.Match.from_json(doc)


def test_a_failed_action_gives_its_roll_back():
    m, dice = _played(3, n=40)
    while m.phase != "roll":
        drive(m, np.random.default_rng(dice.n), Clock(0.0), 1)
    before, n = m.to_json(), dice.n

    def roll_then_fail(*args, **kwargs):
        raise errors.InvalidAction("refused after the dice")

    m._begin_move = roll_then_fail  # the roll is thrown, then the action fails
    with pytest.raises(errors.InvalidAction):
        m.roll(m.turn)
    del m._begin_move
    assert dice.n == n and m.to_json() == before


def test_verify_dice_command(tmp_path):
    m, _ = _played(3, n=3000)
    good = tmp_path / "match.json"
    good.write_text(m.to_json(), encoding="utf-8")
    run = [sys.executable, "-m", "tawla", "verify-dice"]
    out = subprocess.run(run + [str(good)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "SHA-256 of the seed" in out.stdout and "all agree" in out.stdout
    room = tmp_path / "room.json"  # a room's state as the service gives it: its match is read
    room.write_text(json.dumps({"code": "ABCDEF", "phase": "over", "match": m.to_dict()}), encoding="utf-8")
    assert subprocess.run(run + [str(room)], capture_output=True, text=True).returncode == 0
    doc = m.to_dict()
    i, d = tawla.match.dice_verify.logged_rolls(doc["events"])[2]
    doc["events"][i]["dice"] = [d[1] % 6 + 1, d[0]]
    bad = tmp_path / "tampered.json"
    bad.write_text(json.dumps(doc), encoding="utf-8")
    out = subprocess.run(run + [str(bad), "--json"], capture_output=True, text=True)
    assert out.returncode == 1
    report = json.loads(out.stdout)
    assert report["ok"] is False and [x["roll"] for x in report["mismatches"]] == [2]
    plain = tmp_path / "plain.json"
    plain.write_text(tawla.Match("backgammon", length=1, rng=1).to_json(), encoding="utf-8")
    out = subprocess.run(run + [str(plain)], capture_output=True, text=True)
    assert out.returncode == 1 and "FormatError" in out.stderr and "Traceback" not in out.stderr


def test_what_the_scheme_does_not_allow_does_not_verify():
    m, _ = _played(1, n=3000)
    doc = m.to_dict()
    # a start other than roll 0 (a server choosing where the dice begin)
    shifted = json.loads(json.dumps(doc))
    shifted["config"]["rng"]["n"] = 3
    assert any("roll 3, not 0" in p for p in tawla.verify_dice(shifted).problems)
    # dice written as floats, a seed with spaces, a client seed that is not printable text
    floats = json.loads(json.dumps(doc))
    i, d = tawla.match.dice_verify.logged_rolls(floats["events"])[0]
    floats["events"][i]["dice"] = [float(x) for x in d]
    assert not tawla.verify_dice(floats).ok
    for seed in ("00 01" + " " * 59, "0x" + "0" * 62):
        spaced = json.loads(json.dumps(doc))
        spaced["config"]["rng"]["seed"] = seed
        with pytest.raises(errors.FormatError):
            tawla.verify_dice(spaced)
    for bad in ("\ud800", "a\x00", "x" * 65, 5):
        odd = json.loads(json.dumps(doc))
        odd["config"]["rng"]["client_seeds"][0] = bad
        with pytest.raises(errors.FormatError):
            tawla.verify_dice(odd)
    # a move changed in a turn event (dice untouched): the log does not replay
    moved = json.loads(json.dumps(doc))
    k = next(i for i, ev in enumerate(moved["events"]) if ev["type"] == "turn" and ev.get("how") == "play")
    moved["events"][k]["move"] = "bar/off"
    assert any("does not load" in p for p in tawla.verify_dice(moved).problems)
    # documents Python cannot read as one: FormatError, never another exception
    for hostile in ("[" * 100000, {"format": "tawla-match", "version": 1, "x": object()}):
        with pytest.raises(errors.FormatError):
            tawla.verify_dice(hostile)


def test_fair_dice_deal_one_match():
    d = FairDice(SEED)
    tawla.Match("backgammon", length=1, rng=d)
    with pytest.raises(errors.ConfigError, match="one match"):
        tawla.Match("backgammon", length=1, rng=d)
    with pytest.raises(errors.ConfigError):
        FairDice(SEED, n=2**64)
