// The web app as a person uses it: sliders and keys change the figures and charts live,
// a copied link reproduces the view, the language toggle and browser language work, embed
// mode is compact and reports its height, bad links fall back with a notice, storage may
// be missing, nothing is fetched from elsewhere and no error is logged. Also measures
// input-to-frame latency over 100 slider moves (latency.mjs) and saves screenshots.

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import path from "node:path";
import { test } from "node:test";

import { DIST, servedDist } from "./harness.mjs";
import { describe, FRAME_MS, measureKeys, offScreen, summarize } from "./latency.mjs";

const dist = servedDist();
/** Every app opened, so the last test can check none logged an error or left the origin. */
const opened = [];

async function open(query = "", options = {}) {
  const app = await dist.open(dist.url + query);
  opened.push(app);
  await app.page.setViewportSize(options.viewport ?? { width: 1280, height: 900 });
  await app.waitForReady();
  return app;
}

/** Moves a range input as a drag does: sets the value and fires `input`. */
function slide(page, testId, value) {
  return page.getByTestId(testId).evaluate((input, v) => {
    input.value = String(v);
    input.dispatchEvent(new Event("input", { bubbles: true }));
  }, value);
}

/** Address-bar writes wait until the inputs rest (src/platform.rs PERSIST_DELAY_MS). */
function addressIncludes(page, text) {
  return page.waitForFunction((t) => location.search.includes(t), text, { timeout: 5_000 });
}

/** The figures and chart markup a test compares before and after an input. */
async function snapshot(app, { geometry = true } = {}) {
  const { page } = app;
  // Charts are redrawn at their box's size a frame after a layout change.
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  return page.evaluate((geometry) => {
    // Without geometry: what the charts say, not where (their box's size follows the
    // page's layout: a legend line more, another header).
    const POSITIONS = new Set(["x", "y", "x1", "x2", "y1", "y2", "cx", "cy", "width", "height", "points", "d", "transform", "viewBox"]);
    const text = (id) => document.querySelector(`[data-testid="${id}"]`)?.innerText ?? null;
    // Chart content with attributes sorted: Yew may order attributes differently after an
    // update than on first render, which changes innerHTML but not the picture.
    const chart = (selector) => {
      const root = document.querySelector(selector);
      if (!root) return null;
      // The ghost (figures before the last change) is the view's history, not its scenario.
      return [...root.querySelectorAll("*")]
        .filter((el) => !el.closest(".ghost"))
        .map((el) => {
          const attributes = [...el.attributes]
            .filter((a) => geometry || !POSITIONS.has(a.name))
            .map((a) => `${a.name}=${a.value}`)
            .sort();
          const ownText = el.children.length === 0 ? el.textContent : "";
          return `${el.tagName}[${attributes.join(" ")}]${ownText}`;
        })
        .join("\n");
    };
    return {
      total: text("total-memory"),
      maxBatch: text("max-batch"),
      verdict: text("verdict"),
      stepTime: text("step-time"),
      speedup: text("speedup"),
      memoryChart: chart(".memory svg"),
      roofline: chart('[data-testid="roofline-chart"]'),
      scaling: chart('[data-testid="scaling-chart"]'),
      search: location.search,
    };
  }, geometry);
}

/** Values of every control, to compare two views. */
function controlValues(page) {
  return page.evaluate(() =>
    [...document.querySelectorAll("input, select")]
      .filter((el) => el.id && el.type !== "range")
      .map((el) => `${el.id}=${el.type === "checkbox" ? el.checked : el.value}`),
  );
}

test("loads with every key figure and the estimates note", async () => {
  const app = await open();
  for (const id of ["total-memory", "capacity", "max-batch", "verdict", "estimates-note"]) {
    assert.ok((await app.text(id)).trim().length > 0, `${id} is empty`);
  }
  assert.match(await app.text("total-memory"), /^\d+(\.\d+)? (B|KiB|MiB|GiB|TiB)$/);
  assert.equal(await app.page.evaluate(() => document.documentElement.lang), "en");
  await app.screenshot("ui-desktop");
});

