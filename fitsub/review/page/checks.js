// fitsub review page, part 1: what the page recounts for an edited line (no DOM here).
// Ports of fitsub.quality.flags.numbers / number_changes / dropped_tokens and
// fitsub.quality.numbers.number_words / compound_values; the flags they raise are named by the
// flag registry (fitsub.quality.registry, passed in the page's data). tests/system/test_review_day.py
// runs them on the cases of tests/fixtures/live_flags.json, which pytest runs the Python on.
var fitsubChecks = (function () {
  "use strict";
  var WORD = /\p{L}+(?:['\u2019]\p{L}+)*/gu;
  var TOKEN = /\p{L}+|\d+|\S/gu;
  var TIME = /\b(\d{1,2})(?:[:.](\d{2}))?\s*([ap])\.?\s?m\b\.?/gi;
  var WHOLE_HOUR = /\b(\d{1,2})[:.h]00\b/g;
  var NUMBER = /\d{1,3}(?:[.,\u00a0\u202f ]\d{3})+(?!\d)|\d+/g;

  function words(text) {
    return (text.match(WORD) || []).map(function (w) { return w.normalize("NFC").toLowerCase(); });
  }
  function has(obj, key) { return Object.prototype.hasOwnProperty.call(obj, key); }

  // The number words of one language (`fitsub.quality.numbers.reader_tables`), ready to read.
  function reader(t) {
    if (!t) return null;
    return {
      units: t.units, scales: t.scales,
      connectors: new Set(t.connectors), ambiguous: new Set(t.ambiguous),
      percent: new RegExp(t.percent, "gi"),
      idiom: t.idiom ? new RegExp(t.idiom, "gi") : null
    };
  }
  function morphemes(word, R) { // longest match, as fitsub.quality.numbers.morphemes
    var chars = Array.from(word), pieces = [], i = 0;
    while (i < chars.length) {
      var found = false;
      for (var j = chars.length; j > i; j--) {
        var part = chars.slice(i, j).join("");
        if (has(R.units, part) || has(R.scales, part) || (R.connectors.has(part) && pieces.length && j < chars.length)) {
          pieces.push([part, has(R.units, part) ? R.units[part] : has(R.scales, part) ? R.scales[part] : 0]);
          i = j; found = true;
          break;
        }
      }
      if (!found) return null;
    }
    return pieces;
  }
  function value(pieces, R) { // hundreds multiply, larger scales close a group
    var total = 0, current = 0;
    pieces.forEach(function (p) {
      if (has(R.scales, p[0])) {
        if (p[1] === 100) current = Math.max(current, 1) * 100;
        else { total += Math.max(current, 1) * p[1]; current = 0; }
      } else {
        current += p[1];
      }
    });
    return total + current;
  }
  function numberWords(text, R) {
    if (!R) return [];
    text = text.replace(/quatre-vingt/gi, "quatrevingt").replace(R.percent, " ");
    if (R.idiom) text = text.replace(R.idiom, " ");
    var tokens = (text.match(TOKEN) || []).map(function (t) { return t.toLowerCase(); });
    var out = [], run = [], ws = [];
    function close() {
      while (ws.length && (R.connectors.has(ws[ws.length - 1]) || ws[ws.length - 1] === "-")) { ws.pop(); run.pop(); }
      if (run.length && !ws.every(function (w) { return R.ambiguous.has(w); })) {
        out.push(String(value([].concat.apply([], run), R)));
      }
      run = []; ws = [];
    }
    tokens.forEach(function (w) {
      if (w === "-" && run.length) { run.push([]); ws.push(w); return; }
      if (R.connectors.has(w) && run.length) { run.push([[w, 0]]); ws.push(w); return; }
      var pieces = has(R.units, w) ? [[w, R.units[w]]] : morphemes(w, R);
      if (pieces === null) { close(); return; }
      if (ws.length && R.connectors.has(ws[ws.length - 1])) {
        // "twenty-one", "vingt et un" join; "two and three" are two numbers
        var prev = run.length > 1 ? run[run.length - 2] : [];
        var last = prev.length ? prev[prev.length - 1][1] : 0;
        if (!(last >= 20 && pieces[0][1] < last)) close();
      }
      run.push(pieces); ws.push(w);
    });
    close();
    return out;
  }
  function compoundValues(text, R) { // values a longer word or an ambiguous one may hide
    var found = new Set();
    if (!R) return found;
    (text.toLowerCase().match(TOKEN) || []).forEach(function (w) {
      var table = function (k) { return has(R.units, k) ? R.units[k] : has(R.scales, k) ? R.scales[k] : null; };
      if (R.ambiguous.has(w)) found.add(String(table(w)));
      var chars = Array.from(w);
      for (var n = chars.length - 1; n > 2; n--) {
        var v = table(chars.slice(0, n).join(""));
        if (v !== null) { found.add(String(v)); break; }
      }
    });
    return found;
  }
  function numbers(text, R) { // digit runs (12-hour times as 24-hour), then number words
    text = text.replace(TIME, function (m, h, mm, ap) {
      var hour = (parseInt(h, 10) % 12) + (ap.toLowerCase() === "p" ? 12 : 0);
      return mm && mm !== "00" ? hour + ":" + mm : String(hour);
    }).replace(WHOLE_HOUR, "$1");
    var digits = (text.match(NUMBER) || []).map(function (m) {
      return m.replace(/\D/g, "").replace(/^0+/, "") || "0";
    });
    return digits.concat(numberWords(text, R));
  }
  function minus(a, b) { // multiset a - b, sorted as Python sorts strings
    var left = b.slice(), out = [];
    a.forEach(function (x) { var k = left.indexOf(x); if (k >= 0) left.splice(k, 1); else out.push(x); });
    return out.sort();
  }

  // The recounts, by the names the flag registry gives them (`live`): each returns the detail of
  // the flag it recounts, as fitsub.quality.flags writes it, or null when the text raises none.
  var RECOUNTS = {
    numbers: function (row, text, R) { // the source's numbers against the text's
      var got = numbers(text, R), inside = compoundValues(text, R);
      var lost = minus(row.nums, got).filter(function (n) { return !inside.has(n); });
      var added = minus(got, row.nums);
      if (!lost.length && !added.length) return null;
      return (lost.length ? ["missing " + lost.join(" ")] : []).concat(added.length ? ["added " + added.join(" ")] : []).join("; ");
    },
    lost: function (row, text, R) { // the source names and numbers the unconstrained line kept
      var have = new Set(words(text));
      var gone = row.names.filter(function (n) { return !have.has(n); }).concat(minus(row.keep, numbers(text, R)));
      gone = gone.filter(function (x, k) { return gone.indexOf(x) === k; });
      return gone.length ? "lost " + gone.join(", ") : null;
    },
    length: function (row, text, R, c) { // the page's counters against the budget
      return c && c.overBudget ? c.n + " chars, budget " + row.budget : null;
    }
  };
  // The live flags of an edited text: [name, detail] for each [name, recount] of `live` (the
  // registry's, in its order) whose recount finds something; `c`: the page's counters.
  function liveFlags(live, row, text, R, c) {
    var out = [];
    live.forEach(function (k) {
      var detail = RECOUNTS[k[1]](row, text, R, c);
      if (detail !== null) out.push([k[0], detail]);
    });
    return out;
  }

  return { reader: reader, numbers: numbers, liveFlags: liveFlags, words: words };
})();
