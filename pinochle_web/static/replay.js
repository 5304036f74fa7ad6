// Replay: step through every decision of a recorded hand, with all hands face up or one seat's
// view, and for any seat a checkpoint's probabilities at each of its decisions (and its critic's
// value where the checkpoint has one).
import { api, el, query, renderTable, resultText, showMessage } from "./common.js";

const main = document.getElementById("main");
const params = query();
const source = params.get("source");
let listing = null; // the source's hands
let hand = null; // the replayed hand: its steps
let step = 0;
const analyses = {}; // seat -> analysis of the chosen checkpoint
let checkpoints = [];

const controls = {
  hand: el("select", { id: "hand-select" }),
  viewer: el("select", { id: "viewer-select" }),
  slider: el("input", { id: "step-slider", type: "range", min: 0, value: 0 }),
  stepText: el("span", { id: "step-text" }),
  checkpointBox: el("div", { class: "checkpoints", id: "checkpoints" }),
};
const tableBox = el("div", { id: "table" });
const decisionBox = el("div", { id: "decision", class: "decision card-box" });

function setParam(name, value) {
  const url = new URL(window.location.href);
  if (value === null) url.searchParams.delete(name);
  else url.searchParams.set(name, value);
  window.history.replaceState(null, "", url);
}

async function loadHand() {
  const index = Number(controls.hand.value);
  const viewer = controls.viewer.value;
  const bottom = params.get("bottom");
  const extra = bottom !== null && viewer === "all" ? `&bottom=${bottom}` : "";
  try {
    hand = await api(`/api/sources/${source}/hands/${index}?viewer=${viewer}${extra}`);
  } catch (error) {
    showMessage(error.message);
    return;
  }
  setParam("hand", index);
  controls.slider.max = hand.steps.length - 1;
  step = Math.min(step, hand.steps.length - 1);
  drawCheckpointChoices();
  await Promise.all(Object.keys(analyses).map((seat) => analyse(Number(seat), analyses[seat].choice)));
  draw();
}

function drawViewerChoices(seats) {
  const current = controls.viewer.value || params.get("viewer") || "all";
  controls.viewer.replaceChildren(
    el("option", { value: "all" }, "all hands"),
    ...Array.from({ length: seats }, (_, seat) => el("option", { value: seat }, `player ${seat}'s view`)),
  );
  controls.viewer.value = current;
}

function drawCheckpointChoices() {
  const seats = hand.steps[0].state.seats.length;
  const boxes = [];
  for (let seat = 0; seat < seats; seat += 1) {
    const select = el(
      "select",
      { id: `checkpoint-${seat}`, "data-seat": seat },
      el("option", { value: "" }, "none"),
      el("option", { value: "bundled" }, "checkpoint:bundled"),
      checkpoints.map((c) => el("option", { value: c.id }, c.name)),
    );
    select.value = analyses[seat] ? analyses[seat].choice : "";
    select.addEventListener("change", async () => {
      if (select.value === "") delete analyses[seat];
      else await analyse(seat, select.value);
      draw();
    });
    boxes.push(el("label", {}, el("span", {}, `player ${seat}`), select));
  }
  controls.checkpointBox.replaceChildren(el("span", { class: "label" }, "What a network thought, per seat: "), ...boxes);
}

async function analyse(seat, choice) {
  try {
    const result = await api(`/api/sources/${source}/hands/${hand.index}/analysis?seat=${seat}&checkpoint=${encodeURIComponent(choice)}`);
    analyses[seat] = { ...result, choice };
    showMessage("");
  } catch (error) {
    delete analyses[seat];
    showMessage(`player ${seat}: ${error.message}`);
  }
}

function percent(p) {
  return `${(100 * p).toFixed(p >= 0.1 ? 0 : 1)}%`;
}

