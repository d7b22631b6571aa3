// The release page loads from a sub-path (as on a lab wiki), becomes ready, shows the
// default scenario's total memory and what bounds its step as the CLI computes them, logs
// no error and asks nothing of any other origin.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import { estimateWithCli, parseByteQuantity, startApp } from "./harness.mjs";

// Served only under this prefix: an absolute asset URL ("/app.js") would get a 404.
const SUB_PATH = "/lab-wiki/hsi/";

let started;
let app;

before(async () => {
  started = await startApp(SUB_PATH);
  app = started.app;
  await app.screenshot("load-default");
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

test("no console errors", () => {
  assert.deepEqual(app.consoleErrors, []);
});

test("no request leaves the page's origin", () => {
  assert.deepEqual(app.outsideRequests, []);
});
