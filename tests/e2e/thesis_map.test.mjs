// The thesis map (issue 23): the lever tile's second view. Opened, it is computed cell by
// cell and draws the same cells, flips and claims as `hsi-gpu thesis`; its text stays
// readable at 1366 x 768, in the first viewport, and nothing is clipped; moving the patch slider (which the map
// does not depend on) keeps it; changing the card recomputes it. Saves screenshots.

import assert from "node:assert/strict";
import { test } from "node:test";

import { cliJson, servedDist } from "./harness.mjs";

const dist = servedDist();

async function openMap(query = "") {
  const app = await dist.open(dist.url + query);
  await app.page.setViewportSize({ width: 1366, height: 768 });
  await app.waitForReady();
  await app.page.locator('.levers-tile:not(.stale) [data-testid="chart-levers"]').waitFor();
  const started = Date.now();
  await app.page.getByTestId("thesis-map-open").click();
  await app.page.locator('[data-testid="thesis-map-chart"]').waitFor({ timeout: 60_000 });
  await app.page.locator('[data-testid="map-progress"]').waitFor({ state: "detached", timeout: 60_000 });
  return { app, seconds: (Date.now() - started) / 1000 };
}

test("the map draws the CLI's cells, flips and claims in both languages", async () => {
  for (const [lang, query] of [["en", ""], ["zh", "?lang=zh"]]) {
    const { app, seconds } = await openMap(query);
    console.log(`${lang}: map opened and computed in ${seconds.toFixed(1)} s`);
    const cli = cliJson(["thesis", "-"], "{}");
    const page = app.page;
    assert.equal(await page.locator('[data-testid="map-cell"]').count(), cli.cells.length);
    assert.equal(await page.locator('[data-testid="map-flip"]').count(), cli.flips.length);
    assert.equal(await page.locator('[data-testid="map-claim"]').count(), cli.claims.length);
    // Rows by the models' own names (the generic 3-D CNN with its author); the legend
    // names the white cells, a model that cannot take the patch (HybridSN at 8 px).
    const chart = await page.getByTestId("thesis-map-chart").textContent();
    for (const m of cli.models) assert.ok(chart.includes(m.model), m.model);
    assert.ok(cli.cells.some((c) => c.error));
    const unbuilt = lang === "en" ? "model cannot take this patch" : "模型不支持该空间块";
    assert.ok((await page.getByTestId("map-legend").innerText()).includes(unbuilt));
    // A cell reads out the CLI's model and speed-up on focus.
    const i = cli.cells.findIndex((c) => c.best?.speedup && c.params >= 1e9);
    const cell = cli.cells[i];
    await page.locator('[data-testid="map-cell"]').nth(i).focus();
    const readout = await app.text("map-readout");
    assert.ok(readout.startsWith(cell.model), `${readout} / ${cell.model}`);
    assert.ok(readout.includes(`${Number(cell.best.speedup.toPrecision(3))}×`), readout);
    // Readable and unclipped at 1366 x 768: chart text at 11 px or more, every label
    // inside the chart, the tile inside the viewport's width.
    const geometry = await page.evaluate(() => {
      const svg = document.querySelector('[data-testid="thesis-map-chart"]');
      const box = svg.getBoundingClientRect();
      const texts = [...svg.querySelectorAll("text")].map((t) => {
        const r = t.getBoundingClientRect();
        return { size: parseFloat(getComputedStyle(t).fontSize) * (box.width / svg.viewBox.baseVal.width),
          inside: r.left >= box.left - 0.5 && r.right <= box.right + 0.5 && r.top >= box.top - 0.5 && r.bottom <= box.bottom + 0.5 };
      });
      const tile = document.querySelector('[data-testid="chart-thesis-map"]').getBoundingClientRect();
      return { smallest: Math.min(...texts.map((t) => t.size)), clipped: texts.filter((t) => !t.inside).length,
        tileRight: tile.right, tileBottom: tile.bottom, width: innerWidth, height: innerHeight };
    });
    console.log(`${lang}: smallest chart text ${geometry.smallest.toFixed(1)} px`);
    await app.screenshot(`thesis-map-${lang}-1366x768`, { fullPage: false });
    assert.equal(geometry.clipped, 0, "every chart text inside the chart");
    assert.ok(geometry.tileRight <= geometry.width, "the tile within the page's width");
    assert.ok(geometry.tileBottom <= geometry.height, `the tile in the first viewport: ${geometry.tileBottom}`);
    assert.deepEqual(app.consoleErrors, []);
    await app.close();
  }
});

