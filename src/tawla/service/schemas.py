"""The request and response bodies of the service's JSON API (pydantic models: they make the
OpenAPI schema at ``/openapi.json``)."""

from __future__ import annotations

from typing import Annotated, Any, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt

__all__ = ["ErrorBody", "Health", "MovesRequest", "MovesAnswer", "EvaluateRequest", "EvaluateAnswer",
           "BestRequest", "BestAnswer", "AccountRequest", "AccountAnswer", "AccountView", "RoomRequest",
           "RoomCreated", "JoinRequest", "Joined", "BotRequest", "BotAdded", "ActionRequest", "RoomState",
           "TableEntry", "ERRORS"]

Name = Field(default=None, min_length=1, max_length=100)
Dice = Field(min_length=2, max_length=2, description="two dice, each 1..6")
ClientSeed = Field(default=None, max_length=64, description="the seat's client seed for the match's fair dice "
                   "(printable text, up to 64 characters)")


class ErrorBody(BaseModel):
    """Every 4xx answer: the :mod:`tawla.errors` class and the message."""

    error: str = Field(description="the tawla.errors class name, e.g. NotYourTurn, IllegalMove, ConfigError")
    detail: str


ERRORS: dict[Union[int, str], dict[str, Any]] = {
    code: {"model": ErrorBody, "description": text}
    for code, text in ((400, "bad input (tawla.errors class in 'error')"), (401, "no token, or an unknown one"),
                       (403, "a token with no seat here"), (404, "no such room"),
                       (409, "an action the match refuses now (the engine's error class)"),
                       (413, "a body over the size limit"), (422, "a malformed body"),
                       (429, "past a limit of the service (LimitExceeded)"))
}
"""The error answers every route documents."""


RULESET_OF_ID = ("the ruleset; default: the tawla ID's own (a gnubg ID or XGID: backgammon); checked against "
                 "the ID's (a tawla ID of another ruleset: 422 InvalidArgument)")


class Health(BaseModel):
    status: Literal["ok"]


class MovesRequest(BaseModel):
    ruleset: Optional[str] = Field(default=None, max_length=40, description=RULESET_OF_ID)
    position: str = Field(max_length=200, description="gnubg Position ID, XGID or tawla ID")
    dice: list[int] = Dice


class MoveEntry(BaseModel):
    move: str
    after: str
    ended: bool


class MovesAnswer(BaseModel):
    ruleset: str
    position: str
    dice: list[int]
    moves: list[MoveEntry]


class EvaluateRequest(BaseModel):
    ruleset: Optional[str] = Field(default=None, max_length=40, description=RULESET_OF_ID)
    position: str = Field(max_length=200)
    dice: Optional[list[int]] = Field(default=None, min_length=2, max_length=2)
    level: Optional[str] = Field(default=None, max_length=20,
                                 description="net0 (default), net1, net2, ply0, ply1 or ply2")


class RankedEntry(BaseModel):
    move: str
    equity: float
    ply: int


class EvaluateAnswer(BaseModel):
    ruleset: str
    position: str
    level: str
    evaluator: str = Field(description="what valued the position, in words")
    evaluation: dict[str, float]
    dice: Optional[list[int]] = None
    moves: Optional[list[RankedEntry]] = None


class BestRequest(BaseModel):
    ruleset: Optional[str] = Field(default=None, max_length=40, description=RULESET_OF_ID)
    position: str = Field(max_length=200)
    dice: list[int] = Dice
    level: Optional[str] = Field(default=None, max_length=20,
                                 description="net0 (default), net1, net2, ply0, ply1 or ply2")


class BestAnswer(BaseModel):
    ruleset: str
    position: str
    dice: list[int]
    level: str
    evaluator: str = Field(description="what chose the play, in words")
    move: str
    after: str


class CubeRequest(BaseModel):
    ruleset: Optional[str] = Field(default=None, max_length=40, description=RULESET_OF_ID)
    position: str = Field(max_length=200, description="gnubg Position ID, XGID (with its match context) or tawla ID")
    length: Optional[int] = Field(default=None, ge=0, le=64, description="match length; 0 a money game")
    score: Optional[list[int]] = Field(default=None, min_length=2, max_length=2,
                                       description="the side on roll first")
    cube: Optional[int] = Field(default=None, ge=1, le=2**15)
    owner: Optional[str] = Field(default=None, max_length=10, description="centre, on-roll or opponent")
    crawford: bool = False
    level: Optional[str] = Field(default=None, max_length=10, description="net0 (default) or net1")


