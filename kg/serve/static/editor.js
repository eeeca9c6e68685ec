// kg serve's query editor: YASGUI (vendored in /static/yasgui/) over this server's /sparql,
// completing this catalog's prefixes and the ontology's classes and properties (never prefix.cc
// or LOV: nothing leaves this origin), with a chart view of our own beside YASR's table.
// Without script the plain form under #kg-editor is the editor; with it, YASGUI takes its place.
// Its tabs and history are kept in this browser (localStorage, YASGUI's persistence: 30 days), and
// its share link (#query=...) opens the query: in a new tab, or the tab that already holds it.
(function () {
  "use strict";
  var holder = document.getElementById("kg-editor");
  if (!holder || typeof Yasgui === "undefined") return;
  var config = JSON.parse(holder.getAttribute("data-config") || "{}");
  var form = holder.querySelector("form");
  var textarea = form.querySelector("textarea[name=query]");
  var endpoint = new URL(form.getAttribute("action"), window.location.href).href;
  var Yasqe = Yasgui.Yasqe, Yasr = Yasgui.Yasr;
  // a query the page brings (a catalog question's text, an error's query) opens in a tab of its own
  var given = holder.getAttribute("data-given");

  // What a link may set in the editor: the query and how it is shown, never where it is sent
  // (YASGUI would take an endpoint, headers and arguments from a share link).
  var SHARED = ["query", "tabTitle", "outputFormat", "outputSettings", "contentTypeSelect", "contentTypeConstruct",
                "namedGraph", "defaultGraph"];
  function linkState() {
    var hash = window.location.hash.replace(/^#/, ""), state = new URLSearchParams(hash || window.location.search);
    var kept = new URLSearchParams();
    state.forEach(function (value, key) { if (SHARED.indexOf(key) >= 0) kept.append(key, value); });
    if (given !== null && !kept.has("query")) {
      kept.set("query", textarea.value);
      kept.set("tabTitle", given === "error" ? "Query with an error" : given);
    }
    return kept.has("query") ? kept : null;
  }
  var state = linkState();
  if (state) {  // YASGUI reads a link's state from the URL's fragment (and clears it)
    var fragment = [];  // percent-encoded (a space as %20: YASGUI's reader would keep a "+")
    state.forEach(function (value, key) { fragment.push(encodeURIComponent(key) + "=" + encodeURIComponent(value)); });
    history.replaceState(null, "", window.location.pathname + window.location.search + "#" + fragment.join("&"));
  }

  // Prefixed names (kg:MCP), as YASR's table writes IRIs: the longest namespace that holds one.
  function prefixed(iri, prefixes) {
    var best = null;
    Object.keys(prefixes || {}).forEach(function (p) {
      var ns = prefixes[p];
      if (ns && iri.indexOf(ns) === 0 && iri.length > ns.length && (!best || ns.length > prefixes[best].length)) best = p;
    });
    return best === null ? iri : best + ":" + iri.slice(prefixes[best].length);
  }

  function starting(list) {  // a completer's get: the IRIs that start with what is typed
    return function (yasqe, token) {
      var typed = (token && token.autocompletionString) || "";
      return list.filter(function (iri) { return iri.indexOf(typed) === 0; });
    };
  }
  Yasqe.forkAutocompleter("prefixes", {
    name: "kgPrefixes", persistenceId: null,
    get: function () {
      return Object.keys(config.prefixes).sort().map(function (p) { return p + ": <" + config.prefixes[p] + ">"; });
    }
  }, false);
  Yasqe.forkAutocompleter("property", {name: "kgProperties", bulk: false, get: starting(config.properties)}, false);
  Yasqe.forkAutocompleter("class", {name: "kgClasses", bulk: false, get: starting(config.classes)}, false);

  // The chart view: one bar per row, the last numeric column against the first other one.
  function numeric(binding) {
    return binding && binding.type !== "uri" && binding.value !== "" && isFinite(Number(binding.value));
  }
  function svg(name, attrs) {
    var el = document.createElementNS("http://www.w3.org/2000/svg", name);
    Object.keys(attrs).forEach(function (k) { el.setAttribute(k, attrs[k]); });
    return el;
  }
  function columns(yasr) {
    var vars = yasr.results.getVariables(), rows = yasr.results.getBindings() || [];
    var numbers = vars.filter(function (v) { return rows.length && rows.every(function (r) { return !r[v] || numeric(r[v]); }) &&
                                                    rows.some(function (r) { return numeric(r[v]); }); });
    var value = numbers[numbers.length - 1];  // the last numeric column: a count or a measure, most often
    var label = vars.filter(function (v) { return v !== value; })[0] || value;
    return {value: value, label: label, rows: rows};
  }
  var MAX_BARS = 60;
  function Chart(yasr) { this.yasr = yasr; this.label = "Chart"; this.priority = 5; }
  Chart.prototype.canHandleResults = function () {
    var r = this.yasr.results;
    return !!(r && r.getVariables && r.getVariables() && r.getVariables().length && columns(this.yasr).value);
  };
  Chart.prototype.getIcon = function () {
    var icon = svg("svg", {viewBox: "0 0 16 16", width: "15", height: "15", "aria-hidden": "true"});
    [[1, 9, 3, 6], [6, 4, 3, 11], [11, 7, 3, 8]].forEach(function (b) {
      icon.appendChild(svg("rect", {x: b[0], y: b[1], width: b[2], height: b[3], fill: "currentColor"}));
    });
    return icon;
  };
  Chart.prototype.draw = function () {
    var c = columns(this.yasr), rows = c.rows.slice(0, MAX_BARS);
    var prefixes = (this.yasr.getPrefixes && this.yasr.getPrefixes()) || config.prefixes;
    var values = rows.map(function (r) { return r[c.value] ? Number(r[c.value].value) : 0; });
    var most = Math.max.apply(null, values.map(Math.abs).concat([1e-9]));
    var bar = 20, left = 260, width = 560, height = rows.length * bar + 30;
    var chart = svg("svg", {"class": "kg-chart", viewBox: "0 0 " + (left + width + 80) + " " + height,
                            width: "100%", role: "img", "aria-label": c.value + " by " + c.label});
    var title = svg("text", {x: 0, y: 14, "class": "kg-chart-title"});
    title.textContent = c.value + " by " + c.label + (c.rows.length > MAX_BARS ? " (the first " + MAX_BARS + " rows)" : "");
    chart.appendChild(title);
    rows.forEach(function (r, i) {
      var y = 24 + i * bar, w = Math.abs(values[i]) / most * width;
      var cell = r[c.label], name = !cell ? "" : cell.type === "uri" ? prefixed(cell.value, prefixes) : cell.value;
      var full = cell ? cell.value : "";
      var text = svg("text", {x: left - 6, y: y + 13, "text-anchor": "end", "class": "kg-chart-label"});
      // a long IRI no prefix shortens keeps its end (the part that tells one from another), text its start
      var iri = cell && cell.type === "uri" && name === full;
      text.textContent = name.length <= 40 ? name : iri ? "\u2026" + name.slice(-39) : name.slice(0, 39) + "\u2026";
      var rect = svg("rect", {x: left, y: y + 2, width: Math.max(w, 1), height: bar - 5, "class": "kg-chart-bar"});
      var tip = svg("title", {}); tip.textContent = full + ": " + values[i]; rect.appendChild(tip);
      var number = svg("text", {x: left + w + 4, y: y + 13, "class": "kg-chart-value"});
      number.textContent = String(values[i]);
      chart.appendChild(text); chart.appendChild(rect); chart.appendChild(number);
    });
    var box = document.createElement("div");
    box.className = "kg-chart-box";
    box.appendChild(chart);
    this.yasr.resultsEl.appendChild(box);
  };
  Yasr.registerPlugin("chart", Chart);

  var editor = document.createElement("div");
  editor.id = "kg-yasgui";
  holder.insertBefore(editor, form);
  form.hidden = true;
  var yasgui = new Yasgui(editor, {
    requestConfig: {endpoint: endpoint, method: "POST"},
    copyEndpointOnNewTab: true, persistenceId: "kg-editor", autofocus: false,
    populateFromUrl: function (tab) {  // a link's tab queries this server, whatever the link said
      tab.requestConfig = Object.assign({}, tab.requestConfig, {endpoint: endpoint});
      return tab;
    },
    endpointCatalogueOptions: {getData: function () { return [{endpoint: endpoint}]; }},
    yasqe: {value: textarea.value, autocompleters: ["kgPrefixes", "kgProperties", "kgClasses", "variables"],
            resizeable: true, editorHeight: "320px"},
    yasr: {prefixes: config.prefixes, defaultPlugin: "table", pluginOrder: ["table", "chart", "response"]}
  });
  // YASGUI keeps a tab's text when the editor loses focus or runs it; a reload comes before either, so
  // the text is kept as it is typed (a moment after the last key) and when the page goes away.
  function keep(tab) {
    var yasqe = tab && tab.getYasqe();
    if (yasqe && typeof tab.handleYasqeBlur === "function") tab.handleYasqeBlur(yasqe);
  }
  function watch(tab) {
    var yasqe = tab && tab.getYasqe(), timer = null;
    if (!yasqe || yasqe.kgWatched) return;
    yasqe.kgWatched = true;
    yasqe.on("change", function () { clearTimeout(timer); timer = setTimeout(function () { keep(tab); }, 250); });
  }
  watch(yasgui.getTab());
  yasgui.on("tabSelect", function (y, id) { setTimeout(function () { watch(yasgui.getTab(id)); }, 0); });
  yasgui.on("tabAdd", function (y, id) { setTimeout(function () { watch(yasgui.getTab(id)); }, 0); });
  window.addEventListener("pagehide", function () { keep(yasgui.getTab()); });

  if (state && given !== "error") {  // the query page's own address again: a reload shows the tabs as they are
    history.replaceState(null, "", window.location.pathname);
  }
  window.kgYasgui = yasgui;  // for the browser tests and the curious
})();
