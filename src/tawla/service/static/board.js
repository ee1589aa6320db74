// The web board of tawla serve: create or join a room, then play by tapping a lit checker and a
// lit point (the API's legal_steps), or by picking a whole move; the board is the server's SVG
// (GET /v1/rooms/{code}/board.svg), redrawn whenever the room's version changes. The room's
// WebSocket says when something happened; polling stays as the fallback (fast without a socket).
// Besides the board: the clock of the seat that must act, the opening roll of the game, lines for
// what the server or the rules played for someone (forced moves, passes, timeouts), the grace
// period of a player who lost the connection (coin tables), a note while the page is cut off,
// and at the end the rating changes of a rated match and a link to its analysis.
"use strict";

const POLL_MS = 250;
const POLL_WITH_SOCKET_MS = 1500;
const TICK_MS = 250;
const ACCOUNT_KEY = "tawla:account";
const $ = (id) => document.getElementById(id);

const game = {
  code: null, token: null, seat: null,
  state: null, selected: null, shown: null, busy: false, again: false, timer: null, socket: null,
  skew: 0, dropped: false, unreachable: false, retries: 0,
};

function showError(text) { $("error").textContent = text || ""; }

async function api(method, path, body, token) {
  const headers = { "Content-Type": "application/json" };
  const bearer = token === undefined ? game.token : token;
  if (bearer) headers.Authorization = "Bearer " + bearer;
  const r = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const date = Date.parse(r.headers.get("Date") || "");
  if (!isNaN(date)) {  // the server's clock, to the second: only a clear difference is corrected
    const skew = date + 500 - Date.now();
    game.skew = Math.abs(skew) > 2000 ? skew : 0;
  }
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
  const out = { ruleset: $("ruleset").value, house: "international", length: isNaN(length) ? null : length,
                name: $("name").value || "Player" };
  const turn = parseFloat($("turn-seconds").value);
  if (!isNaN(turn)) out.turn_seconds = turn;
  if ($("rated").checked) out.rated = true;
  return out;
}

function savedAccount() {
  try { return JSON.parse(localStorage.getItem(ACCOUNT_KEY) || "null"); } catch (e) { return null; }
}

async function account(fresh) {
  // The account a rated room needs (kept in localStorage); a new one when there is none or `fresh`.
  const kept = fresh ? null : savedAccount();
  if (kept && kept.token) return kept;
  const made = await api("POST", "/v1/accounts", { name: $("name").value || "Player", house: "international" }, null);
  const acc = { token: made.token, id: made.account.id, name: made.account.name };
  localStorage.setItem(ACCOUNT_KEY, JSON.stringify(acc));
  return acc;
}

async function withAccount(call) {
  // `call(token)` with the kept account's token, again with a new account if that one is refused.
  try { return await call((await account(false)).token); } catch (e) {
    if (e.status !== 401) throw e;
    return call((await account(true)).token);
  }
}

