//! The docs' other figures from `hsi-gpu estimate` are the command line's: the guide's
//! inference figures, HybridSN's model states, the default total, ViT-B's saved bytes and
//! LoRA's adapters, and the errors docs/formats.md quotes. A stale figure fails here, and
//! the message gives the one the CLI prints now. The lever tables, the thesis figures and
//! formats.md's tables have their own files (doc_levers.rs, doc_thesis.rs, doc_formats.rs).

mod common;

use common::docs::{estimate, f, states};
use common::run;
use hsi_gpu_core::format;
use hsi_gpu_i18n::whatifs::cudnn_benchmark_sentence;
use hsi_gpu_i18n::Lang;
use serde_json::Value;

/// The guide's evaluation and prediction figures for the default scenario are
/// `hsi-gpu estimate`'s `inference` and `perf.epoch.run_s`.
#[test]
fn the_guides_inference_figures_are_the_estimates() {
    let r = estimate("{}");
    let i = &r["inference"];
    let run_s = f(&r["perf"]["epoch"]["run_s"]);
    let on = |gpu: &str| {
        let d = i["deployment"].as_array().unwrap();
        f(&d.iter().find(|d| d["gpu"] == gpu).unwrap()["scene_prediction_s"])
    };
    let n = |key: &str| format::count(i[key].as_u64().unwrap());
    let said = format!(
        "{} test pixels, {} scene pixels; largest no-grad batch {} on the RTX A5500; one test \
         pass {:.2} s, a test pass after every epoch {:.1} s ({:.1}x the {run_s:.1} s training \
         run), whole-scene prediction {:.2} s; on a T4 {:.1} s, a Jetson AGX Orin {:.1} s, an \
         L4 {:.1} s.",
        n("test_pixels"),
        n("scene_pixels"),
        n("max_batch_no_grad"),
        f(&i["eval_pass_s"]),
        f(&i["eval_every_epoch_s"]),
        f(&i["eval_every_epoch_s"]) / run_s,
        f(&i["scene_prediction_s"]),
        on("T4"),
        on("Jetson AGX Orin 64 GB"),
        on("L4"),
    );
    states(
        "docs/guide.md",
        &common::repo_prose("docs/guide.md"),
        &[said],
    );
}