test("each slider changes the figures and the charts", async () => {
  const app = await open();
  const moves = [
    ["patch-slider", 31, "patch=31"],
    ["bands-slider", 60, "bands=60"],
    ["batch-slider", 8, "batch_per_gpu=256"], // position 8 = 2^8
    ["precision", "amp_fp16", "precision=amp_fp16"], // a choice: a select
  ];
  for (const [control, value, inUrl] of moves) {
    const slider = control;
    const before = await snapshot(app);
    if (control === "precision") await app.page.getByTestId(control).selectOption(value);
    else await slide(app.page, control, value);
    const after = await snapshot(app);
    assert.notEqual(after.total, before.total, `${slider}: total memory unchanged`);
    assert.notEqual(after.memoryChart, before.memoryChart, `${slider}: memory chart unchanged`);
    if (before.roofline !== null) {
      assert.notEqual(after.roofline, before.roofline, `${slider}: roofline unchanged`);
    }
    await addressIncludes(app.page, inUrl);
  }
  // Cards leave per-GPU memory alone; the address and, with the speed model, scaling move.
  const before = await snapshot(app);
  await slide(app.page, "cards-slider", 4);
  await addressIncludes(app.page, "cards=4");
  const after = await snapshot(app);
  assert.equal(await app.page.getByTestId("cards-input").inputValue(), "4");
  assert.notEqual(after.speedup, before.speedup, "speedup unchanged by cards");
  // Four independent runs instead of one DDP run: a different throughput.
  const ddpSamples = await app.text("samples-per-s");
  await app.page.getByTestId("mode").selectOption("parallel_experiments");
  await addressIncludes(app.page, "workload.mode=parallel_experiments");
  assert.notEqual(await app.text("samples-per-s"), ddpSamples);
});

test("typed numbers and arrow keys drive the same figures", async () => {
  const app = await open();
  const start = await snapshot(app);
  await app.page.getByTestId("bands-input").fill("103");
  const typed = await snapshot(app);
  assert.notEqual(typed.total, start.total);
  assert.equal(await app.page.getByTestId("bands-slider").inputValue(), "103");

  await app.page.getByTestId("patch-slider").focus();
  await app.page.keyboard.press("ArrowRight");
  const keyed = await snapshot(app);
  assert.notEqual(keyed.total, typed.total);
  assert.equal(await app.page.getByTestId("patch-input").inputValue(), "26");

  // A value past the core's limit is explained at the box, not silently clamped, and the
  // charts keep the last valid estimate (room.test.mjs checks this at every size).
  await app.page.getByTestId("bands-input").fill("5000");
  assert.match(await app.text("bands-error"), /1 to 1,024/);
  assert.equal(await app.page.getByTestId("bands-input").inputValue(), "5000");
  assert.equal(await app.text("total-memory"), keyed.total);
  assert.equal(await app.page.getByTestId("stale").count(), 1);
  // The box says Esc restores it; the banner promises nothing a value the model refuses
  // (bands 5 for HybridSN, within the box's range) does not do.
  await app.page.getByTestId("bands-input").press("Escape");
  await app.page.getByTestId("bands-input").fill("5");
  const banner = await app.text("stale");
  assert.ok(banner.includes("at least 13") && !/Esc|marked/.test(banner), banner);
});

test("every assumption's box keeps a number typed key by key, and Escape takes it back", async () => {
  // Each valid prefix is used at once (0 -> 0. -> 0.0 -> 0.07 ...): a box rewritten from the
  // value in use ("0" as "0.0", "0." refused) turned "0.075" into "075".
  const app = await open();
  const { page } = app;
  await page.getByTestId("compare-levers").waitFor();
  await page.evaluate(() => {
    for (const d of document.querySelectorAll("details")) d.open = true;
  });
  await page.getByTestId("field-memory-headroom").waitFor();
  const boxes = await page.evaluate(() =>
    [...document.querySelectorAll('.assumptions input[type="text"]')].map((i) => [i.dataset.testid, i.value]),
  );
  assert.ok(boxes.length > 40, `${boxes.length} boxes`);
  const typedWrong = [];
  for (const [id, before] of boxes) {
    const value = Number(before || "2");
    // A decimal within a factor of 1.5 of the value in use, or of 2 for an unset one.
    const text = String(Math.round(value * 1.5 * 1000) / 1000 || 0.5);
    const box = page.getByTestId(id);
    await box.selectText();
    await box.pressSequentially(text);
    const [shown, invalid] = [await box.inputValue(), await box.getAttribute("aria-invalid")];
    if (shown !== text) typedWrong.push(`${id}: typed ${text}, shows ${shown} (invalid ${invalid})`);
    await box.press("Escape");
    assert.equal(await box.inputValue(), before, `${id}: Escape`);
  }
  assert.deepEqual(typedWrong, []);
});

