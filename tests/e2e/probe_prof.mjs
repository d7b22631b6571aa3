import { chromium } from "playwright-core";
import { startStaticServer } from "../../tools/static-server.mjs";
import { CHROMIUM, CHROMIUM_ARGS } from "./harness.mjs";
import { measureKeys } from "./latency.mjs";
const dist = process.argv[2] ?? "/tmp/dist-prof";
const server = await startStaticServer({ root: dist, mount: "/", gzip: true });
const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
const page = await browser.newPage({ viewport: { width: 1366, height: 768 } });
await page.goto(server.url);
await page.waitForFunction(() => document.body?.dataset.ready === "1");
await page.locator('.levers-tile:not(.stale) [data-testid="chart-levers"]').waitFor();
await measureKeys(page, { moves: 20 });
const cdp = await page.context().newCDPSession(page);
await cdp.send("Profiler.enable");
await cdp.send("Profiler.setSamplingInterval", { interval: 50 });
await cdp.send("Profiler.start");
const moves = 100;
await measureKeys(page, { moves, warmUp: 0 });
const { profile } = await cdp.send("Profiler.stop");
await browser.close(); await server.close();
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const dt = profile.timeDeltas; const self = {}; const total = {};
profile.samples.forEach((id, i) => {
  const d = (dt[i + 1] ?? 0) / 1000;
  const n = byId.get(id); const name = n.callFrame.functionName || `(${n.callFrame.url.split("/").pop()})`;
  self[name] = (self[name] ?? 0) + d;
  const seen = new Set();
  for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
    const f = byId.get(cur).callFrame.functionName; if (seen.has(f)) continue; seen.add(f);
    total[f] = (total[f] ?? 0) + d;
  }
});
const show = (o, k) => Object.entries(o).sort((a, b) => b[1] - a[1]).slice(0, k).forEach(([n, v]) => console.log((v / moves).toFixed(3).padStart(7), n.slice(0, 150)));
console.log("SELF ms/move"); show(self, 30);
console.log("TOTAL ms/move"); show(total, 70);
