// What every page shares: the JSON API, building elements, cards drawn as SVG, and the table.
// The table is drawn from the server's table state (pinochle_web/present.py): seats around a
// felt, the trick in the middle, the bottom seat's hand large, and a side panel of scores.

export const SUIT_SYMBOL = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };
export const SUIT_NAME = { S: "spades", H: "hearts", D: "diamonds", C: "clubs" };
const RANK_LABEL = { T: "10" };
const SVG = "http://www.w3.org/2000/svg";

/** Calls the API; resolves to the answer's JSON, or throws an Error carrying the server's reason. */
export async function api(path, { method = "GET", body } = {}) {
  const options = { method, headers: {} };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const response = await fetch(path, options);
  const data = await response.json().catch(() => ({ error: response.statusText }));
  if (!response.ok) {
    throw new Error(data.error || `${response.status} ${response.statusText}`);
  }
  return data;
}

/** An element with attributes (`class`, `on*` handlers, others as attributes) and children. */
export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else if (name === "class") node.className = value;
    else node.setAttribute(name, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function svg(tag, attributes = {}, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

/**
 * A card ("TS") as an SVG picture, or its back when `card` is null. A normal card has the corner
 * index and a large pip; a small or tiny one (melds, stock, other seats' cards on the table) only
 * its rank and suit, large enough to read at that size.
 */
export function cardSvg(card, { size = "normal" } = {}) {
  const picture = svg("svg", { viewBox: "0 0 60 84", class: `card card-${size}`, role: "img" });
  if (card === null) {
    picture.classList.add("back");
    picture.setAttribute("aria-label", "a hidden card");
    picture.append(
      svg("rect", { x: 1, y: 1, width: 58, height: 82, rx: 5, class: "card-back" }),
      svg("rect", { x: 6, y: 6, width: 48, height: 72, rx: 3, class: "card-back-inner" }),
    );
    return picture;
  }
  const rank = RANK_LABEL[card[0]] || card[0];
  const suit = card[1];
  picture.dataset.card = card;
  picture.setAttribute("aria-label", `${rank} of ${SUIT_NAME[suit]}`);
  picture.classList.add(suit === "H" || suit === "D" ? "red" : "black");
  picture.append(svg("rect", { x: 1, y: 1, width: 58, height: 82, rx: 5, class: "card-face" }));
  if (size === "normal") {
    picture.append(
      svg("text", { x: 5, y: 17, class: "card-rank" }, rank),
      svg("text", { x: 5, y: 31, class: "card-pip" }, SUIT_SYMBOL[suit]),
      svg("text", { x: 34, y: 62, class: "card-suit", "text-anchor": "middle" }, SUIT_SYMBOL[suit]),
    );
  } else {
    picture.append(
      svg("text", { x: 30, y: 37, class: "card-rank card-rank-large", "text-anchor": "middle" }, rank),
      svg("text", { x: 30, y: 74, class: "card-suit-large", "text-anchor": "middle" }, SUIT_SYMBOL[suit]),
    );
  }
  return picture;
}

/** "10♠" for "TS": a card in running text. */
export function cardText(card) {
  return `${RANK_LABEL[card[0]] || card[0]}${SUIT_SYMBOL[card[1]]}`;
}

/** A seat's name as the page words it: "you"/"left"/... at a table, "player N" in replay. */
export function seatName(state, seat, { relative = false } = {}) {
  const entry = state.seats[seat];
  if (!relative) return `player ${seat}`;
  return entry.relative === "me" ? "you" : entry.relative;
}

function callText(call) {
  return typeof call === "number" ? String(call) : call === "help" ? "pass (help)" : call;
}

function teamName(state, team, relative) {
  const members = state.teams[team].seats;
  if (state.variant === "partnership") {
    const names = members.map((seat) => seatName(state, seat, { relative }));
    if (relative) return members.includes(state.viewer) ? "us" : "them";
    return names.join(" + ").replaceAll("player ", "p");
  }
  return seatName(state, members[0], { relative });
}

function cardRow(cards, options = {}) {
  return el("div", { class: `cards ${options.class || ""}` }, cards.map((card) => cardSvg(card, options)));
}

function meldBox(meld) {
  if (!meld || (!meld.points && !meld.melds.length)) return meld ? el("div", { class: "meld" }, "meld 0") : null;
  const names = meld.melds.map(([name, points]) => `${name} ${points}`).join(", ");
  return el(
    "div",
    { class: "meld" },
    el("span", { class: "meld-points" }, `meld ${meld.points}`),
    names ? el("span", { class: "meld-names" }, ` (${names})`) : null,
    meld.cards.length ? cardRow(meld.cards, { size: "small" }) : null,
  );
}

/**
 * Draws `state` into `root`. Options: `relative` (seat names from the bottom seat: a live
 * table), `agents` (spec per seat), `thinking` (the seat deciding now), `onCard(card, action)`
 * (makes the bottom seat's legal cards clickable), `onRefused(card, reason)`, `marks` (card ->
 * text drawn under that card of seat `marksSeat`'s hand: a policy's probability).
 */
export function renderTable(root, state, options = {}) {
  const relative = Boolean(options.relative);
  const legalCards = new Map(state.legal.filter((a) => a.card).map((a) => [a.card, a.action]));
  const felt = el("div", { class: `felt seats-${state.seats.length}` });
  for (const seat of state.seats) {
    felt.append(seatBox(state, seat, { ...options, relative, legalCards }));
  }
  felt.append(centre(state, relative));
  root.replaceChildren(el("div", { class: "table-layout" }, felt, sidePanel(state, options, relative)));
}

function seatBox(state, seat, options) {
  const { relative, legalCards } = options;
  const agent = options.agents ? options.agents[seat.seat] : null;
  const badges = [];
  if (state.dealer === seat.seat) badges.push(el("span", { class: "badge", title: "dealer" }, "dealer"));
  if (state.declarer === seat.seat) badges.push(el("span", { class: "badge declarer" }, `declarer ${state.contract}`));
  if (options.thinking === seat.seat) badges.push(el("span", { class: "badge thinking" }, "thinking\u2026"));
  else if (state.to_act === seat.seat && !state.hand_over) badges.push(el("span", { class: "badge to-act" }, "to act"));
  const calls = (state.auction || []).filter(([who]) => who === seat.seat);
  const lastCall = calls.length ? el("div", { class: "call" }, `bid: ${callText(calls[calls.length - 1][1])}`) : null;
  const isBottom = seat.position === "bottom";
  let hand;
  if (seat.cards) {
    hand = el("div", { class: `cards hand ${isBottom ? "hand-bottom" : ""}` });
    for (const card of seat.cards) hand.append(handCard(state, card, seat, options));
  } else {
    hand = el("div", { class: "cards hand hidden-hand", title: `${seat.count} cards` });
    for (let i = 0; i < seat.count; i += 1) hand.append(cardSvg(null, { size: "small" }));
  }
  const table = seat.table.length
    ? el("div", { class: "on-table" }, el("span", { class: "label" }, "on the table: "),
        el("div", { class: "cards" }, seat.table.map((card) => handCard(state, card, seat, options))))
    : null;
  return el(
    "section",
    { class: `seat pos-${seat.position}`, "data-seat": seat.seat },
    el(
      "header",
      {},
      el("strong", {}, seatName(state, seat.seat, { relative })),
      relative ? null : el("span", { class: "muted" }, ` (${seat.relative === "me" ? "bottom" : seat.relative})`),
      agent && !(relative && agent === "human") ? el("span", { class: "agent" }, ` · ${agent}`) : null,
      ...badges,
    ),
    lastCall,
    meldBox(seat.meld),
    table,
    hand,
    el("div", { class: "muted" }, `tricks won: ${seat.tricks}`),
  );
}

function handCard(state, card, seat, options) {
  const isBottom = seat.position === "bottom";
  const picture = cardSvg(card, { size: isBottom ? "normal" : "small" });
  const wrap = el("span", { class: "card-wrap" }, picture);
  if (options.marks && options.marksSeat === seat.seat && options.marks[card] !== undefined) {
    wrap.append(el("span", { class: "mark" }, options.marks[card]));
  }
  if (!isBottom) return wrap;
  const action = options.legalCards.get(card);
  if (options.onCard && action !== undefined) {
    wrap.classList.add("legal");
    wrap.setAttribute("role", "button");
    wrap.setAttribute("tabindex", "0");
    wrap.setAttribute("title", `play ${cardText(card)}`);
    wrap.addEventListener("click", () => options.onCard(card, action));
    wrap.addEventListener("keydown", (event) => {
      if (event.key === "Enter" || event.key === " ") options.onCard(card, action);
    });
  } else if (state.refused[card]) {
    wrap.classList.add("refused");
    wrap.setAttribute("title", state.refused[card]);
    if (options.onRefused) wrap.addEventListener("click", () => options.onRefused(card, state.refused[card]));
  }
  return wrap;
}

function centre(state, relative) {
  const box = el("div", { class: "centre" });
  const trick = el("div", { class: `trick trick-${state.seats.length}` });
  const positions = Object.fromEntries(state.seats.map((s) => [s.seat, s.position]));
  for (const [seat, card] of state.trick.cards) {
    trick.append(el("div", { class: `played pos-${positions[seat]}`, title: seatName(state, seat, { relative }) }, cardSvg(card)));
  }
  box.append(trick);
  const notes = [];
  if (state.trump) notes.push(el("span", { class: `trump suit-${state.trump}` }, `trump ${SUIT_SYMBOL[state.trump]} ${SUIT_NAME[state.trump]}`));
  else notes.push(el("span", { class: "trump" }, "no trump yet"));
  notes.push(el("span", {}, ` · tricks played: ${state.tricks_played}`));
  box.append(el("div", { class: "centre-notes" }, notes));
  if (state.turn_up !== undefined) {
    box.append(
      el(
        "div",
        { class: "stock" },
        state.turn_up ? el("span", { class: "turn-up" }, "turn-up ", cardSvg(state.turn_up, { size: "small" })) : null,
        el("span", {}, ` stock: ${state.stock} card${state.stock === 1 ? "" : "s"}`),
      ),
    );
    if (state.stock_cards && state.stock_cards.length) {
      box.append(el("div", { class: "stock-cards" }, el("span", { class: "label" }, "stock, top first: "), cardRow(state.stock_cards, { size: "tiny" })));
    }
  }
  if (state.widow !== undefined && (state.widow_shown || state.widow.length) && state.tricks_played === 0 && !state.trick.cards.length) {
    box.append(el("div", { class: "widow" }, el("span", { class: "label" }, "widow: "), cardRow(state.widow, { size: "small" })));
  }
  if (state.buried && state.buried.length) {
    box.append(el("div", { class: "buried" }, el("span", { class: "label" }, "buried: "), cardRow(state.buried, { size: "tiny" })));
  }
  return box;
}

function sidePanel(state, options, relative) {
  const rows = state.teams.map((team) =>
    el(
      "tr",
      {},
      el("td", {}, teamName(state, team.team, relative)),
      el("td", { class: "num" }, team.meld === null ? "-" : team.meld),
      el("td", { class: "num" }, team.tricks),
      el("td", { class: "num" }, team.points),
      el("td", { class: "num total" }, team.total),
    ),
  );
  const panel = el(
    "aside",
    { class: "side" },
    el("h3", { id: "phase-title" }, `Hand ${state.hand_number + 1} · ${state.phase_title}`),
    el(
      "table",
      { class: "scores" },
      el("thead", {}, el("tr", {}, el("th", {}, "side"), el("th", {}, "meld"), el("th", {}, "tricks"), el("th", {}, "points"), el("th", {}, "game"))),
      el("tbody", {}, rows),
    ),
    el("p", { class: "muted" }, `game to ${state.rules.target_score}`),
  );
  if (state.contract) {
    panel.append(el("p", { class: "contract" }, `contract ${state.contract} by ${seatName(state, state.declarer, { relative })}`, state.thrown_in ? " (thrown in)" : ""));
  }
  if (state.auction) {
    panel.append(
      el("h4", {}, "Auction"),
      el("ol", { class: "auction" }, state.auction.map(([seat, call]) => el("li", {}, `${seatName(state, seat, { relative })}: ${callText(call)}`))),
    );
  }
  if (state.passed && state.passed.length) panel.append(el("p", {}, "you passed: ", state.passed.map(cardText).join(" ")));
  if (state.received && state.received.length) panel.append(el("p", {}, "you received: ", state.received.map(cardText).join(" ")));
  if (state.last_trick) {
    const t = state.last_trick;
    panel.append(
      el("h4", {}, "Last trick"),
      el("p", { class: "last-trick" }, t.cards.map(([seat, card]) => `${seatName(state, seat, { relative })} ${cardText(card)}`).join(", "), ` \u2192 ${seatName(state, t.winner, { relative })}`),
    );
  }
  if (options.log && options.log.length) {
    panel.append(
      el("h4", {}, "This hand"),
      el("ol", { class: "log" }, options.log.slice(-10).map((entry) => el("li", { class: entry.forced ? "forced" : null }, `${seatName(state, entry.seat, { relative })}: ${entry.name}${entry.forced ? " (your only legal card)" : ""}`))),
    );
  }
  return panel;
}

/** The result of a finished hand in words, for the summary box. */
export function resultText(state, relative) {
  const result = state.result;
  const parts = [];
  if (result.declarer !== undefined && result.declarer !== null && result.bid) {
    const outcome = result.thrown_in ? "thrown in" : result.made ? "made it" : "was set";
    parts.push(`${seatName(state, result.declarer, { relative })} bid ${result.bid} and ${outcome}.`);
  }
  const scores = state.teams.map((team) => `${teamName(state, team.team, relative)} ${result.score[team.team] >= 0 ? "+" : ""}${result.score[team.team]}`);
  parts.push(`This hand: ${scores.join(", ")}.`);
  parts.push(`Game: ${state.teams.map((team) => `${teamName(state, team.team, relative)} ${result.totals[team.team]}`).join(", ")}.`);
  if (state.game_over) parts.push(`Game over: ${teamName(state, state.winner, relative)} won.`);
  return parts.join(" ");
}

/** The query parameters of the page's URL. */
export function query() {
  return new URLSearchParams(window.location.search);
}

/** Shows an error (or clears it) in the page's message line. */
export function showMessage(text, kind = "error") {
  const line = document.getElementById("message");
  line.textContent = text || "";
  line.className = text ? `message ${kind}` : "message";
}
