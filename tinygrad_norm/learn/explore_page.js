// The backprop explorer's script (tinygrad_norm/learn/explore.py inlines this file).
// The data: one entry per step of the backward pass, in the order the engine ran them, with
// the SVG ids of the step's op node and of its arrows, and the numbers as text.
"use strict";

const data = JSON.parse(document.getElementById("explorer-data").textContent);
const steps = data.steps;
const last = steps.length - 1;
const byId = (id) => document.getElementById(id);
const slider = byId("step-slider");
let current = 0;

// Reading "#step=K" from the URL: K clamped to the steps there are; anything else is step 0.
function stepFromHash() {
  const match = /step=(\d+)/.exec(window.location.hash);
  return match ? Math.min(Number(match[1]), last) : 0;
}

function setText(id, text) {
  byId(id).textContent = text;
}

// One input of the step: what the op sends it and what it has gathered so far.
function inputBlock(input) {
  const block = document.createElement("div");
  block.className = "input";
  const title = document.createElement("div");
  title.className = "name";
  title.textContent = `${input.label}  ${input.shape}`;
  block.append(title);
  const rows = [
    ["sent by this op", input.sent === null ? "nothing (this input needs no gradient)" : input.sent],
    ["its gradient so far", input.so_far === null ? "None" : input.so_far],
  ];
  for (const [label, text] of rows) {
    const p = document.createElement("p");
    p.className = "label";
    p.textContent = label;
    const pre = document.createElement("pre");
    pre.textContent = text;
    block.append(p, pre);
  }
  return block;
}

// Fit the graph to its pane's width: Graphviz sizes it in points, often wider than the pane
// beside the panel (a 1280-pixel window clipped the MLP's right-hand nodes). A wide graph is
// drawn smaller, down to MIN_SCALE of its size so that its text stays legible; a graph wider
// still scrolls sideways (and each step scrolls its node into view).
const MIN_SCALE = 0.6;
function fitGraph() {
  const pane = byId("graph");
  const svg = pane.querySelector("svg");
  if (!svg) return;
  const style = getComputedStyle(pane);
  const room = pane.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  const points = 4 / 3; // CSS pixels per point
  const width = parseFloat(svg.getAttribute("width")) * points;
  const height = parseFloat(svg.getAttribute("height")) * points;
  const scale = Math.min(1, Math.max(MIN_SCALE, room / width));
  svg.style.width = `${width * scale}px`;
  svg.style.height = `${height * scale}px`;
}

// Colour the graph for step k: its op is `current`, the arrows of the steps up to k have
// `carried` gradient, the arrows of step k itself are `sending` it now.
function paintGraph(k) {
  const painted = byId("graph").querySelectorAll(".current, .carried, .sending, .done");
  for (const element of painted) {
    element.classList.remove("current", "carried", "sending", "done");
  }
  steps.forEach((step, j) => {
    if (j > k) return;
    const edgeClass = j === k ? "sending" : "carried";
    byId(step.out_edge)?.classList.add(edgeClass);
    for (const input of step.inputs) {
      if (input.sent !== null) byId(input.edge)?.classList.add(edgeClass);
    }
  });
  const node = byId(steps[k].node);
  node.classList.add("current");
  node.scrollIntoView({ block: "center", inline: "nearest" });
  if (k === last) {
    for (const leaf of data.leaves) byId(leaf.box)?.classList.add("done");
  }
}

function showLeaves(k) {
  const box = byId("leaf-grads");
  box.hidden = k !== last;
  const list = byId("leaf-list");
  list.replaceChildren();
  if (k !== last) return;
  for (const leaf of data.leaves) {
    const p = document.createElement("p");
    p.className = "label";
    p.textContent = `${leaf.name}.grad`;
    const pre = document.createElement("pre");
    pre.textContent = leaf.grad;
    list.append(p, pre);
  }
}

function show(k) {
  if (steps.length === 0) return;
  current = Math.max(0, Math.min(k, last));
  const step = steps[current];
  setText("step-index", String(current));
  setText("step-op", step.op);
  setText("step-formula", step.formula);
  setText("step-numbers", step.numbers.join("\n"));
  byId("step-numbers-box").hidden = step.numbers.length === 0;
  setText("step-grad-output", step.grad_output);
  byId("step-inputs").replaceChildren(...step.inputs.map(inputBlock));
  showLeaves(current);
  paintGraph(current);
  slider.value = String(current);
  const hash = `#step=${current}`;
  if (window.location.hash !== hash) {
    try {
      history.replaceState(null, "", hash); // no new history entry per step
    } catch (error) {
      // some embeddings (an iframe's srcdoc) refuse it; the page works without
    }
  }
}

byId("step-prev").addEventListener("click", () => show(current - 1));
byId("step-next").addEventListener("click", () => show(current + 1));
slider.addEventListener("input", () => show(Number(slider.value)));
window.addEventListener("hashchange", () => show(stepFromHash()));
document.addEventListener("keydown", (event) => {
  if (event.target === slider) return; // the slider moves itself with the arrow keys
  if (event.key === "ArrowRight") show(current + 1);
  else if (event.key === "ArrowLeft") show(current - 1);
  else return;
  event.preventDefault();
});
window.addEventListener("resize", fitGraph);
fitGraph();
show(stepFromHash());
