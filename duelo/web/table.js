// The duelo table: watch, replay and play fights in the browser. Everything shown is
// what the server's /table/api routes answer, built from the systems' declarations
// (seats, observation entries, actions and their meanings); nothing here knows a system.
"use strict";

const $ = (id) => document.getElementById(id);
let setup = null; // what /table/api/setup answered
let view = "watch"; // watch, play, replay or report
let fight = null; // the frames of the fight being watched or replayed
let step = 0; // the frame shown: 0 is the opening, frames.length + 1 the end
let session = null; // the fight being played

function showError(message) {
  $("error").textContent = message;
  $("error").hidden = !message;
}

async function call(path, body) {
  // One request to the API; a refusal becomes the message the server gave.
  const options = body === undefined ? {} : {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  };
  const response = await fetch(path, options);
  const text = await response.text();
  let answer = null;
  try { answer = JSON.parse(text); } catch (error) { answer = text; }
  if (!response.ok) {
    const detail = answer && answer.detail !== undefined ? answer.detail : answer;
    const words = Array.isArray(detail)
      ? detail.map((d) => `${(d.loc || []).join(".")}: ${d.msg}`).join("; ")
      : String(detail);
    throw new Error(`${response.status}: ${words}`);
  }
  return answer;
}

function option(select, value, label) {
  const item = document.createElement("option");
  item.value = value;
  item.textContent = label === undefined ? value : label;
  select.appendChild(item);
}

function system() {
  return setup.systems.find((s) => s.id === $("system").value);
}

function fillSystem() {
  const chosen = system();
  for (const id of ["scenario", "policy-a", "policy-b", "fighter"]) $(id).innerHTML = "";
  for (const scenario of chosen.scenarios) option($("scenario"), scenario);
  for (const id of ["policy-a", "policy-b"]) {
    for (const policy of chosen.policies) option($(id), policy);
  }
  const expert = chosen.policies.find((p) => p.endsWith(":expert"));
  if (expert) $("policy-b").value = expert;
  option($("fighter"), "", "the whole side");
  for (let k = 0; k < chosen.max_side; k += 1) option($("fighter"), String(k), `fighter ${k}`);
}

function setView(name) {
  view = name;
  showError("");
  const playing = name === "play";
  $("setup").hidden = !(name === "watch" || playing);
  $("replay-form").hidden = name !== "replay";
  $("report").hidden = name !== "report";
  $("fight").hidden = true;
  $("playing").hidden = true;
  $("label-a").hidden = playing;
  $("label-side").hidden = !playing;
  $("label-fighter").hidden = !playing;
  $("label-b").firstChild.textContent = playing ? "Opponent " : "Side B ";
  if (name === "report") loadReport();
}

// --- watching and replaying -------------------------------------------------------

function cell(row, text, header) {
  const item = document.createElement(header ? "th" : "td");
  item.textContent = text;
  row.appendChild(item);
  return item;
}

function drawFighters(values, deciding) {
  const table = $("fighters");
  table.innerHTML = "";
  const head = table.insertRow();
  cell(head, "", true);
  fight.seats.forEach((seat, s) => cell(head, `${seat} (${fight.policies[s]})`, true));
  fight.columns.forEach((column, c) => {
    const row = table.insertRow();
    cell(row, column, true);
    values.forEach((fighter, s) => {
      const item = cell(row, String(fighter[c]));
      if (s === deciding) item.className = "deciding";
    });
  });
}

function list(id, items) {
  $(id).innerHTML = "";
  for (const text of items) {
    const item = document.createElement("li");
    item.textContent = text;
    $(id).appendChild(item);
  }
}

function drawStep() {
  const frames = fight.frames;
  const last = frames.length + 1;
  step = Math.max(0, Math.min(step, last));
  $("step").textContent = `step ${step} of ${last}`;
  let shown = null;
  let values = fight.end.fighters;
  let deciding = -1;
  if (step === 0) {
    shown = fight.opening;
    values = frames.length ? frames[0].fighters : fight.end.fighters;
    $("decision").textContent = "The fight opens";
    $("why").textContent = "";
  } else if (step <= frames.length) {
    const frame = frames[step - 1];
    shown = frame;
    values = frame.fighters;
    deciding = frame.seat;
    $("decision").textContent =
      `${fight.seats[frame.seat]} chooses ${frame.name}: ${frame.meaning} (${frame.legal} legal)`;
    $("why").textContent = frame.why ? `why: ${frame.why}` : "";
  } else {
    $("decision").textContent = "The fight is over";
    $("why").textContent = "";
  }
  drawFighters(values, deciding);
  list("rolls", shown ? shown.rolls.map(([sides, purpose, face]) => `d${sides} for ${purpose}: ${face}`) : []);
  // at the end, the whole story; before, what the step made happen
  const story = [fight.opening, ...frames].flatMap((part) => part.events);
  list("events", shown ? shown.events : story);
  const end = fight.end;
  $("outcome").textContent = step === last
    ? `Winner: ${end.winner === "draw" ? "nobody (a draw)" : "side " + end.winner} - ${end.reason}`
    : "";
}

