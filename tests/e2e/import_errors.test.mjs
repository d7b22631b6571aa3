// Import and model-file errors in the reader's language: an empty text says it is empty,
// a non-object says so, a field that does not exist and a value out of range are named by
// their label, and no message points to docs/formats.md (a web reader cannot open it).

import assert from "node:assert/strict";
import { test } from "node:test";

import { servedDist } from "./harness.mjs";

const dist = servedDist();

const CASES = {
  en: [
    ["", /^It is empty: paste or load one JSON object\.$/],
    ["[1, 2]", /^This is not one JSON object/],
    ['{"bandz": 200}', /^line 1, column \d+: bandz: not a field here$/],
    ['{"batch_per_gpu": 0}', /^line 1, column \d+: Batch per GPU: got 0; allowed: an integer from 1 to 1048576$/],
  ],
  zh: [
    ["", /^内容为空：请粘贴或载入一个 JSON 对象。$/],
    ["[1, 2]", /^这不是一个 JSON 对象/],
    ['{"bandz": 200}', /^第 1 行第 \d+ 列：bandz：此处没有这个字段$/],
    ['{"batch_per_gpu": 0}', /^第 1 行第 \d+ 列：每卡批大小：当前值 0；允许：1 到 1048576 的整数$/],
  ],
};

const EMPTY = { en: /It is empty/, zh: /内容为空/ };

for (const [lang, cases] of Object.entries(CASES)) {
  test(`${lang}: the comparison's import box and the model file say what is wrong in the page's words`, async () => {
    const app = await dist.open(`${dist.url}?lang=${lang}`);
    await app.waitForReady();
    const box = app.page.getByTestId("import-text");
    await box.waitFor();
    for (const [text, expected] of cases) {
      await box.fill(text);
      await app.page.getByTestId("import-button").click();
      const shown = (await app.text("import-errors")).split("\n")[0];
      assert.match(shown, expected, JSON.stringify(text));
    }
    // The model file: an empty one.
    await app.page.getByTestId("model-file").setInputFiles({
      name: "empty.json",
      mimeType: "application/json",
      buffer: Buffer.from(""),
    });
    const error = await app.text("model-file-error");
    assert.ok(error.includes("empty.json"), error);
    assert.match(error, EMPTY[lang]);
    const page = await app.page.locator("body").innerText();
    assert.ok(!page.includes("formats.md") && !page.includes("(document)"), "no doc path or raw path");
    assert.deepEqual(app.consoleErrors, []);
    await app.close();
  });
}
