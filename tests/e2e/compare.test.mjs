// The comparison view: the ready-made set, live updates when an option changes, every
// export (JSON, CSV, SVG, PNG, print), re-importing the exported JSON, and a malformed
// import that shows its error and keeps the comparison as it was.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, test } from "node:test";

import { openApp, startApp } from "./harness.mjs";

const ROWS = [
  "memory_per_budget",
  "max_batch",
  "largest_patch_px",
  "largest_bands",
  "samples_per_s",
  "run_time_s",
  "sweep_time_s",
  "tco_usd",
  "usd_per_experiment",
  "power_w",
  "cards",
  "ops_hours_per_month",
];
const READY_MADE_OPTIONS = 7;

let started;
let app;

before(async () => {
  started = await startApp("/");
  app = started.app;
  await app.page.getByTestId("compare-table").waitFor();
  // Read as a reader sees it: the comparison is laid out only while on screen.
  await app.page.getByTestId("compare").scrollIntoViewIfNeeded();
  await app.page.waitForFunction(
    () => document.querySelector('[data-testid="compare-table"]').innerText.length > 0,
  );
});

after(() => started?.close());

/** Figure of every row's cell for option `i`, keyed by row (without the best mark,
 * which moves when another option changes). */
async function column(i) {
  const out = {};
  for (const row of ROWS) out[row] = (await app.text(`cell-${row}-${i}`)).replace(" ★", "");
  return out;
}

/** Every cell of the table, for comparing whole views. */
async function tableText() {
  return app.page.getByTestId("compare-table").innerText();
}

async function labels() {
  const out = [];
  for (let i = 0; ; i++) {
    const input = app.page.getByTestId(`opt-${i}-label`);
    if ((await input.count()) === 0) return out;
    out.push(await input.inputValue());
  }
}

/** Waits until option `i`'s `row` cell no longer reads `before`. */
async function changed(i, row, before) {
  await app.page.waitForFunction(
    ([id, old]) => document.querySelector(`[data-testid="${id}"]`)?.innerText !== old,
    [`cell-${row}-${i}`, before],
    { timeout: 10_000 },
  );
}

/** Puts `text` into the import box as a reader does, by pasting it over what the box holds.
 * (Playwright's fill types it line by line through the editor: ~35 kB took 6-16 s idle
 * and over 30 s on a busy machine; a paste takes ~50 ms.) */
async function pasteImport(text) {
  const box = app.page.getByTestId("import-text");
  await app.page.context().grantPermissions(["clipboard-read", "clipboard-write"]);
  await app.page.evaluate((s) => navigator.clipboard.writeText(s), text);
  await box.fill("");
  await box.focus();
  await app.page.keyboard.press("Control+V");
  await app.page.waitForFunction(
    (n) => document.querySelector('[data-testid="import-text"]').value.length === n,
    text.length,
  );
}

async function download(testId) {
  const [file] = await Promise.all([
    app.page.waitForEvent("download"),
    app.page.getByTestId(testId).click(),
  ]);
  return { name: file.suggestedFilename(), content: readFileSync(await file.path()) };
}

test("the levers of every option: a row per lever option in the comparison table, the largest speed-up marked", async () => {
  await app.page.getByTestId("compare-levers").waitFor();
  const text = await tableText();
  assert.match(text, /What would help each option/);
  for (const lever of ["Memory capacity +50 %", "Memory bandwidth +50 %", "Compute +100 %", "Host CPU +50 %"]) {
    assert.ok(text.includes(lever), lever);
  }
  assert.match(text, /\d× · .* ★/);
});

test("the ready-made set is shown, the 48 GB card marked best for the largest batch", async () => {
  assert.equal((await labels()).length, READY_MADE_OPTIONS);
  const cell = app.page.getByTestId("cell-max_batch-3");
  assert.match(await cell.getAttribute("class"), /\bbest\b/);
  assert.match(await app.text("recommended"), /A5500/);
  await app.page.getByTestId("heat-map").waitFor();
  // The default map has cells the model cannot be built at (HybridSN at patch 6); the
  // help above it says what their "·" means.
  assert.ok((await app.page.locator("td.heat-na").count()) > 0);
  assert.equal(await app.page.locator("p.help", { hasText: "· where the model cannot be built" }).count(), 1);
  // Figures from 1,000 up with their thousands separators, as everywhere on the page.
  assert.match(await app.text("limits"), /: \d{1,3}(,\d{3})*$/);
  for (const cell of await app.page.locator("table.heat td").allInnerTexts()) {
    assert.match(cell, /^(·|\d{1,3}(,\d{3})*(\.\d)? %)$/, cell);
  }
  await app.screenshot("compare-default");
});

