// The web board of tawla serve: create or join a room, then play by tapping a lit checker and a
// lit point (the API's legal_steps), or by picking a whole move; the board is the server's SVG
// (GET /v1/rooms/{code}/board.svg), redrawn whenever the room's version changes. The room's
// WebSocket says when something happened; polling stays as the fallback (fast without a socket).
"use strict";

const POLL_MS = 250;
const POLL_WITH_SOCKET_MS = 1500;
const $ = (id) => document.getElementById(id);

const game = {
  code: null, token: null, seat: null,
  state: null, selected: null, shown: null, busy: false, again: false, timer: null, socket: null,
};

function showError(text) { $("error").textContent = text || ""; }

async function api(method, path, body) {
  const headers = { "Content-Type": "application/json" };
  if (game.token) headers.Authorization = "Bearer " + game.token;
  const r = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await r.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch (e) { data = { detail: text }; }
  if (!r.ok) {
    const err = new Error((data && (data.error ? data.error + ": " : "") + (data.detail || "")) || r.statusText);
    err.status = r.status;
    throw err;
  }
  return data;
}

function remember() {
  sessionStorage.setItem("tawla:" + game.code, JSON.stringify({ token: game.token, seat: game.seat }));
  history.replaceState(null, "", "#room=" + game.code);
}

function setupOptions() {
  const length = parseInt($("length").value, 10);
  return { ruleset: $("ruleset").value, house: "international", length: isNaN(length) ? null : length,
           name: $("name").value || "Player" };
}

async function createRoom(withBot) {
  showError("");
  try {
    const made = await api("POST", "/v1/rooms", setupOptions());
    Object.assign(game, { code: made.code, token: made.token, seat: made.seat });
    remember();
    if (withBot) await api("POST", "/v1/rooms/" + game.code + "/bots", { level: $("level").value });
    enterGame();
  } catch (e) { showError(e.message); }
}

async function joinRoom(code) {
  showError("");
  code = (code || "").trim().toUpperCase();
  if (!code) { showError("a room code is six letters and digits"); return; }
  try {
    const joined = await api("POST", "/v1/rooms/" + code + "/join", { name: $("name").value || "Player" });
    Object.assign(game, { code, token: joined.token, seat: joined.seat });
    remember();
    enterGame();
  } catch (e) { showError(e.message); }
}

function enterGame() {
  $("setup").classList.add("hidden");
  $("game").classList.remove("hidden");
  game.selected = null;
  game.shown = null;
  refresh();
  openSocket();
  poll(POLL_MS);
}

function poll(ms) {
  if (game.timer) clearInterval(game.timer);
  game.timer = setInterval(refresh, ms);
}

function openSocket() {
  if (!("WebSocket" in window) || game.socket) return;
  const scheme = location.protocol === "https:" ? "wss://" : "ws://";
  const ws = new WebSocket(scheme + location.host + "/v1/rooms/" + game.code + "/ws");
  game.socket = ws;
  ws.onopen = () => {  // the token goes as the first message, never in the URL
    ws.send(JSON.stringify({ token: game.token }));
    poll(POLL_WITH_SOCKET_MS);
  };
  ws.onmessage = () => refresh();
  ws.onclose = () => {
    game.socket = null;
    poll(POLL_MS);
    setTimeout(openSocket, 2000);
  };
}

function myTurn(s) { return s && game.seat !== null && s.to_act === game.seat; }

function stepsFrom(s, from) { return s.legal_steps.filter((st) => st.from === from); }

async function refresh() {
  if (!game.code) return;
  if (game.busy) { game.again = true; return; }
  game.busy = true;
  try {
    const s = await api("GET", "/v1/rooms/" + game.code);
    game.state = s;
    const key = s.version + ":" + game.selected;
    if (key !== game.shown) {
      await drawBoard(s);
      game.shown = key;
    }
    render(s);
  } catch (e) {
    showError(e.message);
  } finally {
    game.busy = false;
  }
  if (game.again) { game.again = false; refresh(); }
}

async function drawBoard(s) {
  let path = "/v1/rooms/" + game.code + "/board.svg";
  if (game.selected !== null) path += "?selected=" + game.selected;
  const r = await fetch(path, { headers: { Authorization: "Bearer " + game.token } });
  if (!r.ok) throw new Error("the board: " + r.status);
  $("board").innerHTML = await r.text();
  $("board").dataset.version = String(s.version);
  if (game.selected !== null) {
    for (const el of $("board").querySelectorAll(".checker.lit")) el.classList.add("selected");
  }
}

function seatName(s, n) { return s.seats[n] ? s.seats[n].name : "(empty)"; }

