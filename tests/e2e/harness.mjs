// Browser-test harness: serves the release dist/ on 127.0.0.1, drives Debian's chromium
// through playwright-core, and records what a test needs to assert on.
//
// Contract with the web app (src/):
// - Readiness: once its first render is done the app sets `document.body.dataset.ready = "1"`
//   (i.e. <body data-ready="1">). `waitForReady` waits for exactly that.
// - Figures the tests read carry `data-testid` attributes, e.g. data-testid="total-memory"
//   holding the per-GPU total memory as formatted text ("3.42 GiB").
//
// Environment: HSI_DIST (default <repo>/dist), HSI_CLI (default <repo>/target/debug/hsi-gpu),
// HSI_CHROMIUM (default /usr/bin/chromium). Screenshots go to tests/e2e/screenshots/.

import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { after, before } from "node:test";

import { chromium } from "playwright-core";

import { startStaticServer } from "../../tools/static-server.mjs";

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const REPO = path.resolve(HERE, "../..");
export const DIST = path.resolve(process.env.HSI_DIST ?? path.join(REPO, "dist"));
export const CLI = path.resolve(process.env.HSI_CLI ?? path.join(REPO, "target/debug/hsi-gpu"));
export const SCREENSHOT_DIR = path.join(HERE, "screenshots");
export const CHROMIUM = process.env.HSI_CHROMIUM ?? "/usr/bin/chromium";

/** How long the wasm app may take to download, compile and render once. */
const READY_TIMEOUT_MS = 30_000;

// Keep the browser from phoning home, so the network log only holds the page's requests.
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-quic",
  "--no-first-run",
];

/** Serves dist/ under `mount` (a sub-path such as "/lab-wiki/hsi/"). Returns { origin, url, close }. */
export function serveDist(mount = "/") {
  return startStaticServer({ root: DIST, mount });
}

/** Headless chromium; Playwright gives every launch a new, empty user-data-dir. */
export function launchBrowser() {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
}

/**
 * Opens `url` in a fresh browser context and records, from before the first request:
 * - consoleErrors: console.error messages and uncaught exceptions;
 * - consoleWarnings: console.warn messages;
 * - requests: every URL the page asked for;
 * - outsideRequests: those to any other origin than the page's (blocked, not sent);
 * - failedResponses: same-origin answers with status >= 400.
 */
export async function openApp(browser, url) {
  const pageOrigin = new URL(url).origin;
  const context = await browser.newContext();
  const page = await context.newPage();
  const app = {
    page,
    consoleErrors: [],
    consoleWarnings: [],
    requests: [],
    outsideRequests: [],
    failedResponses: [],

    /** Waits for the app's readiness signal; on timeout says what the console showed. */
    async waitForReady() {
      try {
        await page.waitForFunction(() => document.body?.dataset.ready === "1", null, {
          timeout: READY_TIMEOUT_MS,
        });
      } catch (error) {
        throw new Error(
          `app not ready (body[data-ready="1"]) within ${READY_TIMEOUT_MS} ms; ` +
            `console errors: ${JSON.stringify(app.consoleErrors)}; ` +
            `failed responses: ${JSON.stringify(app.failedResponses)}`,
          { cause: error },
        );
      }
    },

    /** Visible text of the element with data-testid=`testId` (must exist). */
    text(testId) {
      return page.getByTestId(testId).innerText();
    },

    /** PNG in tests/e2e/screenshots/`name`.png, of the whole page unless `fullPage` is
     *  false (then what the viewport shows); prints and returns its path. */
    async screenshot(name, { fullPage = true } = {}) {
      mkdirSync(SCREENSHOT_DIR, { recursive: true });
      const file = path.join(SCREENSHOT_DIR, `${name}.png`);
      await page.screenshot({ path: file, fullPage });
      console.log(`screenshot: ${file}`);
      return file;
    },

    /** Milliseconds from navigation to the ready signal, by the page's own clock. */
    readyMs: () => page.evaluate(() => window.__hsiReadyMs),

    close: () => context.close(),
  };

  // Note when the app signals ready (for the cold-load figure), before any script runs.
  await context.addInitScript(() => {
    new MutationObserver((_, observer) => {
      if (document.body?.dataset.ready !== "1") return;
      window.__hsiReadyMs = performance.now();
      observer.disconnect();
    }).observe(document, { attributes: true, subtree: true, attributeFilter: ["data-ready"] });
  });

  page.on("console", (message) => {
    if (message.type() === "error") app.consoleErrors.push(message.text());
    if (message.type() === "warning") app.consoleWarnings.push(message.text());
  });
  page.on("pageerror", (error) => app.consoleErrors.push(`uncaught: ${error.message}`));
  page.on("request", (request) => app.requests.push(request.url()));
  page.on("response", (response) => {
    if (response.status() >= 400) app.failedResponses.push(`${response.status()} ${response.url()}`);
  });
  await context.route("**/*", (route) => {
    const requested = route.request().url();
    if (new URL(requested).origin === pageOrigin) return route.continue();
    app.outsideRequests.push(requested);
    return route.abort("blockedbyclient");
  });

  await page.goto(url);
  return app;
}

