// fitsub review page: edit fitted lines against live limits, export the edits as JSON.
// Every text from the subtitle file is set with textContent (never parsed as HTML).
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("fitsub-data").textContent);
  var meta = data.meta;
  var rows = data.rows;
  var L = meta.limits; // null for slides: no line or speed limit
  var LOW = meta.low_score; // scores under it are shown in red
  var storeKey = "fitsub-review:" + meta.fingerprint.structure + ":" + (meta.fingerprint.source || "") + ":" + meta.edits_name;
  var state = rows.map(function (r) { return { text: r.fit, tr: null, box: null, meter: null, note: null, broken: false, edited: false }; });
  var current = -1;

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }
  function flat(s) { return s.replace(/\s+/g, " ").trim(); }
  function len(s) { return Array.from(s.normalize("NFC")).length; } // code points, as fitsub counts
  function chars(s) { return len(flat(s)); } // a line break counts as the space it replaces
  function lines(s) { return s.split("\n").map(flat).filter(function (x) { return x; }); }
  function greedy(words, room) { // the fewest lines of at most `room` characters
    var out = [], line = "";
    words.forEach(function (w) {
      var next = line ? line + " " + w : w;
      if (line && len(next) > room) { out.push(line); line = w; } else { line = next; }
    });
    if (line) out.push(line);
    return out;
  }
  function balanced(words, room) { // the fewest lines, their longest as short as can be
    var fewest = greedy(words, room).length, lo = 1, hi = room;
    words.forEach(function (w) { lo = Math.max(lo, len(w)); });
    if (lo > room) return greedy(words, room);
    while (lo < hi) {
      var mid = (lo + hi) >> 1;
      if (greedy(words, mid).length <= fewest) hi = mid; else lo = mid + 1;
    }
    return greedy(words, lo);
  }
  // As `fitsub apply` lays a text out: the reviewer's lines when they fit, else re-flowed.
  function layout(r, text) {
    var ls = lines(text);
    if (!meta.timed || !L) return { lines: ls.length ? [ls.join(" ")] : [], reflowed: false };
    if (r.turns > 1) return { lines: ls, reflowed: false };
    var fits = ls.length <= L.lines && ls.every(function (x) { return len(x) <= r.room; });
    if (fits) return { lines: ls, reflowed: false };
    return { lines: balanced(flat(text).split(" ").filter(Boolean), r.room), reflowed: true };
  }
  function check(r, text) {
    var n = chars(text), lay = layout(r, text), res = { n: n, overBudget: n > r.budget, lay: lay };
    res.longest = lay.lines.reduce(function (m, x) { return Math.max(m, len(x)); }, 0);
    res.lineBad = !!(meta.timed && L && (res.longest > r.room || lay.lines.length > L.lines));
    res.cps = meta.timed && L && r.dur ? (n + r.markup) * 1000 / r.dur : null;
    res.cpsBad = res.cps !== null && L.reading_speed && res.cps > L.cps + 1e-9;
    res.empty = n === 0;
    res.broken = res.overBudget || res.lineBad || res.cpsBad || res.empty;
    return res;
  }
  function part(parent, label, value, bad, title) {
    var s = el("span", bad ? "bad" : "ok", label + " " + value);
    if (title) s.title = title;
    parent.appendChild(s);
    return s;
  }
  function update(i) {
    var r = rows[i], st = state[i], c = check(r, st.text);
    var m = st.meter;
    m.textContent = "";
    part(m, "chars", c.n + "/" + r.budget, c.overBudget, "characters (a line break counts as a space) / budget").setAttribute("data-k", "chars");
    if (meta.timed && L) {
      part(m, "line", c.longest + "/" + r.room + " \u00d7" + c.lay.lines.length + "/" + L.lines, c.lineBad,
        "longest line / characters per line (CPL less visible markup), lines / maximum").setAttribute("data-k", "line");
      if (c.cps !== null) {
        part(m, "cps", c.cps.toFixed(1) + "/" + L.cps, c.cpsBad, "characters per second / limit").setAttribute("data-k", "cps");
      }
    }
    if (c.empty) part(m, "", "empty", true);
    st.note.textContent = c.lay.reflowed ? "re-flowed on apply: " + c.lay.lines.join(" | ") : "";
    st.broken = c.broken;
    var edited = st.edited = flat(st.text) !== flat(r.fit);
    st.tr.classList.toggle("broken", c.broken);
    st.tr.classList.toggle("edited", edited);
    st.tr.classList.toggle("flagged", r.flags.length > 0 && !edited);
  }
  function editCount() {
    var n = 0;
    state.forEach(function (st) { if (st.edited) n++; });
    return n;
  }
  function save() {
    var edits = {};
    state.forEach(function (st, i) { if (st.edited) edits[i] = st.text; });
    try { localStorage.setItem(storeKey, JSON.stringify(edits)); } catch (e) { /* storage off */ }
    document.getElementById("edit-count").textContent = editCount() + " edited";
  }
  function setText(i, text) {
    buildAll();
    state[i].text = text;
    state[i].box.value = text;
    autosize(state[i].box);
    update(i);
    save();
  }
  function autosize(box) { box.rows = Math.max(2, box.value.split("\n").length); }

  function timeRange(r) {
    return r.start ? r.start + " \u2192 " + r.end : "";
  }
  function buildRow(r, i) {
    var tr = el("div", "row");
    tr.id = "seg-" + i;
    var t = el("div", "cell time");
    t.appendChild(el("div", "id", "#" + (r.id || i + 1)));
    if (r.start) t.appendChild(el("div", "", timeRange(r)));
    if (r.dur !== null) t.appendChild(el("div", "muted", (r.dur / 1000).toFixed(2) + " s"));
    tr.appendChild(t);
    var s = el("div", "cell");
    s.appendChild(el("pre", "text src", r.src));
    tr.appendChild(s);
    var u = el("div", "cell");
    u.appendChild(el("pre", "text unc", r.unc === null ? "\u2013" : r.unc));
    if (r.unc !== null) u.appendChild(el("div", "muted", chars(r.unc) + " chars"));
    tr.appendChild(u);
    var f = el("div", "cell fit");
    var box = el("textarea");
    box.value = state[i].text;
    box.spellcheck = true;
    box.setAttribute("aria-label", "fitted text of segment " + (r.id || i + 1));
    box.addEventListener("input", function () { state[i].text = box.value; autosize(box); update(i); save(); });
    box.addEventListener("focus", function () { setCurrent(i, false); });
    autosize(box);
    f.appendChild(box);
    var meter = el("div", "meter");
    f.appendChild(meter);
    var note = el("div", "muted reflow");
    f.appendChild(note);
    var acts = el("div", "actions");
    if (r.unc !== null) {
      var use = el("button", "use", "use unconstrained");
      use.type = "button";
      use.title = "replace the fitted text with the unconstrained translation (Alt+U)";
      use.addEventListener("click", function () { setText(i, r.unc_fit); box.focus(); });
      acts.appendChild(use);
    }
    var reset = el("button", "reset", "reset");
    reset.type = "button";
    reset.title = "back to the fitted translation";
    reset.addEventListener("click", function () { setText(i, r.fit); });
    acts.appendChild(reset);
    f.appendChild(acts);
    tr.appendChild(f);
    var b = el("div", "cell num");
    b.appendChild(el("div", "", r.budget));
    b.appendChild(el("div", "muted", r.bind));
    tr.appendChild(b);
    var q = el("div", "cell num score", r.q === null ? "\u2013" : r.q.toFixed(2));
    if (r.q !== null && LOW !== null && r.q < LOW) q.classList.add("low");
    tr.appendChild(q);
    var fl = el("div", "cell flags");
    r.flags.forEach(function (fg) {
      var chip = el("span", "flag" + (fg[0] === "too-short" || fg[0] === "too-small" ? " timing" : ""), fg[0]);
      if (fg[1]) chip.title = fg[1];
      fl.appendChild(chip);
      if (fg[1]) fl.appendChild(el("div", "muted", fg[1]));
    });
    tr.appendChild(fl);
    state[i].tr = tr; state[i].box = box; state[i].meter = meter; state[i].note = note;
    return tr;
  }

  // Filters: flagged only, one flag, score below.
  var filterFlag = "";
  function visible(i) {
    var r = rows[i];
    if (document.getElementById("only-flagged").checked && !(r.flags.length || state[i].broken)) return false;
    if (filterFlag && !r.flags.some(function (f) { return f[0] === filterFlag; })) return false;
    var scoreBox = document.getElementById("score-below");
    var below = scoreBox ? parseFloat(scoreBox.value) : NaN;
    if (!isNaN(below) && !(r.q !== null && r.q < below)) return false;
    return true;
  }
  function applyFilters() {
    if (built < rows.length) { buildAll(); return; }
    var shown = 0;
    state.forEach(function (st, i) { var v = visible(i); st.tr.hidden = !v; if (v) shown++; });
    document.getElementById("shown").textContent = shown + " of " + rows.length + " shown";
    document.querySelectorAll(".counts button").forEach(function (b) {
      b.classList.toggle("on", b.getAttribute("data-flag") === filterFlag);
    });
  }
  function needsLook(i) { return (rows[i].flags.length > 0 && !state[i].edited) || state[i].broken; }
  function setCurrent(i, focus) {
    if (current >= 0 && state[current]) state[current].tr.classList.remove("current");
    current = i;
    if (i < 0) return;
    state[i].tr.classList.add("current");
    if (focus) {
      state[i].box.focus();
      state[i].tr.scrollIntoView({ block: "center" });
    }
  }
  function step(dir, onlyFlagged) {
    buildAll();
    for (var k = current + dir; k >= 0 && k < rows.length; k += dir) {
      if (!state[k].tr.hidden && (!onlyFlagged || needsLook(k))) { setCurrent(k, true); return true; }
    }
    return false;
  }
  document.addEventListener("keydown", function (ev) {
    var typing = ev.target && (ev.target.tagName === "TEXTAREA" || ev.target.tagName === "INPUT");
    var key = ev.key;
    if (ev.altKey && (key === "ArrowDown" || key === "ArrowUp")) {
      step(key === "ArrowDown" ? 1 : -1, !ev.shiftKey); ev.preventDefault();
    } else if (ev.altKey && (key === "u" || key === "U" || ev.code === "KeyU") && current >= 0 && rows[current].unc !== null) {
      setText(current, rows[current].unc_fit); ev.preventDefault();
    } else if (!typing && !ev.altKey && !ev.ctrlKey && !ev.metaKey && (key === "j" || key === "k")) {
      step(key === "j" ? 1 : -1, true); ev.preventDefault();
    } else if (key === "Escape" && typing) {
      ev.target.blur();
    }
  });

  function exportEdits() {
    var edits = [];
    state.forEach(function (st, i) {
      var r = rows[i];
      if (flat(st.text) !== flat(r.fit)) edits.push({ index: r.i, id: r.id, was: r.fit, text: st.text, budget: r.budget });
    });
    var out = { kind: "fitsub-edits", version: 1, fingerprint: meta.fingerprint, lang: meta.lang, limits: L,
      source: meta.source_name, translated: meta.translated_name, edits: edits };
    var blob = new Blob([JSON.stringify(out, null, 1) + "\n"], { type: "application/json" });
    var a = el("a");
    a.href = URL.createObjectURL(blob);
    a.download = meta.edits_name;
    document.body.appendChild(a);
    a.click();
    setTimeout(function () { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
    document.getElementById("export-note").textContent = edits.length + " edit(s) saved as " + meta.edits_name +
      "; then: fitsub apply " + meta.edits_name + " " + meta.translated_name;
  }

  function header() {
    var h = document.getElementById("head");
    h.appendChild(el("h1", "", meta.title));
    var bar = el("div", "bar");
    bar.appendChild(el("strong", "", meta.counts.flagged + " of " + meta.counts.translated + " segments flagged"));
    var only = el("label");
    var cb = el("input"); cb.type = "checkbox"; cb.id = "only-flagged";
    cb.addEventListener("change", applyFilters);
    only.appendChild(cb); only.appendChild(document.createTextNode(" flagged only"));
    bar.appendChild(only);
    var sc = el("label", "", "score below ");
    var num = el("input"); num.type = "number"; num.id = "score-below"; num.min = "0"; num.max = "1"; num.step = "0.05"; num.style.width = "5em";
    num.addEventListener("input", applyFilters);
    sc.appendChild(num);
    if (meta.has_scores) bar.appendChild(sc);
    var shown = el("span", "muted"); shown.id = "shown"; bar.appendChild(shown);
    var count = el("span", ""); count.id = "edit-count"; bar.appendChild(count);
    var ex = el("button", "export", "Export edits"); ex.type = "button"; ex.id = "export";
    ex.addEventListener("click", exportEdits);
    bar.appendChild(ex);
    var exn = el("span", "muted"); exn.id = "export-note"; bar.appendChild(exn);
    h.appendChild(bar);
    var counts = el("ul", "counts");
    Object.keys(meta.counts.by_flag).forEach(function (name) {
      var n = meta.counts.by_flag[name];
      var li = el("li"), b = el("button", n ? "" : "zero", name + " " + n);
      b.type = "button"; b.setAttribute("data-flag", name);
      b.title = meta.counts.meaning[name] || "";
      b.addEventListener("click", function () { filterFlag = filterFlag === name ? "" : name; applyFilters(); });
      li.appendChild(b); counts.appendChild(li);
    });
    h.appendChild(counts);
    h.appendChild(el("div", "keys", "Alt+\u2193 / Alt+\u2191 (or j / k): next / previous line to look at \u00b7 Alt+U: use unconstrained \u00b7 Esc: leave the text box \u00b7 edits are kept in this browser until exported"));
  }

  document.title = meta.title + " \u2013 review";
  header();
  var restored = {};
  try { restored = JSON.parse(localStorage.getItem(storeKey) || "{}") || {}; } catch (e) { restored = {}; }
  Object.keys(restored).forEach(function (k) {
    var i = Number(k);
    if (i >= 0 && i < state.length && typeof restored[k] === "string") {
      state[i].text = restored[k];
      state[i].edited = flat(restored[k]) !== flat(rows[i].fit);
    }
  });
  // Rows are built progressively: the first screenful at once (the page is usable), the rest
  // in chunks between frames; anything that needs every row (filters, navigation) builds the
  // rest first.
  var body = document.getElementById("rows");
  var built = 0;
  function buildUpTo(n) {
    var frag = document.createDocumentFragment();
    for (; built < Math.min(n, rows.length); built++) {
      frag.appendChild(buildRow(rows[built], built));
      update(built);
    }
    body.appendChild(frag);
  }
  function buildAll() {
    if (built >= rows.length) return;
    buildUpTo(rows.length);
    applyFilters();
  }
  function buildMore() {
    buildUpTo(built + 250);
    if (built < rows.length) { setTimeout(buildMore, 0); return; }
    applyFilters();
    document.body.setAttribute("data-complete-ms", String(Math.round(performance.now())));
  }
  buildUpTo(40);
  save();
  document.getElementById("shown").textContent = rows.length + " segments";
  if (!rows.length) document.getElementById("empty").textContent = "No translated segment.";
  requestAnimationFrame(function () { // the first screen laid out and painted: ready to use
    setTimeout(function () {
      document.body.setAttribute("data-ready-ms", String(Math.round(performance.now())));
      document.body.setAttribute("data-ready", "1");
      buildMore();
    }, 0);
  });
})();
