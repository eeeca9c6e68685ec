// kg serve's query editor: YASGUI (vendored in /static/yasgui/) over this server's /sparql,
// completing this catalog's prefixes and the ontology's classes and properties (never prefix.cc
// or LOV: nothing leaves this origin), with a chart view of our own beside YASR's table.
// Without script the plain form under #kg-editor is the editor; with it, YASGUI takes its place.
(function () {
  "use strict";
  var holder = document.getElementById("kg-editor");
  if (!holder || typeof Yasgui === "undefined") return;
  var config = JSON.parse(holder.getAttribute("data-config") || "{}");
  var form = holder.querySelector("form");
  var textarea = form.querySelector("textarea[name=query]");
  var endpoint = new URL(form.getAttribute("action"), window.location.href).href;
  var Yasqe = Yasgui.Yasqe, Yasr = Yasgui.Yasr;

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
      var name = r[c.label] ? r[c.label].value : "";
      var text = svg("text", {x: left - 6, y: y + 13, "text-anchor": "end", "class": "kg-chart-label"});
      text.textContent = name.length > 40 ? name.slice(0, 39) + "\u2026" : name;
      var rect = svg("rect", {x: left, y: y + 2, width: Math.max(w, 1), height: bar - 5, "class": "kg-chart-bar"});
      var tip = svg("title", {}); tip.textContent = name + ": " + values[i]; rect.appendChild(tip);
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
    copyEndpointOnNewTab: true, persistenceId: null, populateFromUrl: false, autofocus: false,
    endpointCatalogueOptions: {getData: function () { return [{endpoint: endpoint}]; }},
    yasqe: {value: textarea.value, autocompleters: ["kgPrefixes", "kgProperties", "kgClasses", "variables"],
            resizeable: true, editorHeight: "320px"},
    yasr: {prefixes: config.prefixes, defaultPlugin: "table", pluginOrder: ["table", "chart", "response"]}
  });
  window.kgYasgui = yasgui;  // for the browser tests and the curious
})();