test("picking a dataset fills its band and class counts", async () => {
  const app = await open();
  await app.page.getByTestId("dataset").selectOption("pavia_university");
  assert.equal(await app.page.getByTestId("bands-input").inputValue(), "103");
  assert.equal(await app.page.getByTestId("classes-input").inputValue(), "9");
});

test("picking a model takes its patch; the ViT offers sizes", async () => {
  const app = await open();
  assert.equal(await app.page.getByTestId("model-size").count(), 0);
  await app.page.getByTestId("model").selectOption("vit");
  assert.equal(await app.page.getByTestId("patch-input").inputValue(), "64");
  const base = await app.text("total-memory");
  await app.page.getByTestId("model-size").selectOption("large");
  assert.notEqual(await app.text("total-memory"), base);
  await addressIncludes(app.page, "model.size=large");
});

test("cudnn.benchmark times HybridSN's 3-D convolutions: a faster step, in the link", async () => {
  const app = await open();
  const untimed = await app.text("step-time");
  await app.page.getByTestId("cudnn-benchmark").check();
  await app.page.waitForFunction(
    (before) => document.querySelector('[data-testid="step-time"]')?.innerText !== before,
    untimed,
  );
  const timed = await app.text("step-time");
  assert.ok(parseFloat(timed) < parseFloat(untimed), `${timed} < ${untimed}`);
  await app.page.waitForFunction(() => location.search.includes("cudnn_benchmark=true"));
});

test("focusing a roofline point says which layer it is and why it is bound", async () => {
  const app = await open();
  const hint = await app.text("roofline-detail");
  await app.page.getByTestId("roofline-point").first().focus();
  const detail = await app.text("roofline-detail");
  assert.notEqual(detail, hint);
  assert.match(detail, /(memory|compute)-bound/);
  assert.match(detail, /FLOP\/B/);
});

test("a copied link reproduces the exact view", async () => {
  const app = await open();
  await app.page.context().grantPermissions(["clipboard-read", "clipboard-write"]);
  await slide(app.page, "patch-slider", 15);
  await app.page.getByTestId("bands-input").fill("77");
  await app.page.getByTestId("gpu").selectOption("rtx_4090");
  await app.page.getByTestId("checkpointing").check();
  await app.page.getByTestId("cudnn-benchmark").check();
  await app.page.getByTestId("lang-toggle").click(); // language is part of the view
  await app.page.getByTestId("copy-link").click();
  const link = await app.page.getByTestId("share-link").inputValue();
  assert.ok(link.startsWith(dist.url), link);
  const clipboard = await app.page.evaluate(() => navigator.clipboard.readText());
  assert.equal(clipboard, link);
  const original = { ...(await snapshot(app, { geometry: false })), search: null };
  const originalControls = await controlValues(app.page);

  const copy = await dist.open(link);
  opened.push(copy);
  await copy.page.setViewportSize({ width: 1280, height: 900 });
  await copy.waitForReady();
  assert.deepEqual({ ...(await snapshot(copy, { geometry: false })), search: null }, original);
  assert.deepEqual(await controlValues(copy.page), originalControls);
  assert.equal(await copy.page.evaluate(() => document.documentElement.lang), "zh-CN");
});

test("reload restores the scenario from the address and from storage", async () => {
  const app = await open();
  await app.page.getByTestId("bands-input").fill("144");
  const total = await app.text("total-memory");
  await addressIncludes(app.page, "bands=144");
  await app.page.reload();
  await app.waitForReady();
  assert.equal(await app.page.getByTestId("bands-input").inputValue(), "144");
  // Same context, bare address: localStorage brings the scenario back.
  await app.page.goto(dist.url);
  await app.waitForReady();
  assert.equal(await app.page.getByTestId("bands-input").inputValue(), "144");
  assert.equal(await app.text("total-memory"), total);
});