test("changing an option updates every row of its column and no other column", async () => {
  const initial = await column(0);
  const neighbour = await column(1);
  const moved = new Set();
  const edit = async (action, row) => {
    const before = await app.text(`cell-${row}-0`);
    await action();
    await changed(0, row, before);
    const now = await column(0);
    for (const r of ROWS) if (now[r] !== initial[r]) moved.add(r);
  };
  // The batch moves memory, limits, speed and times; the GPU moves the largest batch,
  // cost and power; the card count moves cards and operations.
  await edit(() => app.page.getByTestId("opt-0-batch-input").fill("2048"), "memory_per_budget");
  await edit(() => app.page.getByTestId("opt-0-gpu").selectOption("rtx_a6000"), "max_batch");
  await edit(() => app.page.getByTestId("opt-0-cards-input").fill("2"), "cards");
  assert.deepEqual(ROWS.filter((r) => !moved.has(r)), [], "rows that never changed");
  assert.deepEqual(await column(1), neighbour);
  await app.page.getByTestId("compare-rebuild").click();
  await changed(0, "cards", "2");
});

test("an option offers its card's topologies, a new card takes one it has, and the name follows", async () => {
  const bridged = 5; // 4x RTX A5500 with NVLink-bridged pairs
  const links = () =>
    app.page.getByTestId(`opt-${bridged}-interconnect`).evaluate((select) => [...select.options].map((o) => o.value));
  const chosen = () => app.page.getByTestId(`opt-${bridged}-interconnect`).inputValue();
  assert.deepEqual(await links(), ["pcie", "nvlink_bridge"]);
  assert.equal(await chosen(), "nvlink_bridge");
  // A card without the bridge connector: PCIe, the only choice.
  await app.page.getByTestId(`opt-${bridged}-gpu`).selectOption("rtx_4090");
  await app.page.waitForFunction((i) => document.querySelector(`[data-testid="opt-${i}-interconnect"]`).options.length === 1, bridged);
  assert.deepEqual(await links(), ["pcie"]);
  // Its name follows its hardware: the table and the recommendation say what it now is.
  assert.equal(await app.page.getByTestId(`opt-${bridged}-label`).inputValue(), "4x RTX 4090 DDP PCIe");
  // An SXM module sits on NVSwitch.
  await app.page.getByTestId(`opt-${bridged}-gpu`).selectOption("h100_sxm");
  await app.page.waitForFunction((i) => document.querySelector(`[data-testid="opt-${i}-interconnect"]`).value === "nvswitch", bridged);
  assert.deepEqual(await links(), ["nvswitch"]);
  assert.equal(await app.page.getByTestId(`opt-${bridged}-label`).inputValue(), "4x H100 SXM DDP NVSwitch");
  await app.page.getByTestId("compare-rebuild").click();
  await app.page.waitForFunction((i) => document.querySelector(`[data-testid="opt-${i}-interconnect"]`).value === "nvlink_bridge", bridged);
});