class CubeAnswer(BaseModel):
    ruleset: str
    position: str
    match_id: str
    xgid: str
    level: str
    evaluator: str = Field(description="what valued the position, in words")
    match_length: int
    probabilities: list[float]
    cubeless_equity: float
    may_double: bool
    proper: str
    no_double: float
    double_take: Optional[float] = None
    double_pass: Optional[float] = None
    optimal: float
    no_double_mwc: Optional[float] = None
    double_take_mwc: Optional[float] = None
    double_pass_mwc: Optional[float] = None
    optimal_mwc: Optional[float] = None


class AccountRequest(BaseModel):
    name: str = Field(min_length=1, max_length=100)
    house: str = Field(default="saharat", max_length=40)


class AccountInfo(BaseModel):
    id: int
    name: str
    house: str
    balance: int


class AccountAnswer(BaseModel):
    account: AccountInfo
    token: str


class LedgerEntry(BaseModel):
    id: int
    account: Optional[int]
    room: Optional[str]
    amount: int
    kind: str
    t: float


class AccountView(BaseModel):
    id: int
    name: str
    house: str
    balance: int
    created: float
    ledger: list[LedgerEntry]


class RoomRequest(BaseModel):
    ruleset: str = Field(default="backgammon", max_length=40)
    house: str = Field(default="international", max_length=40)
    length: Optional[StrictInt] = Field(default=None, ge=0, le=10000, description="points; null: the house's default")
    turn_seconds: Optional[float] = Field(default=None, strict=True, description="seconds a turn; null: unlimited; "
                                          "omitted: the house's default")
    public: StrictBool = False
    name: Optional[str] = Name
    stake: StrictInt = Field(default=0, ge=0, le=10**9, description="coins each player puts in (coin tables); "
                             "a whole number, not a string or a boolean")
    grace_seconds: Optional[float] = Field(default=None, gt=0, le=86400, strict=True,
                                           description="coin tables: seconds to come back after a disconnect "
                                           "(at least the house's floor, 30 s unless the server says otherwise)")
    rated: StrictBool = Field(default=False, description="the match changes both players' ratings (Glicko-2); "
                              "needs an account token, and a match (not a money session)")
    client_seed: Optional[str] = ClientSeed


class RoomCreated(BaseModel):
    code: str
    token: str
    seat: int
    fair_dice: dict[str, Any] = Field(description="the first match's dice: scheme, commitment, client_seeds, n")


class JoinRequest(BaseModel):
    name: Optional[str] = Name
    client_seed: Optional[str] = ClientSeed


class ClientSeedRequest(BaseModel):
    client_seed: str = Field(max_length=64, description="printable text, up to 64 characters")


class TableEntry(BaseModel):
    """A room's options, with every one that decides a coin table's outcome."""

    code: str
    ruleset: str
    house: str
    length: int = Field(description="points to win")
    turn_seconds: Optional[float] = Field(description="seconds a turn; null: unlimited")
    step_seconds: Optional[float] = Field(description="seconds between steps; null: none")
    stake: int = Field(description="coins each player puts in (0: not a coin table)")
    fee_percent: float = Field(description="the rake, in percent of the pot")
    grace_seconds: Optional[float] = Field(description="seconds to come back after a disconnect before forfeiting; "
                                           "null: a disconnect never forfeits")
    host: Optional[str]


class Joined(BaseModel):
    token: str
    seat: Optional[int] = Field(description="1, or null for a spectator")
    table: TableEntry = Field(description="the room's options, as GET /v1/tables lists them")


class BotRequest(BaseModel):
    level: str = Field(default="net0", max_length=20, description="one of tawla.Bot.LEVELS; default net0")


class BotAdded(BaseModel):
    seat: int
    level: str


class ActionRequest(BaseModel):
    """One action; the fields besides ``action`` belong to the actions that take them."""

    model_config = ConfigDict(populate_by_name=True)

    action: Literal["roll", "step", "undo", "confirm", "move", "double", "take", "drop", "resign", "accept",
                    "reject", "leave"]
    from_: Optional[int] = Field(default=None, alias="from", ge=-1000, le=1000, description="step: from point")
    to: Optional[int] = Field(default=None, ge=-1000, le=1000, description="step: to point (0 = off)")
    dice: Union[Annotated[StrictInt, Field(ge=1, le=6)], Annotated[list[Annotated[StrictInt, Field(ge=1, le=6)]],
                                                                    Field(min_length=1, max_length=4)], None] = Field(
        default=None, description="step: the die (1..6) or dice to use")
    move: Optional[str] = Field(default=None, max_length=200, description="move: move text; '' passes")
    kind: Optional[str] = Field(default=None, max_length=20, description="resign: single, gammon or backgammon")

    def engine_body(self) -> dict[str, Any]:
        """The fields as the hub reads them (``from`` under its own name)."""
        out = self.model_dump(exclude_none=True)
        if "from_" in out:
            out["from"] = out.pop("from_")
        return out


