"use strict";
// The rule table's filters: a row shows when it holds the chosen verdict
// and belongs to the chosen mechanism.
(function () {
  const form = document.getElementById("rule-filter");
  if (!form) return;
  const rows = document.querySelectorAll("#rule-table tbody tr");
  function apply() {
    const v = form.elements.verdict.value, m = form.elements.mechanism.value;
    let shown = 0;
    rows.forEach(function (tr) {
      const ok = (!v || tr.dataset.verdicts.split(" ").includes(v)) && (!m || tr.dataset.mechanism === m);
      tr.hidden = !ok;
      if (ok) shown++;
    });
    form.elements.shown.value = shown + " of " + rows.length + " rules";
  }
  form.addEventListener("change", apply);
  apply();
})();

// Zooming a timeline narrows the viewBox of all its rows at once and
// redraws its axes (the same ticks as the Go side's axisTicks).
(function () {
  const W = 1000;
  const steps = [0.001, 0.01, 0.1, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400];
  function offset(sec) {
    const ms = Math.round(sec * 1000);
    if (ms === 0) return "0";
    let out = "+";
    if (Math.floor(ms / 3600000) > 0) out += Math.floor(ms / 3600000) + "h";
    if (Math.floor(ms % 3600000 / 60000) > 0) out += Math.floor(ms % 3600000 / 60000) + "m";
    if (ms % 60000 > 0) out += String((ms % 60000) / 1000) + "s";
    return out;
  }
  function drawAxis(axis, span, a, b, scale) {
    const from = a / W * span, to = b / W * span;
    let step = 0;
    for (const s of steps) { if ((to - from) / s <= 8) { step = s; break; } }
    if (step === 0) { // whole days, 1, 2 or 5 times a power of ten (Go: niceCeil)
      const x = (to - from) / 8 / 86400, p = Math.pow(10, Math.floor(Math.log10(x)));
      step = 86400 * ([1, 2, 5, 10].map(function (m) { return m * p; }).find(function (v) { return v >= x; }));
    }
    axis.textContent = "";
    for (let t = Math.ceil(from / step) * step; t <= to + 1e-9; t += step) {
      const el = document.createElement("span");
      el.style.left = ((t / span * W - a) / (b - a) * 100) + "%";
      el.textContent = offset(t / scale);
      axis.appendChild(el);
    }
  }
  document.querySelectorAll(".tl").forEach(function (tl) {
    const span = Number(tl.dataset.span), scale = Number(tl.dataset.scale);
    let a = 0, b = W;
    function set(na, nb) {
      const w = Math.min(W, Math.max(nb - na, 0.5));
      a = Math.min(Math.max(0, na), W - w); b = a + w;
      tl.querySelectorAll(".row svg").forEach(function (svg) { svg.setAttribute("viewBox", a + " 0 " + (b - a) + " 10"); });
      const axes = tl.querySelectorAll(".axis");
      axes.forEach(function (axis, i) { drawAxis(axis, span, a, b, i === 0 ? 1 : scale); });
      tl.querySelectorAll(".zoom button[data-a]").forEach(function (btn) {
        btn.classList.toggle("on", Number(btn.dataset.a) === a && Number(btn.dataset.b) === b);
      });
    }
    tl.querySelector(".zoom").addEventListener("click", function (ev) {
      const btn = ev.target.closest("button");
      if (!btn) return;
      const mid = (a + b) / 2, w = b - a;
      if (btn.dataset.a !== undefined) set(Number(btn.dataset.a), Number(btn.dataset.b));
      else if (btn.dataset.zoom) set(mid - w * btn.dataset.zoom / 2, mid + w * btn.dataset.zoom / 2);
      else if (btn.dataset.pan) set(a + w * btn.dataset.pan, b + w * btn.dataset.pan);
    });
    if (tl.dataset.view) {
      const v = tl.dataset.view.split(" ").map(Number);
      set(v[0], v[1]);
    } else {
      set(0, W);
    }
  });
})();

// A marker focused from the keyboard shows what it marks, as hovering
// shows its title.
(function () {
  const tip = document.getElementById("tip");
  document.addEventListener("focusin", function (ev) {
    const mk = ev.target.closest && ev.target.closest(".mk");
    if (!mk) { tip.hidden = true; return; }
    const title = mk.querySelector("title");
    tip.textContent = title ? title.textContent : "";
    const r = mk.getBoundingClientRect();
    tip.style.left = (window.scrollX + r.left) + "px";
    tip.style.top = (window.scrollY + r.bottom + 4) + "px";
    tip.hidden = false;
  });
  document.addEventListener("focusout", function () { tip.hidden = true; });
})();
