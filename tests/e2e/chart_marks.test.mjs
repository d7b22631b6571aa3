// Every chart mark that takes keyboard focus has something to show it on: a bar narrower
// than 2 px (a 0 B memory term, a cost without its rate, a sliver) is no tab stop. Every
// bar colour of the cost chart is in its legend.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import { startApp } from "./harness.mjs";

let started;
let app;

before(async () => {
  started = await startApp("/");
  app = started.app;
  await app.page.getByTestId("chart-cost").locator("g.point").first().waitFor();
});

after(() => started?.close());

test("no tab stop on a chart mark narrower than 2 px; the default scenario has such marks", async () => {
  const marks = await app.page.$$eval("svg.chart g.point", (all) =>
    all.map((g) => {
      const box = g.getBBox();
      return { label: g.getAttribute("aria-label"), tabStop: g.tabIndex >= 0, width: box.width, height: box.height };
    }),
  );
  const stops = marks.filter((m) => m.tabStop);
  assert.ok(stops.length > 10, `${stops.length} tab stops`);
  for (const m of stops) assert.ok(m.width >= 1.95 && m.height >= 1.95, `${m.label}: ${m.width} x ${m.height}`);
  // The default scenario holds 0 B memory terms and no cloud rate: those stay out.
  const skipped = marks.filter((m) => !m.tabStop).map((m) => m.label);
  assert.ok(skipped.some((l) => /: 0 B$/.test(l)), skipped.join("; "));
  assert.ok(skipped.some((l) => /enter a rate$/.test(l)), skipped.join("; "));
});

test("every bar colour of the cost chart is in its legend", async () => {
  const colours = await app.page.$$eval('[data-testid="chart-cost"] g.point rect', (rects) =>
    rects.filter((r) => r.getBBox().width > 0).map((r) => r.getAttribute("fill").toLowerCase()),
  );
  const legend = await app.page.$$eval('[data-testid="chart-cost"] .legend .swatch rect', (rects) =>
    rects.map((r) => r.getAttribute("fill").toLowerCase()),
  );
  assert.ok(colours.length >= 3, colours.join(" "));
  for (const colour of colours) assert.ok(legend.includes(colour), `${colour} not in the legend ${legend}`);
});

test("no console errors", () => {
  assert.deepEqual(app.consoleErrors, []);
});