function drawDecision(current) {
  const decision = current.decision;
  if (!decision) {
    const state = current.state;
    decisionBox.replaceChildren(el("h3", {}, "End of the hand"), el("p", {}, state.result ? resultText(state, false) : ""));
    return;
  }
  const parts = [el("h3", {}, `player ${decision.seat} (${decision.kind}): `, el("span", { id: "decision-name" }, decision.name))];
  const analysis = analyses[decision.seat];
  const thought = analysis && analysis.steps[String(step)];
  if (thought) {
    const rows = thought.probabilities.map((entry) =>
      el(
        "li",
        { class: entry.action === thought.chosen ? "chosen" : "" },
        el("span", { class: "option" }, entry.name),
        el("span", { class: "bar" }, el("span", { class: "fill", style: `width: ${(100 * entry.p).toFixed(1)}%` })),
        el("span", { class: "p" }, percent(entry.p)),
      ),
    );
    parts.push(
      el("p", { class: "muted" }, `${analysis.checkpoint === "bundled" ? "checkpoint:bundled" : analysis.checkpoint}: the policy's probabilities over the legal actions (the action taken is marked)`),
      el("ol", { class: "probabilities", id: "probabilities" }, rows),
    );
    if (thought.value !== null) {
      parts.push(el("p", { id: "critic-value" }, `critic: expected margin of player ${decision.seat}'s side ${thought.value >= 0 ? "+" : ""}${thought.value.toFixed(1)} points (it reads every hand: replay only)`));
    }
  } else if (analysis) {
    parts.push(el("p", { class: "muted" }, "(a forced or hidden decision)"));
  }
  decisionBox.replaceChildren(...parts);
}

function draw() {
  if (!hand) return;
  const current = hand.steps[step];
  controls.slider.value = step;
  controls.stepText.textContent = current.decision ? `decision ${step + 1} of ${hand.steps.length - 1}` : `end (${hand.steps.length - 1} decisions)`;
  const decision = current.decision;
  const analysis = decision && analyses[decision.seat];
  const thought = analysis && analysis.steps[String(step)];
  const marks = {};
  if (thought) {
    for (const entry of thought.probabilities) if (/^[9JQKTA][SHDC]$/.test(entry.name)) marks[entry.name] = percent(entry.p);
  }
  renderTable(tableBox, current.state, { agents: hand.agents, marks, marksSeat: decision ? decision.seat : null });
  drawDecision(current);
}

function go(to) {
  if (!hand) return;
  step = Math.max(0, Math.min(hand.steps.length - 1, to));
  draw();
}

async function start() {
  if (!source) {
    window.location.href = "/";
    return;
  }
  try {
    const [sourceInfo, catalogue] = await Promise.all([api(`/api/sources/${source}`), api("/api/catalogue")]);
    listing = sourceInfo;
    checkpoints = catalogue.checkpoints;
  } catch (error) {
    showMessage(error.message);
    main.replaceChildren();
    return;
  }
  if (!listing.hands.length) {
    main.replaceChildren(el("p", {}, `${listing.name} holds no hands yet.`));
    return;
  }
  controls.hand.replaceChildren(...listing.hands.map((h) => el("option", { value: h.index }, h.label)));
  controls.hand.value = Math.min(Number(params.get("hand") || 0), listing.hands.length - 1);
  const seats = { partnership: 4, cutthroat: 3, two_hand: 2 }[listing.hands[Number(controls.hand.value)].variant];
  drawViewerChoices(seats);
  controls.hand.addEventListener("change", () => {
    step = 0;
    loadHand();
  });
  controls.viewer.addEventListener("change", () => {
    setParam("viewer", controls.viewer.value);
    loadHand();
  });
  controls.slider.addEventListener("input", () => go(Number(controls.slider.value)));
  document.addEventListener("keydown", (event) => {
    if (event.target.tagName === "INPUT" || event.target.tagName === "SELECT") return;
    if (event.key === "ArrowRight") go(step + 1);
    if (event.key === "ArrowLeft") go(step - 1);
  });
  main.replaceChildren(
    el("h2", {}, listing.name),
    el(
      "div",
      { class: "replay-controls card-box" },
      el("label", {}, el("span", {}, "hand"), controls.hand),
      el("label", {}, el("span", {}, "show"), controls.viewer),
      el(
        "div",
        { class: "stepper" },
        el("button", { id: "first", title: "first decision", onclick: () => go(0) }, "|\u25c0"),
        el("button", { id: "back", title: "back (left arrow)", onclick: () => go(step - 1) }, "\u25c0"),
        controls.slider,
        el("button", { id: "forward", title: "forward (right arrow)", onclick: () => go(step + 1) }, "\u25b6"),
        el("button", { id: "last", title: "end of the hand", onclick: () => go(hand.steps.length - 1) }, "\u25b6|"),
        controls.stepText,
      ),
      controls.checkpointBox,
    ),
    decisionBox,
    tableBox,
  );
  await loadHand();
}

start();