function showFight(answer) {
  fight = answer;
  step = 0;
  $("fight").hidden = false;
  $("identical").textContent = answer.identical === undefined
    ? ""
    : answer.identical ? "Replayed: identical to its record" : "Replayed: it ends otherwise than its record";
  drawStep();
}

function fighters() {
  // The fighters typed in, one character id a seat; none: the scenario's own.
  const named = $("fighter-ids").value.split(",").map((s) => s.trim()).filter((s) => s);
  return named.length ? named : null;
}

async function watch() {
  showFight(await call("/table/api/watch", {
    system: $("system").value,
    scenario: $("scenario").value || null,
    fighters: fighters(),
    a: $("policy-a").value,
    b: $("policy-b").value,
    seed: Number($("seed").value),
  }));
}

async function replayRecord(body) {
  showFight(await call("/table/api/replay", body));
}

// --- playing ----------------------------------------------------------------------

function drawPlay(answer) {
  session = answer.session;
  $("playing").hidden = false;
  list("play-events", answer.events);
  const actions = $("actions");
  actions.innerHTML = "";
  const table = $("observation");
  table.innerHTML = "";
  if (answer.end) {
    $("turn").textContent = "";
    $("play-outcome").textContent =
      `Winner: ${answer.end.winner === "draw" ? "nobody (a draw)" : "side " + answer.end.winner} - ${answer.end.reason}`;
    return;
  }
  $("play-outcome").textContent = "";
  $("turn").textContent = `Your turn: ${answer.seats[answer.seat]}`;
  for (const legal of answer.legal) {
    const button = document.createElement("button");
    button.className = "action";
    button.dataset.action = legal.id;
    button.textContent = `${legal.name}: ${legal.meaning}`;
    button.addEventListener("click", () => run(async () => drawPlay(
      await call(`/table/api/play/${session}`, { action: legal.id }))));
    actions.appendChild(button);
  }
  for (const [name, value] of answer.observation) {
    const row = table.insertRow();
    cell(row, name, true);
    cell(row, String(value));
  }
}

async function play() {
  const fighter = $("fighter").value;
  drawPlay(await call("/table/api/play", {
    system: $("system").value,
    scenario: $("scenario").value || null,
    fighters: fighters(),
    side: $("side").value,
    fighter: fighter === "" ? null : Number(fighter),
    opponent: $("policy-b").value,
    seed: Number($("seed").value),
  }));
}

// --- a tournament's report --------------------------------------------------------

async function loadReport() {
  const select = $("report-system");
  if (!setup.tournament.length) {
    $("report-body").textContent = "No tournament is shown: start duelo serve with --tournament DIR.";
    return;
  }
  if (!select.options.length) {
    for (const name of setup.tournament) option(select, name);
  }
  const name = select.value;
  $("report-body").innerHTML = await call(`/table/api/report/${name}`) +
    `<p><img alt="heatmap" src="/table/api/heatmap/${name}" onerror="this.remove()"></p>`;
}

// --- wiring -----------------------------------------------------------------------

async function run(action) {
  showError("");
  try {
    await action();
  } catch (error) {
    showError(error.message);
  }
}

async function start() {
  setup = await call("/table/api/setup");
  for (const entry of setup.systems) option($("system"), entry.id, `${entry.name} (${entry.id})`);
  fillSystem();
  $("system").addEventListener("change", fillSystem);
  for (const tab of document.querySelectorAll("nav button")) {
    tab.addEventListener("click", () => setView(tab.dataset.view));
  }
  $("go").addEventListener("click", () => run(view === "play" ? play : watch));
  $("replay-go").addEventListener("click", () => run(async () => {
    let record = null;
    try { record = JSON.parse($("record").value); } catch (error) {
      throw new Error("the record is not JSON: paste one line of results.jsonl");
    }
    await replayRecord({ record });
  }));
  $("report-system").addEventListener("change", () => run(loadReport));
  $("first").addEventListener("click", () => { step = 0; drawStep(); });
  $("prev").addEventListener("click", () => { step -= 1; drawStep(); });
  $("next").addEventListener("click", () => { step += 1; drawStep(); });
  $("last").addEventListener("click", () => { step = fight.frames.length + 1; drawStep(); });
  setView("watch");
  const asked = new URLSearchParams(window.location.search).get("replay");
  if (asked) {
    const [name, index] = asked.split(":");
    setView("replay");
    await replayRecord({ system: name, index: Number(index) });
  }
}

run(start);
