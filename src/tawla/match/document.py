"""A match as JSON and its event log: :meth:`to_json`, :meth:`from_json`, :meth:`replay`.

Schema (version 1)::

    {"format": "tawla-match", "version": 1,
     "config": {"ruleset", "ruleset_options", "house" (HouseRules.to_dict()), "length",
                "players", "rng" (initial bit-generator state), "created" (clock time or null)},
     "state":  {"phase", "turn", "score", "game", "board" (Position.id() at the start of the turn,
                seen from "turn"), "dice", "played" ([from, to, [dice], hit] per step), "cube",
                "owner", "turns" (turns played this game), "doubler", "offer", "resume",
                "crawford_game", "crawford_done", "last_winner", "timers" ({"roll"|"turn"|"step"|
                "offer": deadline}), "paused", "away", "winner", "end", "payout", "games"
                (finished games), "rng" (current bit-generator state)},
     "events": [{"type", "t", ...}, ...]}

:meth:`~RecordMixin.to_json` is one line of canonical JSON (sorted keys, no spaces);
:meth:`~RecordMixin.replay` rebuilds a match from ``config`` and the input events alone;
:meth:`~RecordMixin.from_json` replays the same way and also requires the document's
``state`` (and every key) to be exactly what the replay gives; both give the same JSON,
byte for byte. The log only grows, so the JSON text of the events already written is kept and
each :meth:`~RecordMixin.to_json` encodes only the new ones.
"""

from __future__ import annotations

import base64
import copy
import functools
import json
import math

import numpy as np

from ..core.dice import check_dice
from ..core.steps import Step
from ..errors import ConfigError, FormatError, TawlaError, quote
from ..position import Position
from ..rules import get_ruleset
from ..rules.match_play import Phase
from ..turn import played_hops
from .base import INPUT_EVENTS, PHASES, json_form, log_form
from .clock import TurnClock
from .cube_state import Cube
from .fair_dice import FairDice
from .house import HouseRules
from .turn_play import TurnsMixin

__all__ = ["RecordMixin", "FORMAT", "VERSION", "make_rng"]

FORMAT = "tawla-match"
VERSION = 1


_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"), allow_nan=False)
_dumps = _ENCODER.encode  # json.dumps(obj, sort_keys=True, separators=(",", ":"), allow_nan=False)


def _refuse_constant(name):
    raise FormatError(f"not a finite number: {name}")


def _finite_float(text):
    x = float(text)
    if not math.isfinite(x):
        raise FormatError(f"not a finite number: {text}")
    return x


def _check_finite(obj):
    """Refuse a float that is not finite anywhere in a document given as a dict."""
    if isinstance(obj, float):
        if not math.isfinite(obj):
            raise FormatError(f"not a finite number: {quote(obj)}")
    elif isinstance(obj, dict):
        for v in obj.values():
            _check_finite(v)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            _check_finite(v)


def dice_state_json(rng) -> dict:
    """The JSON state of a match's dice source: a :class:`FairDice` object, or a numpy
    generator's bit-generator state."""
    if isinstance(rng, FairDice):
        return rng.to_json()
    return _rng_state_to_json(rng.bit_generator.state)


def _rng_state_to_json(obj):
    """A bit generator's state as JSON-able data (arrays as ``{"ndarray", "data"}``)."""
    if isinstance(obj, dict):
        return {k: _rng_state_to_json(v) for k, v in obj.items()}
    if isinstance(obj, np.ndarray):
        return {"ndarray": str(obj.dtype), "data": obj.tolist()}
    if isinstance(obj, np.integer):
        return int(obj)
    return obj