test("exports: JSON, CSV, SVG, PNG and print", async () => {
  const json = await download("export-json");
  assert.match(json.name, /\.json$/);
  const comparison = JSON.parse(json.content.toString("utf8"));
  assert.equal(comparison.options.length, READY_MADE_OPTIONS);

  const csv = (await download("export-csv")).content.toString("utf8").trim().split("\n");
  assert.equal(csv.length, ROWS.length + 1);
  assert.ok(csv[0].startsWith("metric,1x RTX 3090,"), csv[0]);
  assert.deepEqual(csv.slice(1).map((line) => line.split(",")[0]), ROWS);

  // The comparison's charts (compare-*; the page's own dashboard charts are chart-*).
  // Each keeps its title outside the page (for slides).
  const titles = { "compare-memory": "Memory per GPU / budget", "compare-time": "Time to result", "compare-cost": "TCO" };
  for (const [chart, title] of Object.entries(titles)) {
    const svg = await download(`${chart}-svg`);
    assert.equal(svg.name, `${chart}.svg`);
    const text = svg.content.toString("utf8");
    assert.match(text, /^<svg[^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    assert.ok(text.includes(`>${title}</text>`), `${chart}.svg lacks its title`);
  }
  const png = await download("compare-time-png");
  assert.equal(png.name, "compare-time.png");
  assert.deepEqual([...png.content.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

  await app.page.evaluate(() => {
    window.printed = 0;
    window.print = () => {
      window.printed += 1;
    };
  });
  await app.page.getByTestId("print").click();
  assert.equal(await app.page.evaluate(() => window.printed), 1);
  // The print stylesheet (in app.css: no inline styles under the strict CSP) hides the
  // comparison's controls when printing.
  const controlsDisplay = () =>
    app.page.evaluate(() => getComputedStyle(document.querySelector(".compare .no-print")).display);
  assert.notEqual(await controlsDisplay(), "none");
  await app.page.emulateMedia({ media: "print" });
  assert.equal(await controlsDisplay(), "none", "print hides the comparison's controls");
  await app.page.emulateMedia({ media: null });
});

test("the exported JSON imports back to the same view", async () => {
  const memoryBefore = await app.text("cell-memory_per_budget-2");
  await app.page.getByTestId("opt-2-label").fill("V100S, team box");
  await app.page.getByTestId("opt-2-batch-input").fill("128");
  await changed(2, "memory_per_budget", memoryBefore);
  const exported = (await download("export-json")).content.toString("utf8");
  const before = await tableText();
  const beforeLabels = await labels();

  await app.page.getByTestId("compare-rebuild").click();
  await app.page.waitForFunction(
    () => document.querySelector('[data-testid="opt-2-label"]')?.value !== "V100S, team box",
  );
  assert.notEqual(await tableText(), before);

  await pasteImport(exported);
  await app.page.getByTestId("import-button").click();
  await app.page.getByTestId("import-done").waitFor();
  assert.deepEqual(await labels(), beforeLabels);
  assert.equal(await tableText(), before);
  // The message says what the import replaced: a comparison, or the options rebuilt
  // around a scenario (whose edits are gone).
  assert.match(await app.page.getByTestId("import-done").innerText(), /the comparison above is the one in the file/);
  await pasteImport('{"patch": 11}');
  await app.page.getByTestId("import-button").click();
  await app.page.waitForFunction(() =>
    document.querySelector('[data-testid="import-done"]')?.textContent.includes("rebuilt around this scenario"));
});

test("a malformed import shows its line and keeps the comparison and the text", async () => {
  const before = await tableText();
  const exported = (await download("export-json")).content.toString("utf8");
  const lines = exported.split("\n");
  const bad = lines.findIndex((l) => l.includes('"batch_per_gpu"'));
  lines[bad] = lines[bad].replace(/: \d+/, ': "many"');
  const typed = lines.join("\n");

  await pasteImport(typed);
  await app.page.getByTestId("import-button").click();
  const errors = app.page.getByTestId("import-errors");
  await errors.waitFor();
  const text = await errors.innerText();
  assert.match(text, new RegExp(`line ${bad + 1}\\b`));
  assert.match(text, /Batch per GPU/);
  assert.ok(text.includes('"many"'), `the offending line is shown: ${text}`);
  assert.equal(await tableText(), before);
  assert.equal(await app.page.getByTestId("import-text").inputValue(), typed);
});

test("a comparison the page's scenario has left says so until it is rebuilt", async () => {
  const stale = app.page.getByTestId("compare-stale");
  // The import before left options built around another scenario: rebuilt, they run the page's.
  await app.page.getByTestId("compare-rebuild").click();
  await stale.waitFor({ state: "detached" });
  // The note waits for the scenario to rest: a move's own frame leaves the comparison as
  // it was (redrawing it cost the first move of a drag 10-15 ms).
  const drawnInTheMove = await app.page.getByTestId("patch-slider").evaluate(async (input) => {
    input.value = "19";
    input.dispatchEvent(new Event("input", { bubbles: true }));
    await new Promise((resolve) => requestAnimationFrame(resolve));
    return document.querySelector('[data-testid="compare-stale"]') !== null;
  });
  assert.equal(drawnInTheMove, false);
  await stale.waitFor();
  await app.page.getByTestId("compare-rebuild").click();
  await stale.waitFor({ state: "detached" });
});

test("no console errors", () => {
  assert.deepEqual(app.consoleErrors, []);
});

test("a page in yuan writes the comparison's money in yuan", async () => {
  const cny = await openApp(started.browser, `${started.server.url}?cost.currency=cny`);
  await cny.waitForReady();
  await cny.page.getByTestId("compare").scrollIntoViewIfNeeded();
  await cny.page.waitForFunction(
    () => document.querySelector('[data-testid="compare-table"]')?.innerText.length > 0,
  );
  for (let i = 0; i < READY_MADE_OPTIONS; i++) {
    const tco = await cny.text(`cell-tco_usd-${i}`);
    assert.ok(!tco.includes("$"), `option ${i}: ${tco}`);
  }
  assert.match(await cny.text("cell-usd_per_experiment-0"), /¥/);
  assert.ok(!(await cny.page.getByTestId("compare").innerText()).includes("$"));
  // The budget is typed in yuan: the cheapest option's TCO in yuan admits it, a yuan less
  // admits none.
  assert.match(await cny.page.locator('label[for="budget-input"]').innerText(), /CNY/);
  const yuan = (i) => cny.text(`cell-tco_usd-${i}`).then((t) => Number(t.replace(/[^0-9.]/g, "")));
  const tcos = await Promise.all([...Array(READY_MADE_OPTIONS).keys()].map(yuan));
  const cheapest = Math.min(...tcos);
  await cny.page.getByTestId("budget-input").fill(String(Math.ceil(cheapest * 1.01)));
  await cny.page.waitForFunction(() => !document.querySelector('[data-testid="recommended"]')?.innerText.startsWith("No option"));
  await cny.page.getByTestId("budget-input").fill(String(Math.floor(cheapest * 0.99)));
  await cny.page.waitForFunction(() => document.querySelector('[data-testid="recommended"]')?.innerText.startsWith("No option"));
  await cny.close();
});