class RoomState(BaseModel):
    """``GET /v1/rooms/{code}``; see :meth:`tawla.service.rooms.Room.state`."""

    model_config = ConfigDict(extra="allow")

    code: str
    status: str
    phase: str
    turn: Optional[int]
    to_act: Optional[int]
    dice: Optional[list[int]]
    dice_left: list[int]
    score: list[int]
    length: int
    cube: dict[str, Any]
    winner: Optional[int]
    end_reason: Optional[str]
    deadline: Optional[float] = Field(description="seconds since the epoch; null: no timer")
    position: Optional[dict[str, Any]]
    legal_moves: list[str]
    legal_steps: list[dict[str, Any]]
    you: Optional[int]
    seats: list[Optional[dict[str, Any]]]
    fair_dice: Optional[dict[str, Any]] = Field(
        None, description="the match's provably fair dice: scheme, commitment (SHA-256 of the "
                          "server seed), client_seeds, n (rolls made) and, once the match is over, "
                          "seed; `tawla verify-dice` checks a finished match's document")
    ratings: Optional[list[Optional[dict[str, float]]]] = Field(
        None, description="a rated match that is over: per seat, null (not rated) or its rating change "
                          "{before, after, change, deviation}")
    next_fair_dice: Optional[dict[str, Any]] = Field(
        None, description="while the room waits or between matches: the next match's dice (commitment, "
                          "client_seeds); POST /v1/rooms/{code}/client-seed sets a seat's client seed")
    analysis: Optional[dict[str, str]] = Field(
        None, description="a match that is over: the paths of its analysis, {html, json} (for the room's "
                          "seats and spectators)")
    match: Optional[dict[str, Any]] = None


class SeekRequest(BaseModel):
    ruleset: str = Field(default="backgammon", max_length=40)
    house: str = Field(default="international", max_length=40)
    length: Optional[StrictInt] = Field(default=None, ge=0, le=10000, description="points; null: the house's default")
    turn_seconds: Optional[float] = Field(default=None, strict=True, description="seconds a turn; null: unlimited; "
                                          "omitted: the house's default")
    rated: StrictBool = Field(default=False, description="a rated match (needs an account token)")
    rating_range: Optional[list[float]] = Field(default=None, min_length=2, max_length=2,
                                                description="[low, high]: the opponent's rating (Glicko points); "
                                                            "null: any")
    bot_after: Optional[float] = Field(default=None, ge=0, le=3600, strict=True,
                                       description="seconds to wait for a player before a bot takes the other "
                                                   "seat; null: never")
    bot_level: Optional[str] = Field(default=None, max_length=20, description="the offered bot's level; default net0")
    name: Optional[str] = Name


class SeekView(BaseModel):
    id: str
    status: Literal["waiting", "paired", "failed", "cancelled"]
    detail: Optional[str] = Field(description="failed: why no room could be made")
    table: dict[str, Any]
    rating: float = Field(description="the seeker's rating the ranges are compared with")
    since: float
    bot_in: Optional[float] = Field(description="seconds until a bot is offered; null: none")
    token: Optional[str] = Field(None, description="POST only: the seek's token (bearer of GET and DELETE)")
    room: Optional[str] = Field(None, description="paired: the room's code")
    seat: Optional[int] = None
    opponent: Optional[str] = None
    room_token: Optional[str] = Field(None, description="paired: the seeker's seat token in the room")


class LeaderboardEntry(BaseModel):
    rank: int
    player: str = Field(description="account:<id> or bot:<level>")
    name: str
    bot: Optional[str] = Field(description="a bot's level; null for an account")
    rating: float
    deviation: float
    volatility: float
    played: int = Field(description="rated matches")


class Leaderboard(BaseModel):
    ruleset: str
    kind: str = Field(description="game (one-point matches) or match (longer ones)")
    players: list[LeaderboardEntry]


class RatingEntry(BaseModel):
    ruleset: str
    kind: str
    rating: float
    deviation: float
    volatility: float
    played: int


class RatingChange(BaseModel):
    room: str
    match_no: int
    ruleset: str
    kind: str
    opponent: str
    opponent_bot: Optional[str]
    result: float = Field(description="1 won, 0 lost")
    before: float
    after: float
    change: float
    deviation: float
    t: float


class AccountRatings(BaseModel):
    ratings: list[RatingEntry]
    history: list[RatingChange] = Field(description="newest first")
