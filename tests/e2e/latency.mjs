// Slider latency, input to next frame: real key presses on the focused patch slider, sent
// through the browser (CDP Input.dispatchKeyEvent, as a keyboard would) at random moments,
// so they land at a random phase of the 60 Hz frame. Used by ui.test.mjs; also a command
// for docs/development.md's figures, interleaving builds and viewports:
//
//   node tests/e2e/latency.mjs [--dist DIR]... [--viewport 1366x768]... [--rounds 3]
//                              [--moves 100] [--old | --idle] [--reference]
//
// Per move, from the key event's own timestamp (when the browser received it):
// - dom: the `input` event handled: the estimate done and the DOM updated;
// - frame: the end of the next frame's main-thread work: the rAF after the input, then
//   style, layout and paint (a task posted from that rAF runs once the frame is done);
// - paint: Event Timing's duration, input to the next paint presented (raster and
//   composite included), which the browser rounds to 8 ms and reports only from 16 ms.
// `--old` is the earlier measurement (a synthetic `input` dispatched just after a rAF,
// timed to the next rAF callback), kept to compare the two on the same build. `--idle`
// presses Shift instead (no change, no work): the floor that the frame clock alone sets.
// `--reference` adds a page with only a slider and the one number it writes (next to the
// builds, interleaved): what the browser and the frame clock cost a move on this machine
// with next to no page behind it, so the page's own share can be read off.
// Headless Chromium keeps its 60 Hz frame clock with --disable-gpu-vsync and
// --disable-frame-rate-limit (rAF every 16.7-17.7 ms either way), so there is no run
// without the vsync wait; `raf` and `frame` separate the wait from the frame's work.

import { chromium } from "playwright-core";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { startStaticServer } from "../../tools/static-server.mjs";
import { CHROMIUM_ARGS, CHROMIUM, DIST } from "./harness.mjs";

/** Median and 95th percentile (nearest rank). */
export function stats(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
  return { median: at(0.5), p95: at(0.95) };
}

/** Installs the timers in the page: a record per key press on the focused slider. */
function instrument() {
  const moves = [];
  const painted = [];
  window.__latency = { moves, painted };
  let current = null;
  addEventListener(
    "keydown",
    (event) => {
      const move = { start: event.timeStamp, dom: null, raf: null, frame: null };
      current = move;
      moves.push(move);
      requestAnimationFrame(() => {
        move.raf = performance.now() - move.start;
        // Posted from the rAF, a message runs after that frame's style, layout and paint.
        const channel = new MessageChannel();
        channel.port1.onmessage = () => (move.frame = performance.now() - move.start);
        channel.port2.postMessage(null);
      });
    },
    { capture: true },
  );
  // On window, bubbling: the app's own listener and its render (microtasks) ran before it.
  addEventListener("input", () => {
    if (current) current.dom = performance.now() - current.start;
  });
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if (entry.name === "keydown") painted.push({ start: entry.startTime, duration: entry.duration });
    }
  }).observe({ type: "event", durationThreshold: 16 });
}

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Moves before the measured ones: the wasm's hot functions are compiled again, optimised,
 *  after their first calls (V8 tiers up from its baseline compiler). */
const WARM_UP_MOVES = 20;

/**
 * After WARM_UP_MOVES unmeasured ones, `moves` key presses on the focused patch slider:
 * ArrowRight then ArrowLeft in runs of 25 (from the default 25 px up to 50 and back, so
 * every press changes the patch size), each after a random 20-100 ms pause: under the
 * 150 ms rest after which the what-ifs and the details are redrawn, as while a slider is
 * held. Returns per move { dom, raf, frame, paint } in ms; paint is null below 16 ms
 * (Event Timing does not report it).
 */
export async function measureKeys(page, { moves = 100, key = null, warmUp = WARM_UP_MOVES } = {}) {
  await page.getByTestId("patch-slider").focus();
  for (let i = 0; i < warmUp; i++) await page.keyboard.press(i % 2 ? "ArrowLeft" : "ArrowRight");
  await pause(300);
  await page.evaluate(instrument);
  for (let i = 0; i < moves; i++) {
    await pause(20 + Math.random() * 80);
    await page.keyboard.press(key ?? (Math.floor(i / 25) % 2 === 0 ? "ArrowRight" : "ArrowLeft"));
  }
  await pause(300); // the last frame and its Event Timing entry
  return page.evaluate(() => {
    const { moves, painted } = window.__latency;
    return moves.map((move) => {
      const entry = painted.find((p) => Math.abs(p.start - move.start) < 0.5);
      return { dom: move.dom, raf: move.raf, frame: move.frame, paint: entry ? entry.duration : null };
    });
  });
}

/** The earlier measurement: synthetic input just after a rAF, to the next rAF callback. */
export function measureOld(page, moves = 100) {
  return page.evaluate(async (moves) => {
    const slider = document.querySelector('[data-testid="patch-slider"]');
    const out = [];
    for (let i = 0; i < moves; i++) {
      slider.value = String(11 + (i % 50));
      const start = performance.now();
      slider.dispatchEvent(new Event("input", { bubbles: true }));
      await new Promise((resolve) => requestAnimationFrame(resolve));
      out.push({ raf: performance.now() - start });
    }
    return out;
  }, moves);
}

