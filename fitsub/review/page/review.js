// fitsub review page, part 2: edit fitted lines against live limits and live flags, export
// the edits as JSON, load them back. Every text from the subtitle file is set with
// textContent (never parsed as HTML).
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("fitsub-data").textContent);
  var meta = data.meta;
  var rows = data.rows;
  var L = meta.limits; // null for slides: no line or speed limit
  var LOW = meta.low_score; // scores under it are shown in red
  var NUMWORDS = fitsubChecks.reader(meta.checks.numwords);
  var FLAGS = meta.checks.flags; // each flag's severity, meaning and live recount (the registry's)
  var SEVERITIES = meta.checks.severities; // worst first
  var REAPPLIED = {}; // and `fitsub apply --source` these (fitsub.quality.recheck); not the others
  (meta.checks.rechecked || []).forEach(function (name) { REAPPLIED[name] = 1; });
  var NOT_RECHECKED = "edited \u2014 not rechecked: it needs the model; read the line again";
  function pendingNote(name) {
    return REAPPLIED[name] ? "edited \u2014 rechecked by apply (with --source)" : NOT_RECHECKED;
  }
  var SEV_NAME = { error: "error", budget: "over budget", timing: "timing only", note: "dictionary term" };
  var storeKey = "fitsub-review:" + meta.fingerprint.structure + ":" + (meta.fingerprint.source || "") + ":" + meta.edits_name;
  var state = rows.map(function (r) {
    return { text: r.fit, tr: null, box: null, meter: null, note: null, flagCell: null, score: null,
      broken: false, edited: false, flags: r.flags, sev: r.sev, alts: [] };
  });
  var current = -1;
  // Served by `fitsub review --serve` (on 127.0.0.1, the token in the URL): a row can ask the
  // model for a shorter or a longer translation; from a file, nothing is ever sent.
  var TOKEN = location.protocol !== "file:" ? new URLSearchParams(location.search).get("t") : null;

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
  function kind(name) { return FLAGS[name] || { severity: SEVERITIES[0] }; } // unknown: an error
  function severity(name) { return kind(name).severity; }
  function worst(flags) { // the worst severity of the flags that stand (not those left to apply)
    var found = {};
    flags.forEach(function (f) { if (f[2] !== "pending") found[severity(f[0])] = true; });
    return SEVERITIES.filter(function (s) { return found[s]; })[0] || null;
  }
  // The flags of a row now: as translated while its text is the fitted one; after an edit, the
  // flags the page recounts (numbers, names, the budget: the registry's `live`), the timing ones
  // as they were, and the rest marked "pending": rechecked by apply (REAPPLIED) or not rechecked
  // (the model's); of a flag recounted in part (`live_part`), the other parts stay pending.
  function currentFlags(r, text, c, edited) {
    if (!edited) return r.flags;
    var out = fitsubChecks.liveFlags(meta.checks.live, r, text, NUMWORDS, c);
    r.flags.forEach(function (f) {
      var k = kind(f[0]), part = k.live_part;
      if (k.live && !part) return;
      if (k.severity === "timing") { out.push(f); return; }
      var rest = part ? f[1].split("; ").filter(function (p) { return p.indexOf(part) !== 0; }).join("; ") : f[1];
      if (!part || rest) out.push([f[0], rest, "pending"]);
    });
    return out;
  }
  function showFlags(i) {
    var r = rows[i], st = state[i];
    st.flagCell.textContent = "";
    st.flags.forEach(function (fg) {
      var pending = fg[2] === "pending";
      var chip = el("span", "flag " + severity(fg[0]) + (pending ? " pending" : ""), fg[0]);
      chip.setAttribute("data-flag", fg[0]);
      chip.title = pending ? pendingNote(fg[0]) + (fg[1] ? " (was: " + fg[1] + ")" : "") : fg[1] || "";
      st.flagCell.appendChild(chip);
      var detail = pending ? pendingNote(fg[0]) : fg[1];
      if (detail) st.flagCell.appendChild(el("div", "muted detail", detail));
    });
    if (r.q === null) return;
    st.score.textContent = "";
    var v = el("div", r.q < LOW ? "low" : "", r.q.toFixed(2));
    if (st.edited) v.classList.add("stale");
    st.score.appendChild(v);
    if (st.edited) st.score.appendChild(el("div", "muted small", "edited \u2014 not rechecked: the score needs the model"));
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
    var flags = currentFlags(r, st.text, c, edited);
    var before = JSON.stringify(st.flags) + st.shownEdited;
    st.flags = flags;
    st.sev = worst(flags);
    if (JSON.stringify(flags) + edited !== before) showFlags(i);
    st.shownEdited = edited;
    st.alts.forEach(function (b) { b.classList.toggle("on", flat(b.getAttribute("data-text")) === flat(st.text)); });
    var tr = st.tr;
    tr.classList.toggle("broken", c.broken);
    tr.classList.toggle("edited", edited);
    tr.classList.toggle("flagged", st.sev !== null);
    SEVERITIES.forEach(function (s) { tr.classList.toggle("sev-" + s, st.sev === s); });
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
    document.body.setAttribute("data-edited", String(editCount()));
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

  function buildRow(r, i) {
    var tr = el("div", "row");
    tr.id = "seg-" + i;
    var t = el("div", "cell time");
    t.appendChild(el("div", "id", "#" + (r.id || i + 1)));
    if (r.start) {
      t.appendChild(el("div", "", r.start));
      t.appendChild(el("div", "", "\u2192 " + r.end));
    }
    if (r.dur !== null) t.appendChild(el("div", "muted", (r.dur / 1000).toFixed(2) + " s"));
    tr.appendChild(t);
    var s = el("div", "cell");
    s.appendChild(el("pre", "text src", r.src));
    tr.appendChild(s);
    var u = el("div", "cell");
    u.appendChild(el("pre", "text unc", r.unc === null ? "\u2013" : r.unc));
    if (r.unc !== null) u.appendChild(el("div", "muted", chars(r.unc) + " chars" +
      (r.unc_alt ? " \u00b7 score " + r.unc_alt.score.toFixed(2) : "")));
    if (r.unc_alt) r.unc_alt.flags.forEach(function (fg) { u.appendChild(altFlag(fg)); });
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
      use.title = "replace the fitted text with the unconstrained translation (Alt+U; or Esc, then 0)";
      use.addEventListener("click", function () { setText(i, r.unc_fit); box.focus(); });
      acts.appendChild(use);
    }
    var reset = el("button", "reset", "reset");
    reset.type = "button";
    reset.title = "back to the fitted translation";
    reset.addEventListener("click", function () { setText(i, r.fit); });
    acts.appendChild(reset);
    if (TOKEN) {
      [["shorter", "-"], ["longer", "+"]].forEach(function (p) {
        var ask = el("button", "ask", p[0]);
        ask.type = "button";
        ask.title = "ask the model for a " + p[0] + " translation (outside the text box: " + p[1] + ")";
        ask.addEventListener("click", function () { setCurrent(i, false); retranslate(i, p[0]); });
        acts.appendChild(ask);
      });
      var term = el("button", "ask", "term\u2026");
      term.type = "button";
      term.title = "translate the line again keeping a term as you give it (source = target)";
      term.addEventListener("click", function () { setCurrent(i, false); forceTerm(i); });
      acts.appendChild(term);
    }
    f.appendChild(acts);
    if (TOKEN) f.appendChild(el("div", "muted asked"));
    if (r.alts.length) f.appendChild(alternatives(r, i));
    tr.appendChild(f);
    var b = el("div", "cell num");
    b.appendChild(el("div", "", r.budget));
    b.appendChild(el("div", "muted", r.bind));
    tr.appendChild(b);
    var q = el("div", "cell num score", r.q === null ? "\u2013" : "");
    tr.appendChild(q);
    var fl = el("div", "cell flags");
    tr.appendChild(fl);
    var st = state[i];
    st.tr = tr; st.box = box; st.meter = meter; st.note = note; st.flagCell = fl; st.score = q;
    st.shownEdited = null; // flags and score drawn by the first update
    return tr;
  }

  // Alternatives: the other translations that fit (keys 1-4) and the unconstrained one (0, its
  // own column), picked by a click or, outside a text box (Esc leaves it), by their key: an
  // edit like any other (shown as edited, exported, applied and rechecked by fitsub apply).
  function altFlag(fg) { // not a .flag chip: the row's flags are those of its text
    var chip = el("span", "alt-flag " + severity(fg[0]), fg[0]);
    chip.title = fg[1] || "";
    return chip;
  }
  function alternatives(r, i) {
    var list = el("div", "alts");
    list.setAttribute("aria-label", "alternatives of segment " + (r.id || i + 1));
    r.alts.forEach(function (a, k) {
      var key = String(k + 1), b = el("button", "alt");
      b.type = "button";
      b.setAttribute("data-key", key);
      b.setAttribute("data-text", a.text);
      b.title = "another translation that fits (outside the text box: " + key + "; in it: Esc, then " + key + ")";
      b.appendChild(el("kbd", "", key));
      b.appendChild(el("span", "alt-text", a.text.replace(/\n/g, " / ")));
      b.appendChild(el("span", "muted", a.n + " chars \u00b7 score " + a.score.toFixed(2)));
      a.flags.forEach(function (fg) { b.appendChild(altFlag(fg)); });
      b.addEventListener("click", function () { setCurrent(i, false); choose(i, key); });
      list.appendChild(b);
      state[i].alts.push(b);
    });
    return list;
  }
  function forceTerm(i) { // "building = palazzo": the glossary's way, at the row's budget
    var got = window.prompt("Force a term in this line: source = target (e.g. building = palazzo)");
    var parts = (got || "").split("=");
    if (parts.length !== 2 || !parts[0].trim() || !parts[1].trim()) return;
    retranslate(i, rows[i].budget, { source: parts[0].trim(), target: parts[1].trim() });
  }
  function retranslate(i, step, term) { // the server's answer: the row's new alternatives
    var r = rows[i], cell = state[i].box.parentNode, note = cell.querySelector(".asked");
    note.textContent = "asking\u2026";
    fetch("/retranslate?t=" + encodeURIComponent(TOKEN), {
      method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify(term ? { segment: r.i, step: step, term: term } : { segment: r.i, step: step })
    }).then(function (resp) {
      return resp.json().then(function (got) {
        if (!resp.ok) throw new Error(got.error || resp.statusText);
        var old = cell.querySelector(".alts");
        if (old) old.remove();
        state[i].alts = [];
        r.alts = got.alts;
        if (r.alts.length) cell.appendChild(alternatives(r, i));
        note.textContent = "asked " + got.budget + " chars: " + (r.alts.length ?
          r.alts.length + " to pick (keys 1\u2013" + r.alts.length + ")" : "nothing else fits");
        update(i);
      });
    }).catch(function (err) { note.textContent = "not answered: " + err.message; });
  }
  function choose(i, key) {
    if (key === "0") {
      if (rows[i].unc === null) return false;
      setText(i, rows[i].unc_fit);
      return true;
    }
    var b = state[i].alts.filter(function (x) { return x.getAttribute("data-key") === key; })[0];
    if (!b) return false;
    setText(i, b.getAttribute("data-text"));
    return true;
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
  // Alt+↓ stops at a row with an error or over its budget (as translated, or still after an
  // edit), or breaking a limit; rows already edited and fine, and timing-only rows, are skipped.
  function needsLook(i) { return state[i].broken || state[i].sev === "error" || state[i].sev === "budget"; }
  function setCurrent(i, focus) {
    if (current >= 0 && state[current]) state[current].tr.classList.remove("current");
    current = i;
    if (i < 0) return;
    state[i].tr.classList.add("current");
    if (focus) {
      var box = state[i].box;
      box.focus();
      box.setSelectionRange(box.value.length, box.value.length); // ready to type at the end
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
    } else if (!typing && !ev.altKey && !ev.ctrlKey && !ev.metaKey && /^[0-4]$/.test(key) && current >= 0) {
      buildAll();
      if (choose(current, key)) ev.preventDefault();
    } else if (TOKEN && !typing && !ev.altKey && !ev.ctrlKey && !ev.metaKey && /^[-+=]$/.test(key) && current >= 0) {
      buildAll();
      retranslate(current, key === "-" ? "shorter" : "longer"); ev.preventDefault();
    } else if (!typing && !ev.altKey && !ev.ctrlKey && !ev.metaKey && (key === "j" || key === "k")) {
      step(key === "j" ? 1 : -1, true); ev.preventDefault();
    } else if (key === "Escape" && typing) {
      ev.target.blur();
    }
  });

  function say(id, text, bad) {
    var note = document.getElementById(id);
    note.textContent = text;
    note.classList.toggle("bad", !!bad);
  }
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
    say("export-note", edits.length + " edit(s) saved as " + meta.edits_name +
      " in your browser's download folder; write them into the translation with:");
    var cmd = document.getElementById("apply-cmd");
    cmd.value = meta.apply || "fitsub apply " + meta.edits_name + " " + (meta.translated_name || "TRANSLATED");
    document.getElementById("export-box").hidden = false;
  }
  function copyCommand() {
    var cmd = document.getElementById("apply-cmd");
    cmd.focus();
    cmd.select();
    var copied = function () { say("copy-note", "copied"); };
    var fallback = function () { say("copy-note", document.execCommand("copy") ? "copied" : "select it and copy"); };
    if (navigator.clipboard && navigator.clipboard.writeText) navigator.clipboard.writeText(cmd.value).then(copied, fallback);
    else fallback();
  }

  // Loading an edits file back: every check first, then every change, so a file refused
  // (another file's edits, broken JSON, another version) changes nothing.
  function importEdits(name, text) {
    var keep = "; nothing loaded, your edits are unchanged";
    var obj;
    try { obj = JSON.parse(text); } catch (e) {
      return [name + " is not valid JSON (truncated or hand-edited?)" + keep, true];
    }
    if (!obj || typeof obj !== "object" || obj.kind !== "fitsub-edits") return [name + " is not a fitsub edits file" + keep, true];
    if (obj.version !== 1) {
      return [name + " was written by another version of the review page (edits version " +
        JSON.stringify(obj.version === undefined ? null : obj.version) + "; this page reads 1)" + keep, true];
    }
    var fp = obj.fingerprint || {}, own = meta.fingerprint;
    if (fp.segments !== own.segments || fp.structure !== own.structure || (fp.source && own.source && fp.source !== own.source)) {
      return [name + " holds the edits of another file" + (obj.translated ? " (" + obj.translated + ")" : "") +
        ", not of " + (meta.translated_name || "this page's") + keep, true];
    }
    if (!Array.isArray(obj.edits)) return [name + " holds no list of edits" + keep, true];
    var byIndex = new Map(rows.map(function (r, k) { return [r.i, k]; })), changes = [];
    for (var n = 0; n < obj.edits.length; n++) {
      var e = obj.edits[n] || {}, k = byIndex.get(e.index);
      if (k === undefined || typeof e.text !== "string" || (e.id !== undefined && e.id !== null && String(e.id) !== String(rows[k].id))) {
        return [name + ": edit " + (n + 1) + " names no segment of this page" + keep, true];
      }
      if (typeof e.was === "string" && flat(e.was) !== flat(rows[k].fit)) {
        return [name + ": segment " + (rows[k].id || k + 1) + " was edited on another translation of it (translated again since?)" + keep, true];
      }
      changes.push([k, e.text]);
    }
    buildAll();
    var replaced = 0, last = -1;
    changes.forEach(function (c) {
      var st = state[c[0]];
      if (st.edited && flat(st.text) !== flat(c[1])) replaced++;
      st.text = c[1]; st.box.value = c[1];
      autosize(st.box);
      update(c[0]);
      last = Math.max(last, c[0]);
    });
    save();
    applyFilters();
    if (last >= 0) setCurrent(last, true);
    return ["loaded " + changes.length + " edit(s) from " + name + (replaced ? " (" + replaced + " replaced your own)" : "") +
      (last >= 0 ? "; going on after segment " + (rows[last].id || last + 1) + " (Alt+\u2193)" : ""), false];
  }
  function loadEdits(input) {
    var file = input.files && input.files[0];
    if (!file) return;
    var reader = new FileReader();
    reader.onload = function () {
      var said = importEdits(file.name, String(reader.result));
      say("load-note", said[0], said[1]);
      input.value = ""; // the same file can be loaded again
    };
    reader.onerror = function () { say("load-note", file.name + " could not be read; nothing loaded, your edits are unchanged", true); };
    reader.readAsText(file);
  }

  function button(label, cls, id, onClick) {
    var b = el("button", cls, label);
    b.type = "button";
    if (id) b.id = id;
    b.addEventListener("click", onClick);
    return b;
  }
  function header() {
    var h = document.getElementById("head");
    h.appendChild(el("h1", "", meta.title));
    var bar = el("div", "bar");
    bar.appendChild(el("strong", "", meta.counts.flagged + " of " + meta.counts.translated + " segments flagged:"));
    var legend = el("span", "legend");
    SEVERITIES.forEach(function (s) {
      if (s === "note" && !meta.counts.by_severity[s]) return; // only runs with --terms dictionary
      var item = el("span", "sev " + s, SEV_NAME[s] + " " + meta.counts.by_severity[s]);
      item.setAttribute("data-sev", s);
      item.title = meta.checks.legend[s];
      legend.appendChild(item);
    });
    var ed = el("span", "sev edited", "0 edited");
    ed.id = "edit-count";
    ed.title = "edited rows: their numbers, names and lengths rechecked as you type; fitsub apply --source also rechecks " +
      (meta.checks.rechecked || []).join(", ") + "; the score and the other flags need the model and are not rechecked";
    legend.appendChild(ed);
    bar.appendChild(legend);
    var only = el("label");
    var cb = el("input"); cb.type = "checkbox"; cb.id = "only-flagged";
    cb.addEventListener("change", applyFilters);
    only.appendChild(cb); only.appendChild(document.createTextNode(" flagged only"));
    bar.appendChild(only);
    var sc = el("label", "", "score below ");
    var num = el("input"); num.type = "number"; num.id = "score-below"; num.min = "0"; num.max = "1"; num.step = "0.05";
    num.addEventListener("input", applyFilters);
    sc.appendChild(num);
    if (meta.has_scores) bar.appendChild(sc);
    var shown = el("span", "muted"); shown.id = "shown"; bar.appendChild(shown);
    var load = el("label", "load", "Load edits\u2026");
    load.title = "go on with an edits file this page exported (same file only)";
    var file = el("input"); file.type = "file"; file.id = "load"; file.accept = ".json,application/json";
    file.addEventListener("change", function () { loadEdits(file); });
    load.appendChild(file);
    bar.appendChild(load);
    bar.appendChild(button("Export edits", "export", "export", exportEdits));
    h.appendChild(bar);
    var notes = el("div", "notes");
    var ln = el("span", "note"); ln.id = "load-note"; ln.setAttribute("role", "status"); notes.appendChild(ln);
    var box = el("div", "export-box"); box.id = "export-box"; box.hidden = true;
    var exn = el("span", "note"); exn.id = "export-note"; box.appendChild(exn);
    var cmd = el("input", "cmd"); cmd.id = "apply-cmd"; cmd.readOnly = true; cmd.spellcheck = false;
    cmd.setAttribute("aria-label", "the fitsub apply command");
    box.appendChild(cmd);
    box.appendChild(button("Copy", "copy", "copy-cmd", copyCommand));
    var cn = el("span", "muted"); cn.id = "copy-note"; box.appendChild(cn);
    notes.appendChild(box);
    h.appendChild(notes);
    var counts = el("ul", "counts");
    Object.keys(meta.counts.by_flag).forEach(function (name) {
      var n = meta.counts.by_flag[name];
      var li = el("li"), b = button(name + " " + n, severity(name) + (n ? "" : " zero"), "", function () {
        filterFlag = filterFlag === name ? "" : name; applyFilters();
      });
      b.setAttribute("data-flag", name);
      b.title = kind(name).meaning || "";
      li.appendChild(b); counts.appendChild(li);
    });
    h.appendChild(counts);
    var keys = el("div", "keys", "Alt+\u2193 / Alt+\u2191 (or j / k): next / previous row to fix \u00b7 Alt+Shift+\u2193 / \u2191: every row \u00b7 Alt+U: use unconstrained \u00b7 Esc: leave the text box, then 1\u20134: pick an alternative, 0: the unconstrained one" +
      (TOKEN ? " \u00b7 - / +: ask the model for a shorter / longer one" : ""));
    keys.title = "Alt+\u2193 stops at errors and over-budget rows not yet edited (timing-only rows and rows you fixed are skipped); edits are kept in this browser until exported";
    h.appendChild(keys);
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
