// errdex: small comforts on top of pages that work without JavaScript.
(function () {
  "use strict";
  function copyText(text) {
    if (navigator.clipboard && window.isSecureContext) {
      return navigator.clipboard.writeText(text);
    }
    // Older browsers and plain-HTTP hosts: copy through a hidden selection.
    return new Promise(function (resolve, reject) {
      var area = document.createElement("textarea");
      area.value = text;
      area.setAttribute("readonly", "");
      area.style.position = "fixed";
      area.style.opacity = "0";
      document.body.appendChild(area);
      area.select();
      var ok = document.execCommand("copy");
      document.body.removeChild(area);
      if (ok) { resolve(); } else { reject(new Error("copy refused")); }
    });
  }

  function addCopyButton(block) {
    var pre = block.querySelector("pre");
    if (!pre) { return; }
    var button = document.createElement("button");
    button.type = "button";
    button.className = "copy";
    // A before-and-after fix copies its "after" part (the build's data-copy).
    var label = block.dataset.copy ? "Copy fix" : "Copy";
    button.textContent = label;
    button.setAttribute("aria-label", label + " code");
    var status = document.createElement("span");
    status.className = "visually-hidden";
    status.setAttribute("role", "status");
    button.addEventListener("click", function () {
      copyText(block.dataset.copy || pre.innerText.replace(/\n$/, "")).then(function () {
        button.textContent = "Copied";
        status.textContent = "Code copied";
      }, function () {
        button.textContent = "Press Ctrl+C";
        var range = document.createRange();
        range.selectNodeContents(pre);
        var selection = window.getSelection();
        selection.removeAllRanges();
        selection.addRange(range);
      });
      window.setTimeout(function () {
        button.textContent = label;
        status.textContent = "";
      }, 2000);
    });
    block.appendChild(button);
    block.appendChild(status);
  }

  document.querySelectorAll(".copyable").forEach(addCopyButton);

  // --- Search: results as the user types or pastes; arrows move, Enter opens. ---
  var search = window.errdexSearch;
  var root = document.documentElement.getAttribute("data-root") || "";

  // A message template as a reader sees it: a brace written twice is one (Python's display).
  function shown(template) {
    return template.replace(/\{\{|\}\}/g, (pair) => pair.charAt(0));
  }

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) { node.className = className; }
    if (text !== undefined) { node.textContent = text; }
    return node;
  }

  function pageUrl(id, message) {
    return root + "errors/" + id + "/?q=" + encodeURIComponent(message);
  }

  function setUp(form) {
    var box = form.querySelector("input, textarea");
    var main = form.classList.contains("search-main");
    // The box is a combobox only with this script: the page is written without these.
    var id = box.id.replace(/^q-/, "results-");
    form.insertAdjacentHTML("beforeend", '<p class="search-status" role="status" aria-live="polite">' +
      '</p><ul class="results" id="' + id + '" role="listbox" aria-label="Matching errors" hidden></ul>');
    var status = form.querySelector(".search-status");
    var list = form.querySelector(".results");
    // ARIA lets a one-line box be a combobox, not a multi-line one: that one only
    // controls the list (its status line says what the list holds).
    var combo = box.tagName == "INPUT";
    box.setAttribute("aria-controls", id);
    if (combo) { box.setAttribute("role", "combobox"); box.setAttribute("aria-autocomplete", "list"); }
    function expand(open) { if (combo) { box.setAttribute("aria-expanded", open); } }
    expand(false);
    var active = -1;
    var timer = null;
    var pasted = null;
    var serial = 0;

    function options() { return Array.prototype.slice.call(list.querySelectorAll("[role=option]")); }

    function hide() {
      list.hidden = true;
      expand(false);
    }

    // A result's page, here or, as a link's with Ctrl, Cmd, Shift or the middle button,
    // in a new tab.
    function go(href, event) {
      if (event.ctrlKey || event.metaKey || event.shiftKey || event.button === 1) {
        window.open(href, "_blank", "noopener");
      } else {
        window.location.href = href;
      }
    }

    // Enter, or the form's button: the chosen result's page (the first if none is chosen).
    // With none, the search page answers below its box, and the address keeps the paste
    // for a reload; another page's box opens the search page. A paste longer than an
    // address may carry (servers refuse a whole traceback in one) goes in the tab's
    // storage, the address marked #pasted.
    function open(event) {
      var all = options();
      var text = pasted || box.value;
      var fits = new URLSearchParams({ q: text }).toString().length <= LONG;
      if (all.length) {
        event.preventDefault();
        go(all[Math.max(active, 0)].getAttribute("data-href"), event);
      } else if (event.type !== "submit") {
        return;  // Enter: the box's own (a new line in the big one), then the form's submit
      } else if (main) {
        event.preventDefault();
        run();
        if (fits || hand(text)) {
          history.replaceState(null, "", fits ? "?q=" + encodeURIComponent(text) : location.pathname + PASTED);
        }
      } else if (!fits && hand(text)) {  // (with no storage, the address it is)
        event.preventDefault();
        window.location.href = form.action + PASTED;
      }
    }

    function select(index) {
      var all = options();
      if (!all.length) { return; }
      active = (index + all.length) % all.length;
      all.forEach(function (o, i) { o.setAttribute("aria-selected", i === active ? "true" : "false"); });
      box.setAttribute("aria-activedescendant", all[active].id);
      all[active].scrollIntoView({ block: "nearest" });
    }

    // `partial`: the first answer, which the whole one replaces (the list is busy till then).
    function show(result, partial) {
      // The option chosen with the arrow keys stays chosen when the answer is shown again
      // (the whole answer after the first), wherever it now stands.
      var chosen = active >= 0 && options()[active] ? options()[active].getAttribute("data-href") : null;
      list.textContent = "";
      list.setAttribute("aria-busy", partial ? "true" : "false");
      active = -1;
      box.removeAttribute("aria-activedescendant");
      // A class's name alone, or an error of no matching message that Python names with its
      // module: the page of each exception it names lists its errors.
      var named = (result.named || []).map(function (name) {
        var page = result.pages[name];  // an error's own page: a site lists no one error
        return { href: root + page, exception: name, repo: "", exact: true, values: [],
          template: (page.indexOf("errors/") ? "Every error raised as " : "The one error raised as ") + name };
      });
      var matches = result.matches.length ? result.matches : named;
      // Search reads only the end of a very long paste: say so rather than cut it silently.
      var note = result.query.cut ? " Only the end of this long paste was read." : "";
      if (!matches.length) {
        status.textContent = "No error in this index matches. Try the message line alone, or fewer words." + note;
        hide();
        return;
      }
      status.textContent = (named === matches ? "No error matches: the errors of the exception named" :
        matches.length === 1 ? "1 matching error" : matches.length + " matching errors") + note;
      matches.forEach(function (m, i) {
        var item = el("li", "result");
        item.id = list.id + "-" + i;
        item.setAttribute("role", "option");
        item.setAttribute("aria-selected", "false");
        // An option holds no link of its own (no interactive element inside another):
        // a click or Enter opens the address it carries, in a new tab as a link's would.
        var link = el("span", "result-link");
        item.setAttribute("data-href", m.href || pageUrl(m.id, result.query.message));
        ["click", "auxclick"].forEach(function (type) {
          item.addEventListener(type, function (event) {
            if (event.button < 2) { event.preventDefault(); go(item.getAttribute("data-href"), event); }
          });
        });
        var head = el("span", "result-head");
        head.appendChild(el("span", "badge", m.exception));
        head.appendChild(el("span", "result-repo", m.repo + (m.exact ? "" : m.firstLine ? " · first line matches" : " · partial match")));
        link.appendChild(head);
        // A message may run to thousands of words: laying all of it out costs every keystroke.
        var said = shown(m.template);
        var title = said.length > 400 ? said.slice(0, 400) + "\u2026" : said;
        link.appendChild(el("span", "result-title", title));
        if (m.values.length) {
          var values = el("span", "result-values");
          once(m.values).forEach(function (pair, k) {
            if (k) { values.appendChild(document.createTextNode(", ")); }
            values.appendChild(el("var", "ph-name", pair[0]));
            values.appendChild(document.createTextNode(" = "));
            values.appendChild(el("code", "", pair[1] === "" ? "(empty)" : pair[1]));
          });
          link.appendChild(values);
        }
        if (m.wording) {
          link.appendChild(el("span", "result-wording", "You pasted the wording of " + m.wording.until +
            "; since " + m.wording.since + " it reads: " + shown(m.wording.now)));
        }
        if (m.elsewhere) {
          link.appendChild(el("span", "result-also", "Also raised at " + m.elsewhere + " other place" + (m.elsewhere === 1 ? "" : "s")));
        }
        item.appendChild(link);
        list.appendChild(item);
      });
      list.hidden = false;
      expand(true);
      var again = options().map((o) => o.getAttribute("data-href")).indexOf(chosen);
      if (again >= 0) { select(again); }
    }

    function run() {
      var text = pasted !== null ? pasted : box.value;
      var mine = ++serial;
      if (!text.trim()) {
        hide();
        status.textContent = "";
        return;
      }
      // The first answer shows as soon as its few files are in; the whole one replaces it.
      var early = function (result) { if (mine === serial) { show(result, true); } };
      search.lookup(text, 8, early).then(function (result) {
        if (mine === serial) { show(result, false); }
      }, function () {
        status.textContent = "Search is not available right now.";
      });
    }

    function later() {
      window.clearTimeout(timer);
      timer = window.setTimeout(run, 60);
    }

    box.addEventListener("paste", function (event) {
      var text = (event.clipboardData || window.clipboardData).getData("text");
      if (box.tagName === "INPUT" && text.indexOf("\n") >= 0) {
        // An input drops line breaks, and with them the shape of a traceback: keep the
        // paste as it was for matching, and show the message it is about.
        event.preventDefault();
        pasted = text;
        search.load().then(function () {
          box.value = search.extract(text).message;
          run();
        });
        return;
      }
      pasted = null;
      later();
    });
    box.addEventListener("input", function () { pasted = null; later(); });
    // What the first query needs before anything else: fetched while the user pastes.
    box.addEventListener("focus", function () { search.load().catch(function () {}); });
    box.addEventListener("keydown", function (event) {
      if (event.key === "ArrowDown") { event.preventDefault(); select(active + 1); }
      else if (event.key === "ArrowUp") { event.preventDefault(); select(active - 1); }
      else if (event.key === "Escape") { hide(); }
      else if (event.key === "Enter" && !event.shiftKey) { open(event); }
    });
    form.addEventListener("submit", open);
    var query = new URLSearchParams(window.location.search).get("q");
    if (main && !query && window.location.hash === PASTED) {
      try { query = sessionStorage.getItem(HANDED); } catch (e) { query = null; }
    }
    if (query && main) {
      box.value = query;
      run();
    }
  }

  var LONG = 2000;  // the characters of an encoded paste an address may carry
  var HANDED = "errdex-paste";
  var PASTED = "#pasted";

  // Each (name, value) pair once: a placeholder a message says twice shows once.
  function once(pairs) {
    var seen = {};
    return pairs.filter(function (p) { var k = JSON.stringify(p); return !seen[k] && (seen[k] = 1); });
  }

  // A paste kept in the tab's storage for the search page; false where there is none.
  function hand(text) {
    try {
      sessionStorage.setItem(HANDED, text);
      return true;
    } catch (e) {
      return false;
    }
  }

  if (search) {
    document.querySelectorAll("form[data-search]").forEach(setUp);
  }

  document.addEventListener("keydown", function (event) {
    var tag = (event.target.tagName || "").toLowerCase();
    if (event.key !== "/" || tag === "input" || tag === "textarea" || event.target.isContentEditable) {
      return;
    }
    var box = document.querySelector(".search-main textarea, .search-header input");
    if (box) { event.preventDefault(); box.focus(); }
  });

  // --- An error page's comforts, written here once rather than on every page. ---
  var article = document.querySelector("article.error[data-id]");

  // "On this page", from the article's section headings (CSS shows it on wide screens).
  function tableOfContents() {
    var headings = article.querySelectorAll("section > h2[id]");
    var layout = article.parentNode;
    if (headings.length < 2 || !layout.classList.contains("layout") || layout.querySelector(".toc")) {
      return;  // a site's own template may write its own
    }
    var nav = layout.appendChild(el("aside", "toc")).appendChild(el("nav"));
    nav.setAttribute("aria-label", "On this page");
    nav.appendChild(el("p", "toc-title", "On this page"));
    var list = nav.appendChild(el("ul"));
    headings.forEach(function (h) {
      list.appendChild(el("li")).appendChild(el("a", "", h.textContent)).href = "#" + h.id;
    });
  }

  // "Report an issue" (``report_url``, in errdex's footer or a site's own) opens a new
  // issue titled with the error's id; the title and a link to this page are added here.
  function prefillReport(link) {
    var url = new URL(link.href);
    var title = document.querySelector("meta[property='og:title']");
    var page = document.querySelector("link[rel=canonical]") || window.location;
    url.searchParams.set("title", "[" + article.dataset.id + "] " + (title ? title.content : document.title));
    url.searchParams.set("body", "Page: " + page.href + "\n\nWhat is wrong or missing on this page?\n");
    link.href = url.href;
  }

  if (article) {
    tableOfContents();
    var report = "a[href$='/issues/new?title=%5B" + article.dataset.id + "%5D']";
    document.querySelectorAll(report).forEach(prefillReport);
  }

  // A box the script fills, made after ``after`` the first time it is needed (none
  // where a site's own template has neither).
  function box(className, after) {
    var found = article.querySelector("." + className);
    if (!found && after) {
      found = el("div", className);
      after.parentNode.insertBefore(found, after.nextSibling);
    }
    return found;
  }

  // --- An error page opened from search shows the user's own values. ---
  var paste = new URLSearchParams(window.location.search).get("q");
  // The wording now first, then the earlier ones (a paste from an older release).
  function valuesIn(templates, paste) {
    if (!templates.length) { return Promise.resolve(null); }
    return search.exactValues(templates[0], paste).then(function (values) {
      return values ? { template: templates[0], values: values } : valuesIn(templates.slice(1), paste);
    });
  }

  // --- How to avoid it, with the user's values: errdex/source/avoid.py's hints, kept in step
  // by tests/avoid/vectors.yaml. ---
  var INTEGER = /^-?[0-9]{1,15}$/;
  var MAX_DIVISORS = 12;
  var MAX_FACTORED = 1e12;

  function either(items) {
    if (items.length === 1) { return items[0]; }
    return items.slice(0, -1).join(", ") + " or " + items[items.length - 1];
  }

  function lookupValue(operand, values) {
    if (!operand) { return null; }
    if (operand.number !== undefined) { return String(operand.number); }
    var keys = operand.keys || [];
    for (var i = 0; i < keys.length; i++) {
      if (Object.prototype.hasOwnProperty.call(values, keys[i])) { return values[keys[i]]; }
    }
    return null;
  }

  function integer(text) {
    return text !== null && INTEGER.test(text) ? parseInt(text, 10) : null;
  }

  function divisors(number) {
    var small = [], large = [];
    for (var step = 1; step * step <= number; step++) {
      if (number % step === 0) {
        small.push(step);
        if (step * step !== number) { large.push(number / step); }
      }
    }
    return small.concat(large.reverse());
  }

  function nearest(found, near) {
    if (found.length <= MAX_DIVISORS) { return found; }
    var centre = near === null ? 0 : near;
    var chosen = found.slice().sort(function (a, b) {
      return Math.abs(a - centre) - Math.abs(b - centre) || a - b;
    }).slice(0, MAX_DIVISORS);
    return chosen.sort((a, b) => a - b);
  }

  function hint(term, values) {
    var subject = term.subject, other = term.other;
    var mine = subject.length ? null : lookupValue(subject, values);
    var yours = mine === null || subject.number !== undefined ? "" : "; yours is " + mine;
    if (term.kind === "divisible" && other) {
      var whole = integer(mine);
      var part = integer(lookupValue(other, values));
      if (whole !== null && whole > 0 && whole <= MAX_FACTORED) {
        var told = part === null || other.number !== undefined ? "" : "; yours is " + part;
        return other.label + ": " + either(nearest(divisors(whole), part).map(String)) +
          " (the divisors of " + subject.label + " = " + whole + ")" + told;
      }
      if (part !== null && part > 0 && mine === null && other.number === undefined) {
        return subject.label + ": a multiple of " + part;
      }
      return null;
    }
    if (term.kind === "compare" && other) {
      var bound = lookupValue(other, values);
      if (bound === null || other.number !== undefined) { return null; }
      if ([">", ">=", "<", "<=", "==", "!="].indexOf(term.op) < 0) { return null; }
      var number = integer(bound);
      var wanted = number !== null ? {
        ">": (number + 1) + " or more", ">=": number + " or more",
        "<": (number - 1) + " or less", "<=": number + " or less",
        "==": String(number), "!=": "anything but " + number
      }[term.op] : {
        ">": "above " + bound, ">=": bound + " or more", "<": "below " + bound,
        "<=": bound + " or less", "==": bound, "!=": "anything but " + bound
      }[term.op];
      if (subject.length) { return subject.label + ": " + wanted + " items"; }
      return subject.label + ": " + wanted + yours;
    }
    return null;
  }

  function avoidHints(ways, values) {
    return ways.map(function (terms) {
      return terms.map((term) => hint(term, values))
        .filter((found) => found !== null);
    });
  }
  window.errdexAvoid = { hints: avoidHints };

  function showAvoidHints(avoid, values) {
    var section = document.querySelector("section.avoid");
    if (!section || !avoid) { return; }
    var named = {};
    values.forEach(function (pair) { named[pair[0]] = pair[1]; });
    var ways = avoid.ways.map((way) => way.terms);
    var found = avoidHints(ways, named);
    var lines = [];
    found.forEach(function (hints) { lines = lines.concat(hints); });
    if (!lines.length) { return; }
    var shown = box("yours-avoid", section.querySelector("ul.ways"));
    if (!shown) { return; }
    shown.appendChild(el("p", "yours-label", "With your values:"));
    var list = el("ul", "yours-hints");
    lines.forEach(function (line) { list.appendChild(el("li", "", line)); });
    shown.appendChild(list);
    shown.hidden = false;
  }

  // The page's message and how to avoid it, as its JSON document says them (at its
  // address by the URL contract): the page itself does not carry them twice for the
  // few visits that come with a paste. None when it cannot be read.
  function pageDocument() {
    var url = root + "api/errors/" + article.getAttribute("data-id") + ".json";
    return fetch(url).then((response) => response.ok ? response.json() : null);
  }

  if (search && article && paste) {
    var earlier = JSON.parse(article.getAttribute("data-earlier") || "[]");
    var avoid = null;
    pageDocument().then(function (record) {
      if (!record) { return null; }
      avoid = record.avoid;
      var wordings = [record.message].concat(earlier);
      return valuesIn(wordings, paste).then(function (found) {
        if (found) { return found; }
        // A whole traceback or log line in ?q=: its error message, as search reads it.
        var message = search.extract(paste).message;
        return message && message !== paste ? valuesIn(wordings, message) : null;
      });
    }).then(function (found) {
      if (!found) { return; }
      var template = found.template;
      var values = found.values;
      showAvoidHints(avoid, values);
      var yours = box("yours", article.querySelector("h1.message"));
      if (!yours) { return; }
      yours.appendChild(el("p", "yours-label", "Your error, with your values:"));
      var code = el("code", "yours-message");
      var parts = search.parseTemplate(template);
      parts.literals.forEach(function (literal, i) {
        code.appendChild(document.createTextNode(literal));
        if (i < values.length) {
          var value = el("mark", "value", values[i][1]);
          value.title = values[i][0];
          code.appendChild(value);
        }
      });
      yours.appendChild(code);
      var list = el("dl", "yours-values");
      once(values).forEach(function (pair) {
        list.appendChild(el("dt", "", pair[0]));
        list.appendChild(el("dd", "", pair[1] === "" ? "(empty)" : pair[1]));
      });
      yours.appendChild(list);
      yours.hidden = false;
    });
  }
})();