/**
 * One server of dist/ and one browser for a whole test file, started before its tests and
 * closed after them: `url` is the page's address, `open(url)` opens a page there, `browser`
 * makes other contexts.
 */
export function servedDist() {
  const shared = {};
  before(async () => {
    shared.server = await serveDist("/");
    shared.browser = await launchBrowser();
  });
  after(async () => {
    await shared.browser?.close();
    await shared.server?.close();
  });
  return {
    get url() {
      return shared.server.url;
    },
    get browser() {
      return shared.browser;
    },
    open: (url) => openApp(shared.browser, url),
  };
}

/**
 * Serves dist/ under `mount`, launches chromium and opens the page, ready. Returns
 * { server, browser, app, close }; `close()` ends the browser and the server.
 */
export async function startApp(mount = "/") {
  const server = await serveDist(mount);
  const browser = await launchBrowser();
  const app = await openApp(browser, server.url);
  await app.waitForReady();
  return {
    server,
    browser,
    app,
    async close() {
      await browser.close();
      await server.close();
    },
  };
}

/** Runs the CLI with `args` (and `input` on stdin) and returns its parsed JSON output. */
export function cliJson(args, input) {
  const result = spawnSync(CLI, args, { input, encoding: "utf8" });
  if (result.error) throw new Error(`cannot run ${CLI}: ${result.error.message}`);
  if (result.status !== 0) {
    throw new Error(`${CLI} ${args.join(" ")} exited with ${result.status}: ${result.stderr}`);
  }
  return JSON.parse(result.stdout);
}

/** Runs the CLI's `estimate -` on a scenario JSON text and returns the parsed report. */
export function estimateWithCli(scenarioJson) {
  return cliJson(["estimate", "-"], scenarioJson);
}

const BYTE_UNITS = {
  B: 1,
  KiB: 2 ** 10,
  MiB: 2 ** 20,
  GiB: 2 ** 30,
  TiB: 2 ** 40,
  kB: 1e3,
  KB: 1e3,
  MB: 1e6,
  GB: 1e9,
  TB: 1e12,
};

/**
 * Reads a memory figure such as "3.42 GiB" or "512 MiB" and returns { bytes, resolution },
 * where resolution is half a unit of the last digit shown: the most the display can differ
 * from the exact value by rounding.
 */
export function parseByteQuantity(text) {
  const match = /(\d+(?:\.(\d+))?)\s*(TiB|GiB|MiB|KiB|TB|GB|MB|KB|kB|B)\b/.exec(text);
  if (!match) throw new Error(`no memory figure (number + byte unit) in ${JSON.stringify(text)}`);
  const [, number, decimals = "", unit] = match;
  const scale = BYTE_UNITS[unit];
  return { bytes: Number(number) * scale, resolution: 0.5 * 10 ** -decimals.length * scale };
}

/** Raw and gzip -9 sizes of the .wasm and .js files in dist/. */
export function distBundleSizes() {
  return readdirSync(DIST)
    .filter((name) => name.endsWith(".wasm") || name.endsWith(".js"))
    .map((name) => {
      const content = readFileSync(path.join(DIST, name));
      return { name, raw: content.length, gzip: gzipSync(content, { level: 9 }).length };
    });
}