_U32, _U64, _U128 = 2**32 - 1, 2**64 - 1, 2**128 - 1
_PCG_STATE = {"state": {"state": _U128, "inc": _U128}, "has_uint32": 1, "uinteger": _U32}
_BIT_GENERATORS = {
    "PCG64": (np.random.PCG64, _PCG_STATE),
    "PCG64DXSM": (np.random.PCG64DXSM, _PCG_STATE),
    "MT19937": (np.random.MT19937, {"state": {"key": ("uint32", 624, _U32), "pos": 624}}),
    "Philox": (np.random.Philox, {"state": {"counter": ("uint64", 4, _U64), "key": ("uint64", 2, _U64)},
                                  "buffer": ("uint64", 4, _U64), "buffer_pos": 4,
                                  "has_uint32": 1, "uinteger": _U32}),
    "SFC64": (np.random.SFC64, {"state": {"state": ("uint64", 4, _U64)}, "has_uint32": 1,
                                "uinteger": _U32}),
}
"""The bit generators a document may name: their class and the layout of their state (an
int field by its largest value, an array by (dtype, length, largest value), a dict by its
fields)."""


def _uint_at_most(v, top) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool) and 0 <= v <= top


def _state_from_layout(obj, layout, where):
    """``obj`` (JSON data) checked against ``layout`` and converted (arrays as ndarrays)."""
    if not isinstance(obj, dict) or set(obj) != set(layout):
        raise FormatError(f"cannot restore the random generator: {where} must have the fields "
                          f"{sorted(layout)}")
    out = {}
    for k, spec in layout.items():
        v = obj[k]
        if isinstance(spec, dict):
            out[k] = _state_from_layout(v, spec, f"{where}.{k}")
        elif isinstance(spec, tuple):
            dtype, n, top = spec
            ok = (isinstance(v, dict) and set(v) == {"ndarray", "data"} and v["ndarray"] == dtype
                  and isinstance(v["data"], list) and len(v["data"]) == n
                  and all(_uint_at_most(x, top) for x in v["data"]))
            if not ok:
                raise FormatError(f"cannot restore the random generator: {where}.{k} must be "
                                  f'{{"ndarray": "{dtype}", "data": [{n} integers]}}')
            out[k] = np.array(v["data"], dtype=dtype)
        elif _uint_at_most(v, spec):
            out[k] = int(v)
        else:
            raise FormatError(f"cannot restore the random generator: {where}.{k} must be an "
                              f"integer in 0..{spec}, not {quote(v)}")
    return out


def _checked_rng_state(state):
    """The bit generator class and the numpy state of a JSON generator state, validated.

    Raises
    ------
    tawla.errors.FormatError
        A generator other than PCG64, PCG64DXSM, MT19937, Philox or SFC64, or a state that
        is not of its layout.
    """
    if isinstance(state, dict) and "scheme" in state:
        return FairDice, FairDice.from_json(state)
    name = state.get("bit_generator") if isinstance(state, dict) else None
    if not isinstance(name, str) or name not in _BIT_GENERATORS:
        raise FormatError(f"cannot restore the random generator: unknown bit generator {quote(name)} "
                          f"(known: {', '.join(_BIT_GENERATORS)})")
    cls, layout = _BIT_GENERATORS[name]
    rest = {k: v for k, v in state.items() if k != "bit_generator"}
    return cls, {"bit_generator": name, **_state_from_layout(rest, layout, "rng")}


def make_rng(rng) -> np.random.Generator | FairDice:
    """The match's dice generator from an int seed, a Generator or a :class:`FairDice`
    (both used in place).

    Raises
    ------
    tawla.errors.ConfigError
        Anything else (the engine never reads global randomness).
    """
    if isinstance(rng, FairDice):
        if rng.n:
            raise ConfigError(f"fair dice deal one match from roll 0; these have made {rng.n} rolls")
        return rng
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, bool):
        if rng < 0:
            raise ConfigError(f"an rng seed is an int >= 0, not {quote(rng)}")
        return np.random.default_rng(int(rng))
    raise ConfigError("rng must be an int seed, a numpy.random.Generator or FairDice (the engine never "
                     f"reads global randomness), not {quote(rng)}")


def _rng_from_state(state) -> np.random.Generator | FairDice:
    cls, np_state = _checked_rng_state(state)
    if isinstance(np_state, FairDice):
        return np_state
    bitgen = cls(0)
    try:
        bitgen.state = np_state
    except (TypeError, ValueError) as e:  # pragma: no cover - the layout was checked
        raise FormatError(f"cannot restore the random generator: {e}") from None
    return np.random.Generator(bitgen)


