#!/usr/bin/env node
/*
 * Load a machtrace report in headless Chromium through the DevTools
 * protocol (--remote-debugging-pipe: fds 3 and 4, NUL-delimited JSON) and
 * print what a test checks, one "key value" line each:
 *   error TEXT      a console error or warning, an uncaught exception, a
 *                   log entry of level error
 *   request URL     any request but the page itself (the page must be
 *                   self-contained)
 *   text ID TEXT    the text of the element with that id (from argv)
 *   cells ATTR V T  each element with attribute ATTR: its value, its text
 *   lanes NAME      each timeline lane's label
 *   absent ID TEXT  a section's "absent" note
 * Usage: report_page.js PAGE.html [SCREENSHOT.png]
 */
"use strict";
const { spawn } = require("child_process");
const path = require("path");

const page = "file://" + path.resolve(process.argv[2]);
const shot = process.argv[3];
const chrome = spawn(process.env.CHROMIUM || "chromium", [
  "--headless", "--disable-gpu", "--no-sandbox", "--remote-debugging-pipe",
  "--window-size=1280,900", "--hide-scrollbars", "about:blank"],
  { stdio: ["ignore", "ignore", "ignore", "pipe", "pipe"] });
const toChrome = chrome.stdio[3], fromChrome = chrome.stdio[4];
let nextId = 1, buf = "", sessionId = null;
const waiting = new Map(), listeners = [];

function send(method, params = {}, session = sessionId) {
  const id = nextId++;
  const msg = { id, method, params };
  if (session) msg.sessionId = session;
  toChrome.write(JSON.stringify(msg) + "\0");
  return new Promise((resolve, reject) => waiting.set(id, { resolve, reject }));
}

fromChrome.on("data", chunk => {
  buf += chunk.toString("utf8");
  let i;
  while ((i = buf.indexOf("\0")) >= 0) {
    const msg = JSON.parse(buf.slice(0, i));
    buf = buf.slice(i + 1);
    if (msg.id && waiting.has(msg.id)) {
      const w = waiting.get(msg.id);
      waiting.delete(msg.id);
      if (msg.error) w.reject(new Error(JSON.stringify(msg.error)));
      else w.resolve(msg.result);
    } else if (msg.method) {
      listeners.forEach(f => f(msg));
    }
  }
});

const out = [];
function line(...a) { out.push(a.map(s => String(s).replace(/\s+/g, " ")).join(" ")); }

listeners.push(msg => {
  const p = msg.params;
  if (msg.method === "Runtime.consoleAPICalled" &&
      (p.type === "error" || p.type === "warning" || p.type === "assert"))
    line("error", "console." + p.type + ":",
      p.args.map(a => a.value !== undefined ? a.value : a.description).join(" "));
  else if (msg.method === "Runtime.exceptionThrown")
    line("error", "exception:", p.exceptionDetails.exception ?
      p.exceptionDetails.exception.description : p.exceptionDetails.text);
  else if (msg.method === "Log.entryAdded" && p.entry.level === "error")
    line("error", "log:", p.entry.text, p.entry.url || "");
  else if (msg.method === "Network.requestWillBeSent" &&
      p.request.url !== page && !p.request.url.startsWith("data:"))
    line("request", p.request.url);
});

/* What the page shows, read from its DOM after it rendered. */
function probe() {
  const r = [];
  const t = e => e.textContent.trim();
  for (const id of ["n-switches", "drops-total", "n-samples", "duration",
                    "probe-cost"]) {
    const e = document.getElementById(id);
    if (e) r.push(["text", id, t(e)]);
  }
  for (const attr of ["data-event", "data-routine", "data-cpu-events"])
    document.querySelectorAll("[" + attr + "]").forEach(e =>
      r.push(["cells", attr, e.getAttribute(attr), t(e)]));
  document.querySelectorAll("text.tname").forEach(e => r.push(["lanes", t(e)]));
  document.querySelectorAll("section").forEach(s => s.querySelectorAll(".absent")
    .forEach(e => r.push(["absent", s.id, t(e)])));
  r.push(["rendered", document.body.getAttribute("data-rendered") || "0"]);
  r.push(["flame-frames", document.querySelectorAll("#flame-chart g.frame").length]);
  return JSON.stringify(r);
}

async function main() {
  const { targetId } = await send("Target.createTarget", { url: "about:blank" }, null);
  ({ sessionId } = await send("Target.attachToTarget", { targetId, flatten: true }, null));
  await send("Runtime.enable");
  await send("Log.enable");
  await send("Network.enable");
  await send("Page.enable");
  const loaded = new Promise(res => listeners.push(m => {
    if (m.method === "Page.loadEventFired") res();
  }));
  const t0 = Date.now();
  await send("Page.navigate", { url: page });
  await loaded;
  const loadMs = Date.now() - t0;
  /* d3-flame-graph's transitions have ended */
  await send("Runtime.evaluate", { awaitPromise: true, expression:
    "new Promise(r => setTimeout(() => requestAnimationFrame(r), 1000))" });
  const res = await send("Runtime.evaluate",
    { expression: "(" + probe.toString() + ")()", returnByValue: true });
  if (res.exceptionDetails)
    line("error", "probe:", res.exceptionDetails.text);
  else
    JSON.parse(res.result.value).forEach(a => line(...a));
  line("load-ms", loadMs);
  if (shot) {
    const m = await send("Runtime.evaluate", { returnByValue: true,
      expression: "JSON.stringify([document.documentElement.scrollWidth, document.documentElement.scrollHeight])" });
    const [w, h] = JSON.parse(m.result.value);
    await send("Emulation.setDeviceMetricsOverride",
      { width: Math.max(1280, w), height: Math.min(h, 4000), deviceScaleFactor: 1, mobile: false });
    const { data } = await send("Page.captureScreenshot", { format: "png" });
    require("fs").writeFileSync(shot, Buffer.from(data, "base64"));
  }
  await send("Browser.close", {}, null).catch(() => {});
}

const timer = setTimeout(() => { line("error", "timeout"); finish(1); }, 60000);
function finish(rc) {
  clearTimeout(timer);
  process.stdout.write(out.join("\n") + "\n");
  chrome.kill();
  process.exit(rc);
}
main().then(() => finish(0), e => { line("error", "cdp:", e.message); finish(1); });
