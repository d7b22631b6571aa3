// The one-file page (tools/single_file.mjs) opened straight from disk, with no server:
// it becomes ready, computes the default scenario as the CLI does, logs no error and
// requests nothing but itself.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { pathToFileURL } from "node:url";

import {
  DIST,
  REPO,
  estimateWithCli,
  launchBrowser,
  openApp,
  parseByteQuantity,
} from "./harness.mjs";

let workDir;
let pageFile;
let browser;
let app;

before(async () => {
  workDir = mkdtempSync(path.join(tmpdir(), "hsi-single-"));
  pageFile = path.join(workDir, "hsi-gpu-planner.html");
  const built = spawnSync(
    process.execPath,
    [path.join(REPO, "tools/single_file.mjs"), "--dist", DIST, "--out", pageFile],
    { encoding: "utf8" },
  );
  assert.equal(built.status, 0, `single_file.mjs failed: ${built.stderr}`);
  browser = await launchBrowser();
  app = await openApp(browser, pathToFileURL(pageFile).href);
  await app.waitForReady();
  await app.screenshot("single-file-default");
});

after(async () => {
  await browser?.close();
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

test("the page is one file: no reference to another file remains", () => {
  const html = readFileSync(pageFile, "utf8");
  assert.doesNotMatch(html, /(?:href|src)="\.?\/[^"]*"/);
  assert.doesNotMatch(html, /\.wasm['"]/);
});

test("opened from file:// it requests nothing but itself and inline data", () => {
  const pageUrl = pathToFileURL(pageFile).href;
  assert.ok(app.requests.includes(pageUrl), `requests recorded: ${app.requests.join(", ")}`);
  const others = app.requests.filter((url) => url !== pageUrl && !url.startsWith("data:"));
  assert.deepEqual(others, []);
  assert.deepEqual(app.outsideRequests, []);
});

test("it computes the default scenario's total memory as the CLI does", async () => {
  const shownText = await app.text("total-memory");
  const shown = parseByteQuantity(shownText);
  const expected = estimateWithCli("{}").memory.total;
  assert.ok(
    Math.abs(shown.bytes - expected) <= shown.resolution * (1 + 1e-9),
    `page shows ${JSON.stringify(shownText)}, CLI says ${expected} bytes`,
  );
});

test("no console errors", () => {
  assert.deepEqual(app.consoleErrors, []);
});
