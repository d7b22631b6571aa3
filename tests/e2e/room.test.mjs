// A dashboard a room can read (issue 25), at 1366 x 768, 1920 x 1080 and 390 x 844, in
// English and in Chinese, with a screenshot of each:
// - chart text is never under 11 px (14 px in presentation mode), SVG text included at the
//   size it is drawn, and nothing is clipped (chart text inside its chart, tiles not
//   overflowing, a select's choice not cut off);
// - the verdict and every chart are in the first screen (presentation mode too); on a
//   phone the verdict and the memory chart are;
// - every enum is a choice: no text box holds anything but a number; no snake_case id or
//   file path in the visible text;
// - a value typed out of range keeps every chart drawn, marked stale, names the allowed
//   range in the page's language and shows the whole value; Escape restores;
// - in Chinese, no visible text is Latin-only but for names and units.

import assert from "node:assert/strict";
import { test } from "node:test";

import { servedDist } from "./harness.mjs";
import { LATIN_NAMES } from "./latin_names.mjs";

const dist = servedDist();
const opened = [];

const VIEWPORTS = [
  { width: 1366, height: 768 },
  { width: 1920, height: 1080 },
  { width: 390, height: 844 },
];
const CHARTS = ["chart-memory", "chart-scaling", "chart-roofline", "chart-cost", "chart-levers"];
const name = ({ width, height }) => `${width}x${height}`;

async function open(viewport, query) {
  const app = await dist.open(`${dist.url}?${query}`);
  opened.push(app);
  await app.page.setViewportSize(viewport);
  await app.waitForReady();
  await app.page.locator('.levers-tile:not(.stale) [data-testid="levers-chart"] rect').first().waitFor();
  // Charts are redrawn at their box's size a frame after a layout change.
  await app.page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  return app;
}

/** The smallest text in the chart tiles as drawn (SVG text scaled by its transform) and
 *  the texts under `least` px. */
function chartText(page, least) {
  return page.evaluate((least) => {
    const sizes = [];
    for (const el of document.querySelectorAll(".tiles svg text")) {
      const m = el.getScreenCTM();
      if (!el.getClientRects().length || !m) continue;
      sizes.push([parseFloat(getComputedStyle(el).fontSize) * Math.hypot(m.a, m.b), el.textContent]);
    }
    for (const el of document.querySelectorAll(".tiles .panel :is(h2, p, li, span, strong)")) {
      if (!el.getClientRects().length || !el.textContent.trim()) continue;
      sizes.push([parseFloat(getComputedStyle(el).fontSize), el.textContent.slice(0, 40)]);
    }
    const min = Math.min(...sizes.map(([s]) => s));
    return { min, small: sizes.filter(([s]) => s < least - 0.01).slice(0, 5), count: sizes.length };
  }, least);
}

/** What is cut off: chart text outside its chart, a tile's content beyond its box, a
 *  select too narrow for its choice. */
function clipped(page) {
  return page.evaluate(() => {
    const out = [];
    for (const svg of document.querySelectorAll(".tiles svg")) {
      const box = svg.getBoundingClientRect();
      for (const t of svg.querySelectorAll("text")) {
        const r = t.getBoundingClientRect();
        if (!r.width || !t.checkVisibility()) continue;
        if (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1) {
          out.push(`text "${t.textContent}" outside its chart`);
        }
      }
    }
    for (const tile of document.querySelectorAll(".tiles .panel")) {
      if (tile.scrollHeight > tile.clientHeight + 1 || tile.scrollWidth > tile.clientWidth + 1) {
        out.push(`${tile.dataset.testid}: content ${tile.scrollWidth}x${tile.scrollHeight} in ${tile.clientWidth}x${tile.clientHeight}`);
      }
    }
    const canvas = document.createElement("canvas").getContext("2d");
    for (const select of document.querySelectorAll(".inputs select")) {
      if (!select.checkVisibility()) continue;
      const style = getComputedStyle(select);
      canvas.font = `${style.fontSize} ${style.fontFamily}`;
      const text = select.selectedOptions[0]?.textContent ?? "";
      // Room for the text: the box less its padding and the arrow (about 1.5 em).
      const room = select.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 1.5 * parseFloat(style.fontSize);
      if (canvas.measureText(text).width > room + 1) out.push(`select ${select.id}: "${text}" cut off`);
    }
    return out;
  });
}