async function createRoom(withBot) {
  showError("");
  try {
    const opts = setupOptions();
    const made = opts.rated ? await withAccount((t) => api("POST", "/v1/rooms", opts, t))
                            : await api("POST", "/v1/rooms", opts, null);
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
    const join = (t) => api("POST", "/v1/rooms/" + code + "/join", { name: $("name").value || "Player" }, t);
    const kept = savedAccount();
    let joined;
    try { joined = await join(kept ? kept.token : null); } catch (e) {
      if (e.status !== 401) throw e;  // a rated room or a coin table seats accounts
      joined = await withAccount(join);
    }
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
    game.dropped = false;
    game.retries = 0;
    poll(POLL_WITH_SOCKET_MS);
    refresh();
  };
  ws.onmessage = () => refresh();
  ws.onclose = (ev) => {
    game.socket = null;
    poll(POLL_MS);
    if ([4401, 4403, 4404].includes(ev.code)) return;  // refused: polling says why
    game.dropped = true;
    tick();
    setTimeout(openSocket, Math.min(5000, 250 * 2 ** game.retries++));
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
    game.unreachable = false;
    game.state = s;
    const key = s.version + ":" + game.selected;
    if (key !== game.shown) {
      await drawBoard(s);
      game.shown = key;
    }
    render(s);
  } catch (e) {
    if (e instanceof TypeError) game.unreachable = true;  // no answer at all: the network
    else showError(e.message);
  } finally {
    tick();
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

function clockText(seconds) {
  const t = Math.max(0, Math.ceil(seconds));
  return Math.floor(t / 60) + ":" + String(t % 60).padStart(2, "0");
}

function serverNow() { return (Date.now() + game.skew) / 1000; }

function actDeadline(s) {
  // When the seat that must act runs out of time (its turn, step or answer timer; not a grace period).
  if (!s || s.to_act === null || s.phase === "over" || s.phase === "waiting") return null;
  const timers = s.match && s.match.state && s.match.state.timers;
  if (timers) {
    const ends = Object.values(timers).filter((t) => typeof t === "number");
    return ends.length ? Math.min(...ends) : null;
  }
  return typeof s.deadline === "number" ? s.deadline : null;
}

function graceLines(s) {
  // A coin table's player reported gone forfeits unless back within the house's grace period.
  const m = s && s.match;
  if (!m || s.phase === "over" || !m.state || !Array.isArray(m.state.away)) return [];
  const house = (m.config && m.config.house) || {};
  if (typeof house.grace_period !== "number" || !(house.stake > 0)) return [];
  const out = [];
  m.state.away.forEach((since, n) => {
    if (typeof since !== "number") return;
    out.push(seatName(s, n) + " lost the connection: back within " +
             clockText(since + house.grace_period - serverNow()) + " or the match is forfeited");
  });
  return out;
}

function tick() {
  // The parts that count down or follow the connection, redrawn every TICK_MS.
  const s = game.state;
  const clock = $("clock");
  const end = actDeadline(s);
  if (end === null) {
    clock.hidden = true;
    clock.dataset.seconds = "";
  } else {
    const left = end - serverNow();
    clock.hidden = false;
    clock.textContent = (myTurn(s) ? "Your clock" : seatName(s, s.to_act) + "'s clock") + ": " + clockText(left);
    clock.dataset.seconds = String(Math.max(0, Math.ceil(left)));
    clock.classList.toggle("low", left <= 10);
  }
  const lines = (game.dropped || game.unreachable) && game.code ? ["Reconnecting\u2026"] : [];
  setLines($("connection"), lines.concat(graceLines(s)));
}

function setLines(el, lines) {
  const text = lines.join("\n");
  if (el.dataset.text === text) return;
  el.dataset.text = text;
  el.replaceChildren(...lines.map((line) => Object.assign(document.createElement("div"), { textContent: line })));
  el.hidden = lines.length === 0;
}

function diceText(d) { return Array.isArray(d) ? d.join("-") : "?"; }

function openingLine(events, names, turn) {
  // The current game's start: the opening rolls (ties rerolled) and who starts (`turn`, the seat
  // on turn, where the last game's winner starts without an opening roll).
  let start = -1;
  for (let i = events.length - 1; i >= 0; i--) if (events[i].type === "game_start") { start = i; break; }
  if (start < 0) return null;
  const number = events[start].game;
  const rolls = [];
  let first = null;
  for (const e of events.slice(start + 1)) {  // the first seat to act in the game
    if (e.type === "opening") rolls.push(e);
    else if (first === null && typeof e.player === "number") first = e.player;
  }
  const head = "Game " + number + " \u00b7 ";
  if (first === null && typeof turn === "number") first = turn;
  if (!rolls.length) return first === null ? null : head + names[first] + " won the last game and starts";
  const last = rolls[rolls.length - 1];
  let text = head + "opening roll: " + names[0] + " " + last.dice[0] + ", " + names[1] + " " + last.dice[1];
  if (typeof last.starter === "number") text += " \u2014 " + names[last.starter] + " starts";
  const ties = rolls.slice(0, -1).map((e) => diceText(e.dice));
  if (ties.length) text += " (tie" + (ties.length > 1 ? "s " : " ") + ties.join(", ") + " rerolled)";
  return text;
}

function eventNotes(events, names) {
  // What was played for someone in the last two turns: forced moves, passes, timeouts; game ends.
  let from = 0;
  for (let i = events.length - 1, turns = 0; i >= 0; i--) {
    if (events[i].type === "turn" && ++turns === 3) { from = i + 1; break; }
  }
  const out = [];
  for (const e of events.slice(from)) {
    const who = names[e.player];
    const roll = " (" + diceText(e.dice) + ")";
    if (e.type === "turn" && e.how === "forced") out.push("Forced move for " + who + roll + ": " + e.move);
    else if (e.type === "turn" && e.how === "pass") out.push("No legal move for " + who + roll);
    else if (e.type === "turn" && e.how === "timeout") {
      out.push("Time ran out: " + (e.move ? "the server played " + e.move + " for " + who : "no move for " + who));
    } else if (e.type === "timeout") {
      const what = { roll: "the server rolled " + diceText(e.dice) + " for " + who,
                     drop: who + " dropped the double", reject: who + " rejected the resignation" }[e.action];
      if (what) out.push("Time ran out: " + what);
      else if (e.action === "forfeit") out.push(who + " did not come back in time and forfeits the match");
    } else if (e.type === "leave") out.push(who + " left the match");
    else if (e.type === "game_end") {
      out.push("Game " + e.game + ": " + (typeof e.winner === "number" ? names[e.winner] + " wins " + e.points +
               (e.points === 1 ? " point" : " points") + (e.kind && e.kind !== "single" ? " (" + e.kind + ")" : "")
               : "a draw"));
    }
  }
  return out;
}

function ratingLines(s) {
  if (!Array.isArray(s.ratings)) return [];
  const out = [];
  s.ratings.forEach((r, n) => {
    if (!r || typeof r.after !== "number") return;
    const change = (r.change >= 0 ? "+" : "\u2212") + Math.abs(r.change).toFixed(1);
    out.push("Rating of " + seatName(s, n) + ": " + r.before.toFixed(1) + " \u2192 " + r.after.toFixed(1) +
             " (" + change + ")");
  });
  return out;
}

async function openAnalysis(ev) {
  // The analysis needs the room's token, which a plain link cannot carry: fetched, then shown.
  ev.preventDefault();
  const link = ev.currentTarget;
  const win = window.open("", "_blank");
  try {
    const r = await fetch(link.getAttribute("href"), { headers: { Authorization: "Bearer " + game.token } });
    const text = await r.text();
    if (!r.ok) throw new Error("the analysis: " + r.status + " " + text.slice(0, 200));
    const url = URL.createObjectURL(new Blob([text], { type: "text/html" }));
    if (win) win.location.href = url; else location.href = url;
  } catch (e) {
    if (win) win.close();
    showError(e.message);
  }
}

function render(s) {
  const mine = myTurn(s);
  const body = document.body.dataset;
  body.phase = s.phase; body.toAct = String(s.to_act); body.you = String(game.seat);
  body.version = String(s.version); body.winner = String(s.winner);
  body.spectator = String(game.seat === null);
  $("info").textContent = "Room " + s.code + " · " + s.options.ruleset + " · " +
    (s.length ? s.length + "-point match" : "money") + (s.options.rated ? " · rated" : "") + " · you are " +
    (game.seat === null ? "a spectator" : seatName(s, game.seat) + " (" + (game.seat === 0 ? "white" : "black") + ")");
  const player = (n) => s.seats[n] ? seatName(s, n) + " (" + (n === 0 ? "white" : "black") + ")" +
    (s.seats[n].connected || s.phase === "waiting" ? "" : ", offline") : "(empty seat)";
  $("players").textContent = (game.seat === null ? "Watching: " : "") + player(0) + " vs " + player(1);
  const events = (s.match && s.match.events) || [];
  const names = [seatName(s, 0), seatName(s, 1)];
  const opening = s.phase === "waiting" || s.phase === "over" ? null : openingLine(events, names, s.turn);
  setLines($("opening"), opening ? [opening] : []);
  setLines($("notes"), eventNotes(events, names));
  setLines($("ratings"), s.phase === "over" ? ratingLines(s) : []);
  const analysis = s.phase === "over" && s.analysis && s.analysis.html;
  $("analysis").hidden = !analysis;
  if (analysis) $("analysis-link").setAttribute("href", analysis);
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
  $("analysis-link").addEventListener("click", openAnalysis);
  setInterval(tick, TICK_MS);
  window.addEventListener("offline", () => { game.unreachable = true; tick(); });
  window.addEventListener("online", () => {  // back at once: no wait for the next poll or retry
    game.retries = 0;
    if (game.code) { refresh(); openSocket(); }
  });
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
