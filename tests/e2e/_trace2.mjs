import { chromium } from "playwright-core";
import { readFileSync } from "node:fs";
import { startStaticServer } from "../../tools/static-server.mjs";
import { CHROMIUM, CHROMIUM_ARGS } from "./harness.mjs";
const [,, runs, ...cases] = process.argv;
const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
const results = {};
for (let r = 0; r < Number(runs); r++) for (const c of cases) {
  const [dist, q = ""] = c.split("@");
  const server = await startStaticServer({ root: dist, mount: "/", gzip: true });
  const context = await browser.newContext({ viewport: { width: 1366, height: 768 } });
  const page = await context.newPage();
  await browser.startTracing(page, { path: "/tmp/room/trace2.json", categories: ["devtools.timeline"] });
  await page.goto(server.url + q);
  await page.waitForFunction(() => document.body?.dataset.ready === "1");
  await page.waitForTimeout(400);
  await browser.stopTracing();
  const ev = JSON.parse(readFileSync("/tmp/room/trace2.json")).traceEvents;
  const fc = ev.find((e) => e.name === "FunctionCall" && (e.args?.data?.url ?? "").includes("planner") && e.dur > 10000);
  const main = ev.filter((e) => e.pid === fc.pid && e.tid === fc.tid && e.ph === "X");
  const after = main.filter((e) => e.ts >= fc.ts + fc.dur);
  const style = after.find((e) => e.name === "UpdateLayoutTree"), layout = after.find((e) => e.name === "Layout");
  const paint = after.find((e) => e.name === "Paint");
  const navStart = ev.find(e => e.name === "navigationStart" && e.pid === fc.pid)?.ts ?? null;
  const row = { render: fc.dur / 1000, style: (style?.dur ?? 0) / 1000, layout: (layout?.dur ?? 0) / 1000, paintAt: navStart ? (paint.ts - navStart) / 1000 : null };
  (results[c] ??= []).push(row);
  await context.close(); await server.close();
}
for (const [c, rows] of Object.entries(results)) {
  const min = (k) => Math.min(...rows.map((r) => r[k] ?? Infinity)).toFixed(1);
  const med = (k) => { const v = rows.map((r) => r[k]).sort((a,b)=>a-b); return v[Math.floor(v.length/2)]?.toFixed(1); };
  console.log(c, "render min/med", min("render"), med("render"), "style", min("style"), med("style"), "layout", min("layout"), med("layout"), "first paint at", min("paintAt"), med("paintAt"));
}
await browser.close();