/** Test ids (and the verdict) whose box is not wholly inside the first screen. */
function outsideFirstScreen(page, ids) {
  return page.evaluate((ids) => {
    window.scrollTo(0, 0);
    return ids.flatMap((id) => {
      const r = document.querySelector(`[data-testid="${id}"]`)?.getBoundingClientRect();
      if (!r) return [`${id}: missing`];
      const inside = r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth;
      return inside ? [] : [`${id}: ${[r.left, r.top, r.right, r.bottom].map(Math.round)} in ${innerWidth}x${innerHeight}`];
    });
  }, ids);
}

/** Visible text that names an id or a path: snake_case words, file paths (not inside
 *  <code>, which shows values as typed, nor the per-layer table, whose names are the
 *  model's). */
function idsInText(page) {
  return page.evaluate(() => {
    const found = new Set();
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const el = n.parentElement;
      if (!el || el.closest("script, style, code, [data-testid=layer-table]") || !el.checkVisibility()) continue;
      for (const m of n.textContent.matchAll(/\b[a-z0-9]+_[a-z0-9_]+\b|[\w.-]*\/[\w.-]+\.(?:py|json|md|rs)\b|\btools\//g)) found.add(m[0]);
    }
    return [...found];
  });
}

/** Visible texts (options included) with a Latin word that is neither a unit nor a name
 *  (LATIN_NAMES, and the words of the catalog's cards, models and datasets). */
function latinOnly(page) {
  return page.evaluate((allowed) => {
    const words = new Set(allowed);
    for (const id of ["gpu", "model", "dataset"]) {
      for (const o of document.querySelectorAll(`[data-testid="${id}"] option`)) {
        for (const w of o.textContent.match(/[A-Za-z][A-Za-z0-9]*/g) ?? []) words.add(w);
      }
    }
    const found = new Set();
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const el = n.parentElement;
      const text = n.textContent.trim();
      if (!text || !el || el.closest("script, style, code, [data-testid=layer-table]")) continue;
      if (el.tagName !== "OPTION" && !el.checkVisibility()) continue;
      if (/[\u2e80-\u9fff\uff00-\uffef]/.test(text)) continue;
      const foreign = (text.match(/[A-Za-z][A-Za-z0-9]*/g) ?? []).filter((w) => !words.has(w));
      if (foreign.length) found.add(`${text.slice(0, 80)} [${foreign.join(" ")}]`);
    }
    return [...found];
  }, LATIN_NAMES);
}

/** Opens every collapsed section and the details' panels. */
async function openEverything(app) {
  await app.page.getByTestId("compare-levers").waitFor();
  await app.page.evaluate(() => {
    for (const d of document.querySelectorAll("details")) d.open = true;
  });
  await app.page.getByTestId("field-memory-headroom").waitFor();
}