function render(s) {
  const mine = myTurn(s);
  const body = document.body.dataset;
  body.phase = s.phase; body.toAct = String(s.to_act); body.you = String(game.seat);
  body.version = String(s.version); body.winner = String(s.winner);
  $("info").textContent = "Room " + s.code + " · " + s.options.ruleset + " · " +
    (s.length ? s.length + "-point match" : "money") + " · you are " +
    (game.seat === null ? "a spectator" : seatName(s, game.seat) + " (" + (game.seat === 0 ? "white" : "black") + ")");
  let status;
  if (s.phase === "waiting") status = "Waiting for a player: give them the code " + s.code + ".";
  else if (s.phase === "over") status = "Match over: " + seatName(s, s.winner) + " wins (" + s.score.join("–") + ").";
  else {
    const who = mine ? "You" : seatName(s, s.to_act);
    const what = { roll: "to roll", move: "to move", double: "to take or drop", resign: "to answer a resignation" }[s.phase] || s.phase;
    status = "Score " + s.score.join("–") + " · " + who + " " + what +
      (s.dice ? " · dice " + s.dice.join("-") : "") + (s.offer ? " · offer: " + JSON.stringify(s.offer) : "");
  }
  $("status").textContent = status;
  const canMove = mine && s.phase === "move";
  const show = {
    roll: mine && s.phase === "roll",
    double: mine && s.phase === "roll" && s.cube.in_play && (s.cube.owner === null || s.cube.owner === game.seat),
    undo: canMove && s.played_steps.length > 0,
    confirm: canMove && s.played_steps.length > 0 && s.legal_steps.length === 0,
    pass: canMove && s.played_steps.length === 0 && s.legal_steps.length === 0,
    take: mine && s.phase === "double", drop: mine && s.phase === "double",
    accept: mine && s.phase === "resign", reject: mine && s.phase === "resign",
    rematch: s.phase === "over" && game.seat !== null,
  };
  for (const [id, on] of Object.entries(show)) $(id).hidden = !on;
  $("resign-box").hidden = !(mine && (s.phase === "roll" || s.phase === "move"));
  const moves = canMove && s.played_steps.length === 0 ? s.legal_moves : [];
  $("move-list").hidden = moves.length === 0;
  const sel = $("moves");
  const wanted = moves.join("\n");
  if (sel.dataset.moves !== wanted) {
    sel.innerHTML = "";
    for (const m of moves) {
      const o = document.createElement("option");
      o.value = m; o.textContent = m || "(no move: pass)";
      sel.appendChild(o);
    }
    sel.dataset.moves = wanted;
  }
}

async function act(action, fields) {
  showError("");
  try {
    await api("POST", "/v1/rooms/" + game.code + "/actions", Object.assign({ action }, fields || {}));
  } catch (e) { showError(e.message); }
  game.selected = null;
  game.shown = null;
  await refresh();
}

async function onBoardClick(ev) {
  const s = game.state;
  const target = ev.target.closest("[data-point]");
  if (!s || !target || !myTurn(s) || s.phase !== "move") return;
  const p = parseInt(target.dataset.point, 10);
  if (game.selected !== null) {
    const step = stepsFrom(s, game.selected).find((st) => st.to === p);
    if (step) { await act("step", { from: step.from, to: step.to, dice: step.dice }); return; }
  }
  const isMine = target.dataset.side === undefined || target.dataset.side === "on-roll";
  game.selected = isMine && stepsFrom(s, p).length && game.selected !== p ? p : null;
  game.shown = null;
  await refresh();
}

function init() {
  $("play-bot").addEventListener("click", () => createRoom(true));
  $("create").addEventListener("click", () => createRoom(false));
  $("join").addEventListener("click", () => joinRoom($("join-code").value));
  $("board").addEventListener("click", onBoardClick);
  for (const name of ["roll", "double", "undo", "confirm", "take", "drop", "accept", "reject"]) {
    $(name).addEventListener("click", () => act(name));
  }
  $("pass").addEventListener("click", () => act("move", { move: "" }));
  $("play-move").addEventListener("click", () => act("move", { move: $("moves").value }));
  $("resign").addEventListener("click", () => act("resign", { kind: $("resign-kind").value }));
  $("rematch").addEventListener("click", async () => {
    try { await api("POST", "/v1/rooms/" + game.code + "/rematch"); } catch (e) { showError(e.message); }
    game.shown = null; refresh();
  });
  const m = /#room=([A-Za-z0-9]{6})/.exec(location.hash);
  if (m) {
    const saved = sessionStorage.getItem("tawla:" + m[1].toUpperCase());
    if (saved) {
      Object.assign(game, { code: m[1].toUpperCase() }, JSON.parse(saved));
      enterGame();
    } else {
      $("join-code").value = m[1].toUpperCase();
    }
  }
}

init();
