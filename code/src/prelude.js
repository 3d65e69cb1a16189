// Evaluated once in each program's fresh context, before the program. It receives the two host
// functions and returns what the program is given (`tools`, `console`) and what the host drives
// it with (`settle`, `finish`). Nothing here is reachable from the global object: the host
// functions live only in this closure, and the built-ins it uses are taken before the program
// runs, so a program that replaces `JSON` or `Promise` changes only its own behaviour.
(function (hostCall, hostLog) {
  "use strict";
  const parse = JSON.parse;
  const stringify = JSON.stringify;
  const isArray = Array.isArray;
  const PromiseOf = Promise;
  const rejectWith = (error) => PromiseOf.reject(error);
  const ErrorOf = Error;
  const TypeErrorOf = TypeError;
  const StringOf = String;
  // A lone surrogate becomes U+FFFD, as in the result, so that a log line is always text.
  const toWellFormed = String.prototype.toWellFormed;
  const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
  const replaceAll = String.prototype.replace;
  const wellFormed = (text) =>
    typeof toWellFormed === "function"
      ? toWellFormed.call(text)
      : replaceAll.call(text, loneSurrogate, "\uFFFD");
  const waiting = new Map();

  function call(name, args) {
    try {
      if (args !== undefined && (typeof args !== "object" || args === null || isArray(args))) {
        throw new TypeErrorOf(
          "tools." + name + ": the arguments must be an object, e.g. tools." + name + "({ ... })"
        );
      }
      const text = args === undefined ? "{}" : stringify(args);
      const id = hostCall(name, text);
      return new PromiseOf((resolve, reject) => {
        waiting.set(id, [resolve, reject]);
      });
    } catch (error) {
      return rejectWith(error);
    }
  }

  const tools = new Proxy(Object.create(null), {
    get(_, name) {
      // `then` stays undefined so that `await tools` does not call a tool named `then`.
      if (typeof name !== "string" || name === "then") {
        return undefined;
      }
      return (args) => call(name, args);
    },
    set() {
      return false;
    },
    defineProperty() {
      return false;
    },
  });

  function text(value) {
    if (typeof value === "string") {
      return value;
    }
    try {
      const json = stringify(value);
      return json === undefined ? StringOf(value) : json;
    } catch (_) {
      return StringOf(value);
    }
  }

  function logger(level) {
    return (...values) => {
      let line = "";
      for (let i = 0; i < values.length; i++) {
        line += (i === 0 ? "" : " ") + text(values[i]);
      }
      hostLog(level, wellFormed(line));
    };
  }

  const console = Object.freeze({
    log: logger("log"),
    info: logger("info"),
    debug: logger("debug"),
    warn: logger("warn"),
    error: logger("error"),
  });

  function settle(id, ok, payload) {
    const entry = waiting.get(id);
    waiting.delete(id);
    if (entry === undefined) {
      return;
    }
    if (!ok) {
      entry[1](new ErrorOf(payload));
      return;
    }
    let value;
    try {
      value = parse(payload);
    } catch (error) {
      entry[1](error);
      return;
    }
    entry[0](value);
  }

  function finish(value) {
    const json = stringify(value);
    return json === undefined ? "null" : json;
  }

  return { tools, console, settle, finish };
})
