// A run nothing makes fit: the best-lever line says not even 2x the memory capacity does,
// with the largest batch now and with more capacity, and the inference panel quotes no
// share of a training run that cannot start (en, zh); its times and costs are struck through,
// the verdict saying why, and a batch that fits shows them plainly.

import assert from "node:assert/strict";
import { test } from "node:test";

import { servedDist } from "./harness.mjs";

const dist = servedDist();

const BATCH = "[\\d,]+";
for (const [lang, best, share] of [
  [
    "en",
    new RegExp(`^Not even 2× the memory capacity makes it fit; the largest batch is ${BATCH} now \\(1\\.5×: ${BATCH}, 2×: ${BATCH}\\)\\.$`),
    /^Training does not fit this card as set up/,
  ],
  [
    "zh",
    new RegExp(`^即使显存容量加到 2× 也放不下；当前最大批大小为 ${BATCH}（1\\.5×：${BATCH}，2×：${BATCH}）。$`),
    /^按当前设置训练放不下这张卡/,
  ],
]) {
  test(`${lang}: nothing makes batch 8192 fit, and the inference panel says so`, async () => {
    const app = await dist.open(`${dist.url}?lang=${lang}&batch_per_gpu=8192`);
    await app.waitForReady();
    await app.page.waitForFunction(
      () => document.querySelector('[data-testid="best-lever"]')?.textContent.length > 0,
    );
    const sentence = await app.text("best-lever");
    assert.match(sentence, best);
    // The largest batch now is the verdict's.
    assert.ok(sentence.includes(await app.text("max-batch")), sentence);
    const inference = app.page.getByTestId("prediction-share");
    await inference.waitFor();
    const text = await inference.innerText();
    assert.match(text, share);
    assert.ok(!text.includes("%"), text);
    assert.match(await app.text("verdict"), lang === "en" ? /The times and costs below are for a step that would run out of memory\./ : /下面的时间与成本对应的是一个会显存不足的单步。/);
    const struck = (testid) =>
      app.page.getByTestId(testid).first().evaluate((e) => getComputedStyle(e).textDecorationLine);
    for (const testid of ["run-time", "epoch-time", "cost-per-experiment"]) {
      assert.equal(await struck(testid), "line-through", testid);
    }
    assert.deepEqual(app.consoleErrors, []);
    await app.close();
    const fits = await dist.open(`${dist.url}?lang=${lang}`);
    await fits.waitForReady();
    const plain = await fits.page.getByTestId("run-time").evaluate((e) => getComputedStyle(e).textDecorationLine);
    assert.equal(plain, "none");
    await fits.close();
  });
}
