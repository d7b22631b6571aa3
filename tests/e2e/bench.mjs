// Browser benchmark of the release build: cold load to ready, locally and on a 4G-like
// link, and input to frame done over slider moves with every chart on screen
// (latency.mjs). Figures, not a timed test: the machine's load average is printed with
// each, and builds are interleaved so that they see the same load.
//
//   node tests/e2e/bench.mjs [--dist DIR]... [--loads 5] [--rounds 1] [--moves 100]
//                            [--viewport 1366x768] [--no-latency] [--query present=1]
//                            [--trace]
//
// Cold load: a fresh browser context (empty cache, no storage) opens the page; timed from
// the navigation's start (performance.now() is 0 there) to `<body data-ready="1">` (the
// app's first render is in the DOM, src/app.rs), to the end of the frame that paints it
// ("ready" in docs/development.md: the dashboard drawn) and to the lever chart painted
// (the what-ifs, computed after the first paint). "4G" is DevTools' fast 4G profile as the
// issue states it: 9 Mbit/s down, 1.5 Mbit/s up, 60 ms latency (CDP
// Network.emulateNetworkConditions), served gzip-compressed as a web server would.
//
// --trace: one more cold load per build under a Chromium trace, printing where the main
// thread's time went before the dashboard was painted (the longest tasks, ms from the
// navigation's start and their length) to find what delays ready.
//
// Nothing of Playwright's runs in the page while it loads: the page says when it is done
// with a console message (polling it with waitForFunction would evaluate Playwright's
// injected script there, ~20 ms of the main thread, on the path to ready).

import { chromium } from "playwright-core";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { startStaticServer } from "../../tools/static-server.mjs";
import { CHROMIUM, CHROMIUM_ARGS, DIST } from "./harness.mjs";
import { describe, measureKeys, offScreen, stats, summarize } from "./latency.mjs";

/** DevTools' "Fast 4G" as issue 25 gives it: bytes per second and ms. */
export const FOUR_G = { latency: 60, downloadThroughput: (9e6 / 8) | 0, uploadThroughput: (1.5e6 / 8) | 0 };

/** What the page logs once the dashboard and the lever chart are painted. */
const DONE = "hsi-bench: painted";
/** The user-timing mark the page sets at ready. */
const READY_MARK = "hsi-bench: ready";

/** Before any script of the page: note when `<body data-ready>` is set, when the frame
 *  that shows the dashboard is done (a task posted from the next animation frame runs
 *  after that frame's style, layout and paint; at user-blocking priority it runs before
 *  the page's own tasks posted from that frame, the what-ifs' 20-30 ms, which a timeout
 *  would wait for) and when the lever chart is drawn too; then log DONE. */
function recordReadiness([done, readyMark]) {
  Object.assign(window, { __ready: null, __painted: null, __levers: null });
  const afterFrame = (set) =>
    requestAnimationFrame(() =>
      scheduler.postTask(
        () => {
          set(performance.now());
          if (window.__painted !== null && window.__levers !== null) console.debug(done);
        },
        { priority: "user-blocking" },
      ),
    );
  let leversSeen = false;
  new MutationObserver(() => {
    if (window.__ready === null && document.body?.dataset.ready === "1") {
      window.__ready = performance.now();
      // In a trace, this names the page's main thread and its clock (traceLoad).
      performance.mark(readyMark);
      afterFrame((t) => (window.__painted = t));
    }
    if (!leversSeen && document.querySelector('.levers-tile:not(.stale) [data-testid="levers-chart"] rect')) {
      leversSeen = true;
      afterFrame((t) => (window.__levers = t));
    }
  }).observe(document, { subtree: true, childList: true, attributes: true });
}

/** Opens `url` and waits, without touching the page, until it logs DONE. */
async function openAndWait(page, url) {
  const done = page.waitForEvent("console", { predicate: (m) => m.text() === DONE, timeout: 60_000 });
  await page.goto(url, { waitUntil: "commit" });
  await done;
}

/** One cold load of `url` in a fresh context; `network` throttles it. Returns ms. */
export async function coldLoad(browser, url, { viewport, network = null }) {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  await page.addInitScript(recordReadiness, [DONE, READY_MARK]);
  if (network) {
    const cdp = await context.newCDPSession(page);
    await cdp.send("Network.enable");
    await cdp.send("Network.emulateNetworkConditions", { offline: false, ...network });
  }
  await openAndWait(page, url);
  const times = await page.evaluate(() => ({ ready: window.__ready, painted: window.__painted, levers: window.__levers }));
  await context.close();
  return times;
}