/// The guides' input times of the default scenario without DataLoader workers and with 2
/// to 8 (`perf.time.input_s`): workers slow small pre-cut patches down.
#[test]
fn the_guides_worker_figures_are_the_estimates() {
    let input_ms = |workers: u32| {
        let r = estimate(&format!(r#"{{"pipeline": {{"num_workers": {workers}}}}}"#));
        f(&r["perf"]["time"]["input_s"]) * 1e3
    };
    let none = input_ms(0);
    let with: Vec<f64> = [2, 4, 8].map(input_ms).to_vec();
    let (lo, hi) = with
        .iter()
        .fold((f64::MAX, f64::MIN), |(lo, hi), &t| (lo.min(t), hi.max(t)));
    assert!(
        none < lo,
        "workers slow the default's input down: {none} against {lo}"
    );
    states(
        "docs/guide.md",
        &common::repo_prose("docs/guide.md"),
        &[format!(
            "takes {none:.1} ms a step without them, {lo:.1}-{hi:.1} ms with 2-8"
        )],
    );
    states(
        "docs/guide.zh.md",
        &common::repo_prose_zh("docs/guide.zh.md"),
        &[format!(
            "不用 worker 时输入每步 {none:.1} ms，用 2-8 个时{lo:.1}-{hi:.1} ms"
        )],
    );
}

/// The guides quote what the lever tile says of `cudnn.benchmark` for the default
/// scenario, and it is more than twice the compute gives; the README its figure.
#[test]
fn the_guides_cudnn_benchmark_figure_is_the_estimate() {
    let r = estimate("{}");
    let speedup = f(&r["cudnn_benchmark_speedup"]);
    assert!(speedup > f(&r["best_lever"]["speedup"]), "{speedup}");
    for (file, text, lang) in [
        (
            "docs/guide.md",
            common::repo_prose("docs/guide.md"),
            Lang::En,
        ),
        (
            "docs/guide.zh.md",
            common::repo_prose_zh("docs/guide.zh.md"),
            Lang::Zh,
        ),
    ] {
        states(file, &text, &[cudnn_benchmark_sentence(lang, speedup)]);
    }
    states(
        "README.md",
        &common::repo_prose("README.md"),
        &[format!("{speedup:.2}x on the default HybridSN scenario")],
    );
}

/// Figures the docs take from `hsi-gpu estimate` on named scenarios: HybridSN's
/// parameters and model states (the article's section 5.2), the default total the
/// browser tests read, ViT-B's saved bytes with fused and explicit attention and LoRA's
/// adapters; and the errors formats.md quotes.
#[test]
fn the_docs_other_estimate_figures_are_the_clis() {
    let r = estimate("{}");
    let m = &r["memory"];
    let params = format::count(r["params"].as_u64().unwrap());
    let model_states = f(&m["weights"]) + f(&m["gradients"]) + f(&m["optimizer_states"]);
    states(
        "docs/guide.md",
        &common::repo_prose("docs/guide.md"),
        &[format!(
            "(HybridSN, {params} parameters) are {:.3} GB",
            model_states / 1e9
        )],
    );
    states(
        "docs/guide.zh.md",
        &common::repo_prose_zh("docs/guide.zh.md"),
        &[format!(
            "（HybridSN，{params} 个参数）的权重、梯度和 Adam 状态共 {:.3} GB",
            model_states / 1e9
        )],
    );
    states(
        "docs/development.md",
        &common::repo_prose("docs/development.md"),
        &[format!(
            "for the per-GPU total memory (\"{}\" on the default scenario",
            format::bytes(f(&m["total"]))
        )],
    );
    // ViT-B at 224 px, batch 64, 3 bands (validation.md's foundation-model cases).
    let vit = |rest: &str| {
        estimate(&format!(
            r#"{{"model": {{"kind": "preset", "id": "vit", "size": "base"}}, "bands": 3,
                "patch": 224, "batch_per_gpu": 64{rest}}}"#
        ))
    };
    let saved = |r: &Value| -> f64 {
        r["layers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| f(&l["saved_bytes"]))
            .sum::<f64>()
            / 1e9
    };
    let [sdpa, math, sdpa_bf16, math_bf16] = [
        r#", "precision": "fp32", "attention": "sdpa""#,
        r#", "precision": "fp32", "attention": "math""#,
        r#", "precision": "amp_bf16", "attention": "sdpa""#,
        r#", "precision": "amp_bf16", "attention": "math""#,
    ]
    .map(|rest| saved(&vit(rest)));
    let full = vit(r#", "precision": "fp32""#);
    let lora = vit(
        r#", "precision": "fp32", "finetune": {"mode": "lora", "rank": 8, "targets": ["qkv", "proj"]}"#,
    );
    let adapters = f(&lora["trainable_params"]) / 1e6;
    let adam = f(&lora["memory"]["optimizer_states"]) / 1e6;
    let adam_full = f(&full["memory"]["optimizer_states"]) / 1e9;
    states(
        "docs/models.md",
        &common::repo_prose("docs/models.md"),
        &[
            format!(
                "`\"sdpa\"` keeps {sdpa:.1} GB against `\"math\"`'s {math:.1} GB in fp32 \
                 ({sdpa_bf16:.1} against {math_bf16:.1} GB under bf16 autocast)"
            ),
            format!(
                "trains {adapters:.2} M parameters (12 x 8 x (768 + 2304 + 768 + 768)): \
                 {adam:.1} MB of Adam states instead of {adam_full:.2} GB"
            ),
        ],
    );
    states(
        "docs/guide.zh.md",
        &common::repo_prose_zh("docs/guide.zh.md"),
        &[
            format!("`sdpa` 保存 {sdpa:.1} GB，`math` 保存 {math:.1} GB（fp32；"),
            format!(
                "只为 {adapters:.2} M 个适配器参数保存 Adam 状态（{adam:.1} MB，全参数训练为 \
                 {adam_full:.2} GB）"
            ),
        ],
    );
    // The errors formats.md quotes are the CLI's.
    let formats = common::repo_prose("docs/formats.md");
    let batch = common::one_line_error(&run(&["estimate", "-"], r#"{"batch_per_gpu": 0}"#));
    let typo = common::one_line_error(&run(&["estimate", "-"], r#"{"perf": {"overlap_typo": 1}}"#));
    assert!(
        formats.contains(&format!("(`{}`)", batch.trim())),
        "{batch}"
    );
    let (head, tail) = (
        "perf.overlap_typo: got unknown field",
        "; allowed: a known field: compute_efficiency,",
    );
    assert!(formats.contains(&format!("(`{head} ...{tail}")));
    assert!(
        typo.starts_with(&format!("hsi-gpu: {head}")) && typo.contains(tail),
        "{typo}"
    );
}