test("the patch slider keeps the map; another card recomputes it", async () => {
  const { app } = await openMap();
  const page = app.page;
  const before = await page.locator('[data-testid="thesis-map-chart"]').innerHTML();
  await page.getByTestId("patch-slider").focus();
  await page.keyboard.press("ArrowRight");
  await page.waitForTimeout(600);
  assert.equal(await page.locator('[data-testid="map-progress"]').count(), 0, "no recompute");
  assert.equal(await page.locator('[data-testid="thesis-map-chart"]').innerHTML(), before);
  await page.getByTestId("gpu").selectOption("rtx_4090");
  await page.locator('.thesis-map:not(.stale) [data-testid="thesis-map-chart"]').waitFor({ timeout: 60_000 });
  await page.locator('[data-testid="map-progress"]').waitFor({ state: "detached", timeout: 60_000 });
  const cli = cliJson(["thesis", "-"], JSON.stringify({ gpu: "rtx_4090" }));
  // Each cell's value as drawn, or (where the cells are too small to draw values at a
  // legible size) as its description says it.
  const cells = await page.locator('[data-testid="map-cell"]').evaluateAll((cells) =>
    cells.map((c) => ({ drawn: c.querySelector("text")?.textContent ?? null, label: c.getAttribute("aria-label") })));
  const expected = cli.cells.map((c) =>
    c.error ? "" : c.best ? (c.best.speedup ? `${Number(c.best.speedup.toPrecision(3))}×` : "fits") : "—");
  assert.equal(cells.length, expected.length);
  cells.forEach(({ drawn, label }, i) => {
    if (drawn !== null) assert.equal(drawn, expected[i], label);
    else if (expected[i].endsWith("×")) assert.ok(label.endsWith(expected[i]) || label.includes(`${expected[i]};`), `${label} vs ${expected[i]}`);
  });
  // Back to the scenario's levers.
  await page.getByTestId("levers-back").click();
  await page.locator('[data-testid="chart-levers"]').waitFor();
  assert.deepEqual(app.consoleErrors, []);
  await app.close();
});

test("from the keyboard: focus moves into the map and back, Escape closes it", async () => {
  const app = await dist.open(dist.url);
  await app.waitForReady();
  const page = app.page;
  await page.locator('.levers-tile:not(.stale) [data-testid="chart-levers"]').waitFor();
  const focused = () => page.evaluate(() => document.activeElement?.dataset.testid ?? document.activeElement?.tagName);
  await page.getByTestId("thesis-map-open").focus();
  await page.keyboard.press("Enter");
  await page.getByTestId("chart-thesis-map").waitFor();
  assert.equal(await focused(), "levers-back", "open: focus on the map's way back");
  await page.keyboard.press("Enter");
  await page.getByTestId("chart-levers").waitFor();
  assert.equal(await focused(), "thesis-map-open", "closed: focus back on the switch");
  // Escape from anywhere in the map closes it.
  await page.keyboard.press("Enter");
  await page.getByTestId("chart-thesis-map").waitFor();
  await page.keyboard.press("Escape");
  await page.getByTestId("chart-levers").waitFor();
  assert.equal(await page.getByTestId("chart-thesis-map").count(), 0);
  assert.equal(await focused(), "thesis-map-open");
  assert.deepEqual(app.consoleErrors, []);
  await app.close();
});
