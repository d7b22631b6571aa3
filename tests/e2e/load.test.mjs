// The release page loads from a sub-path (as on a lab wiki), becomes ready, shows the
// default scenario's total memory and what bounds its step as the CLI computes them, logs
// no error and asks nothing of any other origin. Prints the cold load's time to ready.

import assert from "node:assert/strict";
import { loadavg } from "node:os";
import { after, before, test } from "node:test";

import { estimateWithCli, parseByteQuantity, startApp } from "./harness.mjs";

// Served only under this prefix: an absolute asset URL ("/app.js") would get a 404.
const SUB_PATH = "/lab-wiki/hsi/";

/** The page's budget from navigation to ready, and the bound this benchmark fails at:
 *  a shared 2-core test machine at load average 14 measured 1.7-3.6 s, so only a page
 *  that waits on something (a timer, a request that hangs) reaches this. */
const READY_BUDGET_MS = 300;
const READY_FAIL_MS = 10_000;

let started;
let app;
let readyMs;

before(async () => {
  started = await startApp(SUB_PATH);
  app = started.app;
  // A fresh browser context: nothing cached, the wasm compiled from scratch.
  readyMs = await app.readyMs();
  await app.screenshot("load-default");
});

test(`cold load to ready is printed (budget ${READY_BUDGET_MS} ms)`, (t) => {
  const load = loadavg()[0].toFixed(2);
  t.diagnostic(`navigation to ready: ${readyMs.toFixed(0)} ms at load average ${load} (budget ${READY_BUDGET_MS} ms)`);
  assert.ok(readyMs < READY_FAIL_MS, `ready after ${readyMs.toFixed(0)} ms`);
});

after(() => started?.close());

test("every asset is fetched from under the sub-path", () => {
  assert.deepEqual(app.failedResponses, []);
  const outsideSubPath = app.requests.filter(
    (url) => url.startsWith(started.server.origin) && !new URL(url).pathname.startsWith(SUB_PATH),
  );
  assert.deepEqual(outsideSubPath, []);
  assert.ok(
    app.requests.some((url) => url.endsWith(".wasm")),
    `no .wasm among requests: ${app.requests.join(", ")}`,
  );
});

test("total memory shown equals the CLI's estimate for the default scenario", async () => {
  const shownText = await app.text("total-memory");
  const shown = parseByteQuantity(shownText);
  const expected = estimateWithCli("{}").memory.total;
  assert.ok(expected > 0, `CLI total memory should be positive, got ${expected}`);
  assert.ok(
    Math.abs(shown.bytes - expected) <= shown.resolution * (1 + 1e-9),
    `page shows ${JSON.stringify(shownText)}, CLI says ${expected} bytes`,
  );
});

test("the speed panel names what bounds the default step, as the CLI does", async () => {
  const bound = estimateWithCli("{}").perf.time.bound;
  // The page's words for host / input / device, in either language.
  const names = {
    host: ["host CPU", "主机 CPU"],
    input: ["input pipeline", "输入管线"],
    device: ["GPU", "显卡"],
  };
  assert.ok(names[bound], `CLI bound ${bound}`);
  const shown = await app.text("step-bound");
  assert.ok(names[bound].includes(shown), `page shows ${JSON.stringify(shown)}, CLI says ${bound}`);
  assert.match(await app.text("input-rate"), /\/s$/);
});

test("no console errors or warnings", () => {
  assert.deepEqual(app.consoleErrors, []);
  // Chromium warns of an `integrity` on a preload it cannot check (the wasm's, as="fetch").
  assert.deepEqual(app.consoleWarnings, []);
});

test("no request leaves the page's origin", () => {
  assert.deepEqual(app.outsideRequests, []);
});
