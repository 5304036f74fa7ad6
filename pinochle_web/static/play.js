// A live table: the person's seat at the bottom, agents around. Legal cards are clickable, the
// other choices are buttons; refused cards say why. While an agent thinks the page asks the
// server again every few hundred milliseconds and shows who is thinking.
import { api, cardText, el, query, renderTable, resultText, showMessage } from "./common.js";

const main = document.getElementById("main");
const tableId = query().get("table");
const POLL_MS = 250;
let state = null;
let busy = false;
let timer = null;

function actionButtons() {
  const others = state.legal.filter((a) => !a.card);
  const box = el("div", { class: "actions", id: "actions" });
  const bids = others.filter((a) => a.name.startsWith("bid "));
  const rest = others.filter((a) => !a.name.startsWith("bid "));
  if (bids.length > 8) {
    const select = el("select", { id: "bid-select" }, bids.map((a) => el("option", { value: a.action }, a.name)));
    box.append(select, el("button", { class: "action", onclick: () => send(Number(select.value)) }, "bid"));
  } else {
    for (const a of bids) box.append(el("button", { class: "action", "data-action": a.action, onclick: () => send(a.action) }, a.name));
  }
  for (const a of rest) box.append(el("button", { class: "action", "data-action": a.action, onclick: () => send(a.action) }, label(a.name)));
  return box;
}

function label(name) {
  return { help: "pass with help", "no meld": "no meld (end turn)" }[name] || name;
}

function hints() {
  const notes = [];
  const rules = state.rules;
  if (state.decision === "auction") {
    notes.push(rules.bid_raises === "seed" ? "Bids go up by 10 or 20." : "Any higher bid in tens.");
    if (state.variant === "partnership" && !rules.pass_with_help) notes.push("Pass with help is off (pass_with_help=false).");
  }
  if (state.decision === "throw_in") {
    const mine = state.teams[state.seats[state.viewer].team];
    notes.push(`Your side melded ${mine.meld}: you need ${Math.max(0, state.contract - mine.meld)} in tricks to make ${state.contract}.`);
  }
  if (state.decision === "meld") notes.push("One meld per turn, and it must put a new card on the table.");
  if (Object.keys(state.refused).length) notes.push("Greyed cards cannot be played now: hover or click one to see why.");
  return notes.length ? el("p", { class: "hint muted" }, notes.join(" ")) : null;
}

function summary() {
  const buttons = [];
  const seat = state.viewer;
  if (state.records.hands > 0) {
    buttons.push(el("a", { class: "button", id: "replay-link", href: `/replay?source=${state.records.source}&hand=${state.records.hands - 1}&bottom=${seat}` }, "Replay this hand"));
  }
  if (state.game_over) buttons.push(el("button", { id: "new-game", onclick: newGame }, "New game, same table"));
  else buttons.push(el("button", { id: "next-hand", onclick: nextHand }, "Next hand"));
  return el(
    "div",
    { class: "summary card-box", id: "summary" },
    el("h2", {}, state.game_over ? "Game over" : "Hand over"),
    el("p", {}, resultText(state, true)),
    state.records.save_error
      ? el("p", { class: "message error", id: "save-error" }, `Not saved: ${state.records.save_error}.`)
      : el("p", { class: "muted" }, `Saved to ${state.records.path} (${state.records.hands} hand${state.records.hands === 1 ? "" : "s"}).`),
    buttons,
  );
}

function draw() {
  const tableBox = el("div", { id: "table" });
  renderTable(tableBox, state, {
    relative: true,
    agents: state.setup.agents,
    thinking: state.thinking,
    log: state.log,
    onCard: busy ? null : (card, action) => send(action),
    onRefused: (card, reason) => showMessage(`${cardText(card)}: ${reason}`, "info"),
  });
  const bottom = [];
  if (state.error) bottom.push(el("p", { class: "message error" }, state.error));
  if (state.hand_over) bottom.push(summary());
  else if (state.prompt) bottom.push(el("div", { class: "prompt-box" }, el("h2", { id: "prompt" }, state.prompt), actionButtons(), hints()));
  else if (state.thinking !== null) bottom.push(el("p", { class: "waiting", id: "waiting" }, `player ${state.thinking} is thinking\u2026`));
  main.replaceChildren(tableBox, ...bottom);
}

function schedule() {
  clearTimeout(timer);
  if (state && state.thinking !== null) timer = setTimeout(refresh, POLL_MS);
}

async function refresh() {
  try {
    state = await api(`/api/tables/${tableId}`);
    draw();
  } catch (error) {
    showMessage(error.message);
  }
  schedule();
}

async function post(path, body) {
  if (busy) return;
  busy = true;
  try {
    state = await api(path, { method: "POST", body });
    showMessage("");
  } catch (error) {
    showMessage(error.message);
  } finally {
    busy = false;
  }
  draw();
  schedule();
}

function send(action) {
  return post(`/api/tables/${tableId}/actions`, { action });
}

function nextHand() {
  return post(`/api/tables/${tableId}/next`, {});
}

async function newGame() {
  try {
    const table = await api("/api/tables", { method: "POST", body: { ...state.setup, seed: null } });
    window.location.href = `/play?table=${table.table}`;
  } catch (error) {
    showMessage(error.message);
  }
}

if (!tableId) {
  window.location.href = "/";
} else {
  refresh();
}
