// The comparison a team builds survives a reload (kept in the browser's storage, as the
// comparison JSON), a stored value that no longer reads gives the ready-made set, and the
// link says it does not carry the comparison. Option names: an empty one reads "Option N",
// a long one is cut to the charts' label column with the whole name in its tooltip.

import assert from "node:assert/strict";
import { test } from "node:test";

import { servedDist } from "./harness.mjs";

const STORAGE_KEY = "hsi-gpu-planner.comparison";
const CHARTS = ["compare-memory", "compare-time", "compare-cost"];

const dist = servedDist();

/** Waits until the comparison is drawn and laid out (it is drawn below the first screen). */
async function comparisonShown(app) {
  await app.waitForReady();
  await app.page.getByTestId("compare-table").waitFor();
  await app.page.getByTestId("compare").scrollIntoViewIfNeeded();
  await app.page.waitForFunction(
    () => document.querySelector('[data-testid="compare-table"]').innerText.length > 0,
  );
}

async function openComparison(query = "") {
  const app = await dist.open(dist.url + query);
  await comparisonShown(app);
  return app;
}

async function reload(app) {
  await app.page.reload();
  await comparisonShown(app);
}

/** The table's text once its lever rows, drawn after the table is painted, are in it. */
async function settledTable(app) {
  await app.page.waitForFunction(
    () => document.querySelector('[data-testid="compare-levers"]')?.nextElementSibling,
  );
  return app.page.getByTestId("compare-table").innerText();
}

async function labels(app) {
  return app.page.$$eval('[data-testid^="opt-"][data-testid$="-label"]', (boxes) =>
    boxes.map((box) => box.value),
  );
}

/** The option names a chart draws, as shown (the text beside each bar, without its title). */
async function chartNames(app, id) {
  return app.page.$$eval(`[data-testid="${id}"] text[text-anchor="end"]`, (texts) =>
    texts.map((t) => [...t.childNodes].filter((n) => n.nodeName !== "title").map((n) => n.textContent).join("")),
  );
}

test("an edited comparison and its decision inputs come back after a reload", async () => {
  const app = await openComparison();
  const ready = await labels(app);
  await app.page.getByTestId("opt-1-label").fill("Our lab box");
  await app.page.getByTestId("opt-1-batch-input").fill("128");
  await app.page.getByTestId("opt-1-batch-input").press("Tab");
  await app.page.getByTestId("opt-2-remove").click();
  await app.page.getByTestId("team-size-input").fill("5");
  await app.page.getByTestId("team-size-input").press("Tab");
  await app.page.getByTestId("goal").selectOption("single_run");
  const edited = await labels(app);
  assert.equal(edited.length, ready.length - 1);
  const table = await settledTable(app);

  await reload(app);
  assert.deepEqual(await labels(app), edited);
  assert.equal(await app.page.getByTestId("opt-1-batch-input").inputValue(), "128");
  assert.equal(await app.page.getByTestId("team-size-input").inputValue(), "5");
  assert.equal(await app.page.getByTestId("goal").inputValue(), "single_run");
  assert.equal(await settledTable(app), table);
  // Stored as the comparison JSON that Export writes.
  const stored = JSON.parse(await app.page.evaluate((key) => localStorage.getItem(key), STORAGE_KEY));
  assert.equal(stored.options[1].label, "Our lab box");
  assert.equal(stored.decision.team_size, 5);
  assert.deepEqual(app.consoleErrors, []);
  await app.close();
});

test("a stored comparison that no longer reads gives the ready-made set, not a broken page", async () => {
  const app = await openComparison();
  const ready = await labels(app);
  for (const stale of ["{not json", '{"options": [], "colour": 1}', '{"options": 3}']) {
    await app.page.evaluate(([key, value]) => localStorage.setItem(key, value), [STORAGE_KEY, stale]);
    await reload(app);
    assert.deepEqual(await labels(app), ready, stale);
  }
  assert.deepEqual(app.consoleErrors, []);
  await app.close();
});

