// errdex search: the algorithm of errdex/search/__init__.py, line for line, over the index the
// build writes to search/. The shared vectors in tests/search/vectors.yaml run against both.
// Any link can carry any ?q=: every step here is linear in the paste, and no regular
// expression is anchored at a line's end (V8 would retry it from every blank of a run).
(function () {
  "use strict";
  var root = document.documentElement.getAttribute("data-root") || "";
  var DROPPED = new Set(["'", "\"", "`", "\u2018", "\u2019", "\u201c", "\u201d",
    "\u200b", "\u200c", "\u200d", "\ufeff"]);
  var SPACE = /^[ \t\n\r\f\v\u00a0\u2028\u2029\u3000\u2000-\u200a]$/;
  var TOKEN = /[\p{L}\p{N}_]+/gu;
  var TRACEBACK = "Traceback (most recent call last):";
  var GROUP_HEAD = "Exception Group " + TRACEBACK;
  var CHAIN = ["During handling of the above exception", "The above exception was the direct cause"];

  // --- The index: a small head, then word shards and record chunks on demand. ---
  var meta = null;
  var M = null;
  var shards = new Map();
  var chunks = new Map();
  var entries = new Map();
  var places = new Map();
  var patterns = null;

  // A browser keeps the index's files for a while, so it may hold some of an earlier
  // build beside others of the last one: a record file without a row that meta.json puts
  // there, or a file that is gone, is such a mix. Every file is then fetched again past
  // the cache, once (`lookup`).
  var reload = false;

  function Stale(message) { this.message = message; }

  function fetchJSON(path) {
    return fetch(root + "search/" + path, reload ? { cache: "reload" } : {}).then(function (r) {
      if (!r.ok) {
        var said = "search index: " + path + " " + r.status;
        throw reload ? new Error(said) : new Stale(said);
      }
      return r.json();
    });
  }

  function load() {
    if (!meta) {
      meta = fetchJSON("meta.json").then(function (m) {
        var p = m.patterns;
        var pythons = "^(?:" + p.pythons.join("|") + ")" + p.pythons_hint + "$";
        // Sticky: tried at a position of the line, as Python's match(line, pos).
        var sticky = (s) => new RegExp(s, "y");
        var prefixes = p.tags.concat(p.starts).map(sticky);
        var tags = p.tags.length;
        var margin = sticky(p.margin);
        patterns = {
          ansi: new RegExp(p.ansi, "g"),
          prefixes: prefixes,
          tags: tags,
          // The lines of an exception group's traceback lose its margin too.
          groupedPrefixes: prefixes.slice(0, tags).concat([margin], prefixes.slice(tags)),
          margin: margin,
          exception: new RegExp(p.exception),
          // Global: searched from a position, as Python's search(line, pos).
          inline: new RegExp(p.inline, "g"),
          quotes: p.quotes,
          errorLevel: new RegExp(p.error_level),
          repeated: sticky(p.repeated),
          grouped: sticky(p.grouped),
          groupRule: new RegExp(p.group_rule),
          afterFrames: new RegExp(p.after_frames),
          ipythonHead: new RegExp(p.ipython_head),
          frames: p.frames.map((f) => new RegExp(f)),
          frameStop: new RegExp(p.frame_stop),
          cutFrame: new RegExp(p.cut_frame),
          pytestPlace: new RegExp(p.pytest_place),
          pytestError: new RegExp(p.pytest_error),
          errorLine: new RegExp(p.error_line),
          listing: new RegExp(p.listing),
          pydantic: new RegExp(p.pydantic),
          debugType: new RegExp(p.debug_type),
          debugValue: new RegExp(p.debug_value),
          debugRow: new RegExp(p.debug_row),
          body: new RegExp(p.body),
          repr: new RegExp(p.repr),
          reprInline: new RegExp(p.repr_inline),
          wrapper: new RegExp(p.wrapper),
          stop: new RegExp(p.stop),
          note: new RegExp(p.note),
          wrapped: new RegExp(p.wrapped),
          pythons: new RegExp(pythons.split("%q").join("'[^']*'")),
          pythonsSaid: new RegExp(pythons.split("%q").join("\\S+"))
        };
        M = m;
        return m;
      });
    }
    return meta;
  }

  function cached(map, key, path) {
    if (!map.has(key)) { map.set(key, fetchJSON(path)); }
    return map.get(key);
  }

  // --- 1. Extracting the message. ---
  // Python's strip_prefixes: [the line without prefixes, starts a record, level ERROR].
  function stripPrefixes(line, grouped) {
    var startsRecord = false;
    var error = false;
    var start = 0;
    var changed = true;
    var prefixes = grouped ? patterns.groupedPrefixes : patterns.prefixes;
    var tags = grouped ? patterns.tags + 1 : patterns.tags;
    while (changed) {
      changed = false;
      for (var i = 0; i < prefixes.length; i++) {
        var prefix = prefixes[i];
        prefix.lastIndex = start;
        var found = prefix.exec(line);
        if (found && prefix.lastIndex > start) {
          if (i >= tags) {
            startsRecord = true;
            error = error || patterns.errorLevel.test(found[0]);
          }
          start = prefix.lastIndex;
          changed = true;
          break;
        }
      }
    }
    var text = strip(line.slice(start), BLANK, true);
    // Notes at the line's end: Ray's, then a group's count.
    [["[", patterns.repeated], [" (", patterns.grouped]].forEach(function (note) {
      var at = text.lastIndexOf(note[0]);
      note[1].lastIndex = Math.max(at, 0);
      if (at >= 0 && note[1].exec(text) && note[1].lastIndex === text.length) {
        text = strip(text.slice(0, at), BLANK, true);
      }
    });
    return [text, startsRecord, error];
  }

  var BLANK = " \t\r\f\v";
  // Python's str.strip(chars), or rstrip when `right`.
  function strip(text, chars, right) {
    var start = 0;
    var end = text.length;
    while (!right && start < end && chars.indexOf(text[start]) >= 0) { start++; }
    while (end > start && chars.indexOf(text[end - 1]) >= 0) { end--; }
    return text.slice(start, end);
  }
  function blank(text) { return strip(text, BLANK); }
  // Lengths and cuts in code points, as Python counts.
  function cpLength(text) { return Array.from(text).length; }

  function startsWithAny(text, prefixes) {
    return prefixes.some((p) => text.startsWith(p));
  }

  function extract(paste) { return readings(paste)[0]; }

  // "Value error": a ValueError or a subclass, which pydantic does not name.
  var PYDANTIC = { "Value error": null, "Assertion failed": "AssertionError" };
  var ESCAPES = { n: "\n", t: "\t", r: "\r" };

  // Python's readings: what a paste may be about, most specific first.
  function readings(paste) {
    var p = M.params;
    var limit = p.search_message_limit;
    var most = p.max_candidates;
    // Python's paste[-paste_limit:] in code points. They fill at least half the UTF-16
    // units, so the last 2 x paste_limit units hold them: no work on the rest.
    var chars = Array.from(paste.slice(-2 * p.paste_limit));
    var cut = chars.length > p.paste_limit || paste.length > 2 * p.paste_limit;
    var text = chars.slice(-p.paste_limit).join("").replace(patterns.ansi, "")
      .replace(/\r\n/g, "\n").replace(/\r/g, "\n");
    var raw = text.split("\n");
    // From a group's head (or its first rule) on, lines that start with "|" or "+" lose them.
    var grouped = false;
    var stripped = raw.map(function (line) {
      var plain = stripPrefixes(line);
      grouped = grouped || line.indexOf(GROUP_HEAD) >= 0 || patterns.groupRule.test(plain[0]);
      patterns.margin.lastIndex = 0;
      return grouped && patterns.margin.test(plain[0]) ? stripPrefixes(line, true) : plain;
    });
    var lines = stripped.map((s) => s[0]);
    var wrapped = cutLines(raw);
    var out = [];
    var wrappers = [];
    var count = 0;
    // The first `limit` code points (of at most 2 x limit units).
    function head(text) { return Array.from(text.slice(0, 2 * limit)).slice(0, limit).join(""); }
    function more(exception, message, candidate, wrapper, line, whole) {
      var r = { exception: exception, message: head(message), cut: cut, candidate: candidate,
        line: line, whole: !!whole };
      var same = (o) => o.exception === r.exception && o.message === r.message;
      if (!out.some(same) && !wrappers.some(same)) { (wrapper ? wrappers : out).push(r); }
    }
    function add(exception, message, line) { more(exception, message, count++, false, line); }
    // The last few pydantic error lines and error bodies: a log of JSON lines above a
    // traceback leaves the traceback its readings; each kept line's message is read once.
    var saidAt = [];
    for (var i = 0; i < lines.length; i++) {
      var said = patterns.pydantic.exec(blank(lines[i]));
      var body = said ? null : patterns.body.exec(lines[i]);
      if (said || body) {
        saidAt.push([i, said, body]);
        if (saidAt.length > p.max_bodies) { saidAt.shift(); }
      }
    }
    saidAt.forEach(function (at) {
      var index = at[0];
      if (at[1]) {
        var msg = collect(stripped, index, at[1][2]);
        var kept = msg.lastIndexOf(" [type=");
        add(PYDANTIC[at[1][1]], kept >= 0 ? msg.slice(0, kept) : msg, index);
      } else {
        var string = unquoted(lines[index], at[2].index + at[2][0].length, at[2][2]);
        if (string) { var u = unrepr(string[0]); add(u[0], u[1], index); }
      }
    });
    var debug = debugPage(lines);
    if (debug) { add(debug[0], debug[1], debug[2]); }
    // Every error a line names: the lines that end tracebacks first, from the last, then
    // every other line from the paste's end; the innermost error of a line first.
    var ends = Array.from(new Set(tracebackEnds(lines).concat(pytestEnds(raw))))
      .sort((a, b) => a - b);
    var ending = new Set(ends);
    var order = ends.slice().reverse();
    for (var k = lines.length - 1; k >= 0; k--) { if (!ending.has(k)) { order.push(k); } }
    var seen = new Set();
    var named = new Set(debug ? [debug[2]] : []);
    for (var o = 0; o < order.length && seen.size < most; o++) {
      var index = order[o];
      var line = blank(lines[index]);
      var found = errorsIn(line, ending.has(index), most);
      for (var f = found.length - 1; f >= 0; f--) {
        var exception = found[f][0];
        var start = found[f][1];
        named.add(index);
        var key = JSON.stringify([exception, head(line.slice(start))]);
        if (seen.has(key) || seen.size >= most) { continue; }
        seen.add(key);
        var first = line.slice(start);
        var quoted = quotedIn(first, found[f][2]);
        var own = quoted.length ? quoted[0] : first;
        var wrapper = patterns.wrapper.test(exception + ": " + own);
        var number = count++;
        var messages = quoted.concat([collect(stripped, index, first, wrapped), first]);
        messages.forEach(function (message) { more(exception, message, number, wrapper, index); });
        // A candidate of their own, next: read only when the message as written matches
        // no record whole.
        var under = count++;
        messages.forEach(function (message) {
          beneath(exception, head(message)).forEach(function (r) {
            more(r[0], r[1], under, wrapper, index);
          });
        });
        var inner = wrapper ? innerOf(own) : null;
        if (inner) { add(null, inner, index); }
      }
      // The first exception's repr on the line, its message the string it holds.
      var rep = patterns.reprInline.exec(line);
      var held = rep ? unquoted(line, rep.index + rep[0].length, rep[2]) : null;
      var key3 = held ? JSON.stringify([rep[1], head(held[0])]) : null;
      if (held && !seen.has(key3)) {
        if (seen.size >= most) { break; }
        named.add(index);
        seen.add(key3);
        add(rep[1], held[0], index);
      }
    }
    // Log lines at level ERROR that name no exception.
    for (var e = lines.length - 1; e >= 0 && seen.size < most; e--) {
      var said2 = blank(lines[e]);
      if (!stripped[e][2] || named.has(e) || !said2) { continue; }
      var key2 = JSON.stringify([null, head(said2)]);
      if (seen.has(key2) || said2.startsWith(TRACEBACK)) { continue; }
      seen.add(key2);
      var number2 = count++;
      [collect(stripped, e, said2), said2]
        .forEach(function (message) { more(null, message, number2, false, e); });
      afterLeads(said2).forEach(function (message, lead) {
        more(null, message, number2, false, e, lead > 0);
      });
    }
    out = out.concat(wrappers);
    if (!named.size) {
      add(null, lines.map(blank).filter(Boolean).join(" "), null);
      // A log line's words before its message: "Failed to load the model: <message>".
      var last = lines.length - 1;
      while (last > 0 && !blank(lines[last])) { last--; }
      var number3 = count++;
      afterLeads(blank(lines[last])).forEach(function (message, lead) {
        more(null, message, number3, false, last, lead > 0);
      });
    }
    // Python's: readings for a whole message only come last.
    out = out.filter((r) => !r.whole)
      .concat(out.filter((r) => r.whole))
      .slice(0, p.max_readings);
    out.lines = raw;  // as the paste has them, for the frames above an error
    return out;
  }

  // Python's _after_leads: what a line says after each of its first few ": ".
  function afterLeads(line) {
    var out = [];
    var at = line.indexOf(": ");
    while (at >= 0 && out.length < M.params.max_leads) {
      var after = blank(line.slice(at + 2));
      if (after && (!out.length || after.indexOf(" ") >= 0)) { out.push(after); }
      at = line.indexOf(": ", at + 2);
    }
    return out;
  }

  // Python's _debug_page: Django's debug page's class, message and the message's line.
  function debugPage(lines) {
    for (var i = lines.length - 1; i >= 0; i--) {
      var value = patterns.debugValue.exec(blank(lines[i]));
      if (!value) { continue; }
      var message = blank(value[1]);
      var at = i;
      if (!message && i + 1 < lines.length) {
        message = blank(lines[i + 1]);
        at = i + 1;
        if (patterns.debugRow.test(message)) { continue; }
      }
      if (!message) { continue; }
      var named = i ? patterns.debugType.exec(blank(lines[i - 1])) : null;
      return [named ? named[1] : null, message, at];
    }
    return null;
  }

  // Python's _traceback_ends: the line after each traceback's frames; each line seen once.
  function tracebackEnds(lines) {
    var ends = [];
    var reached = -1;
    lines.forEach(function (line, start) {
      var head = start >= reached && patterns.ipythonHead.exec(line);
      if (head) {  // IPython's: the line under its cells and listings that starts with the name
        for (var i = start + 1; i < lines.length && !patterns.ipythonHead.test(lines[i]); i++) {
          var found = patterns.afterFrames.exec(lines[i]);
          if (found && found[1] === head[1]) {
            ends.push(reached = i);
            break;
          }
        }
        return;
      }
      if (start < reached || !blank(line).startsWith(TRACEBACK)) { return; }
      var index = start + 1;
      while (index < lines.length && (!lines[index] || " \t^~".indexOf(lines[index][0]) >= 0)) {
        index += 1;
      }
      reached = index;
      if (index < lines.length && patterns.afterFrames.test(lines[index])) { ends.push(index); }
    });
    return ends;
  }

  // Python's _pytest_ends: the first of each run of "E" lines that pytest's place follows.
  function pytestEnds(raw) {
    var ends = [];
    raw.forEach(function (line, index) {
      if (!patterns.pytestPlace.test(line)) { return; }
      var above = index - 1, top = -1;
      while (above >= 0 && /^[ \t]*$/.test(raw[above])) { above--; }
      while (above >= 0 && patterns.pytestError.test(raw[above])) { top = above--; }
      if (top >= 0) { ends.push(top); }
    });
    return ends;
  }

  // Python's _errors_in: [name, where its message starts, the mark before it, blanks
  // aside], the last ones.
  function errorsIn(text, endsTraceback, most) {
    var found = [];
    var position = 0;
    var whole = (endsTraceback ? patterns.afterFrames : patterns.exception).exec(text);
    if (whole) {
      found.push([whole[1], whole[2] ? text.length - whole[2].length : text.length, ""]);
      position = whole[1].length;
    }
    var inline = patterns.inline;
    for (;;) {
      inline.lastIndex = position;
      var m = inline.exec(text);
      if (!m) { break; }
      var before = m.index + m[1].length - 1;
      while (before >= 0 && " \t".indexOf(text[before]) >= 0) { before--; }
      found.push([m[2], m.index + m[0].length, before >= 0 ? text[before] : ""]);
      if (found.length > most) { found.shift(); }
      position = m.index + m[1].length + m[2].length + 1;
    }
    return found;
  }

  // Python's quoted_message: up to the mark that closes the quote, the next one and the last one;
  // a mark right before a letter, digit or "_" closes nothing.
  function quotedIn(first, opener) {
    if (!has(patterns.quotes, opener)) { return []; }
    var closer = patterns.quotes[opener];
    var near = first.indexOf(closer);
    while (near >= 0 && near + 1 < first.length && /^[\p{L}\p{N}_]/u.test(String.fromCodePoint(first.codePointAt(near + 1)))) {
      near = first.indexOf(closer, near + 1);
    }
    var far = first.lastIndexOf(closer);
    return (near === far ? [near] : [near, far]).filter((end) => end > 0)
      .map((end) => first.slice(0, end));
  }

  // Python's _inner: the words a wrapper quotes, from its first quote mark to the last.
  function innerOf(message) {
    var marks = [message.indexOf("'"), message.indexOf("\"")].filter((at) => at >= 0);
    if (!marks.length) { return null; }
    var start = Math.min.apply(null, marks);
    var end = message.lastIndexOf(message[start]);
    var inner = blank(message.slice(start + 1, end));
    return end > start && inner.indexOf(" ") >= 0 ? inner : null;
  }

  // Python's _message: the lines after `index` up to a blank, a record, a traceback, a
  // fence or a line naming an exception; a line of `cut` goes on unbroken.
  function collect(stripped, index, first, cut) {
    var out = first;
    for (var j = index + 1; j < stripped.length; j++) {
      var line = blank(stripped[j][0]);
      if (!line || stripped[j][1] || startsWithAny(line, CHAIN.concat([TRACEBACK])) ||
          patterns.stop.test(line) || patterns.exception.test(line)) { break; }
      out = cut && cut.has(j - 1) ? out + line : out ? out + " " + line : line;
    }
    return out;
  }

  // Python's _cut_lines: the longest lines cut inside a word, where one is a cut frame.
  // (Its patterns are bound first: the minifier reads a "/" right after "=>" as division.)
  var FILLED = /[^ \t]$/;
  var GOES_ON = /^[^ \t]/;
  function cutLines(raw) {
    var widest = raw.reduce((most, l) => Math.max(most, l.length), 0);
    var full = raw.map((l, i) => l.length === widest ? i : -1).filter((i) => i >= 0);
    var frame = full.some((i) => patterns.cutFrame.test(raw[i]));
    return new Set(frame && widest >= M.params.min_width ?
      full.filter((i) => FILLED.test(raw[i]) && GOES_ON.test(raw[i + 1] || "")) : []);
  }

  // Python's string_at: a JSON or repr string literal from `start`, decoded, and its end.
  function unquoted(text, start, quote) {
    var out = "";
    for (var i = start; i < text.length;) {
      var ch = text[i];
      if (ch === quote) { return [out, i + 1]; }
      if (ch === "\\" && i + 1 < text.length) {
        var code = text[i + 1];
        var size = code === "x" ? 2 : code === "u" ? 4 : 0;
        var digits = text.slice(i + 2, i + 2 + size);
        if (size && digits.length === size && /^[0-9A-Fa-f]+$/.test(digits)) {
          out += String.fromCharCode(parseInt(digits, 16));
          i += 2 + size;
          continue;
        }
        out += ESCAPES[code] || code;
        i += 2;
        continue;
      }
      out += ch;
      i += 1;
    }
    return null;
  }

  function unrepr(text) {
    var m = patterns.repr.exec(text);
    if (m) {
      var inner = unquoted(text, m[0].length, m[2]);
      if (inner && text.slice(inner[1]) === ")") { return [m[1], inner[0]]; }
    }
    return [null, text];
  }

  // --- 2. Normalizing. ---
  function normalize(text, lead, trail) {
    var chars = [];
    var where = [];
    var space = !lead;
    var opened = "";  // a quote that may open an empty string ('' or "")
    var held = -1;  // where the last empty string stood in chars
    var index = 0;
    for (var ch of text) {
      if (DROPPED.has(ch)) {
        if (ch === opened) { opened = ""; space = false; held = chars.length; }
        else { opened = ch === "'" || ch === "\"" ? ch : ""; }
      } else if (SPACE.test(ch)) {
        opened = "";
        if (!space) { chars.push(" "); where.push(index); }
        space = true;
      } else {
        opened = "";
        // One entry of `where` per UTF-16 unit, as regular expressions count.
        for (var low of ch.toLowerCase()) {
          chars.push(low);
          for (var unit = 0; unit < low.length; unit++) { where.push(index); }
        }
        space = false;
      }
      index += ch.length;
    }
    if (chars.length && chars[chars.length - 1] === " " && !trail && held !== chars.length) {
      chars.pop(); where.pop();
    }
    return [chars.join(""), where];
  }

  function tokens(normalized) { return normalized.match(TOKEN) || []; }
  function isDigits(word) { return /^[0-9]+$/.test(word); }

  function fnv1a(word) {
    var value = 0x811c9dc5;
    var bytes = new TextEncoder().encode(word);
    for (var i = 0; i < bytes.length; i++) {
      value = Math.imul(value ^ bytes[i], 0x01000193) >>> 0;
    }
    return value;
  }

  // A message template: literal parts with placeholders between them.
  function parseTemplate(source) {
    var literals = [""];
    var names = [];
    var i = 0;
    while (i < source.length) {
      var ch = source[i];
      if ((ch === "{" || ch === "}") && source[i + 1] === ch) {
        literals[literals.length - 1] += ch;
        i += 2;
      } else if (ch === "{") {
        var depth = 0;
        var end = i;
        for (; end < source.length; end++) {
          if (source[end] === "{") { depth += 1; }
          if (source[end] === "}") { depth -= 1; if (depth === 0) { break; } }
        }
        names.push(source.slice(i + 1, end).trim());
        literals.push("");
        i = end + 1;
      } else {
        literals[literals.length - 1] += ch;
        i += 1;
      }
    }
    return { literals: literals, names: names };
  }

  function makeEntry(index, row) {
    var place = row[4] || ["", 1, 0];  // where other records say the same words
    var parsed = parseTemplate(row[3]);
    var names = parsed.names;
    var cut = false;
    // Python's _cut: the first search_message_limit characters, a placeholder counting one.
    var room = M.params.search_message_limit;
    for (var k = 0; k < parsed.literals.length; k++) {
      var size = cpLength(parsed.literals[k]);
      if (size > room || (k < names.length && size === room)) {
        parsed.literals = parsed.literals.slice(0, k)
          .concat([Array.from(parsed.literals[k]).slice(0, room).join("")]);
        names = names.slice(0, k);
        cut = true;
        break;
      }
      room -= size + 1;
    }
    var lastLiteral = parsed.literals.length - 1;
    var literals = parsed.literals.map(function (lit, i) {
      return normalize(lit, i > 0, i < lastLiteral)[0];
    });
    var words = [];
    literals.forEach(function (lit, position) {
      words.push.apply(words, tokens(lit));
      if (position < names.length && words[words.length - 1] !== "*") { words.push("*"); }
    });
    return {
      index: index, id: row[0], exception: M.exceptions[row[1]], repo: M.repos[row[2]],
      template: row[3], literals: literals, names: names, words: words, cut: cut,
      // The file and line that raise it, and how many records say the same words.
      file: place[0], shared: place[1], line: place[2],
      // An earlier wording of the record: its last release, the next, the wording now.
      old: row.length > 5 ? { until: row[5], since: row[6], now: row[7] } : null
    };
  }

  // --- 3 and 4. Candidates and scoring. ---
  // Python's fit_placeholders: each literal at its leftmost place, linear time, no backtracking;
  // a value left empty between two spaces (when another is not), and a closing full stop
  // left out (when the last value ends no sentence), still fit.
  // Python's fit_placeholders: each literal at its leftmost place after the one before;
  // where that gives a placeholder said twice two values, _agreeing_fit: later places
  // too, until they agree (or the leftmost fit, after fits_tried places).
  function place(literals, text, names) {
    var first = literals[0];
    var last = literals[literals.length - 1];
    if (literals.length === 1) { return text === first ? [] : null; }
    var stop = !text.endsWith(last) && last.endsWith(".") && text.endsWith(last.slice(0, -1));
    if (stop) { last = last.slice(0, -1); }
    if (!text.startsWith(first) || !text.endsWith(last)) { return null; }
    var endLimit = text.length - last.length;
    var head = text.slice(0, endLimit);
    var tries = 0;
    var leftmost = null;
    function rest(index, position, spans, collapsed) {
      if (index === literals.length - 1) {
        if (endLimit < sharedSpace(text, position, last)) { return null; }
        if (stop && /[.!?] /.test(text.slice(position, endLimit))) { return null; }
        var done = spans.concat([[position, endLimit]]);
        if ((collapsed || endLimit < position) && done.every((s) => s[1] <= s[0])) { return null; }
        leftmost = leftmost || done;
        return agrees(names, done, text) ? done : null;
      }
      var literal = literals[index];
      var found = head.indexOf(literal, sharedSpace(text, position, literal));
      while (found >= 0 && (!leftmost || tries < M.params.fits_tried)) {
        tries += 1;
        var fit = rest(index + 1, found + literal.length, spans.concat([[position, found]]),
          collapsed || found < position);
        if (fit || !leftmost) { return fit; }
        found = head.indexOf(literal, found + 1);
      }
      return null;
    }
    return rest(1, first.length, [], false) || leftmost;
  }

  // Python's pythons_own: blanks collapsed, lowercased, quotes kept.
  function pythonsOwn(text) {
    return patterns.pythons.test(text.trim().split(/\s+/).join(" ").toLowerCase());
  }

  // Python's _says_pythons: placeholders read as names, quotes left out.
  function saysPythons(template) {
    var said = parseTemplate(template).literals.join("x");
    return patterns.pythonsSaid.test(normalize(said, false, false)[0]);
  }

  // Python's _shared_space: an empty value's two spaces were collapsed to one.
  function sharedSpace(text, position, literal) {
    return literal.charAt(0) === " " && position > 0 && text.charAt(position - 1) === " "
      ? position - 1 : position;
  }

  // Python's _agrees: each placeholder said more than once has one value.
  function agrees(names, spans, text) {
    var seen = new Map();
    return spans.every(function (span, g) {
      var value = text.slice(span[0], span[1]);
      if (!seen.has(names[g])) { seen.set(names[g], value); }
      return seen.get(names[g]) === value;
    });
  }

  function exactValues(entry, message, normalized, where) {
    var spans = !entry.cut && place(entry.literals, normalized, entry.names);
    if (!spans) { return null; }
    return entry.names.map(function (name, g) {
      var span = spans[g];
      if (span[1] <= span[0]) { return [name, ""]; }
      var lastChar = where[span[1] - 1];
      var start = where[span[0]];
      var end = lastChar + (message.codePointAt(lastChar) > 0xffff ? 2 : 1);
      // Python's exact_values: quotes of the value's own ends, when it holds that quote.
      var quote = start > 0 ? message[start - 1] : "";
      if (quote && "'\"`".indexOf(quote) >= 0 && end < message.length && message[end] === quote &&
          message.slice(start, end).indexOf(quote) >= 0) {
        start -= 1;
        end += 1;
      }
      return [name, strip(message.slice(start, end), BLANK + "\n")];
    });
  }

  function sameWord(pasted, word, first, last, short) {
    if (pasted === word) { return true; }
    if (short) { return false; }
    return (first && word.endsWith(pasted)) || (last && word.startsWith(pasted));
  }

  // Python's _window: the stretch of a long template that fits align_cells.
  function window_(paste, template, p) {
    var width = Math.max(1, Math.floor(p.align_cells / (paste.length + 1)) - 1);
    if (template.length <= width) { return template; }
    var said = new Set(paste);
    var count = 0;
    var best = -1;
    var start = 0;
    for (var end = 0; end < template.length; end++) {
      count += said.has(template[end]) - (end >= width && said.has(template[end - width]));
      if (end >= width - 1 && count > best) { best = count; start = end - width + 1; }
    }
    return template.slice(start, start + width);
  }

  // Python's align; `free`: the first and last words cost nothing left over.
  function align(paste, template, weight, p, free) {
    template = window_(paste, template, p);
    var n = paste.length;
    var m = template.length;
    var weights = paste.map((w) => weight.has(w) ? weight.get(w) : p.unknown);
    var short = paste.map((w) => cpLength(w) < 3);
    var NEG = -1e18;
    var score = [];
    var hits = [];
    var gain = [];
    for (var r = 0; r <= n; r++) {
      score.push(new Array(m + 1).fill(NEG));
      hits.push(new Array(m + 1).fill(0));
      gain.push(new Array(m + 1).fill(0));
    }
    for (var c = 0; c <= m; c++) { score[0][c] = 0; }
    function relax(i, j, value, matched, gained) {
      if (value > score[i][j] || (value === score[i][j] && matched > hits[i][j])) {
        score[i][j] = value;
        hits[i][j] = matched;
        gain[i][j] = gained;
      }
    }
    for (var i = 0; i <= n; i++) {
      for (var j = 0; j <= m; j++) {
        var here = score[i][j];
        var matched = hits[i][j];
        var gained = gain[i][j];
        if (here === NEG) { continue; }
        if (j < m) {
          var word = template[j];
          if (word === "*") {
            relax(i, j + 1, here, matched, gained);
            if (i < n) { relax(i + 1, j, here, matched, gained); }
          } else if (i < n && sameWord(paste[i], word, i === 0, i === n - 1, short[i])) {
            relax(i + 1, j + 1, here + weights[i], matched + 1, gained + weights[i]);
          }
          if (word !== "*" && i > 0) { relax(i, j + 1, here - p.skip, matched, gained); }
        }
        if (i < n) {
          var cost = free && (i === 0 || i === n - 1) ? 0 : weights[i];
          relax(i + 1, j, here - cost, matched, gained);
        }
      }
    }
    var best = NEG;
    var bestHits = 0;
    var bestGain = 0;
    for (var k = 0; k <= m; k++) {
      if (score[n][k] > best || (score[n][k] === best && hits[n][k] > bestHits)) {
        best = score[n][k];
        bestHits = hits[n][k];
        bestGain = gain[n][k];
      }
    }
    return [best, bestHits, bestGain];
  }

  function round(x, digits) {
    var f = Math.pow(10, digits);
    return Math.round(x * f) / f;
  }

  function compareKeys(a, b) {
    for (var i = 0; i < Math.max(a.length, b.length); i++) {
      var x = i < a.length ? a[i] : -Infinity;
      var y = i < b.length ? b[i] : -Infinity;
      if (x !== y) { return y - x; }
    }
    return 0;
  }

  // Python's other names of a class, and the name a traceback prints for it (errdex/search/__init__.py's
  // PRINTED_AS): `raise EnvironmentError(…)` prints `OSError: …`.
  var PRINTED_AS = { EnvironmentError: "OSError", IOError: "OSError", WindowsError: "OSError" };

  function printedName(s) {
    var name = s.split(".").pop();
    return has(PRINTED_AS, name) ? PRINTED_AS[name] : name;
  }

  function sameException(named, exception) {
    if (!named) { return 0; }
    return printedName(named) === printedName(exception) ? 1 : -1;
  }

  // Python's find: of the first error with a reading whose whole message matches, its most
  // specific such reading; else the first reading with any match. `resultsOf(r)` scores
  // reading r.
  async function choose(all, resultsOf, limit) {
    var whole = null;
    var chosen = null;
    var weak = null;
    for (var r = 0; r < all.length; r++) {
      if (whole && all[r].candidate !== whole[0].candidate) { break; }
      var results = await resultsOf(r);
      // Python's Extracted.whole: read for a whole message only.
      if (all[r].whole && !(results.length && results[0].key[0] === 2)) { continue; }
      if (results.length && results[0].key[0] === 2) {
        if (!whole || compareKeys(results[0].key, whole[1][0].key) < 0) { whole = [all[r], results]; }
      } else if (results.length && !chosen && !results[0].firstLine) {
        chosen = [all[r], results];
      } else if (results.length && !weak) {
        weak = [all[r], results];  // a template's first line: chosen last (Python's find)
      }
    }
    var best = whole || chosen || weak;
    return best ? await answer(best[0], best[1], limit, all.lines) : null;
  }

  // `early`, when given, gets a first answer as soon as the best candidate is known (a few
  // files, see quickAnswer); the whole answer, the one Python gives, always follows.
  async function lookup(paste, limit, early) {
    try {
      return await lookupOnce(paste, limit, early);
    } catch (e) {
      if (!(e instanceof Stale) || reload) { throw e instanceof Stale ? new Error(e.message) : e; }
      reload = true;
      meta = null;
      [shards, chunks, entries, places].forEach(function (map) { map.clear(); });
      return lookupOnce(paste, limit, early);
    }
  }

  async function lookupOnce(paste, limit, early) {
    await load();
    var all = readings(paste);
    // A paste of one line may be all a template's first line says (Python's find: `single`).
    all.forEach(function (r) { r.single = paste.trim().indexOf("\n") < 0; });
    if (early) {
      // First, alone: a browser fetches only a few files from a host at once.
      var first = null;
      try { first = await quickAnswer(all, limit); } catch (e) { /* the whole answer tells */ }
      if (first) { early(first); }
    }
    var chosen = await choose(all, (r) => ranked(all[r]), limit);
    // Python's exceptions_named: a class's name alone, or the error of a message that
    // matches nothing when Python names it with a module of code that raises it; a page
    // lists its errors.
    var pages = M.exception_pages || {};
    // (Only a short paste: a blank at the end of a long one would cost a regular
    // expression time in its square.)
    var name = paste.length > M.params.max_name_paste ? "" :
      paste.replace(/^[ \t\r\n\f\v]+|[ \t\r\n\f\v]+$/g, "").replace(/:$/, "");
    var dotted = /^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$/, error = all[0].exception || "";
    var modules = M.exception_modules || {}, alone = dotted.test(name);
    var of = (e) => has(modules, e) && Array.isArray(modules[e]) ? modules[e] : [];
    return chosen || { query: all[0], matches: [], pages: pages, named: Object.keys(pages).filter(function (e) {
      return alone ? sameException(name, e) > 0 : /\./.test(error) && dotted.test(error) &&
        sameException(error, e) > 0 && !/^(self|cls)\./.test(e) && of(e).indexOf(error.split(".")[0]) >= 0;
    }) };
  }

  // Python's _beneath: the message without a note that ends it in a link, and the error a
  // wrapper names before it in parentheses.
  function beneath(exception, message) {
    var out = [];
    var note = patterns.note.exec(message);
    if (note && note.index > 0) {
      message = message.slice(0, note.index);
      out.push([exception, message]);
    }
    var wrapped = patterns.wrapped.exec(message);
    if (wrapped && /^[A-Z]/.test(wrapped[1].split(".").pop())) { out.push([wrapped[1], wrapped[2]]); }
    return out;
  }

  // The words of a reading: all of them (capped), and those looked up in the index.
  function wordsOf(extracted) {
    var p = M.params;
    var norm = normalize(extracted.message, false, false);
    var words = tokens(norm[0]).slice(0, p.max_words);
    var lookedUp = Array.from(new Set(words)).filter((w) => !isDigits(w))
      .slice(0, p.lookup_words);
    return { norm: norm, words: words, lookedUp: lookedUp };
  }

  function has(object, key) { return Object.prototype.hasOwnProperty.call(object, key); }

  async function postingsOf(words) {
    var postings = new Map();
    await Promise.all(words.map(async function (word) {
      if (has(M.common, word)) { return; }
      var inShard = await cached(shards, shardOf(word), "words/" + shardOf(word) + ".json");
      if (has(inShard, word)) { postings.set(word, inShard[word]); }
    }));
    return postings;
  }

  // Python's shard_of: a word's first prefix characters choose its shard.
  function shardOf(word) {
    return fnv1a(Array.from(word).slice(0, M.params.prefix).join("")) % M.shards;
  }

  // Python's cut_short: a last word cut short stands for the words it starts (their
  // shard is the one fetched for the word itself).
  async function cutShort(read, weight) {
    var cut = new Map();
    var words = read.words;
    var last = words.length ? words[words.length - 1] : "";
    if (cpLength(last) >= 3 && read.lookedUp.indexOf(last) >= 0 && !weight.has(last)) {
      var inShard = await cached(shards, shardOf(last), "words/" + shardOf(last) + ".json");
      var found = new Set();
      Object.keys(inShard).forEach(function (w) {
        if (w.startsWith(last)) { inShard[w].forEach(function (e) { found.add(e); }); }
      });
      if (found.size) {
        cut.set(last, Array.from(found).sort((a, b) => a - b));
        weight.set(last, Math.log(1 + M.count / found.size));
      }
    }
    return cut;
  }

  // A record file holds rows that start with their records' numbers; meta.json's
  // `files` names the file of each number.
  function entriesOf(numbers) {
    return Promise.all(numbers.map(async function (number) {
      var file = M.files[number];
      var rows = await cached(chunks, file, "records/" + file + ".json");
      if (!entries.has(number)) {
        var row = Array.isArray(rows) && rows.find((r) => r[0] === number);
        if (!row) { throw new Stale("search index: records/" + file + ".json has no " + number); }
        entries.set(number, makeEntry(number, row.slice(1)));
      }
      return entries.get(number);
    }));
  }

  // Python's weights, from document frequencies `df(word)`.
  function weigh(lookedUp, df) {
    var weight = new Map();
    lookedUp.forEach(function (w) {
      var d = df(w);
      if (d) { weight.set(w, Math.log(1 + M.count / d)); }
    });
    return weight;
  }

  async function ranked(extracted) {
    var m = M;
    var p = m.params;
    var read = wordsOf(extracted);
    var postings = await postingsOf(read.lookedUp);
    var weight = weigh(read.lookedUp, function (w) {
      return postings.has(w) ? postings.get(w).length : (has(m.common, w) ? m.common[w] : 0);
    });
    var cut = await cutShort(read, weight);
    var scores = new Map();
    var shared = new Map();
    read.lookedUp.slice().sort().forEach(function (word) {
      (cut.get(word) || postings.get(word) || []).forEach(function (e) {
        scores.set(e, (scores.get(e) || 0) + weight.get(word));
        shared.set(e, (shared.get(e) || 0) + 1);
      });
    });
    var ranked = rankings(scores, shared, m.sizes);
    var byWeight = ranked[0].slice(0, p.candidates);
    var complete = ranked[1].slice(0, p.complete_candidates);
    var chosen = new Set(byWeight);
    var numbers = byWeight.concat(complete.filter((e) => !chosen.has(e)));
    return score(extracted, read, weight, await entriesOf(numbers));
  }

  // The candidates by the weight of the words they share with the paste, and by the share
  // of their own words the paste holds (then weight), each as Python's candidates orders.
  function rankings(scores, shared, sizes) {
    var all = Array.from(scores.keys());
    function byWeight(a, b) { return (round(scores.get(b), 9) - round(scores.get(a), 9)) || (a - b); }
    return [all.slice().sort(byWeight), all.slice().sort(function (a, b) {
      return (round(shared.get(b) / sizes[b], 9) - round(shared.get(a) / sizes[a], 9)) || byWeight(a, b);
    })];
  }

  // --- The first answer: a few files, chosen before their postings are known. ---
  var rarityBytes = null;
  function rarityOf(word) {
    if (!rarityBytes) {
      var raw = atob(M.rarity);
      rarityBytes = new Uint8Array(raw.length);
      for (var i = 0; i < raw.length; i++) { rarityBytes[i] = raw.charCodeAt(i); }
    }
    // The sketch keeps log2(1 + df) in steps of 1/rarity_scale: back to a frequency.
    var scaled = rarityBytes[fnv1a(word) % rarityBytes.length];
    return scaled ? Math.pow(2, scaled / M.params.rarity_scale) - 1 : 0;
  }

  // Every reading scored over the shards of the paste's rarest words (by the rarity
  // sketch) and the record files of each reading's best candidates, in turn, within
  // quick_requests files in all, the head included; then chosen as find chooses.
  async function quickAnswer(all, limit) {
    var left = M.params.quick_requests - 1;
    var reads = all.map(wordsOf);
    // The first reading is the likeliest: its words first, then the others', rarest first.
    var rare = [];
    reads.forEach(function (read) {
      read.lookedUp.forEach(function (w) {
        if (!has(M.common, w) && rarityOf(w) && rare.indexOf(w) < 0) { rare.push(w); }
      });
    });
    rare.sort(function (a, b) {
      var first = reads[0].lookedUp;
      return (first.indexOf(b) >= 0) - (first.indexOf(a) >= 0) || rarityOf(a) - rarityOf(b);
    });
    // Word shards take about half the files: record files need the rest.
    var most = Math.ceil(left / 2);
    var keys = new Set();
    var picked = rare.filter(function (w) {
      var key = shardOf(w);
      if (!keys.has(key) && keys.size >= most) { return false; }
      keys.add(key);
      return true;
    });
    if (!picked.length) { return null; }
    left -= keys.size;
    var postings = await postingsOf(picked);
    var weights = reads.map(function (read) {
      return weigh(read.lookedUp, function (w) {
        if (postings.has(w)) { return postings.get(w).length; }
        if (has(M.common, w)) { return M.common[w]; }
        return picked.indexOf(w) >= 0 ? 0 : rarityOf(w);
      });
    });
    // Each reading's candidates: by the weight of the words they share with it, and by
    // how completely it holds their words, alternately.
    var lists = reads.map(function (read, r) {
      var scores = new Map();
      var shared = new Map();
      read.lookedUp.filter((w) => postings.has(w)).sort().forEach(function (w) {
        postings.get(w).forEach(function (e) {
          scores.set(e, (scores.get(e) || 0) + weights[r].get(w));
          shared.set(e, (shared.get(e) || 0) + 1);
        });
      });
      var ranked = rankings(scores, shared, M.sizes);
      var byWeight = ranked[0], complete = ranked[1];
      var out = [];
      for (var k = 0; k < byWeight.length && out.length < M.params.candidates; k++) {
        if (out.indexOf(byWeight[k]) < 0) { out.push(byWeight[k]); }
        if (out.indexOf(complete[k]) < 0) { out.push(complete[k]); }
      }
      return out;
    });
    // Record files for each reading's next candidate in turn, the first reading twice.
    var files = new Set();
    var next = lists.map(() => 0);
    var turns = [0].concat(lists.map((_, r) => r));
    while (left > 0 && lists.some((list, r) => next[r] < list.length)) {
      turns.forEach(function (r) {
        var list = lists[r];
        while (next[r] < list.length && files.has(M.files[list[next[r]]])) {
          next[r] += 1;
        }
        if (next[r] < list.length && left > 0) {
          files.add(M.files[list[next[r]]]);
          left -= 1;
        }
      });
    }
    return choose(all, async function (r) {
      var numbers = lists[r].filter((e) => files.has(M.files[e]));
      return score(all[r], reads[r], weights[r], await entriesOf(numbers));
    }, limit);
  }

  function literalWords(entry) {
    return entry.words.filter((w) => w !== "*").length;
  }

  // Python's first_line: a template's first line, when it runs over several.
  function firstLine(template) {
    var parsed = parseTemplate(template.replace(/^[ \t\r\n\f\v]+/, ""));
    var said = "";
    for (var k = 0; k < parsed.literals.length; k++) {
      var literal = parsed.literals[k].split("\n");
      said += literal[0].replace(/[{}]/g, "$&$&");
      if (literal[1] !== undefined) { return said; }
      if (k < parsed.names.length) { said += "{" + parsed.names[k] + "}"; }
    }
    return null;
  }

  // Python's ranked_matches after the candidates: exact matches first, then scored alignments.
  function score(extracted, read, weight, rows) {
    var p = M.params;
    var message = extracted.message;
    var norm = read.norm;
    var words = read.words;
    var known = words.reduce((sum, w) => sum + (weight.get(w) || 0), 0);
    var unknownWords = words.filter((w) => !weight.has(w) && !isDigits(w));
    var content = known + p.unknown * unknownWords.length;
    var results = [];
    // Python's own message: a record's whole message in the same words, or none.
    var pythons = pythonsOwn(message);
    rows.forEach(function (entry) {
      var number = entry.index;
      var same = sameException(extracted.exception, entry.exception);
      // The whole message; else an alignment of words; else, of a paste of one line, the
      // first line of a message of several (Python's first_line_match: no values).
      if (fits(entry, 0) || aligned()) { return; }
      var line = extracted.single && !pythons && !entry.cut && firstLine(entry.template);
      if (line) { fits(makeEntry(number, [entry.id, 0, 0, line]), 1); }

      function fits(form, f) {
        var literal = form.literals.reduce((s, l) => s + cpLength(l), 0);
        var values = null;
        if (literal >= p.min_literal || !form.names.length) {
          values = exactValues(form, message, norm[0], norm[1]);
        }
        if (!values || (pythons && !saysPythons(form.template)) ||
            (same < 0 && literal < p.min_literal_share_other_type * cpLength(norm[0]))) { return false; }
        var key = f ? [1, p.min_score, 0, same, -number] : [1, p.vague_exact, 1, same, -number];
        // "{name} conflicts with {other}" fits many texts: as good as a fair partial match.
        if (!f && (literalWords(form) >= p.few_words || !form.names.length)) {
          // A fit that left out the closing full stop ranks as if the paste had it.
          var stop = form.literals[form.literals.length - 1].endsWith(".") &&
            !norm[0].endsWith(".") ? 1 : 0;
          key = [2, round(1 + (literal - stop) / Math.max(1, cpLength(norm[0]) + stop), 6), same, -number];
        }
        results.push({ key: key, entry: entry, exact: !f, firstLine: !!f, score: key[1],
          values: f ? [] : values });
        return true;
      }

      function aligned() {
        if (known <= 0 || pythons) { return false; }
        var found = align(words, entry.words, weight, p, extracted.exception === null);
        var score = round(found[0] / known, 6);
        var coverage = found[1] / Math.max(1, literalWords(entry));
        var needed = Math.min(p.min_matched, literalWords(entry), words.length);
        if (score < p.min_score || found[1] < needed || found[2] < p.min_precision * content ||
            (same < 0 && coverage < p.min_coverage_other_type)) { return false; }
        results.push({ key: [1, score, coverage, same, -number], entry: entry, exact: false,
          score: score, values: [] });
        return true;
      }
    });
    results.sort((a, b) => compareKeys(a.key, b.key));
    return results;
  }

  // Python's raising_frame: the file and line of the last frame of the traceback that ends
  // in the error read at `line`, when one stands in the few lines above it.
  function raisingFrame(lines, line) {
    if (line === null || line === undefined) { return null; }
    var above = frameAbove(lines, line);
    if (above !== null || line >= lines.length || !patterns.pytestError.test(lines[line])) { return above; }
    // pytest's long report: the place under the error's "E" lines and a blank.
    for (var b = line + 1; b < Math.min(lines.length, line + 1 + M.params.max_frame_gap); b++) {
      var place = patterns.pytestPlace.exec(lines[b]);
      if (place) { return frameOf(place); }
      if (lines[b].trim() && !patterns.pytestError.test(lines[b])) { break; }
    }
    return null;
  }

  function frameAbove(lines, line) {
    var past = pastListing(lines, line - 1);
    var start = past[0], arrow = past[1];
    for (var n = start; n >= Math.max(0, start + 1 - M.params.max_frame_gap); n--) {
      // A frame line a terminal's width cut in its path is read with the line under it.
      var head = n > 0 && patterns.cutFrame.test(lines[n - 1]) ? n - 1 : n;
      var text = lines.slice(head, n + 1).join("");
      if (patterns.frameStop.test(text) || patterns.errorLine.test(text)) { return null; }
      for (var k = 0; k < patterns.frames.length; k++) {
        var found = patterns.frames[k].exec(text);
        if (!found) { continue; }
        // A script's top, first of its traceback: the paste left out the frames below,
        // unless carets under its code mark what raised there, not a call.
        var code = lines[n + 1] || "", marks = lines[n + 2] || "";
        var at = marks.search(/[^ \t]|$/), indent = code.search(/[^ \t]|$/);
        if (found[2] === "<module>" && !found[1].startsWith("<") && head > 0 &&
            lines[head - 1].indexOf("Traceback (most recent call last)") >= 0 &&
            (!/^[ \t]*[~^]+[ \t]*$/.test(marks) || marks.indexOf("^") < 0 || !indent ||
             indent > at || code.slice(at, marks.replace(/[ \t]+$/, "").length).indexOf("(") >= 0)) {
          return null;
        }
        var frame = frameOf(found);
        if (frame.line === null && arrow !== null) { frame.line = arrow; }
        return frame;
      }
    }
    return null;
  }

  // Python's _past_listing: IPython's listing of a frame's code ending at `start` (or a
  // blank line under it), passed over whole, and the line its arrow marks.
  function pastListing(lines, start) {
    var at = start > 0 && start < lines.length && /^[ \t]*$/.test(lines[start]) ? start - 1 : start;
    var top = at, arrow = null;
    while (top >= 0 && top < lines.length && at - top < M.params.max_listing) {
      var listed = patterns.listing.exec(lines[top]);
      if (!listed) { break; }
      if (arrow === null && listed[1] !== undefined) { arrow = Number(listed[1]); }
      top--;
    }
    return arrow === null ? [start, null] : [top, arrow];
  }

  // Python's same_message: what a reader sees of a template, its exception as printed and
  // its literals.
  function sameMessage(entry) { return [printedName(entry.exception)].concat(entry.literals).join("\u0000"); }

  // Python's _frame: the file a frame names, and its line (`", line 188` or `:188`).
  function frameOf(found) {
    var end = found.index + found[0].indexOf(found[1]) + found[1].length;
    var at = /^(?:",?\s+line\s+([0-9]{1,9})(?![0-9])|:([0-9]{1,9})(?![0-9]))/.exec(found.input.slice(end));
    return { file: found[1].split(/[\\/]/).pop(), line: at ? Number(at[1] || at[2]) : null };
  }

  // Python's _distance: how far a record's line is from the frame's.
  function distance(line, frame) { return frame.line === null ? 0 : Math.abs(line - frame.line); }

  // The first of `items` nearest the frame's line (Python's min).
  function nearest(items, lineOf, frame) {
    var best = null;
    items.forEach(function (item) {
      if (best === null || distance(lineOf(item), frame) < distance(lineOf(best), frame)) { best = item; }
    });
    return best;
  }

  // Python's _raised_in: the record raised at the `frame` that says the words of `first`,
  // from the index's places, when no candidate of them was raised right there.
  async function raisedIn(extracted, first, also, frame) {
    var n = M.place_files;
    var entry = first.entry;
    if (!frame || !n || entry.shared <= 1 + also.length ||
        (entry.file === frame.file && (frame.line === null || frame.line === entry.line))) {
      return null;
    }
    var said = sameMessage(entry);
    var key = ("0000000" + fnv1a(said).toString(16)).slice(-8) + "/" + frame.file;
    var at = fnv1a(key) % n;
    var there;
    try {
      var placed = await cached(places, at, "places/" + at + ".json");
      if (!has(placed, key) || !placed[key].length) { return null; }
      there = (await entriesOf([nearest(placed[key], (p) => p[1], frame)[0]]))[0];
    } catch (e) {
      if (e instanceof Stale) { throw e; }  // the index changed: read it again
      return null;  // a places file missing or damaged: the answer as scored
    }
    if (there.id === entry.id || there.old ||
        sameMessage(there) !== said) { return null; }
    var norm = normalize(extracted.message, false, false);
    var values = first.exact && exactValues(there, extracted.message, norm[0], norm[1]);
    return { entry: there, values: values || first.values };
  }

  async function answer(extracted, results, limit, lines) {
    var frame = lines ? raisingFrame(lines, extracted.line) : null;
    var groups = new Map();
    var seen = new Set();
    results.forEach(function (r) {
      // A record matched by its wording now and an earlier one: the best only.
      if (seen.has(r.entry.id)) { return; }
      seen.add(r.entry.id);
      // One message raised at several places (placeholder names may differ): one result.
      var key = sameMessage(r.entry);
      if (!groups.has(key)) { groups.set(key, []); }
      groups.get(key).push(r);
    });
    var out = await Promise.all(Array.from(groups.values()).slice(0, limit || 5).map(async function (group) {
      // Of records that say the same words, the one raised in the traceback's file,
      // nearest its line.
      var there = frame && nearest(group.filter((r) => r.entry.file === frame.file),
        (r) => r.entry.line, frame);
      if (there) { group = [there].concat(group.filter((r) => r !== there)); }
      var first = group[0];
      var also = group.slice(1).map((r) => r.entry.id);
      var placed = await raisedIn(extracted, first, also, frame);
      var entry = placed ? placed.entry : first.entry;
      if (placed) { also = [first.entry.id].concat(also.filter((id) => id !== entry.id)); }
      return { id: entry.id, exception: entry.exception, repo: entry.repo,
        template: entry.template, exact: first.exact, firstLine: !!first.firstLine, score: first.score,
        values: placed ? placed.values : first.values, also: also,
        elsewhere: Math.max(also.length, entry.shared - 1), wording: entry.old };
    }));
    return { query: extracted, matches: out };
  }

  window.errdexSearch = {
    load: load, lookup: lookup, extract: extract,
    normalize: normalize, tokens: tokens, parseTemplate: parseTemplate, fnv1a: fnv1a,
    exactValues: async function (template, message) {
      await load();
      var entry = makeEntry(0, ["", 0, 0, template]);
      var norm = normalize(message, false, false);
      return exactValues(entry, message, norm[0], norm[1]);
    }
  };
})();