test("a colleague's link, even edited, leaves the saved scenario as it was", async () => {
  const app = await open();
  await app.page.getByTestId("bands-input").fill("144");
  await addressIncludes(app.page, "bands=144");
  await app.page.goto(`${dist.url}?patch=9&bands=60`);
  await app.waitForReady();
  await app.page.getByTestId("bands-input").fill("61");
  await addressIncludes(app.page, "bands=61");
  // Its own address reloads as edited.
  await app.page.reload();
  await app.waitForReady();
  assert.equal(await app.page.getByTestId("bands-input").inputValue(), "61");
  await app.page.goto(dist.url);
  await app.waitForReady();
  assert.equal(await app.page.getByTestId("bands-input").inputValue(), "144");
});

test("a scenario saved before storage went through gloo-storage (a bare query) still loads", async () => {
  const app = await open();
  // gloo-storage keeps values as JSON (the default scenario's query is ""); earlier
  // versions stored the query string itself. Once the load's own save is written:
  const key = "hsi-gpu-planner.query";
  await app.page.waitForFunction((k) => localStorage.getItem(k) === '""', key);
  await app.page.evaluate((k) => localStorage.setItem(k, "bands=77"), key);
  await app.page.goto(dist.url);
  await app.waitForReady();
  assert.equal(await app.page.getByTestId("bands-input").inputValue(), "77");
});

test("leaving the page right after an input still saves it (pagehide)", async () => {
  const app = await open();
  const key = "hsi-gpu-planner.query";
  await app.page.waitForFunction((k) => localStorage.getItem(k) !== null, key);
  // Timers never fire from here, so the input's delayed save cannot run before the page goes.
  await app.page.evaluate(() => {
    window.setTimeout = () => 0;
  });
  await app.page.getByTestId("bands-input").fill("55");
  assert.equal(await app.page.evaluate((k) => localStorage.getItem(k), key), '""');
  await app.page.goto(dist.url);
  await app.waitForReady();
  assert.equal(await app.page.getByTestId("bands-input").inputValue(), "55");
});

test("language toggle switches every string and <html lang>", async () => {
  const app = await open();
  const english = await app.text("estimates-note");
  await app.page.getByTestId("lang-toggle").click();
  assert.equal(await app.page.evaluate(() => document.documentElement.lang), "zh-CN");
  const chinese = await app.text("estimates-note");
  assert.notEqual(chinese, english);
  assert.match(chinese, /[\u4e00-\u9fff]/);
  assert.match(await app.text("verdict"), /[\u4e00-\u9fff]/);
  await app.screenshot("ui-zh");
  await app.page.getByTestId("lang-toggle").click();
  assert.equal(await app.text("estimates-note"), english);
});

test("a Chinese browser gets Chinese by default", async () => {
  const context = await dist.browser.newContext({ locale: "zh-CN" });
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(dist.url);
  await page.waitForFunction(() => document.body?.dataset.ready === "1");
  assert.equal(await page.evaluate(() => document.documentElement.lang), "zh-CN");
  assert.match(await page.getByTestId("estimates-note").innerText(), /[\u4e00-\u9fff]/);
  assert.deepEqual(errors, []);
  await context.close();
});

test("malformed link values fall back to defaults with a visible notice", async () => {
  const app = await open("?bands=banana&cards=99&patch=-3&precision=fp7&unknown=1&model.id=nope");
  const notice = await app.text("notices");
  // Each parameter by the name its input has on the page (the key itself if it is none).
  for (const part of ["Spectral bands = banana", "Cards = 99", "Spatial patch size = -3", "Precision = fp7", "unknown = 1", "Model = nope"]) {
    assert.ok(notice.includes(part), `notice lacks ${part}: ${notice}`);
  }
  const defaults = await open();
  assert.equal(await app.text("total-memory"), await defaults.text("total-memory"));
  await app.page.getByRole("button", { name: "Dismiss" }).click();
  assert.equal(await app.page.getByTestId("notices").count(), 0);
});

