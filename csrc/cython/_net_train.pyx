# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Training of the neural evaluators of ``csrc/net`` (``tw_net_train.c``): TD(0) self-play, the
positions of self-play games, 1- and 2-ply search and truncated-rollout targets and their
fitting, for tawla.training.
"""

import numpy as np
cimport numpy as cnp
from libc.stdint cimport uint8_t, int8_t, int16_t, int32_t, int64_t

from tawla_engine cimport *
from tawla.native._params cimport Params, row_over, validate_batch
from tawla.native._net cimport net_view, race_attach
from tawla.native._race cimport race_view

from tawla.errors import InvalidArgument, InvalidPosition

cnp.import_array()
tw_eval_init()  # the shot tables of the hand features (this module's copy of the engine)
tw_net_init()  # the table of the logistic function


cdef _targets_out(Params params, const uint8_t[:, ::1] positions, bint checked):
    """The zeroed float32[N, NET_OUTPUTS] targets of ``positions``; when ``checked``, first
    InvalidPosition for a row that is not a position of the ruleset or whose game is over (the
    frozen test included)."""
    cdef Py_ssize_t i
    if checked:
        validate_batch(params, positions)
        for i in range(positions.shape[0]):
            if row_over(&positions[i, 0], params):
                raise InvalidPosition(f"row {i} is a finished game")
    return np.zeros((positions.shape[0], TW_NET_NO), dtype=np.float32)


cdef const tw_race_tables *_race_view(Params params, race_one, race_two,
                                      tw_race_tables *t, race_net=None, tw_net *view=NULL) except? NULL:
    """Point t at the race model's tables (None: no race model, NULL), with ``race_net``
    (``(w1, b1, w2, b2)``, viewed in ``view``) the races beyond the databases by that network."""
    cdef const double[:, :, ::1] one
    cdef const double[::1] two
    if race_one is None:
        return NULL
    if params.p.same:
        raise InvalidArgument("the race model serves opposite-direction games only")
    one, two = race_one, race_two
    t[0] = race_view(one, two)
    race_attach(t, view, race_net)
    return t


def net_train(Params params, float[:, ::1] w1, float[::1] b1, float[:, ::1] w2, float[::1] b2,
              long n_games, unsigned long long seed, float alpha, long max_turns=10000,
              race_one=None, race_two=None, race_net=None):
    """TD(0) self-play (``csrc/train/tw_net_train.c``): ``n_games`` games, the weights updated in place.

    Parameters
    ----------
    params : Params
    w1, b1, w2, b2 : float32 arrays (writable, C order)
        The network, shapes as :func:`net_outputs` takes them.
    n_games : int
    seed : int
        Seed of the dice (xoshiro256**); equal seeds and weights give equal runs.
    alpha : float
        Step size of the gradient steps.
    max_turns : int
        Cap per game; a game cut there is unfinished (winner -1, points 0).
    race_one, race_two : float64 arrays, optional
        The race model's tables (``tawla.evaluation.bearoff.eval_tables()`` [0] and [3], as
        ``tawla.native.race_rows`` takes them; opposite geometry only): a child with no
        contact is then valued by the race model and its game stops there (winner -1).

    Returns
    -------
    length : int32[n_games]
        Turns played per game.
    winner : int8[n_games]
        0 the player who moved first, 1 the other, -1 a draw or an unfinished game.
    points : int16[n_games]
        The points the winner scored (cube 1).

    Raises
    ------
    InvalidArgument
        Weights of other shapes, ``n_games`` < 0 or ``alpha`` not in (0, 10].
    """
    cdef tw_net net = net_view(w1, b1, w2, b2)
    cdef int ok
    if n_games < 0:
        raise InvalidArgument(f"n_games must be >= 0, not {n_games}")
    if not 0.0 < alpha <= 10.0:
        raise InvalidArgument(f"alpha must be in (0, 10], not {alpha}")
    length = np.zeros(n_games, dtype=np.int32)
    winner = np.zeros(n_games, dtype=np.int8)
    points = np.zeros(n_games, dtype=np.int16)
    cdef int32_t[::1] L = length
    cdef int8_t[::1] W = winner
    cdef int16_t[::1] S = points
    if n_games == 0:
        return length, winner, points
    cdef tw_race_tables t
    cdef tw_net race
    cdef const tw_race_tables *tp = _race_view(params, race_one, race_two, &t, race_net, &race)
    with nogil:
        ok = tw_net_train(&params.p, &net, n_games, seed, alpha, max_turns, tp, &L[0], &W[0], &S[0])
    if not ok:
        raise MemoryError()
    return length, winner, points


def net_positions(Params params, const float[:, ::1] w1, const float[::1] b1,
                  const float[:, ::1] w2, const float[::1] b2, long n_games,
                  unsigned long long seed, long cap, float explore=0.0, long max_turns=10000,
                  race_one=None, race_two=None, race_net=None):
    """The positions before a roll of greedy self-play games (``csrc/train/tw_net_train.c``).

    Parameters
    ----------
    params : Params
    w1, b1, w2, b2 : float32 arrays
        The network, shapes as :func:`net_outputs` takes them.
    n_games : int
        Games to play at most (fewer when ``cap`` rows are met first).
    seed : int
        Seed of the dice and of the exploration.
    cap : int
        Rows to return at most.
    explore : float
        Probability, every move, of a uniformly random legal child instead of the greedy one.
    max_turns : int
        Cap of turns per game.
    race_one, race_two : float64 arrays, optional
        The race model's tables (as :func:`net_train`): the games stop at the first child
        without contact, so every row has contact.

    Returns
    -------
    uint8[M, 64]
        Packed rows (mover's seat), M <= cap, the opening position left out.

    Raises
    ------
    InvalidArgument
        Weights of other shapes, ``n_games`` or ``cap`` < 0, ``explore`` not in [0, 1].
    """
    cdef tw_net net = net_view(w1, b1, w2, b2)
    cdef tw_race_tables t
    cdef tw_net race
    cdef const tw_race_tables *tp = _race_view(params, race_one, race_two, &t, race_net, &race)
    cdef long got
    if n_games < 0 or cap < 0:
        raise InvalidArgument(f"n_games and cap must be >= 0, not {n_games}, {cap}")
    if not 0.0 <= explore <= 1.0:
        raise InvalidArgument(f"explore must be in [0, 1], not {explore}")
    out = np.zeros((max(cap, 1), TW_W), dtype=np.uint8)
    cdef uint8_t[:, ::1] o = out
    with nogil:
        got = tw_net_positions(&params.p, &net, n_games, seed, explore, max_turns, tp, &o[0, 0], cap)
    if got < 0:
        raise MemoryError()
    return out[:got].copy()


def net_ply1_targets(const uint8_t[:, ::1] positions, Params params, const float[:, ::1] w1,
                     const float[::1] b1, const float[:, ::1] w2, const float[::1] b2,
                     race_one=None, race_two=None, race_net=None, bint checked=True):
    """1-ply search targets of pre-roll rows: for each of the 21 rolls the outputs after the
    network's greedy move (game ends exact, children without contact by the race model when
    its tables are given), for the row's mover, averaged with the rolls' probabilities.

    Returns
    -------
    float32[N, NET_OUTPUTS]
        The targets, in the layout of :func:`net_outputs`.

    Raises
    ------
    InvalidArgument
        Weights of other shapes, race tables for a same-direction ruleset.
    InvalidPosition
        A row that is not a position of the ruleset, or one whose game is over (when
        ``checked``).
    """
    cdef tw_net net = net_view(w1, b1, w2, b2)
    cdef tw_race_tables t
    cdef tw_net race
    cdef const tw_race_tables *tp = _race_view(params, race_one, race_two, &t, race_net, &race)
    cdef Py_ssize_t n = positions.shape[0]
    cdef int ok
    out = _targets_out(params, positions, checked)
    if n == 0:
        return out
    cdef float[:, ::1] o = out
    with nogil:
        ok = tw_net_ply1_targets(&params.p, &net, tp, &positions[0, 0], n, &o[0, 0])
    if not ok:
        raise MemoryError()
    return out


def net_ply2_targets(const uint8_t[:, ::1] positions, Params params, const float[:, ::1] w1,
                     const float[::1] b1, const float[:, ::1] w2, const float[::1] b2, int prune=3,
                     race_one=None, race_two=None, race_net=None, bint checked=True):
    """2-ply search targets of pre-roll rows: for each of the 21 rolls the ``prune`` children
    best at 0 ply (1..8), each valued by the 1-ply search of :func:`net_ply1_targets` from its
    mover's seat (game ends and races as they are), the best for the row's mover; its outputs
    for the mover, averaged with the rolls' probabilities.

    Returns
    -------
    float32[N, NET_OUTPUTS]

    Raises
    ------
    InvalidArgument
        Weights of other shapes, ``prune`` outside 1..8, race tables for a same-direction ruleset.
    InvalidPosition
        As for :func:`net_ply1_targets`.
    """
    cdef tw_net net = net_view(w1, b1, w2, b2)
    cdef tw_race_tables t
    cdef tw_net race
    cdef const tw_race_tables *tp = _race_view(params, race_one, race_two, &t, race_net, &race)
    cdef Py_ssize_t n = positions.shape[0]
    cdef int ok
    if not 1 <= prune <= 8:
        raise InvalidArgument(f"prune must be 1..8, not {prune}")
    out = _targets_out(params, positions, checked)
    if n == 0:
        return out
    cdef float[:, ::1] o = out
    with nogil:
        ok = tw_net_ply2_targets(&params.p, &net, tp, &positions[0, 0], n, prune, &o[0, 0])
    if not ok:
        raise MemoryError()
    return out


def net_rollout_targets(const uint8_t[:, ::1] positions, Params params, const float[:, ::1] w1,
                        const float[::1] b1, const float[:, ::1] w2, const float[::1] b2, int trials,
                        int horizon, unsigned long long seed, long first=0, race_one=None,
                        race_two=None, race_net=None, bint checked=True):
    """Truncated-rollout targets of pre-roll rows: each row played out ``trials`` times by the
    network's greedy moves (trial j's first roll the ordered roll j mod 36, later rolls random)
    for ``horizon`` moves (0: until the game ends or, with race tables, contact ends); the
    outputs after the last move for the row's mover (the network's, the race model's or the
    game's result), averaged over the trials. Row i's dice depend only on ``seed`` and
    ``first + i`` (its index in the whole set), so chunks give the same targets.

    Returns
    -------
    float32[N, NET_OUTPUTS]

    Raises
    ------
    InvalidArgument
        Weights of other shapes, ``trials`` < 1, ``horizon`` < 0, race tables for a
        same-direction ruleset.
    InvalidPosition
        As for :func:`net_ply1_targets`.
    """
    cdef tw_net net = net_view(w1, b1, w2, b2)
    cdef tw_race_tables t
    cdef tw_net race
    cdef const tw_race_tables *tp = _race_view(params, race_one, race_two, &t, race_net, &race)
    cdef Py_ssize_t n = positions.shape[0]
    cdef int ok
    if trials < 1 or horizon < 0 or first < 0:
        raise InvalidArgument(f"need trials >= 1, horizon >= 0 and first >= 0, not {trials}, {horizon}, {first}")
    out = _targets_out(params, positions, checked)
    if n == 0:
        return out
    cdef float[:, ::1] o = out
    with nogil:
        ok = tw_net_rollout_targets(&params.p, &net, tp, &positions[0, 0], n, first, trials, horizon,
                                    seed, &o[0, 0])
    if not ok:
        raise MemoryError()
    return out


def net_fit(Params params, float[:, ::1] w1, float[::1] b1, float[:, ::1] w2, float[::1] b2,
            const uint8_t[:, ::1] positions, const float[:, ::1] targets, const int64_t[::1] order,
            float alpha):
    """One epoch of stochastic gradient descent on the squared error: ``positions[order[i]]``
    toward ``targets[order[i]]`` in turn, the weights updated in place.

    Parameters
    ----------
    positions : uint8[N, 64]
        Packed rows, read unchecked (they come from :func:`net_positions`).
    targets : float32[N, NET_OUTPUTS]
    order : int64[M]
        Indices into ``positions``, each in [0, N).
    alpha : float
        Step size, in (0, 10].

    Returns
    -------
    float
        The mean squared error of the outputs before each step.

    Raises
    ------
    InvalidArgument
        Shapes that do not match, an index out of range, ``alpha`` out of range.
    """
    cdef tw_net net = net_view(w1, b1, w2, b2)
    cdef Py_ssize_t n = positions.shape[0], m = order.shape[0]
    cdef double mse
    if positions.shape[1] != TW_W or targets.shape[0] != n or targets.shape[1] != TW_NET_NO:
        raise InvalidArgument(f"positions must be uint8[N, {TW_W}] and targets float32[N, {TW_NET_NO}]")
    if m and (np.min(order) < 0 or np.max(order) >= n):
        raise InvalidArgument("order holds an index out of range")
    if not 0.0 < alpha <= 10.0:
        raise InvalidArgument(f"alpha must be in (0, 10], not {alpha}")
    if m == 0:
        return 0.0
    with nogil:
        mse = tw_net_fit(&params.p, &net, &positions[0, 0], &targets[0, 0], &order[0], m, alpha)
    return mse