/** `loads` cold loads: medians and p95s of load -> ready and load -> levers drawn. */
export async function loadFigures(browser, url, options, loads) {
  const samples = [];
  for (let i = 0; i < loads; i++) samples.push(await coldLoad(browser, url, options));
  return {
    ready: stats(samples.map((s) => s.ready)),
    painted: stats(samples.map((s) => s.painted)),
    levers: stats(samples.map((s) => s.levers)),
    all: samples.map((s) => Math.round(s.painted)),
  };
}

/** One traced cold load: the main thread's tasks over 2 ms up to the dashboard's paint. */
export async function traceLoad(browser, url, { viewport }) {
  const dir = mkdtempSync(path.join(tmpdir(), "hsi-trace-"));
  const file = path.join(dir, "trace.json");
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  await page.addInitScript(recordReadiness, [DONE, READY_MARK]);
  await browser.startTracing(page, { path: file, categories: ["devtools.timeline", "v8.wasm", "loading", "blink.user_timing"] });
  await openAndWait(page, url);
  const [ready, painted] = await page.evaluate(() => [window.__ready, window.__painted]);
  await browser.stopTracing();
  await context.close();
  const events = JSON.parse(readFileSync(file, "utf8")).traceEvents;
  rmSync(dir, { recursive: true });
  // The page's main thread and its clock's zero (the navigation's start): where and when,
  // `ready` ms after that, the page set the mark.
  const mark = events.find((e) => e.name === READY_MARK);
  const tasks = events.filter(
    (e) => e.ph === "X" && e.pid === mark.pid && e.tid === mark.tid && e.dur > 2000 && e.name !== "RunTask",
  );
  const at = (e) => (e.ts - mark.ts) / 1000 + ready;
  return tasks
    .filter((e) => at(e) >= 0 && at(e) <= painted)
    .sort((a, b) => a.ts - b.ts)
    .map((e) => `  ${at(e).toFixed(1)} ms +${(e.dur / 1000).toFixed(1)} ms ${e.name} ${e.args?.data?.url?.split("/").pop() ?? ""}`)
    .concat(`  dashboard painted at ${painted.toFixed(1)} ms`)
    .join("\n");
}

const ms = (s) => `${s.median.toFixed(0)} / ${s.p95.toFixed(0)} ms`;

/** One line per load profile. */
export function describeLoad(label, figures) {
  return (
    `${label}, median / p95 of ${figures.all.length}: load -> ready ${ms(figures.ready)}; ` +
    `load -> dashboard painted ${ms(figures.painted)} (each: ${figures.all.join(", ")}); ` +
    `load -> lever chart painted ${ms(figures.levers)}`
  );
}

async function main() {
  const args = process.argv.slice(2);
  const all = (flag) => args.flatMap((a, i) => (a === flag ? [args[i + 1]] : []));
  const one = (flag, fallback) => all(flag)[0] ?? fallback;
  const dists = all("--dist").length ? all("--dist").map((d) => path.resolve(d)) : [DIST];
  const [width, height] = one("--viewport", "1366x768").split("x").map(Number);
  const viewport = { width, height };
  const loads = Number(one("--loads", 5));
  const rounds = Number(one("--rounds", 1));
  const moves = Number(one("--moves", 100));
  const query = one("--query", "");
  for (let round = 1; round <= rounds; round++) {
    for (const dist of dists) {
      const name = `${path.basename(path.dirname(dist))}/${path.basename(dist)}`;
      const server = await startStaticServer({ root: dist, mount: "/", gzip: true });
      const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
      const url = server.url + (query ? `?${query}` : "");
      const at = () => `load average ${loadavg()[0].toFixed(2)}`;
      let line = `round ${round} ${name} ${width}x${height}`;
      const local = await loadFigures(browser, url, { viewport }, loads);
      console.log(`${line} ${at()}: ${describeLoad("local", local)}`);
      const slow = await loadFigures(browser, url, { viewport, network: FOUR_G }, loads);
      console.log(`${line} ${at()}: ${describeLoad("4G (9 Mbit/s, 60 ms)", slow)}`);
      if (args.includes("--trace")) console.log(`${line} ${at()}: traced cold load\n${await traceLoad(browser, url, { viewport })}`);
      if (!args.includes("--no-latency")) {
        const page = await browser.newPage({ viewport });
        await page.goto(url);
        await page.waitForFunction(() => document.body?.dataset.ready === "1");
        await page.locator('.levers-tile:not(.stale) [data-testid="chart-levers"]').waitFor();
        const hidden = await offScreen(page);
        const load = at();
        const samples = await measureKeys(page, { moves });
        console.log(`${line} ${load}${hidden.length ? ` OFF SCREEN: ${hidden}` : ""}: ${describe(summarize(samples))}`);
        await page.close();
      }
      await browser.close();
      await server.close();
    }
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