def load_document(data) -> dict:
    """A match document (JSON text, or a dict, copied) parsed and checked for its format and
    version; raises FormatError otherwise."""
    if isinstance(data, (str, bytes, bytearray)):
        try:
            data = json.loads(data, parse_constant=_refuse_constant, parse_float=_finite_float)
        except ValueError as e:
            raise FormatError(f"not JSON: {e}") from None
    elif isinstance(data, dict):
        _check_finite(data)
        data = copy.deepcopy(data)
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise FormatError(f"not a {FORMAT} document")
    if data.get("version") != VERSION:
        raise FormatError(f"unsupported {FORMAT} version {quote(data.get('version'))}")
    return data


_DOCUMENT_KEYS = ("format", "version", "config", "state", "events")
_CONFIG_KEYS = ("ruleset", "ruleset_options", "house", "length", "players", "rng", "created")
_STATE_KEYS = ("board", "turn", "phase", "score", "cube", "owner", "dice", "played", "turns",
               "doubler", "offer", "resume", "crawford_game", "crawford_done", "last_winner",
               "timers", "paused", "away", "winner", "end", "payout", "games", "game", "rng")
"""The keys of a document and of its ``config`` and ``state`` parts, in the order
:meth:`RecordMixin.from_json` compares them."""


_FORGED = (KeyError, IndexError, TypeError, ValueError, AttributeError, OverflowError, RecursionError)
"""What Python raises on a document of the wrong shape (a step ``[]``, a point of -2**64, a
house whose ``lengths`` is a list, nesting deeper than the interpreter's recursion limit)."""


