// Measured vs estimated: the committed sample measurements (tools/samples/, synthetic and
// labelled so) load from files, each term's error matches `hsi-gpu compare`, a bad file is
// refused by field without losing the loaded ones, and "calibrate" puts the constants
// `hsi-gpu calibrate` fits into the page's scenario (its link), with undo.

import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";

import { REPO, cliJson, startApp } from "./harness.mjs";

const SAMPLES = ["synthetic_hybridsn_a5500_b64.json", "synthetic_hybridsn_a5500_b128.json"].map(
  (name) => path.join(REPO, "tools/samples", name),
);

const cli = (...args) => cliJson(args);

let started;
let app;
let scenarioFile;

before(async () => {
  // The page opens on the default scenario, which `hsi-gpu scenario` writes.
  const dir = mkdtempSync(path.join(tmpdir(), "hsi-measured-"));
  scenarioFile = path.join(dir, "scenario.json");
  writeFileSync(scenarioFile, JSON.stringify(cli("scenario")));
  started = await startApp("/");
  app = started.app;
});

after(() => started?.close());

const cases = () => app.page.getByTestId("measured-case");

/** The error column of one loaded file's table, keyed by term. */
async function errorsOf(fileName) {
  const table = cases().filter({ hasText: fileName });
  const out = {};
  for (const row of await table.locator("tr[data-term]").all()) {
    out[await row.getAttribute("data-term")] = await row.locator("td").nth(2).innerText();
  }
  return out;
}

/** "+12.3 %" as the page writes a signed error. */
const signed = (pct) => `${pct >= 0 ? "+" : ""}${pct.toFixed(1)} %`;

test("loaded measurements show each term's error as the CLI computes it", async () => {
  await app.page.getByTestId("measurement-file").setInputFiles(SAMPLES);
  await assert.doesNotReject(() => cases().nth(1).waitFor());
  assert.equal(await cases().count(), 2);
  for (const file of SAMPLES) {
    const expected = cli("compare", scenarioFile, file);
    const shown = await errorsOf(path.basename(file));
    assert.deepEqual(Object.keys(shown), expected.terms.map((t) => t.name));
    for (const term of expected.terms) {
      assert.equal(shown[term.name], signed(term.error_pct), `${path.basename(file)} ${term.name}`);
    }
  }
  // The samples are labelled as made up, on the page too.
  assert.match(await cases().first().innerText(), /synthetic sample/);
  await app.screenshot("measured-loaded");
});

test("a bad file is refused by field and the loaded ones stay", async () => {
  await app.page.getByTestId("measurement-file").setInputFiles({
    name: "typo.json",
    mimeType: "application/json",
    buffer: Buffer.from('{"batch": 64, "step_time_s": "fast"}'),
  });
  const error = app.page.getByTestId("measured-error");
  await error.waitFor();
  const text = await error.innerText();
  assert.match(text, /typo\.json/);
  assert.match(text, /step_time_s/);
  assert.match(text, /a number/);
  assert.equal(await cases().count(), 2);
});

test("calibrate puts the fitted constants in the scenario, and undo takes them out", async () => {
  const { scenario: fitted, report } = cli("calibrate", scenarioFile, ...SAMPLES);
  const context = fitted.memory.cuda_context_bytes;
  await app.page.getByTestId("calibrate").click();
  const table = app.page.getByTestId("fitted");
  await table.waitFor();
  const fields = await table.locator("tr[data-field]").evaluateAll((rows) =>
    rows.map((r) => r.dataset.field),
  );
  assert.deepEqual(fields, report.fitted.map((f) => f.field));
  // The link (address bar) now carries the fitted context, as the CLI fits it.
  await app.page.waitForFunction(
    (value) => location.search.includes(`memory.cuda_context_bytes=${value}`),
    context,
  );
  // Fitted to these measurements, the step time is now close to the measured one.
  const stepAfter = await app.page
    .getByTestId("calibration-errors")
    .locator('tr[data-term="step_time_s"] td')
    .nth(1)
    .innerText();
  assert.ok(Math.abs(parseFloat(stepAfter)) < 5, `step-time error after: ${stepAfter}`);
  await app.screenshot("measured-calibrated");

  await app.page.getByTestId("undo-calibration").click();
  await app.page.waitForFunction(() => !location.search.includes("cuda_context_bytes"));
  assert.equal(await app.page.getByTestId("calibration").count(), 0);
});

test("the comparison speaks Chinese", async () => {
  await app.page.getByTestId("lang-toggle").click();
  const section = app.page.getByTestId("measured");
  await section.getByText("实测与估算对比").waitFor();
  const text = await section.innerText();
  assert.match(text, /合成示例/);
  assert.match(text, /误差/);
  assert.equal(app.consoleErrors.length, 0, app.consoleErrors.join("\n"));
});