test("a model's least patch reads in Chinese on the Chinese page, in the verdict and in a link's notice", async () => {
  const app = await open("?lang=zh");
  await app.page.getByTestId("patch-input").fill("5");
  const errors = await app.text("errors");
  assert.ok(errors.includes("至少 9（四层无填充 3x3 卷积共去掉 8 个像素）"), errors);
  assert.ok(!/at least|unpadded/.test(errors), errors);
  const linked = await open("?lang=zh&patch=5");
  const notice = await linked.text("notices");
  assert.ok(notice.includes("允许：至少 9（"), notice);
});

test("the layer table names the model as its select does, in Chinese on the Chinese page", async () => {
  const app = await open("?lang=zh&model.id=unet&patch=64");
  await app.page.getByTestId("layer-table").waitFor();
  const heading = await app.page.locator('[data-testid="layer-table"] summary').innerText();
  assert.ok(heading.includes("U-Net 分割网络（整幅场景）"), heading);
});

test("extreme links never blank the page: every preset at the input limits", async () => {
  const models = await (await open()).page.evaluate(() =>
    [...document.querySelectorAll('[data-testid="model"] option')].map((o) => o.value),
  );
  assert.ok(models.length >= 5, `presets: ${models}`);
  for (const model of models) {
    for (const limits of ["patch=4096&bands=1024&batch_per_gpu=1048576", "patch=1&bands=1&classes=1"]) {
      const app = await open(`?model.id=${model}&${limits}`);
      const shown = await app.page.evaluate(
        () => !!document.querySelector('[data-testid="total-memory"], [data-testid="errors"]'),
      );
      assert.ok(shown, `${model} ${limits}: neither figures nor errors`);
      await app.close();
    }
  }
});

test("works without localStorage (sandboxed frame, privacy mode)", async () => {
  const context = await dist.browser.newContext();
  await context.addInitScript(() => {
    Object.defineProperty(window, "localStorage", {
      get() {
        throw new DOMException("storage disabled", "SecurityError");
      },
    });
  });
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  await page.goto(dist.url);
  await page.waitForFunction(() => document.body?.dataset.ready === "1");
  await page.getByTestId("bands-input").fill("90");
  assert.ok((await page.getByTestId("total-memory").innerText()).length > 0);
  await addressIncludes(page, "bands=90");
  assert.deepEqual(errors, []);
  await context.close();
});

test("embed mode is compact, links to the full page and posts its height", async () => {
  const app = await open("?embed=1&bands=50", { viewport: { width: 800, height: 700 } });
  assert.equal(await app.page.getByTestId("copy-link").count(), 0);
  assert.equal(await app.page.getByTestId("assumptions").count(), 0);
  const href = await app.page.getByTestId("open-full").getAttribute("href");
  assert.ok(href.includes("bands=50") && !href.includes("embed"), href);
  // An embedded view updates its own address but leaves the full page's saved scenario.
  await slide(app.page, "patch-slider", 19);
  await addressIncludes(app.page, "patch=19");
  assert.equal(await app.page.evaluate(() => localStorage.length), 0);
  await app.screenshot("ui-embed");
  // At 800 px the two charts stack, one under the other, neither hiding the other.
  const [memory, speed] = await Promise.all(
    ["chart-memory", "chart-scaling"].map((id) => app.page.getByTestId(id).boundingBox()),
  );
  assert.ok(memory.y + memory.height <= speed.y + 1, JSON.stringify({ memory, speed }));

  // Inside an iframe the app tells its parent how tall it is, again when resized.
  const parent = await open();
  const [wide, narrow] = await parent.page.evaluate(
    (src) =>
      new Promise((resolve, reject) => {
        const heights = [];
        const frame = document.createElement("iframe");
        window.addEventListener("message", (event) => {
          if (event.data?.type !== "hsi-gpu-planner:height") return;
          heights.push(event.data.height);
          if (heights.length === 1) frame.width = "360"; // narrower: text wraps, taller
          if (heights.length > 1 && event.data.height !== heights[0]) {
            resolve([heights[0], event.data.height]);
          }
        });
        frame.src = src;
        frame.width = "900";
        document.body.append(frame);
        setTimeout(() => reject(new Error(`heights posted: ${heights}`)), 20_000);
      }),
    `${dist.url}?embed=1`,
  );
  assert.ok(wide > 200, `posted height ${wide}`);
  assert.ok(narrow > wide, `narrower frame posted ${narrow}, wide ${wide}`);
});