def _as_format_error(fn):
    """``fn`` (a reader of documents) raising :class:`~tawla.errors.FormatError` for every
    error of a forged document: the other TawlaErrors and Python's :data:`_FORGED` become a
    FormatError naming them."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except FormatError:
            raise
        except TawlaError as e:  # a value the rules refuse (a house's lengths, a board)
            raise FormatError(f"not a valid {FORMAT} document: {type(e).__name__}: {e}") from None
        except _FORGED as e:
            raise FormatError(f"not a readable {FORMAT} document: {type(e).__name__}: {quote(str(e))}") from None

    return wrapper


def _check_keys(obj, keys, where):
    if not isinstance(obj, dict):
        raise FormatError(f"the {where} of a {FORMAT} document is an object, not {quote(obj)}")
    missing = [k for k in keys if k not in obj]
    extra = sorted(str(k) for k in obj if k not in keys)
    if missing:
        raise FormatError(f"the {where} lacks the key {quote(missing[0])}")
    if extra:
        raise FormatError(f"the {where} has an unknown key {quote(extra[0])}")


def _check_config(cfg):
    """Refuse a ``config`` that the house does not allow (as :class:`~tawla.Match` would)."""
    try:
        h = HouseRules.from_dict(cfg["house"])
        r = h.ruleset(cfg["ruleset"])
        h.check_length(r.name, cfg["length"])
    except (TawlaError, KeyError, TypeError, ValueError, AttributeError) as e:
        raise FormatError(f"bad config: {quote(str(e))}") from None
    if r.name != cfg["ruleset"]:
        raise FormatError(f"bad config: ruleset {quote(cfg['ruleset'])} is not a ruleset id")
    if cfg["ruleset_options"] != dict(r.options):
        raise FormatError(f"bad config: ruleset_options {quote(cfg['ruleset_options'])} are not "
                          f"those of the house ({quote(dict(r.options))})")
    if cfg["length"] == 0 and h.coin_table:
        raise FormatError("bad config: a coin table plays no money session")
    players = cfg["players"]
    if not isinstance(players, list) or len(players) != 2 or not all(isinstance(p, str) for p in players):
        raise FormatError(f"bad config: players are a list of two names, not {quote(players)}")
    created = cfg["created"]
    if created is not None and (isinstance(created, bool) or not isinstance(created, (int, float))):
        raise FormatError(f"bad config: created is a time or null, not {quote(created)}")


def _same_board(saved, replayed) -> bool:
    """Whether a saved board ID is the replayed one, or that board written before IDs named
    their ruleset (its last byte zero)."""
    try:
        a, b = base64.urlsafe_b64decode(saved), base64.urlsafe_b64decode(replayed)
    except (TypeError, ValueError):
        return False
    return len(a) == len(b) == 30 and a[:29] == b[:29] and a[29] in (0, b[29])


def _check_same(got, doc, keys, where):
    """Refuse ``doc`` unless each field encodes as the replayed one in ``got`` does (a board
    may be an ID written before IDs named their ruleset)."""
    for k in keys:
        try:
            same = _dumps(doc[k]) == _dumps(got[k])
            if not same and k == "board" and isinstance(doc[k], str) and isinstance(got[k], str):
                same = _same_board(doc[k], got[k])
        except (TypeError, ValueError):
            same = False
        if not same:
            raise FormatError(f"the {where} does not match its event log: {k} is {quote(doc[k])}, "
                              f"the log gives {quote(got[k])}")


class RecordMixin(TurnsMixin):
    """The JSON document of a match, its restoration and its replay."""

    def _config(self) -> dict:
        house = self.__dict__.get("_house_dict")
        if house is None or house[0] is not self.house:  # the profile is frozen: its dict made once
            house = self._house_dict = (self.house, self.house.to_dict())
        return {
            "ruleset": self.ruleset.name,
            "ruleset_options": dict(self.ruleset.options),
            "house": house[1],
            "length": self.length,
            "players": list(self.players),
            "rng": self._rng_initial,
            "created": self._created,
        }

    def _state(self) -> dict:
        """The ``state`` part; shares the (never changed in place) containers of the match."""
        return {
            "phase": self._phase,
            "turn": self._turn,
            "score": list(self._score),
            "game": self._game_no,
            "board": self._start.id() if self._start is not None else None,
            "dice": list(self._dice) if self._dice is not None else None,
            "played": [[s.from_point, s.to_point, list(s.dice), s.hit] for s in self._played],
            "cube": self._cube.value,
            "owner": self._cube.owner,
            "turns": list(self._turns),
            "doubler": self._doubler,
            "offer": self._offer,
            "resume": self._resume,
            "crawford_game": self._crawford_game,
            "crawford_done": self._crawford_done,
            "last_winner": self._last_winner,
            "timers": self._turn_clock.to_json()[0],
            "paused": self._turn_clock.to_json()[1],
            "away": list(self._away),
            "winner": self._winner,
            "end": self._end,
            "payout": self._payout,
            "games": self._games,
            "rng": dice_state_json(self._rng),
        }

    def to_dict(self) -> dict:
        """The JSON document as a dict: ``format``, ``version``, ``config``, ``state``, ``events``
        (a deep copy: changing it does not change the match)."""
        doc = copy.deepcopy({"format": FORMAT, "version": VERSION, "config": self._config(),
                             "state": self._state()})
        doc["events"] = [json_form(ev) for ev in self._events]
        return doc

    def _events_json(self) -> str:
        """The JSON text of the event log, encoding only the events new since the last call."""
        events = self._events
        n, text = self._log_text
        if n > len(events):  # pragma: no cover - the log only grows
            n, text = 0, ""
        if n < len(events):
            new = _dumps(events[n:])[1:-1]
            text = f"{text},{new}" if text else new
            self._log_text = (len(events), text)
        return f"[{text}]"

    def to_json(self) -> str:
        """The whole match as one line of canonical JSON (see :mod:`tawla.match`).

        Returns
        -------
        str
            The same text as ``json.dumps(self.to_dict(), sort_keys=True,
            separators=(",", ":"))``.
        """
        return (f'{{"config":{_dumps(self._config())},"events":{self._events_json()},'
                f'"format":{_dumps(FORMAT)},"state":{_dumps(self._state())},"version":{VERSION}}}')

    @classmethod
    def _from_config(cls, cfg, rng, clock, timeout_policy):
        m = cls.__new__(cls)
        try:
            h = HouseRules.from_dict(cfg["house"])
            r = get_ruleset(cfg["ruleset"], **cfg["ruleset_options"])
            length = cfg["length"]
            if isinstance(length, bool) or not isinstance(length, int):
                raise FormatError(f"bad config: the length is {quote(length)}")
            m._init_fields(r, h, length, tuple(cfg["players"]), rng, clock, timeout_policy)
            m._rng_initial = cfg["rng"]
            m._created = cfg["created"]
        except TawlaError:
            raise
        except (KeyError, TypeError, ValueError) as e:  # ValueError: a bad int() or dict()
            raise FormatError(f"bad config: {quote(e)}") from None
        return m

    @classmethod
    @_as_format_error
    def from_json(cls, data, *, clock=None, timeout_policy=None):
        """Restore a match from :meth:`to_json` (or :meth:`to_dict`) output.

        The match is rebuilt by replaying the document's event log (:meth:`replay`); the
        document must have exactly the keys :meth:`to_json` writes, a configuration the
        house allows, and a ``state`` identical to the replayed one.

        Parameters
        ----------
        data : str or dict
        clock, timeout_policy
            As for :class:`~tawla.match.Match` (not part of the JSON).

        Returns
        -------
        Match

        Raises
        ------
        tawla.errors.FormatError
            Not a document of this format and version, a number that is not finite, a random
            generator other than numpy's PCG64, PCG64DXSM, MT19937, Philox or SFC64 or a
            state not of its layout, missing or extra keys, a configuration the house does
            not allow, a log that does not replay, or a state other than the one its log
            gives (the message names the first field that differs).
        """
        data = load_document(data)
        _check_keys(data, _DOCUMENT_KEYS, "document")
        cfg, st = data["config"], data["state"]
        _check_keys(cfg, _CONFIG_KEYS, "config")
        _check_keys(st, _STATE_KEYS, "state")
        _checked_rng_state(st["rng"])
        _check_config(cfg)
        m = cls._replay_loaded(data, clock, timeout_policy)
        _check_same(m._config(), cfg, _CONFIG_KEYS, "config")
        _check_same(m._state(), st, _STATE_KEYS, "state")
        return m

    @classmethod
    @_as_format_error
    def _restore(cls, data, *, clock=None, timeout_policy=None):
        """A match with the state of a document taken as written, checked only for being
        playable (not against its log): for building positions by hand."""
        data = load_document(data)
        try:
            cfg, st = data["config"], data["state"]
            _checked_rng_state(cfg["rng"])
            m = cls._from_config(cfg, _rng_from_state(st["rng"]), clock, timeout_policy)
            r = m.ruleset
            if not isinstance(st["phase"], str) or st["phase"] not in PHASES:
                raise FormatError(f"unknown phase {quote(st['phase'])}")
            m._phase = Phase(st["phase"])
            m._turn = int(st["turn"])
            m._score = [int(x) for x in st["score"]]
            m._game_no = int(st["game"])
            m._start = Position.from_id(st["board"], r) if st["board"] is not None else None
            m._dice = tuple(st["dice"]) if st["dice"] is not None else None
            played = tuple(Step(a, b, (d[0] if len(d) == 1 else tuple(d)), bool(h))
                           for a, b, d, h in st["played"])
            m._played = played
            m._hops = played_hops(played)
            m._cube = Cube(int(st["cube"]), st["owner"])
            m._turns = [int(x) for x in st["turns"]]
            m._doubler = st["doubler"]
            m._offer = st["offer"]
            m._resume = Phase(st["resume"]) if isinstance(st["resume"], str) and st["resume"] in PHASES else st["resume"]
            m._crawford_game = bool(st["crawford_game"])
            m._crawford_done = bool(st["crawford_done"])
            m._last_winner = st["last_winner"]
            m._turn_clock = TurnClock.from_json(st["timers"], st["paused"])
            m._away = list(st["away"])
            m._winner = st["winner"]
            m._end = st["end"]
            m._payout = st["payout"]
            m._games = list(st["games"])
            events = data["events"]
            if m._turn not in (0, 1) or m._cube.value < 1 or not isinstance(events, list) \
                    or not all(isinstance(ev, dict) for ev in events):
                raise FormatError("bad turn, cube or event log")
            m._events = [log_form(ev) for ev in events]
            if m._phase == Phase.MOVE:
                if m._dice is None:
                    raise FormatError("a move phase without dice")
                check_dice(m._dice)
                m._lit()  # the steps made must be legal next steps
        except TawlaError:
            raise
        except (KeyError, TypeError, ValueError) as e:  # ValueError: a bad int() or dict()
            if isinstance(e, FormatError):
                raise
            raise FormatError(f"bad match state: {e}") from None
        return m

    @classmethod
    @_as_format_error
    def replay(cls, data, *, clock=None, timeout_policy=None):
        """Rebuild a match from its ``config`` and the input events of its log alone.

        Every input event is applied again with its recorded time; the result has the same
        :meth:`to_json` as the match that wrote the log. Timeouts that completed a move replay
        the recorded move, whatever the policy.

        Parameters
        ----------
        data : str or dict
            :meth:`to_json` output (its ``state`` is ignored).
        clock, timeout_policy
            Used for play after the replay.

        Returns
        -------
        Match

        Raises
        ------
        tawla.errors.FormatError
            A document without a config object and a list of event objects, or a log that
            does not replay (an action the rules refuse, a different outcome).
        """
        return cls._replay_loaded(load_document(data), clock, timeout_policy)

    @classmethod
    def _replay_loaded(cls, data, clock, timeout_policy):
        """:meth:`replay` of a document already parsed by :func:`load_document`."""
        cfg, events = data.get("config"), data.get("events")
        if not isinstance(cfg, dict) or not isinstance(events, list) \
                or not all(isinstance(ev, dict) for ev in events):
            raise FormatError(f"a {FORMAT} document to replay has a config object and a list of event objects")
        box = {"t": cfg.get("created")}
        m = cls._from_config(cfg, _rng_from_state(cfg.get("rng")), (lambda: box["t"]), timeout_policy)
        if cfg["created"] is None:
            m._clock = None
        m._new_game(cfg["created"])
        replay_inputs(m, events, box)
        replayed = [json_form(ev) for ev in m._events]
        events = [json_form(ev) for ev in events]
        if replayed != events:
            n = next((i for i, (a, b) in enumerate(zip(replayed, events)) if a != b),
                     min(len(replayed), len(events)))
            raise FormatError(f"the replayed log differs from the recorded one at event {n}")
        m._clock = clock
        return m


def replay_inputs(m, events: list, box: dict, first: int = 0) -> None:
    """Apply again the input events of ``events`` to ``m``, each at its recorded time (set in
    ``box["t"]``, which ``m``'s clock reads); ``first`` numbers the first event in messages.

    Raises
    ------
    tawla.errors.FormatError
        An event the rules refuse.
    """
    m._replaying = True
    try:
        for i, ev in enumerate(events, first):
            typ = ev.get("type")
            if typ not in INPUT_EVENTS:
                continue
            box["t"] = ev.get("t")
            p = ev.get("player")
            try:
                if typ == "timeout":
                    m._replay_after = ev.get("after")
                    try:
                        m.on_timeout(ev["t"])
                    finally:
                        m._replay_after = None
                elif typ == "step":
                    m.step(p, ev["from"], ev["to"], dice=tuple(ev["dice"]))
                elif typ == "play":
                    m._replay_play(p, ev["steps"])
                elif typ == "resign":
                    m.resign(p, ev["kind"])
                else:
                    getattr(m, typ)(p)
            except (TawlaError, *_FORGED) as e:
                raise FormatError(f"event {i} ({quote(typ)}) does not replay: {quote(str(e), 300)}") from None
    finally:
        m._replaying = False