for (const viewport of VIEWPORTS) {
  const phone = viewport.width < 800;
  for (const lang of ["en", "zh"]) {
    test(`${name(viewport)} ${lang}: chart text of 11 px or more, nothing clipped, the answer in the first screen`, async () => {
      const app = await open(viewport, `lang=${lang}`);
      const text = await chartText(app.page, 11);
      console.log(`${name(viewport)} ${lang}: smallest chart text ${text.min.toFixed(1)} px (${text.count} texts)`);
      assert.deepEqual(text.small, [], `text under 11 px`);
      assert.deepEqual(await clipped(app.page), []);
      const first = phone ? ["verdict", "chart-memory"] : ["verdict", ...CHARTS];
      assert.deepEqual(await outsideFirstScreen(app.page, first), []);
      await app.screenshot(`room-${name(viewport)}-${lang}`, { fullPage: false });
    });

    test(`${name(viewport)} ${lang}: a value out of range keeps the charts, marked, and Escape restores it`, async () => {
      const app = await open(viewport, `lang=${lang}`);
      const { page } = app;
      const total = await app.text("total-memory");
      const box = page.getByTestId("batch-input");
      await box.fill("99999999");
      for (const chart of CHARTS) {
        assert.ok(await page.locator(`[data-testid="${chart}"] svg rect, [data-testid="${chart}"] svg circle`).count(), `${chart} blank`);
      }
      assert.equal(await app.text("total-memory"), total, "the last valid estimate stays");
      assert.equal(await page.locator(".views.stale [data-testid=stale]").count(), 1, "not marked stale");
      assert.match(await app.text("batch-error"), lang === "zh" ? /1 到 1,048,576 的整数/ : /from 1 to 1,048,576/);
      assert.equal(await box.getAttribute("aria-invalid"), "true");
      // The whole value shows.
      const fits = await box.evaluate((el) => el.scrollWidth <= el.clientWidth);
      assert.ok(fits, "the typed value is cut off");
      await app.screenshot(`room-typo-${name(viewport)}-${lang}`, { fullPage: false });
      await box.press("Escape");
      assert.equal(await box.inputValue(), "64");
      assert.equal(await page.getByTestId("stale").count(), 0);
      assert.equal(await page.getByTestId("batch-error").count(), 0);
      // Typed key by key, each valid prefix (2, 20, 204, 2048) is used at once; Escape goes
      // back to the value from before the edit, not to the last prefix.
      await box.selectText();
      await box.pressSequentially("2048");
      assert.notEqual(await app.text("total-memory"), total);
      await box.press("Escape");
      assert.equal(await box.inputValue(), "64");
      assert.equal(await app.text("total-memory"), total);
      // So does an assumption's box (a number typed as text).
      await openEverything(app);
      const headroom = page.getByTestId("field-memory-headroom");
      const kept = await headroom.inputValue();
      await headroom.selectText();
      await headroom.pressSequentially("0.5");
      assert.equal(await headroom.inputValue(), "0.5");
      await headroom.press("Escape");
      assert.equal(await headroom.inputValue(), kept);
      await headroom.selectText();
      await headroom.pressSequentially("7");
      assert.equal(await headroom.getAttribute("aria-invalid"), "true");
      await headroom.press("Escape");
      assert.equal(await headroom.inputValue(), kept);
      assert.equal(await headroom.getAttribute("aria-invalid"), "false");
    });

    test(`${name(viewport)} ${lang}: choices are selects, no id or path in the text${lang === "zh" ? ", no English left" : ""}`, async () => {
      const app = await open(viewport, `lang=${lang}`);
      await openEverything(app);
      // A text box holds a number (or nothing: an optional one unset); never an enum's id.
      // (A comparison option's label is a name the user gives it.)
      const words = await app.page.evaluate(() =>
        [...document.querySelectorAll('input[type="text"]:not([readonly]):not([data-testid$="-label"])')]
          .filter((i) => i.value.trim() && !Number.isFinite(Number(i.value)))
          .map((i) => `${i.id}=${i.value}`),
      );
      assert.deepEqual(words, []);
      for (const id of ["field-sharding", "field-node_link", "field-cost-currency", "precision", "optimizer", "mode"]) {
        assert.equal(await app.page.getByTestId(id).evaluate((el) => el.tagName), "SELECT", id);
      }
      assert.equal(await app.page.getByTestId("field-offload").getAttribute("type"), "checkbox");
      assert.deepEqual(await idsInText(app.page), []);
      if (lang === "zh") assert.deepEqual(await latinOnly(app.page), []);
    });
  }
}

// The default card has a price and a bridge lever (whose label is the widest): a card with
// neither draws other labels and a warning under the verdict.
for (const lang of ["en", "zh"]) {
  test(`1366x768 ${lang}: cards without a bridge lever or a price: nothing clipped, no id in the text`, async () => {
    for (const gpu of ["rtx_4090", "h100_sxm"]) {
      const app = await open(VIEWPORTS[0], `gpu=${gpu}&lang=${lang}`);
      await openEverything(app);
      assert.deepEqual(await clipped(app.page), [], gpu);
      assert.deepEqual(await idsInText(app.page), [], gpu);
    }
  });
}

for (const viewport of VIEWPORTS.filter((v) => v.width > 800)) {
  for (const lang of ["en", "zh"]) {
    test(`presentation mode ${name(viewport)} ${lang}: one screen, chart text of 14 px or more, nothing clipped`, async () => {
      const app = await open(viewport, `present=1&lang=${lang}`);
      const text = await chartText(app.page, 14);
      console.log(`presentation ${name(viewport)} ${lang}: smallest chart text ${text.min.toFixed(1)} px`);
      assert.deepEqual(text.small, [], "text under 14 px");
      assert.deepEqual(await clipped(app.page), []);
      assert.deepEqual(await outsideFirstScreen(app.page, ["verdict", ...CHARTS, "patch-slider", "gpu"]), []);
      // The rest of the inputs wait in a drawer.
      assert.equal(await app.page.getByTestId("more-inputs").evaluate((d) => d.open), false);
      // The memory chart's drawing fills its box: no box left mostly empty on a tall screen.
      const filled = await app.page.evaluate(() => {
        const svg = document.querySelector(".memory .chart-box svg");
        return svg.getBBox().height / svg.getBoundingClientRect().height;
      });
      assert.ok(filled > 0.75, `the memory chart fills ${(filled * 100).toFixed(0)} % of its box`);
      await app.screenshot(`room-presentation-${name(viewport)}-${lang}`, { fullPage: false });
    });
  }
}

test("no console errors", () => {
  for (const app of opened) assert.deepEqual(app.consoleErrors, []);
});
