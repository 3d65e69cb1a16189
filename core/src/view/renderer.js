// The renderer every view shares. It speaks the MCP Apps protocol (2026-01-26) with the host
// over postMessage and draws a tool result's structuredContent as the view's layout says.
// Values from results only ever become text: nodes are built with createElement and
// textContent, links open through the host (ui/open-link), and nothing is fetched. Fields are
// read only as a value's own properties (a field named `constructor` is not Object's), and
// every text from the API sits in its own <bdi>, so direction marks in it cannot reorder the
// text around it.
(function () {
  "use strict";
  var layout = JSON.parse(document.getElementById("mcpgen-layout").textContent);
  var view = document.getElementById("view");
  var pending = Object.create(null);
  var nextId = 1;
  var locale;
  var timeZone;
  var args = {};
  var shown = null;
  var size = { width: 0, height: 0 };
  var LONG = 160;

  function post(message) {
    window.parent.postMessage(message, "*");
  }

  function request(method, params) {
    var id = nextId++;
    post({ jsonrpc: "2.0", id: id, method: method, params: params });
    return new Promise(function (resolve, reject) {
      pending[id] = { resolve: resolve, reject: reject };
    });
  }

  function notify(method, params) {
    post({ jsonrpc: "2.0", method: method, params: params || {} });
  }

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function isObject(value) {
    return value !== null && typeof value === "object" && !Array.isArray(value);
  }

  // `object[key]` when it is the object's own property, else undefined.
  function own(object, key) {
    return isObject(object) && Object.prototype.hasOwnProperty.call(object, key) ? object[key] : undefined;
  }

  function at(value, path) {
    for (var i = 0; path && i < path.length; i++) value = own(value, path[i]);
    return value;
  }

  // Text from the API, isolated from what stands beside it.
  function isolated(className, text) {
    var node = el("bdi", className, text);
    node.dir = "auto";
    return node;
  }

  // Direction and override marks, written in JSON as the escapes they may be.
  var MARKS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

  function number(value) {
    return typeof value === "number" && isFinite(value) ? value : null;
  }

  function muted(text) {
    return el("span", "muted", text);
  }

  function json(value) {
    var written = JSON.stringify(value, null, 2).replace(MARKS, function (mark) {
      return "\\u" + mark.charCodeAt(0).toString(16).padStart(4, "0");
    });
    return el("pre", "json", written);
  }

  function plain(value) {
    return typeof value === "object" ? json(value) : text(String(value));
  }

  // `summary`: a node, or text of the view's own.
  function folded(summary, body) {
    var details = el("details", "fold");
    var line = el("summary", null, typeof summary === "string" ? summary : undefined);
    if (typeof summary !== "string") line.appendChild(summary);
    details.appendChild(line);
    details.appendChild(body);
    return details;
  }

  function text(value) {
    if (value.length <= LONG) return isolated("text", value);
    var start = el("span");
    start.appendChild(isolated("text", value.slice(0, LONG - 40).trimEnd()));
    start.appendChild(document.createTextNode("…"));
    var long = el("div", "long");
    long.appendChild(isolated(null, value));
    return folded(start, long);
  }

  function badge(value) {
    var label = String(value);
    var hash = 0;
    for (var i = 0; i < label.length; i++) hash = (hash * 31 + label.charCodeAt(i)) >>> 0;
    return isolated("badge b" + (hash % 6), label);
  }

  function moment(value, dateOnly) {
    var when = new Date(value);
    if (typeof value !== "string" || isNaN(when.getTime())) return plain(value);
    var node = el("time");
    node.dateTime = value;
    node.title = value;
    try {
      node.textContent = dateOnly
        ? when.toLocaleDateString(locale, { dateStyle: "medium", timeZone: "UTC" })
        : when.toLocaleString(locale, { dateStyle: "medium", timeStyle: "short", timeZone: timeZone });
    } catch (e) {
      node.textContent = dateOnly ? when.toLocaleDateString() : when.toLocaleString();
    }
    return node;
  }

  function link(value) {
    var target = String(value);
    var allowed = false;
    try {
      allowed = ["http:", "https:", "mailto:"].indexOf(new URL(target).protocol) >= 0;
    } catch (e) {
      allowed = false;
    }
    if (!allowed) return text(target);
    var node = el("a", "link");
    node.appendChild(isolated(null, target));
    node.title = target;
    node.tabIndex = 0;
    node.setAttribute("role", "link");
    function open(event) {
      event.preventDefault();
      request("ui/open-link", { url: target }).catch(function () {});
    }
    node.addEventListener("click", open);
    node.addEventListener("keydown", function (event) {
      if (event.key === "Enter") open(event);
    });
    return node;
  }

  function count(n, one, many) {
    return n + " " + (n === 1 ? one : many);
  }

  // One value as its field says; `inCell`: inside a table cell, where nested values fold.
  function value(v, field, inCell) {
    if (v === null || v === undefined) return muted("—");
    switch (field.kind) {
      case "enum":
        return typeof v === "object" ? json(v) : badge(v);
      case "number":
        return number(v) !== null ? el("span", "number", v.toLocaleString(locale)) : plain(v);
      case "id":
        // An identifier, written as it is: no grouping, no rounding.
        return typeof v === "object" ? json(v) : isolated("id", String(v));
      case "bool":
        return typeof v === "boolean" ? el("span", "bool", v ? "Yes" : "No") : plain(v);
      case "datetime":
        return moment(v, false);
      case "date":
        return moment(v, true);
      case "uri":
        return typeof v === "string" ? link(v) : plain(v);
      case "object":
        if (!isObject(v)) return plain(v);
        return inCell ? folded("Details", card(v, field.fields)) : card(v, field.fields);
      case "table":
        if (!Array.isArray(v)) return plain(v);
        if (!v.length) return muted("none");
        return inCell ? folded(count(v.length, "item", "items"), table(v, field.fields)) : table(v, field.fields);
      case "list":
        if (!Array.isArray(v)) return plain(v);
        var list = el("ul", "list");
        v.forEach(function (item) {
          var entry = el("li");
          entry.appendChild(value(item, field.fields[0], true));
          list.appendChild(entry);
        });
        return list;
      case "json":
        if (typeof v !== "object") return text(String(v));
        return inCell ? folded("JSON", json(v)) : json(v);
      default:
        return plain(v);
    }
  }

  function card(object, fields) {
    var list = el("dl", "card");
    fields.forEach(function (field) {
      if (!isObject(object) || !Object.prototype.hasOwnProperty.call(object, field.key)) return;
      var term = el("dt", null, field.label);
      if (field.help) term.title = field.help;
      var detail = el("dd");
      detail.dataset.key = field.key;
      detail.appendChild(value(object[field.key], field, false));
      list.appendChild(term);
      list.appendChild(detail);
    });
    return list;
  }

  function sortKey(v) {
    if (v === null || v === undefined) return null;
    if (typeof v === "number" || typeof v === "boolean") return Number(v);
    if (typeof v === "string") {
      var time = /^\d{4}-\d\d-\d\d/.test(v) ? Date.parse(v) : NaN;
      return isNaN(time) ? v.toLowerCase() : time;
    }
    return JSON.stringify(v);
  }

  function compare(a, b) {
    if (a === b) return 0;
    if (a === null) return 1;
    if (b === null) return -1;
    if (typeof a === "number" && typeof b === "number") return a - b;
    return String(a).localeCompare(String(b), locale);
  }

  function table(rows, fields) {
    var wrap = el("div", "table-wrap");
    var grid = el("table");
    var head = el("tr");
    var body = el("tbody");
    var order = { index: -1, direction: 1 };
    function fill() {
      body.replaceChildren();
      var sorted = rows.slice();
      if (order.index >= 0) {
        var key = fields[order.index].key;
        sorted.sort(function (a, b) {
          return order.direction * compare(sortKey(at(a, [key])), sortKey(at(b, [key])));
        });
      }
      sorted.forEach(function (row) {
        var line = el("tr");
        fields.forEach(function (field) {
          var cell = el("td");
          cell.dataset.key = field.key;
          cell.appendChild(value(own(row, field.key), field, true));
          line.appendChild(cell);
        });
        body.appendChild(line);
      });
    }
    fields.forEach(function (field, index) {
      var th = el("th");
      th.scope = "col";
      var button = el("button", "sort", field.label);
      button.type = "button";
      if (field.help) th.title = field.help;
      button.addEventListener("click", function () {
        order.direction = order.index === index ? -order.direction : 1;
        order.index = index;
        Array.prototype.forEach.call(head.children, function (other) {
          other.removeAttribute("aria-sort");
        });
        th.setAttribute("aria-sort", order.direction > 0 ? "ascending" : "descending");
        fill();
      });
      th.appendChild(button);
      head.appendChild(th);
    });
    var thead = el("thead");
    thead.appendChild(head);
    grid.appendChild(thead);
    grid.appendChild(body);
    fill();
    wrap.appendChild(grid);
    return wrap;
  }

  // The arguments of the next (step 1) or previous (step -1) page, or null when there is none.
  function pageArgs(data, rows, step) {
    var p = layout.paging;
    var next = Object.assign({}, args);
    var flag = p.more ? at(data, p.more) : undefined;
    if (p.mode === "cursor") {
      var cursor = at(data, p.next);
      if (step < 0 || flag === false || cursor === null || cursor === undefined || cursor === "") return null;
      next[p.arg] = cursor;
      return next;
    }
    var limit = p.size ? number(own(args, p.size)) : null;
    if (step > 0 && (flag === false || !rows.length || (flag !== true && limit !== null && rows.length < limit))) return null;
    if (p.mode === "page") {
      var current = number(at(data, p.next)) || number(own(args, p.arg)) || 1;
      var pages = p.pages ? number(at(data, p.pages)) : null;
      if (step > 0 && pages !== null && current >= pages) return null;
      if (current + step < 1) return null;
      next[p.arg] = current + step;
      return next;
    }
    var offset = number(own(args, p.arg)) || 0;
    if (step < 0 && offset <= 0) return null;
    next[p.arg] = Math.max(0, step > 0 ? offset + rows.length : offset - (limit || rows.length));
    return next;
  }

  function pager(data, rows) {
    var bar = el("nav", "pager");
    [["Previous page", -1, "prev"], ["Next page", 1, "next"]].forEach(function (spec) {
      var wanted = pageArgs(data, rows, spec[1]);
      if (spec[1] < 0 && !wanted) return;
      var button = el("button", spec[2], spec[0]);
      button.type = "button";
      button.disabled = !wanted;
      button.addEventListener("click", function () {
        button.disabled = true;
        status("Loading…");
        request("tools/call", { name: layout.tool, arguments: wanted }).then(
          function (result) {
            args = wanted;
            show(result);
          },
          function (error) {
            button.disabled = false;
            status("The page could not be loaded: ", error.message);
          }
        );
      });
      bar.appendChild(button);
    });
    return bar;
  }

  // The status line: the view's own `message`, then `detail` (text from elsewhere), isolated.
  function status(message, detail) {
    var line = document.getElementById("status");
    if (!line) return;
    line.textContent = message;
    if (detail !== undefined) line.appendChild(isolated(null, String(detail)));
  }

  // A paragraph of texts from the API, one line each, each isolated.
  function paragraph(className, texts) {
    var node = el("p", className);
    texts.forEach(function (line, i) {
      if (i > 0) node.appendChild(document.createTextNode("\n"));
      node.appendChild(isolated(null, String(line)));
    });
    return node;
  }

  function heading() {
    view.replaceChildren();
    document.title = layout.title;
    view.appendChild(el("h1", null, layout.title));
    var line = el("p", "status");
    line.id = "status";
    line.setAttribute("role", "status");
    view.appendChild(line);
  }

  function render(data) {
    heading();
    var target = at(data, layout.path);
    if (layout.kind === "table") {
      if (layout.extra) view.appendChild(card(data, layout.extra));
      var rows = Array.isArray(target) ? target : [];
      view.appendChild(rows.length ? table(rows, layout.fields) : muted("No rows."));
      if (layout.paging) view.appendChild(pager(data, rows));
    } else {
      view.appendChild(isObject(target) ? card(target, layout.fields) : target === undefined ? muted("No data.") : plain(target));
    }
    reportSize();
  }

  function show(result) {
    shown = isObject(result) ? result : {};
    var data = own(shown, "structuredContent");
    var content = own(shown, "content");
    var texts = (Array.isArray(content) ? content : [])
      .filter(function (c) {
        return own(c, "type") === "text" && typeof own(c, "text") === "string";
      })
      .map(function (c) {
        return c.text;
      });
    if (own(shown, "isError")) {
      heading();
      view.appendChild(texts.length ? paragraph("error", texts) : el("p", "error", "The tool failed."));
      reportSize();
      return;
    }
    if (data === undefined && texts.length) {
      try {
        data = JSON.parse(texts[0]);
      } catch (e) {
        data = undefined;
      }
    }
    if (data === undefined) {
      heading();
      view.appendChild(paragraph("text", texts));
      reportSize();
      return;
    }
    render(data);
  }

  function applyContext(context) {
    if (!isObject(context)) return;
    var rootStyle = document.documentElement.style;
    var theme = own(context, "theme");
    if (theme === "light" || theme === "dark") {
      document.documentElement.dataset.theme = theme;
      rootStyle.colorScheme = theme;
    }
    var variables = own(own(context, "styles"), "variables");
    if (isObject(variables)) {
      Object.keys(variables).forEach(function (name) {
        var setting = variables[name];
        // Only values that cannot load anything.
        if (/^--[a-z0-9-]+$/.test(name) && typeof setting === "string" && !/url\(|@import/i.test(setting)) {
          rootStyle.setProperty(name, setting);
        }
      });
    }
    var relocalise = false;
    var wantedLocale = own(context, "locale");
    var wantedZone = own(context, "timeZone");
    if (typeof wantedLocale === "string" && wantedLocale !== locale) {
      locale = wantedLocale;
      relocalise = true;
    }
    if (typeof wantedZone === "string" && wantedZone !== timeZone) {
      timeZone = wantedZone;
      relocalise = true;
    }
    if (relocalise && shown) show(shown);
  }

  function reportSize() {
    var box = document.documentElement.getBoundingClientRect();
    var measured = { width: Math.ceil(box.width), height: Math.ceil(box.height) };
    if (measured.width === size.width && measured.height === size.height) return;
    size = measured;
    notify("ui/notifications/size-changed", measured);
  }

  window.addEventListener("message", function (event) {
    if (event.source !== window.parent) return;
    var message = event.data;
    if (!isObject(message) || message.jsonrpc !== "2.0") return;
    if (message.method === undefined) {
      var waiting = pending[message.id];
      if (!waiting || typeof message.id !== "number") return;
      delete pending[message.id];
      if (message.error) waiting.reject(new Error(String(message.error.message || "error")));
      else waiting.resolve(message.result || {});
      return;
    }
    if (message.id !== undefined) {
      // ping and ui/resource-teardown: nothing to do but answer.
      post({ jsonrpc: "2.0", id: message.id, result: {} });
      return;
    }
    var params = isObject(message.params) ? message.params : {};
    if (message.method === "ui/notifications/tool-input") {
      var given = own(params, "arguments");
      args = isObject(given) ? given : {};
    } else if (message.method === "ui/notifications/tool-result") {
      show(params);
    } else if (message.method === "ui/notifications/host-context-changed") {
      applyContext(params);
    } else if (message.method === "ui/notifications/tool-cancelled") {
      status("Cancelled.");
    }
  });

  heading();
  status("Waiting for the result…");
  if (typeof ResizeObserver === "function") new ResizeObserver(reportSize).observe(document.documentElement);
  request("ui/initialize", {
    appInfo: { name: "mcpgen-view", version: "1" },
    appCapabilities: { availableDisplayModes: ["inline"] },
    protocolVersion: "2026-01-26"
  }).then(
    function (result) {
      applyContext(own(result, "hostContext"));
      notify("ui/notifications/initialized");
      reportSize();
    },
    function (error) {
      status("The host did not start the view: " + error.message);
    }
  );
})();
