// An arena run's results: pairings with margins and intervals (table and chart), game results,
// ratings and the cross table (3+ agents), contract statistics per side, and every deal or game
// pair with a link to its replay.
import { api, el, query, showMessage } from "./common.js";

const main = document.getElementById("main");
const SVG = "http://www.w3.org/2000/svg";

function fmt(value, digits = 1, sign = true) {
  if (value === null || value === undefined) return "-";
  const text = value.toFixed(digits);
  return sign && value > 0 ? `+${text}` : text;
}

function pct(value) {
  return value === null || value === undefined ? "-" : `${(100 * value).toFixed(1)}%`;
}

function table(id, headers, rows) {
  return el(
    "table",
    { class: "data", id },
    el("thead", {}, el("tr", {}, headers.map((h) => el("th", {}, h)))),
    el("tbody", {}, rows.map((row) => el("tr", {}, row.map((cell) => (cell instanceof Node ? el("td", {}, cell) : el("td", { class: typeof cell === "number" || /^[-+\d]/.test(cell) ? "num" : "" }, cell)))))),
  );
}

function svg(tag, attributes = {}, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

/** Each pairing's margin as a dot with its interval as a bar, zero marked: the arena's margins.png, drawn here. */
function marginsChart(pairings, confidence) {
  const rowHeight = 34;
  const left = 300;
  const width = 820;
  const height = 50 + rowHeight * pairings.length;
  const values = pairings.flatMap((p) => [p.margin.low, p.margin.high, p.margin.estimate]).filter((v) => v !== null);
  let low = Math.min(0, ...values);
  let high = Math.max(0, ...values);
  if (high - low < 1) [low, high] = [low - 1, high + 1];
  const pad = (high - low) * 0.08;
  low -= pad;
  high += pad;
  const x = (v) => left + ((v - low) / (high - low)) * (width - left - 20);
  const chart = svg("svg", { viewBox: `0 0 ${width} ${height}`, class: "chart", id: "margins-chart", role: "img", "aria-label": "margins per pairing with intervals" });
  chart.append(svg("line", { x1: x(0), x2: x(0), y1: 10, y2: height - 30, class: "zero" }));
  pairings.forEach((p, i) => {
    const y = 25 + i * rowHeight;
    chart.append(svg("text", { x: left - 10, y: y + 4, "text-anchor": "end", class: "chart-label" }, `${p.a} vs ${p.b}`));
    if (p.margin.estimate === null) return;
    if (p.margin.low !== null && p.margin.high !== null) {
      chart.append(svg("line", { x1: x(p.margin.low), x2: x(p.margin.high), y1: y, y2: y, class: "interval" }));
      for (const end of [p.margin.low, p.margin.high]) chart.append(svg("line", { x1: x(end), x2: x(end), y1: y - 6, y2: y + 6, class: "interval" }));
    }
    chart.append(svg("circle", { cx: x(p.margin.estimate), cy: y, r: 5, class: "estimate" }));
    chart.append(svg("text", { x: x(p.margin.estimate), y: y - 9, "text-anchor": "middle", class: "chart-value" }, fmt(p.margin.estimate)));
  });
  for (const tick of [low + pad, 0, high - pad]) {
    chart.append(svg("text", { x: x(tick), y: height - 10, "text-anchor": "middle", class: "chart-axis" }, fmt(tick, 0)));
  }
  chart.append(svg("text", { x: left, y: height - 10, class: "chart-axis", "text-anchor": "end" }, `margin per hand, ${Math.round(100 * confidence)}% interval:`));
  return chart;
}

function draw(report) {
  const summary = report.summary;
  const level = `${Math.round(100 * summary.confidence)}%`;
  const sections = [el("h2", {}, `Arena run ${report.name}`)];
  if (report.config) {
    const rules = Object.entries(report.config.rules).map(([k, v]) => `${k}=${v}`).join(", ");
    sections.push(el("p", { class: "muted" }, `${report.config.agents.join(", ")} · ${report.config.deals} deal pairs, ${report.config.games} game pairs per pairing · seed ${report.config.seed} · ${rules}`));
  }
  const withGames = summary.pairings.some((p) => p.games.played);
  sections.push(
    el("h3", {}, "Pairings"),
    el("p", { class: "muted" }, `margin = A's team score minus B's per hand; ${level} paired t interval over deal pairs`),
    table(
      "pairings",
      ["A vs B", "deal pairs", "margin", `${level} interval`, ...(withGames ? ["games", "A win rate", `${level} interval`] : [])],
      summary.pairings.map((p) => [
        `${p.a} vs ${p.b}`, String(p.deal_pairs), fmt(p.margin.estimate), `[${fmt(p.margin.low)}, ${fmt(p.margin.high)}]`,
        ...(withGames ? [String(p.games.played), pct(p.games.win_rate.estimate), `[${pct(p.games.win_rate.low)}, ${pct(p.games.win_rate.high)}]`] : []),
      ]),
    ),
    marginsChart(summary.pairings, summary.confidence),
  );
  if (summary.ratings) {
    const ranked = [...summary.ratings.agents].sort((a, b) => b.elo - a.elo);
    const agents = summary.cross_table.agents;
    sections.push(
      el("h3", {}, "Ratings"),
      el("p", { class: "muted" }, `Bradley-Terry Elo fitted on ${summary.ratings.basis}, mean 0, ${level} interval`),
      table("ratings", ["rank", "agent", "elo", `${level} interval`], ranked.map((r, i) => [String(i + 1), r.agent, fmt(r.elo, 0), `[${fmt(r.low, 0)}, ${fmt(r.high, 0)}]`])),
      el("h3", {}, "Cross table"),
      el("p", { class: "muted" }, "mean margin per hand of the row agent against the column agent"),
      table("cross-table", ["", ...agents], summary.cross_table.margins.map((row, i) => [agents[i], ...row.map((m) => fmt(m))])),
    );
  }
  sections.push(
    el("h3", {}, "Contracts and points"),
    el("p", { class: "muted" }, "declared: share of hands; stuck: share of hands declared as the dealer nobody bid over; bid, made, set, thrown in: over the hands the side declared; meld, tricks, score: points per hand"),
    table(
      "sides",
      ["A vs B", "side", "agent", "declared", "stuck", "avg bid", "made", "set", "thrown in", "meld", "tricks", "score"],
      summary.pairings.flatMap((p) =>
        ["a", "b"].map((side) => {
          const s = p.sides[side];
          return [`${p.a} vs ${p.b}`, side.toUpperCase(), p[side], pct(s.declared), pct(s.stuck), fmt(s.bid, 1, false), pct(s.made), pct(s.set), pct(s.thrown_in), fmt(s.meld, 1, false), fmt(s.tricks, 1, false), fmt(s.score)];
        }),
      ),
    ),
    el("h3", {}, "Deal and game pairs"),
    el(
      "div",
      { class: "pairs-box" },
      table(
        "pairs",
        ["pair", "A vs B", "hands", "A's margin per hand", "replay"],
        report.pairs.map((pair) => [
          `${pair.kind} ${pair.id}`, `${pair.a} vs ${pair.b}`, String(pair.hands), fmt(pair.margin),
          pair.first_hand === null ? "-" : el("a", { href: `/replay?source=${report.results}&hand=${pair.first_hand}`, class: "replay-link" }, "replay"),
        ]),
      ),
    ),
  );
  main.replaceChildren(...sections);
}

async function start() {
  const source = query().get("source");
  if (!source) {
    window.location.href = "/";
    return;
  }
  try {
    draw(await api(`/api/arenas/${source}`));
  } catch (error) {
    showMessage(error.message);
    main.replaceChildren();
  }
}

start();