test("the copied link says it carries the scenario, not the comparison (en, zh)", async () => {
  for (const [query, words] of [["", /comparison stays in this browser/], ["?lang=zh", /方案对比保存在本浏览器中/]]) {
    const app = await dist.open(dist.url + query);
    await app.waitForReady();
    assert.equal(await app.page.getByTestId("link-note").count(), 0);
    await app.page.getByTestId("copy-link").click();
    assert.match(await app.text("link-note"), words);
    await app.close();
  }
});

test("an empty option name reads Option N, typed or imported (en, zh)", async () => {
  const app = await openComparison();
  await app.page.getByTestId("opt-0-label").fill("");
  assert.equal(await app.page.getByTestId("opt-0-label").getAttribute("placeholder"), "Option 1");
  for (const id of CHARTS) assert.equal((await chartNames(app, id))[0], "Option 1", id);
  assert.ok((await app.page.getByTestId("heat-option").innerText()).includes("Option 1"));

  const exported = await app.page.evaluate((key) => localStorage.getItem(key), STORAGE_KEY);
  const comparison = JSON.parse(exported);
  comparison.options[1].label = "";
  await app.page.getByTestId("import-text").fill(JSON.stringify(comparison));
  await app.page.getByTestId("import-button").click();
  await app.page.getByTestId("import-done").waitFor();
  assert.deepEqual((await chartNames(app, "compare-memory")).slice(0, 2), ["Option 1", "Option 2"]);
  await app.close();

  const zh = await dist.open(`${dist.url}?lang=zh`);
  await comparisonShown(zh);
  await zh.page.getByTestId("opt-2-label").fill("  ");
  assert.equal((await chartNames(zh, "compare-memory"))[2], "方案 3");
  await zh.close();
});

test("a long option name is cut inside the charts, the whole name in its title", async () => {
  const app = await openComparison();
  const long = "A very long and descriptive option name for the lab wiki page, ok".padEnd(80, "!");
  const cjk = "四张显卡的工作站方案用于高光谱三维卷积网络训练与全图预测".repeat(2);
  await app.page.getByTestId("opt-0-label").fill(long);
  await app.page.getByTestId("opt-1-label").fill(cjk);
  for (const id of CHARTS) {
    const texts = await app.page.$$eval(`[data-testid="${id}"] text`, (all) =>
      all.map((t) => ({ left: t.getBBox().x, title: t.querySelector("title")?.textContent ?? null })),
    );
    for (const t of texts) assert.ok(t.left >= 0, `${id}: a label starts at x = ${t.left}`);
    assert.deepEqual(texts.filter((t) => t.title).map((t) => t.title), [long, cjk], id);
    const [first, second] = await chartNames(app, id);
    assert.ok(first.endsWith("…") && long.startsWith(first.slice(0, -1)), first);
    assert.ok(second.endsWith("…") && cjk.startsWith(second.slice(0, -1)), second);
  }
  await app.close();
});

test("the row names stay in view while the options scroll sideways at 1366 x 768", async () => {
  for (const query of ["", "?lang=zh"]) {
    const app = await dist.open(dist.url + query);
    await app.page.setViewportSize({ width: 1366, height: 768 });
    await comparisonShown(app);
    const seen = await app.page.evaluate(() => {
      const table = document.querySelector('[data-testid="compare-table"]');
      const scroll = table.parentElement;
      scroll.scrollLeft = scroll.scrollWidth;
      const row = table.querySelector('tbody th[scope="row"]').getBoundingClientRect();
      return {
        scrolled: scroll.scrollLeft,
        rowLeft: row.left,
        rowWidth: row.width,
        boxLeft: scroll.getBoundingClientRect().left,
      };
    });
    assert.ok(seen.scrolled > 0, `${query}: the table scrolls (${JSON.stringify(seen)})`);
    assert.ok(Math.abs(seen.rowLeft - seen.boxLeft) < 2, `${query}: ${JSON.stringify(seen)}`);
    assert.ok(seen.rowWidth >= 80, `${query}: row names ${seen.rowWidth} px wide`);
    await app.close();
  }
});
