/*
 * machtrace report: draws the model machtrace embedded as JSON (#mt-data)
 * with d3 and d3-flame-graph.  Every section shows what the trace holds,
 * or says plainly that the trace lacks it.
 */
"use strict";
(function () {
const data = JSON.parse(document.getElementById("mt-data").textContent);
const root = d3.select("#report");
const tip = d3.select("body").append("div").attr("id", "tip");

function us(ns) { return ns === undefined ? "" : (ns / 1000).toFixed(1); }
function ms(ns) { return (ns / 1e6).toFixed(3) + " ms"; }

function section(id, title) {
  const s = root.append("section").attr("id", id);
  s.append("h2").text(title);
  return s;
}

function absent(s, why) { s.append("p").attr("class", "absent").text(why); }

/* A table: cols are [header, accessor, numeric, data-attribute?]. */
function table(s, id, cols, rows) {
  const t = s.append("table").attr("id", id);
  t.append("tr").selectAll("th").data(cols).join("th")
    .attr("class", c => c[2] ? "n" : null).text(c => c[0]);
  const tr = t.selectAll("tr.row").data(rows).join("tr").attr("class", "row");
  cols.forEach(c => {
    const td = tr.append("td").attr("class", c[2] ? "n" : null)
      .text(r => c[1](r));
    if (c[3]) td.attr(c[3][0], r => c[3][1](r));
  });
  return t;
}

function showTip(ev, text) {
  tip.style("display", "block").style("left", (ev.clientX + 12) + "px")
    .style("top", (ev.clientY + 12) + "px").text(text);
}
function hideTip() { tip.style("display", "none"); }

function discarded() {
  return data.cpus.reduce((a, c) => a + c.discarded, 0);
}

/* The kept events' span; with discarded events the run was longer than
   the trace shows, or its kept events are a part of it: say so. */
function duration(span) {
  const lost = discarded();
  return ms(span.t1 - span.t0) + (lost ? " from the first to the last kept event; " +
    lost + " events were discarded, so the run may have lasted longer" : "");
}

/* The tracer's own cost, which record stores (docs/recording.md): part
   of every time this page shows. */
function probeCost(span) {
  const get = k => (data.meta.find(m => m[0] === k) || [])[1];
  const ns = get("machtrace_probe_ns"), n = get("machtrace_probe_firings");
  if (ns === undefined || n === undefined)
    return [["tracer's own cost", "(not stored in this trace)"]];
  const dt = span.t1 - span.t0;
  return [["tracer's own cost", ms(Number(ns)) + " in probe context over " + n +
    " probe firings" + (dt > 0 ? ", " + (100 * Number(ns) / dt).toFixed(2) +
    "% of the span from the first to the last event" : "") +
    ": part of every time below"]];
}

function header() {
  root.append("h1").text(data.title);
  const s = section("traced", "What was traced");
  const span = data.span;
  /* what a reader looks for here, said plainly when the trace lacks it */
  const missing = ["program", "workload", "kernel"]
    .filter(k => !data.meta.some(m => m[0].toLowerCase().includes(k)))
    .map(k => [k, "(not stored in this trace)"]);
  const rows = data.meta.concat(missing, probeCost(span), [
    ["duration", duration(span)],
    ["events", String(span.events)],
    ["CPUs", String(data.cpus.length)]]);
  const t = s.append("table");
  const tr = t.selectAll("tr").data(rows).join("tr");
  tr.append("th").text(r => r[0]);
  tr.append("td").append("pre")
    .attr("id", r => r[0] === "duration" ? "duration" :
      r[0] === "tracer's own cost" ? "probe-cost" : null)
    .text(r => r[1]);
}

function drops() {
  const s = section("drops", "Drops");
  if (!data.drops_known)
    absent(s, "The trace's packets carry no events_discarded count.");
  const total = discarded();
  s.append("p").html("Events discarded: <b id=\"drops-total\"></b>")
    .select("b").text(total);
  table(s, "drops-table", [
    ["CPU", c => c.cpu, true],
    ["events", c => c.events, true, ["data-cpu-events", c => c.cpu]],
    ["discarded", c => c.discarded, true]], data.cpus);
}

function events() {
  const s = section("events", "Events");
  table(s, "events-table", [
    ["event", e => e[0]],
    ["count", e => e[1], true, ["data-event", e => e[0]]]], data.events);
}

function timeline() {
  const s = section("timeline", "Timeline: threads on CPU (from sched_switch)");
  const tl = data.timeline;
  if (!tl) {
    absent(s, "No sched_switch events in this trace: record with " +
      "--events sched to see threads on CPU.");
    return;
  }
  s.append("p").html("sched_switch events: <b id=\"n-switches\"></b>")
    .select("b").text(tl.switches);
  if (tl.truncated)
    s.append("p").attr("class", "note")
      .text("Too many slices: only the first ones are drawn.");
  const threads = tl.threads.filter(t => t.nslices > 0)
    .sort((a, b) => b.oncpu - a.oncpu);
  const lane = 18, left = 220, width = 1100;
  const end = data.span.t1 - data.span.t0 || 1;
  const x = d3.scaleLinear().domain([0, end]).range([left, width - 10]);
  const color = d3.scaleOrdinal(d3.schemeTableau10);
  const svg = s.append("div").attr("class", "chart").append("svg")
    .attr("width", width).attr("height", threads.length * lane + 30);
  svg.append("defs").append("clipPath").attr("id", "tlclip")
    .append("rect").attr("x", left).attr("y", 0)
    .attr("width", width - 10 - left).attr("height", threads.length * lane);
  const g = svg.selectAll("g.lane").data(threads).join("g")
    .attr("class", "lane").attr("transform", (t, i) => `translate(0,${i * lane})`);
  g.append("text").attr("class", "tname").attr("x", 4).attr("y", lane - 5)
    .text(t => `${t.comm || "?"} [${t.tid}]`);
  const bars = g.append("g").attr("clip-path", "url(#tlclip)")
    .selectAll("rect").data(t => t.slices.map(sl => [sl, t])).join("rect")
    .attr("y", 2).attr("height", lane - 4).attr("fill", d => color(d[0][2]))
    .on("mousemove", (ev, d) => showTip(ev, `${d[1].comm} [${d[1].tid}] ` +
      `cpu ${d[0][2]}: ${ms(d[0][0])} + ${us(d[0][1] - d[0][0])} µs`))
    .on("mouseout", hideTip);
  const axis = svg.append("g").attr("class", "axis")
    .attr("transform", `translate(0,${threads.length * lane + 2})`);
  function draw(sx) {
    bars.attr("x", d => sx(d[0][0]))
      .attr("width", d => Math.max(1, sx(d[0][1]) - sx(d[0][0])));
    axis.call(d3.axisBottom(sx).ticks(10).tickFormat(v => (v / 1e6) + " ms"));
  }
  draw(x);
  svg.call(d3.zoom().scaleExtent([1, 1e5])
    .translateExtent([[left, 0], [width - 10, 0]])
    .extent([[left, 0], [width - 10, 0]])
    .on("zoom", ev => draw(ev.transform.rescaleX(x))));
  s.append("p").attr("class", "note")
    .text("Colour: CPU. Scroll to zoom, drag to pan.");
}

/* Replies ("ROUTINE-reply") go on their request's row. */
function foldReplies(rows) {
  const byName = new Map(rows.map(r => [r.name, r]));
  return rows.filter(r => {
    const req = r.name.endsWith("-reply") && byName.get(r.name.slice(0, -6));
    if (req) req.reply = r;
    return !req;
  });
}

function latTable(s, id, lt, what) {
  s.append("p").attr("class", "note").text("Source: " + lt.source);
  const rpc = id === "rpc-table";
  const rows = (rpc ? foldReplies(lt.rows) : lt.rows.slice())
    .sort((a, b) => b.sends - a.sends);
  const cols = [
    [what, r => r.name],
    [rpc ? "sent" : "entries", r => r.sends, true, ["data-routine", r => r.name]],
    [rpc ? "received" : "exits", r => r.receives, true]];
  if (rpc)
    cols.push(["replies sent", r => r.reply ? r.reply.sends : "", true],
      ["replies received", r => r.reply ? r.reply.receives : "", true]);
  table(s, id, cols.concat([
    ["calls timed", r => r.calls, true],
    ["min µs", r => us(r.min), true],
    ["p50 µs", r => us(r.p50), true],
    ["p95 µs", r => us(r.p95), true],
    ["max µs", r => us(r.max), true],
    ["mean µs", r => us(r.mean), true]]), rows);
}

function rpc() {
  const s = section("rpc", "RPCs per MIG routine");
  if (!data.rpc)
    absent(s, "No ipc_send / ipc_receive events in this trace: record " +
      "with --events ipc to see RPCs.");
  else
    latTable(s, "rpc-table", data.rpc, "routine");
  const t = section("traps", "Mach traps");
  if (!data.traps)
    absent(t, "No syscall_entry_* / syscall_exit_* events in this trace: " +
      "record with --events trap to see them.");
  else
    latTable(t, "trap-table", data.traps, "trap");
}

function heatmap() {
  const s = section("heatmap", "Latency heatmap over time");
  const h = data.heatmap;
  if (!h) {
    absent(s, "No timed calls in this trace (neither an RPC's request " +
      "and reply nor a trap's entry and exit by one thread).");
    return;
  }
  s.append("p").attr("class", "note").text(`${h.calls} ` +
    (h.source === "rpc" ? "RPCs (request to reply)" : "traps (entry to exit)") +
    ` by completion time (columns of ${ms(h.dt)}) and latency (rows: powers of two).`);
  const cw = 12, ch = 14, left = 90;
  const svg = s.append("div").attr("class", "chart").append("svg")
    .attr("width", left + h.cols * cw + 10).attr("height", h.rows * ch + 30);
  const max = d3.max(h.cells, c => c[2]);
  const color = d3.scaleSequentialLog(d3.interpolateYlOrRd).domain([1, Math.max(2, max)]);
  const rowY = r => (h.rows - 1 - r) * ch;
  svg.selectAll("rect").data(h.cells).join("rect")
    .attr("x", c => left + c[0] * cw).attr("y", c => rowY(c[1]))
    .attr("width", cw - 1).attr("height", ch - 1).attr("fill", c => color(c[2]))
    .on("mousemove", (ev, c) => showTip(ev, `${c[2]} calls, ` +
      `${us(2 ** (h.lo + c[1]))}–${us(2 ** (h.lo + c[1] + 1))} µs, ` +
      `at ${ms(c[0] * h.dt)}`))
    .on("mouseout", hideTip);
  svg.selectAll("text.ylab").data(d3.range(h.rows)).join("text")
    .attr("class", "ylab").attr("x", left - 4).attr("y", r => rowY(r) + ch - 3)
    .attr("text-anchor", "end").attr("font-size", 10)
    .text(r => "≥" + us(2 ** (h.lo + r)) + " µs");
  const x = d3.scaleLinear().domain([0, h.cols * h.dt]).range([left, left + h.cols * cw]);
  svg.append("g").attr("class", "axis").attr("transform", `translate(0,${h.rows * ch + 2})`)
    .call(d3.axisBottom(x).ticks(8).tickFormat(v => (v / 1e6) + " ms"));
}

function flame() {
  const s = section("flame", "Flame graph of stack samples");
  if (!data.flame) {
    absent(s, "No stack samples in this trace: record a D program that " +
      "takes stack() or ustack(), e.g. in a profile probe.");
    return;
  }
  s.append("p").html("Samples: <b id=\"n-samples\"></b>. Click a frame to zoom.")
    .select("b").text(data.samples);
  const chart = flamegraph.default().width(1100).cellHeight(16)
    .minFrameSize(1).sort(true).transitionDuration(0);
  s.append("div").attr("id", "flame-chart").datum(data.flame).call(chart);
}

header();
drops();
events();
timeline();
rpc();
heatmap();
flame();
document.body.setAttribute("data-rendered", "1");
})();