/** The five dashboard charts and the patch slider must be on screen while it moves. */
export function offScreen(page) {
  return page.evaluate(() =>
    ["chart-memory", "chart-roofline", "chart-scaling", "chart-cost", "chart-levers", "patch-slider"].filter((id) => {
      const r = document.querySelector(`[data-testid="${id}"]`)?.getBoundingClientRect();
      return !r || r.top < 0 || r.left < 0 || r.bottom > innerHeight || r.right > innerWidth;
    }),
  );
}

/** One 60 Hz frame. */
export const FRAME_MS = 16.7;

/**
 * Medians and p95s per figure. `render` is the frame's own work (rAF to frame done); in
 * `paint` a move that Event Timing did not report counts as under 16 ms.
 */
export function summarize(samples) {
  const of = (f) => samples.map(f).filter((v) => v != null);
  const some = (values) => (values.length ? stats(values) : null);
  return {
    moves: samples.length,
    dom: some(of((s) => s.dom)),
    raf: some(of((s) => s.raf)),
    render: some(of((s) => s.frame != null && s.raf != null ? s.frame - s.raf : null)),
    frame: some(of((s) => s.frame)),
    paint: samples.some((s) => "paint" in s) ? stats(samples.map((s) => s.paint ?? 0)) : null,
    withinFrame: of((s) => s.frame ?? s.raf).filter((v) => v <= FRAME_MS).length,
  };
}

/** One line: each figure's median and p95 in ms. */
export function describe(summary) {
  const ms = (v) => (v === 0 ? "<16" : v.toFixed(1));
  const part = (label, s) => s && `${label} ${ms(s.median)} / ${ms(s.p95)}`;
  return [
    "median / p95 ms:",
    [
      part("input -> DOM", summary.dom),
      part("input -> rAF", summary.raf),
      part("rAF -> frame done", summary.render),
      part("input -> frame done", summary.frame),
      part("input -> painted (Event Timing, 8 ms steps)", summary.paint),
    ]
      .filter(Boolean)
      .join("; "),
    `(${summary.withinFrame} of ${summary.moves} within ${FRAME_MS} ms)`,
  ].join(" ");
}

/** The reference page: the slider the measurement presses, and one text it rewrites. */
const REFERENCE_PAGE = `<!doctype html><html><body data-ready="1">
<input type="range" min="11" max="61" value="25" data-testid="patch-slider"><output>25</output>
<script>
const slider = document.querySelector("input");
slider.addEventListener("input", () => (document.querySelector("output").textContent = slider.value));
</script></body></html>`;

/** A folder holding the reference page as its index.html. */
async function referenceDist() {
  const dir = await mkdtemp(path.join(tmpdir(), "latency-reference-"));
  await writeFile(path.join(dir, "index.html"), REFERENCE_PAGE);
  return dir;
}

async function main() {
  const args = process.argv.slice(2);
  const all = (flag) => args.flatMap((a, i) => (a === flag ? [args[i + 1]] : []));
  const one = (flag, fallback) => all(flag)[0] ?? fallback;
  const dists = all("--dist").length ? all("--dist").map((d) => path.resolve(d)) : [DIST];
  const reference = args.includes("--reference") ? await referenceDist() : null;
  if (reference) dists.push(reference);
  const viewports = (all("--viewport").length ? all("--viewport") : ["1366x768"]).map((v) => {
    const [width, height] = v.split("x").map(Number);
    return { width, height };
  });
  const rounds = Number(one("--rounds", 3));
  const moves = Number(one("--moves", 100));
  const old = args.includes("--old");
  const idle = args.includes("--idle");
  for (let round = 1; round <= rounds; round++) {
    for (const viewport of viewports) {
      for (const dist of dists) {
        const server = await startStaticServer({ root: dist, mount: "/" });
        const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
        const page = await browser.newPage({ viewport });
        await page.goto(server.url);
        await page.waitForFunction(() => document.body?.dataset.ready === "1");
        const isReference = dist === reference;
        if (!isReference) await page.locator('.levers-tile:not(.stale) [data-testid="chart-levers"]').waitFor();
        const hidden = isReference ? [] : await offScreen(page);
        const load = loadavg()[0].toFixed(2);
        const samples = old
          ? await measureOld(page, moves)
          : await measureKeys(page, { moves, key: idle ? "Shift" : null });
        console.log(
          `round ${round} ${viewport.width}x${viewport.height} ${isReference ? "reference page" : `${path.basename(path.dirname(dist))}/${path.basename(dist)}`}` +
            ` load ${load}${hidden.length ? ` OFF SCREEN: ${hidden}` : ""}: ${describe(summarize(samples))}`,
        );
        await browser.close();
        await server.close();
      }
    }
  }
  if (reference) await rm(reference, { recursive: true });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
