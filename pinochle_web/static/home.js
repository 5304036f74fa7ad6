// The home page: open a table (variant, rule switches, your seat, the agents around you) and
// the hand records, arena runs and checkpoints named on the server's command line.
import { api, el, showMessage } from "./common.js";

const main = document.getElementById("main");

function switchInput(name, spec, value) {
  const id = `rule-${name}`;
  let input;
  if (spec.choices) {
    input = el(
      "select",
      { id, name },
      spec.choices.map((choice) => el("option", { value: JSON.stringify(choice), selected: choice === value }, String(choice))),
    );
  } else {
    input = el("input", { id, name, type: "number", min: spec.minimum, step: spec.step, value: value ?? spec.default });
  }
  input.dataset.rule = name;
  return el("label", { class: "switch" }, el("span", {}, name), input);
}

function readRules(form, variant) {
  const rules = { variant };
  for (const input of form.querySelectorAll("[data-rule]")) {
    rules[input.dataset.rule] = input.tagName === "SELECT" ? JSON.parse(input.value) : Number(input.value);
  }
  return rules;
}

function tableForm(options) {
  const form = el("form", { class: "card-box", id: "new-table" });
  const variantSelect = el(
    "select",
    { id: "variant", name: "variant" },
    Object.keys(options.variants).map((v) => el("option", { value: v, selected: v === options.rules.variant }, v.replace("_", "-"))),
  );
  const body = el("div");

  function draw() {
    const variant = variantSelect.value;
    const info = options.variants[variant];
    const defaults = options.rules.variant === variant ? options.rules : {};
    const seatSelect = el(
      "select",
      { id: "seat", name: "seat" },
      Array.from({ length: info.seats }, (_, seat) => el("option", { value: seat }, `player ${seat}`)),
    );
    const agentsBox = el("div", { class: "agents" });
    const datalist = el("datalist", { id: "agent-specs" }, info.agents.map((spec) => el("option", { value: spec })));
    function drawAgents() {
      const seat = Number(seatSelect.value);
      agentsBox.replaceChildren();
      for (let offset = 1; offset < info.seats; offset += 1) {
        const other = (seat + offset) % info.seats;
        const place = info.seat_names[offset];
        agentsBox.append(
          el(
            "label",
            { class: "agent-choice" },
            el("span", {}, `${place} (player ${other})`),
            el("input", { id: `agent-${other}`, "data-seat": other, list: "agent-specs", value: "heuristic", required: true }),
          ),
        );
      }
    }
    seatSelect.addEventListener("change", drawAgents);
    drawAgents();
    const switches = Object.entries(info.switches).map(([name, spec]) => switchInput(name, spec, defaults[name] ?? spec.default));
    body.replaceChildren(
      el("label", {}, el("span", {}, "your seat"), seatSelect),
      el("fieldset", {}, el("legend", {}, "Agents around you"), agentsBox, datalist,
        el("p", { class: "muted" }, "Any agent spec: heuristic, random, pimc:samples=16, checkpoint:bundled, mix:auction=heuristic,default=random ...")),
      el("details", {}, el("summary", {}, "Rule switches"), el("div", { class: "switches" }, switches)),
      el("label", {}, el("span", {}, "seed (optional)"), el("input", { id: "seed", type: "number", min: 0, placeholder: "fresh deals" })),
    );
  }
  variantSelect.addEventListener("change", draw);
  draw();

  form.append(
    el("h2", {}, "Sit down at a table"),
    el("label", {}, el("span", {}, "game"), variantSelect),
    body,
    el("button", { type: "submit", id: "sit-down" }, "Deal"),
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const variant = variantSelect.value;
    const seats = options.variants[variant].seats;
    const seat = Number(form.querySelector("#seat").value);
    const agents = Array.from({ length: seats }, (_, s) => (s === seat ? "human" : form.querySelector(`#agent-${s}`).value));
    const seedText = form.querySelector("#seed").value;
    try {
      const table = await api("/api/tables", {
        method: "POST",
        body: { rules: readRules(form, variant), seat, agents, seed: seedText === "" ? null : Number(seedText) },
      });
      window.location.href = `/play?table=${table.table}`;
    } catch (error) {
      showMessage(error.message);
    }
  });
  return form;
}

function listing(title, entries, link, empty) {
  return el(
    "section",
    { class: "card-box" },
    el("h2", {}, title),
    entries.length
      ? el("ul", { class: "listing" }, entries.map((entry) => el("li", {}, link ? el("a", { href: link(entry) }, entry.name) : entry.name, el("span", { class: "muted" }, ` ${entry.path}`))))
      : el("p", { class: "muted" }, empty),
  );
}

async function start() {
  try {
    const [options, catalogue] = await Promise.all([api("/api/options"), api("/api/catalogue")]);
    main.replaceChildren(
      el("div", { class: "home" }, tableForm(options),
        el("div", {},
          listing("Hand records", catalogue.records, (e) => `/replay?source=${e.id}`, `None yet: finished hands of the tables go to ${catalogue.records_folder}/; name other files with --open.`),
          listing("Arena runs", catalogue.arena, (e) => `/arena?source=${e.id}`, "None: name an arena output folder with --open."),
          listing("Checkpoints", catalogue.checkpoints, null, "Only checkpoint:bundled; name .pt files with --open to play or analyse them."),
        )),
    );
  } catch (error) {
    showMessage(error.message);
  }
}

start();