test("presentation mode enlarges the type", async () => {
  const app = await open();
  const size = () =>
    app.page.evaluate(() => parseFloat(getComputedStyle(document.querySelector(".app")).fontSize));
  const normal = await size();
  await app.page.getByTestId("presentation-toggle").click();
  assert.ok((await size()) > normal * 1.2);
  await addressIncludes(app.page, "present=1");
  // A room does not hover: the readout's hint leaves its lines to the chart, and a
  // hovered mark's value shows over the tile's legend.
  const readout = app.page.getByTestId("roofline-detail");
  await app.page.mouse.move(0, 0);
  assert.equal(await readout.isVisible(), false);
  await app.page.getByTestId("roofline-step").hover();
  assert.equal(await readout.isVisible(), true);
  assert.match(await readout.innerText(), /FLOP/);
  await app.screenshot("ui-presentation");
});

// The dashboard's laptop and projector sizes: every chart on screen while the slider moves.
for (const [width, height] of [
  [1366, 768],
  [1920, 1080],
]) {
  test(`input to next frame over 100 patch-slider moves at ${width} x ${height}`, async (t) => {
    const app = await open("", { viewport: { width, height } });
    await app.page.locator('.levers-tile:not(.stale) [data-testid="chart-levers"]').waitFor();
    assert.deepEqual(await offScreen(app.page), [], "the charts and the slider must be on screen");
    const summary = summarize(await measureKeys(app.page));
    const line = `${width}x${height}, load average ${loadavg()[0].toFixed(2)}: ${describe(summary)}`;
    console.log(line);
    t.diagnostic(line);
    // A benchmark (docs/development.md, "Budgets"), not a timed test: the goal is the next 60 Hz
    // frame, but the 2-core shared test machine drops frames under load, so this fails only
    // when the median move misses two frames: a real regression, not noise.
    assert.ok(
      summary.frame.median <= 2 * FRAME_MS,
      `input -> frame done median ${summary.frame.median} ms is over two frames`,
    );
  });
}

test("runs under a strict Content-Security-Policy (self and wasm only)", async () => {
  // Trunk writes its loader as an inline <script>; a deployment allows it by hash (or a
  // build step moves it to a file). Everything else must need only 'self' and
  // 'wasm-unsafe-eval': no eval, no inline styles, no other origin.
  const html = readFileSync(path.join(DIST, "index.html"), "utf8");
  const inlineHashes = [...html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)].map(
    ([, body]) => `'sha256-${createHash("sha256").update(body).digest("base64")}'`,
  );
  const policy = [
    "default-src 'self'",
    `script-src 'self' 'wasm-unsafe-eval' ${inlineHashes.join(" ")}`,
    "style-src 'self'",
    "img-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
  ].join("; ");
  const context = await dist.browser.newContext();
  await context.route("**/*", async (route) => {
    const response = await route.fetch();
    const headers = { ...response.headers() };
    if ((headers["content-type"] ?? "").startsWith("text/html")) {
      headers["content-security-policy"] = policy;
    }
    await route.fulfill({ response, headers });
  });
  const page = await context.newPage();
  const problems = [];
  page.on("console", (m) => m.type() === "error" && problems.push(m.text()));
  page.on("pageerror", (e) => problems.push(e.message));
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) =>
      console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`),
    );
  });
  await page.goto(dist.url);
  await page.waitForFunction(() => document.body?.dataset.ready === "1", null, { timeout: 30_000 });
  await slide(page, "patch-slider", 17);
  await page.getByTestId("lang-toggle").click();
  assert.ok((await page.getByTestId("total-memory").innerText()).length > 0);
  assert.deepEqual(problems, []);
  await context.unrouteAll({ behavior: "ignoreErrors" });
  await context.close();
});

test("no page logged an error or asked another origin for anything", () => {
  for (const app of opened) {
    assert.deepEqual(app.consoleErrors, []);
    assert.deepEqual(app.outsideRequests, []);
    assert.deepEqual(app.failedResponses, []);
  }
});
