//! The estimate against training steps measured on one NVIDIA H200 SXM
//! (`tools/measure_suite.py`, fixtures `measured_h200/zoo.jsonl` and `followup.jsonl`: the
//! zoo's HSI models, ViT-B with the foundation-model options and five published benchmark
//! models, PyTorch 2.11 / CUDA 13.0 / cuDNN 9.19 in a 16-vCPU Xeon virtual machine).
//!
//! The host constants (`perf.host`), cuDNN's FP32 heuristic slowdown and the Hopper 2-D
//! convolution factors were fitted on the `fit` models' steps and are checked on the
//! rest (`FIT_MODELS`); the Hopper 3-D factors and lowered-operand rates come from the
//! single convolutions.
//! `cargo test --test measured_h200 -- --nocapture` prints the table the README and
//! docs/validation.md carry; the test fails when either carries a stale row.

use hsi_gpu_core::analysis::analyze;
use hsi_gpu_core::assumptions::PerfAssumptions;
use hsi_gpu_core::device::{device_layer, Maths};
use hsi_gpu_core::gpu::gpu_by_id;
use hsi_gpu_core::graph::ModelSpec;
use hsi_gpu_core::measurement::{compare, measurement_from_json, PredictedVsMeasured};
use hsi_gpu_core::report::Warning;
use hsi_gpu_core::scenario::{scenario_from_json, Precision};
use serde_json::Value;

mod common;

/// Models whose host times fitted `perf.host` (every other model is held out): a
/// 1-D CNN, a 3-D/2-D CNN, a 3-D CNN with attention, a transformer, an MLP, a MAE and
/// a ResNet; held out: the other 3-D CNNs, SSFTT, U-Net, SegFormer, the GRU, the ViTs,
/// ConvNeXt and the 3-D U-Net.
const FIT_MODELS: [&str; 7] = [
    "hu1d",
    "hybridsn",
    "dbda",
    "spectralformer",
    "unmixing_ae",
    "mae_vit",
    "resnet50",
];

/// Models whose memory peaks fitted memory constants although their times are held out:
/// the GRU, the one recurrent model, fitted `perf.cudnn.rnn_*` (cuDNN's reserve space).
const MEMORY_FIT_MODELS: [&str; 1] = ["mou_rnn"];

/// Steps of held-out models whose step time fitted a constant: the GRU's one FP32 step
/// that waits for its device, `perf.cudnn.rnn_persistent_efficiency` (its batch-64 steps
/// wait for the host; its bf16 steps are held out).
const TIME_FIT_STEPS: [&str; 1] = ["mou_rnn b512 torch_default"];

struct Case {
    model: String,
    label: String,
    fit: bool,
    /// Its memory peaks fitted constants (`fit`, or `MEMORY_FIT_MODELS`).
    memory_fit: bool,
    /// Its step time fitted constants (`fit`, or `TIME_FIT_STEPS`).
    time_fit: bool,
    /// `torch.backends.cudnn.benchmark` was on (the published benchmarks' setting).
    cudnn_benchmark: bool,
    /// GradScaler's inf check syncs the host, so its host time includes the device's.
    host_synced: bool,
    /// A layer list measured before 2026-12-02 (`MEASURED_BEFORE_THE_LAYER_LIST_FIX`), whose
    /// forward kept every layer's output until it returned (a module drops what backward
    /// does not need): its memory peaks are not the program the estimate describes.
    held_every_output: bool,
    /// Device memory the suite's process still held when the step began, beyond a
    /// fresh process's (`left_over`): its peaks hold it too, so they are not compared.
    left_over_bytes: f64,
    c: PredictedVsMeasured,
}

/// The fixtures `tools/measure.py` recorded while its layer lists kept every output.
const MEASURED_BEFORE_THE_LAYER_LIST_FIX: [&str; 2] = ["zoo.jsonl", "followup.jsonl"];

/// What every step of a suite's process starts with, allocated by the steps before it
/// (cuBLAS's workspaces, kept per handle: 69 MB in every step but the first; the estimate
/// counts them).
const KEPT_BY_EVERY_STEP: f64 = 69e6;
/// More than this left over at a step's start and its memory peaks are not compared.
const LEFT_OVER_LIMIT: f64 = 50e6;

/// Device memory held when a step began beyond what every step starts with: its device
/// use before its trainer (context and reserved) less the context the step before it
/// ended with. 0 for a file's first step.
fn left_over(m: &Value, previous_context: Option<f64>) -> f64 {
    let before = m["device_used_before_bytes"].as_f64().unwrap();
    previous_context.map_or(0.0, |context| before - context - KEPT_BY_EVERY_STEP)
}

fn cases() -> Vec<Case> {
    let mut out = Vec::new();
    for file in ["zoo.jsonl", "followup.jsonl"] {
        let mut previous_context = None;
        for v in common::h200_records(file) {
            let Some(m) = v.get("measurement") else {
                continue;
            };
            let left_over_bytes = left_over(m, previous_context);
            previous_context = m["context_bytes"].as_f64();
            let s = common::h200_scenario(&v);
            let scenario =
                scenario_from_json(&s.to_string()).unwrap_or_else(|e| panic!("{v}: {e:?}"));
            let measurement =
                measurement_from_json(&m.to_string()).unwrap_or_else(|e| panic!("{v}: {e:?}"));
            let model = s["model"]["id"]
                .as_str()
                .or(s["model"]["spec"]["name"].as_str())
                .unwrap()
                .to_string();
            let precision = s["precision"].as_str().unwrap();
            let mut label = format!("{model} b{} {precision}", s["batch_per_gpu"]);
            if let Some(mode) = s["finetune"]["mode"].as_str() {
                label += &format!(" {mode}");
            }
            if s["model"]["id"].is_string() && ["ssftt", "vit", "mae_vit"].contains(&model.as_str())
            {
                label += &format!(" {}", s["attention"].as_str().unwrap());
            }
            let cudnn_benchmark = v["cudnn_benchmark"].as_bool().unwrap_or(false);
            if cudnn_benchmark {
                label += " bench";
            }
            out.push(Case {
                fit: FIT_MODELS.contains(&model.as_str()),
                time_fit: FIT_MODELS.contains(&model.as_str())
                    || TIME_FIT_STEPS.contains(&label.as_str()),
                memory_fit: FIT_MODELS.contains(&model.as_str())
                    || MEMORY_FIT_MODELS.contains(&model.as_str()),
                model,
                label,
                cudnn_benchmark,
                host_synced: precision == "amp_fp16",
                held_every_output: s["model"]["kind"] == "custom"
                    && MEASURED_BEFORE_THE_LAYER_LIST_FIX.contains(&file),
                left_over_bytes,
                c: compare(&scenario, &measurement).unwrap(),
            });
        }
    }
    out
}

impl Case {
    /// Whether `term` of this step was fitted on (memory peaks and times may differ).
    fn fitted(&self, term: &str) -> bool {
        if term.starts_with("peak_") {
            self.memory_fit
        } else if term == "step_time_s" {
            self.time_fit
        } else {
            self.fit
        }
    }

    /// Whether its memory peaks measured the program the estimate describes, from a
    /// fresh start.
    fn memory_compared(&self) -> bool {
        !self.held_every_output && self.left_over_bytes < LEFT_OVER_LIMIT
    }
}

/// A model's name as the docs write it (its id where it has none).
fn display_name(model: &str) -> &str {
    DISPLAY_NAMES
        .iter()
        .find(|(id, _)| *id == model)
        .map_or(model, |(_, name)| name)
}

fn error(c: &Case, term: &str) -> f64 {
    c.c.term(term).and_then(|t| t.error_pct).unwrap()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// The names the README and docs/validation.md give the models in the table.
const DISPLAY_NAMES: [(&str, &str); 17] = [
    ("hu1d", "1-D CNN (Hu)"),
    ("hybridsn", "HybridSN"),
    ("dbda", "DBDA"),
    ("spectralformer", "SpectralFormer"),
    ("unmixing_ae", "unmixing autoencoder"),
    ("mae_vit", "MAE (ViT-B)"),
    ("resnet50", "ResNet-50"),
    ("hamida3d", "Hamida 3-D CNN"),
    ("ssrn", "SSRN"),
    ("ssftt", "SSFTT"),
    ("mou_rnn", "GRU (Mou)"),
    ("unet", "U-Net"),
    ("vit", "ViT-B/8 (math, SDPA, LoRA, frozen)"),
    ("segformer", "SegFormer-B0"),
    ("convnext_tiny", "ConvNeXt-T"),
    ("vit_base_patch16_224", "ViT-B/16"),
    ("nnunet_3d_brats", "3-D nnU-Net"),
];

/// The table's terms: (comparison term, column). Host time leaves out GradScaler's steps,
/// the memory peaks the layer lists that kept every output.
const TERMS: [(&str, &str); 4] = [
    ("peak_allocated_bytes", "allocated peak"),
    ("peak_reserved_bytes", "reserved peak"),
    ("step_time_s", "step time"),
    ("host_step_s", "host time"),
];

/// One term over some steps: median |error| %, the worst factor either way, and how many
/// estimates are optimistic (below the measurement: too small, too fast).
struct Errors {
    steps: usize,
    median: f64,
    worst: f64,
    optimistic: usize,
}

/// `split`: only the steps whose `term` was fitted (`Some(true)`) or held out.
fn errors(cases: &[&Case], term: &str, split: Option<bool>) -> Option<Errors> {
    let e: Vec<f64> = cases
        .iter()
        .filter(|c| split.is_none_or(|fit| c.fitted(term) == fit))
        .filter(|c| term != "host_step_s" || !c.host_synced)
        .filter(|c| !term.starts_with("peak_") || c.memory_compared())
        .map(|c| error(c, term))
        .collect();
    (!e.is_empty()).then(|| Errors {
        steps: e.len(),
        median: median(e.iter().map(|x| x.abs()).collect()),
        worst: e
            .iter()
            .map(|x| (1.0 + x / 100.0).max(1.0 / (1.0 + x / 100.0)))
            .fold(1.0, f64::max),
        optimistic: e.iter().filter(|x| **x < 0.0).count(),
    })
}

/// A row of the table: each term's median, worst and optimistic count.
fn row(name: &str, split: &str, cases: &[&Case], fit: Option<bool>) -> String {
    let cells: Vec<String> = TERMS
        .iter()
        .map(|(term, _)| match errors(cases, term, fit) {
            Some(e) => format!(
                "{:.0} % · {:.2}x · {}/{}",
                e.median, e.worst, e.optimistic, e.steps
            ),
            None if *term == "host_step_s" => "(GradScaler)".into(),
            None => "(held every output)".into(),
        })
        .collect();
    format!(
        "| {name} | {split} | {} | {} |",
        cases
            .iter()
            .filter(|c| fit.is_none_or(|f| c.fit == f))
            .count(),
        cells.join(" | ")
    )
}

/// docs/validation.md's table: every step, then per model, per split and overall. Each
/// cell: median |error|, worst factor, steps whose estimate is optimistic / steps.
#[test]
fn the_estimate_against_the_h200_measurements() {
    let cases = cases();
    println!("| step | split | step measured ms | step | host | allocated | reserved |");
    for c in &cases {
        let ms = c.c.term("step_time_s").unwrap().measured * 1e3;
        println!(
            "| {} | {} | {ms:.2} | {:+.0} % | {:+.0} % | {:+.0} % | {:+.0} % |",
            c.label,
            match (c.fit, c.time_fit) {
                (true, _) => "fit",
                (false, true) => "held out (time fit)",
                (false, false) => "held out",
            },
            error(c, "step_time_s"),
            error(c, "host_step_s"),
            error(c, "peak_allocated_bytes"),
            error(c, "peak_reserved_bytes"),
        );
    }
    let mut models: Vec<&str> = Vec::new();
    for c in &cases {
        if !models.contains(&c.model.as_str()) {
            models.push(&c.model);
        }
    }
    let columns: Vec<&str> = TERMS.iter().map(|(_, name)| *name).collect();
    println!("| model | split | steps | {} |", columns.join(" | "));
    let mut table = Vec::new();
    for model in models {
        let set: Vec<&Case> = cases.iter().filter(|c| c.model == model).collect();
        let time_fit = set.iter().any(|c| c.time_fit);
        let split = match (set[0].fit, set[0].memory_fit, time_fit) {
            (true, _, _) => "fit",
            (false, true, true) => "held out (memory and one step's time fit)",
            (false, true, false) => "held out (memory fit)",
            (false, false, _) => "held out",
        };
        table.push(row(display_name(model), split, &set, None));
    }
    let all: Vec<&Case> = cases.iter().collect();
    // cuDNN's untimed picks: the HSI 3-D CNNs without cudnn.benchmark.
    let untimed: Vec<&Case> = cases
        .iter()
        .filter(|c| {
            !c.cudnn_benchmark
                && ["hybridsn", "ssrn", "dbda", "hamida3d"].contains(&c.model.as_str())
        })
        .collect();
    table.extend([
        row("fit models", "fit", &all, Some(true)),
        row("held-out models", "held out", &all, Some(false)),
        row("all", "", &all, None),
        row("3-D CNNs without cudnn.benchmark", "", &untimed, None),
    ]);
    println!("{}", table.join("\n"));
    // The README and docs/validation.md carry these rows as they are (bold aside): an
    // estimator change that moves a figure must update them.
    for doc in ["README.md", "docs/validation.md"] {
        let text = common::repo_file(doc).replace("**", "");
        let stale: Vec<&String> = table
            .iter()
            .filter(|r| !text.lines().any(|line| line == r.as_str()))
            .collect();
        assert!(
            stale.is_empty(),
            "{doc}: rows missing or stale, as they are now:\n{stale:#?}"
        );
    }
    // The steps that began with memory left over: reserved against the peak less it
    // (an approximation: the step may reuse some of it).
    for c in cases
        .iter()
        .filter(|c| !c.held_every_output && !c.memory_compared())
    {
        let reserved = c.c.term("peak_reserved_bytes").unwrap();
        let without = reserved.measured - c.left_over_bytes;
        println!(
            "{}: {:.0} MB left over; reserved {:+.0} % against the peak less it",
            c.label,
            c.left_over_bytes / 1e6,
            (reserved.predicted / without - 1.0) * 100.0
        );
    }

    let step = errors(&all, "step_time_s", None).unwrap();
    let fit_step = errors(&all, "step_time_s", Some(true)).unwrap();
    let held_out_step = errors(&all, "step_time_s", Some(false)).unwrap();
    for (name, e) in [
        ("all", &step),
        ("fit", &fit_step),
        ("held out", &held_out_step),
    ] {
        println!(
            "step time, {name}: median {:.1} %, worst {:.2}x, {} of {} too fast",
            e.median, e.worst, e.optimistic, e.steps
        );
    }
    let held_out_host = errors(&all, "host_step_s", Some(false)).unwrap();
    let untimed_step = errors(&untimed, "step_time_s", None).unwrap();
    let allocated = errors(&all, "peak_allocated_bytes", None).unwrap();
    let reserved = errors(&all, "peak_reserved_bytes", None).unwrap();
    println!(
        "allocated: median {:.2} %, reserved: median {:.2} %",
        allocated.median, reserved.median
    );
    // 24 % before the BLAS workspaces were counted. Before the caching allocator was
    // simulated (reserved = tensors x a flat 5 % fragmentation, no cuDNN workspaces):
    // allocated 6 % median, 2.22x worst, 50/74 optimistic; reserved 21 %, 4.07x, 59/74.
    // With it: allocated 6 %, 1.92x, 49/74; reserved 14 %, 2.48x, 54/74; with the CUDA-core
    // workspace share fitted on HybridSN's sweep (0.39 -> 0.54): allocated 4 %, 46/74;
    // reserved 14 %, 48/74. Leaving out the 7 layer-list steps whose forward kept every
    // output (ResNet-50 -37 % allocated on all three was that): allocated 3.6 %, 40/67;
    // reserved 10.5 %, 42/67; and the 12 that began with 254-548 MB left over by the steps
    // before them (the cudnn.benchmark steps' reserved -16..-54 % was mostly that):
    // 3.6 %, 31/55; 10.5 %, 34/55. With each kept tensor its own block (a max-pool's
    // input and indices were one, past the small pool's 1 MiB) and the forward outputs
    // backward keeps none of allocated until the next layer ran: reserved 8.9 %, 35/55
    // (HybridSN in AMP at batch 64 -28 -> -5 %, its 16-bit steps at batch 256 +9 -> -5..-6 %).
    // Issue 22's median targets (allocated 5 %, reserved 10 %) are met; the worst (1.2x,
    // 1.25x) are not. Before cuDNN's RNN reserve space and workspaces (`perf.cudnn.rnn_*`):
    // allocated 1.92x, 31/55; reserved 8.6 %, 2.48x, 35/55 (the GRU the furthest off);
    // now SSFTT is (1.68x allocated, 1.54x reserved).
    // The page's note on how well the estimate was checked says these medians, in both
    // languages (src/i18n/strings.rs, `EstimatesNote`).
    let note = common::repo_file("src/i18n/strings.rs");
    let (s, u) = (step.median, untimed_step.median);
    let (a, r) = (allocated.median, reserved.median);
    for said in [
        format!("{s:.1} % on our own H200 runs (HSI 3-D CNNs without cudnn.benchmark: {u:.0} %)"),
        format!("allocated peak memory by {a:.0} %, reserved (the caching allocator, simulated) by {r:.0} %"),
        format!("H200 实测上为 {s:.1} %（未开 cudnn.benchmark 的高光谱 3-D CNN：{u:.0} %）"),
        format!("已分配显存峰值为 {a:.0} %，已保留显存（模拟缓存分配器）为 {r:.0} %"),
    ] {
        assert!(note.contains(&said), "the page's note should say: {said}");
    }
    // So does the guide's "how far to trust the numbers", in both languages.
    let guide = |file: &str, join: &str| common::repo_file(file).replace('\n', join);
    let (so, sn) = (step.optimistic, step.steps);
    let (ro, rn, rw) = (reserved.optimistic, reserved.steps, reserved.worst);
    for (text, said) in [
        (
            guide("docs/guide.md", " "),
            format!(
                "step time {s:.1} % off at the median, {so} of {sn} steps too fast; memory as the \
                 caching allocator reserves it, simulated with cuDNN's workspaces, {r:.0} % at \
                 the median and up to {rw:.1}x low, {ro} of {rn} steps under the measured \
                 figure; the allocated peak {a:.0} %"
            ),
        ),
        (
            guide("docs/guide.zh.md", ""),
            format!(
                "单步时间中位误差 {s:.1} %，{sn} 步中 {so} 步偏快；显存按缓存分配器的已保留峰值模拟\
                 （含 cuDNN 工作空间），中位误差 {r:.0} %，最多少算 {rw:.1} 倍，{rn} 步中 {ro} 步\
                 低于实测；已分配峰值 {a:.0} %"
            ),
        ),
    ] {
        assert!(text.contains(&said), "the guide should say: {said}");
    }
    within(&allocated, 5.0, 1.7, "allocated peak");
    within(&reserved, 6.0, 1.6, "reserved peak");
    assert!(
        allocated.optimistic <= 29,
        "allocated: {} optimistic",
        allocated.optimistic
    );
    assert!(
        reserved.optimistic <= 33,
        "reserved: {} optimistic",
        reserved.optimistic
    );
    for c in &cases {
        if let Some(t) = c.c.term("max_batch") {
            println!(
                "{}: largest batch {} estimated, {} measured",
                c.label, t.predicted, t.measured
            );
        }
    }
    // Before the host constants were fitted (and cuDNN's RNN counted as one op) the
    // held-out medians were 59 % (host) and 59 % (step); 20.2 % (host) before attention's
    // head views were counted.
    assert!(
        held_out_host.median < 17.5,
        "held-out host median {:.1} %",
        held_out_host.median
    );
    // Before cuDNN's untimed algorithms were modelled: all steps 29.5 % at the median,
    // 55 of 74 too fast, the worst 10x (HybridSN in FP32); the 21 untimed 3-D CNN steps
    // 59 % and 10x, all 21 too fast. Before fused attention's Hopper rate, frozen layers'
    // backward, attention's host views and the device waiting for the host's issue: 22 %
    // (fit 11 %, held out 30 %), 45 of 74 too fast (ViT-B/8 frozen +23 -> -10 % and the
    // 1-D CNN at batch 1024 +2 -> -1 % changed sign, HybridSN AMP at batch 64 -5 -> +6 %).
    // Before the instruction issue of memory traffic (`memory_issue_per_kib`): 16.5 %,
    // 1.96x, 46 too fast; held out 23 %. Before cuDNN's persistent RNN kernel
    // (`perf.cudnn.rnn_persistent_*`): 15.8 %, 1.88x (the GRU at batch 512), 45 too fast.
    // Issue 22's target for all steps, 20 % and 2x, is met.
    assert!(step.median < 15.5, "step median {:.1} %", step.median);
    assert!(step.worst < 1.85, "step worst {:.2}x", step.worst);
    assert!(step.optimistic <= 46, "{} steps too fast", step.optimistic);
    assert!(
        fit_step.median < 8.5,
        "fit step median {:.1} %",
        fit_step.median
    );
    assert!(
        held_out_step.median < 20.5,
        "held-out step median {:.1} %",
        held_out_step.median
    );
    within(&untimed_step, 20.0, 2.0, "untimed 3-D CNN steps");
}

/// The recurrent-layer warning's figures are the GRU's measured / estimated peak memory
/// (allocated and reserved) over its compared steps, rounded as the warning words them.
#[test]
fn the_recurrent_warning_says_what_the_gru_measured() {
    let cases = cases();
    let factors: Vec<f64> = cases
        .iter()
        .filter(|c| c.model == "mou_rnn" && c.memory_compared())
        .flat_map(|c| ["peak_allocated_bytes", "peak_reserved_bytes"].map(|t| c.c.term(t).unwrap()))
        .map(|t| t.measured / t.predicted)
        .collect();
    assert_eq!(factors.len(), 8);
    let low = factors.iter().copied().fold(f64::INFINITY, f64::min);
    let high = factors.iter().copied().fold(0.0, f64::max);
    let worded = format!("{low:.1}-{high:.1}x");
    let warning = Warning::RecurrentReserve.to_string();
    assert!(warning.contains(&worded), "{worded}: {warning}");
}

/// `perf.cudnn.rnn_workspace_per_step` was fitted on the GRU's two FP32 steps (the value
/// of 17, 18, 19 with the least median |error| over their allocated and reserved peaks;
/// the reserve comes from pytorch/pytorch#2895): its two bf16 steps, held out, are within
/// 10 % on both peaks. Before the reserve and workspaces were counted: -26..-48 %.
#[test]
fn the_grus_bf16_steps_held_out_of_the_rnn_workspace_fit_are_within_10_percent() {
    let cases = cases();
    let held_out: Vec<&Case> = cases
        .iter()
        .filter(|c| c.model == "mou_rnn" && c.label.contains("amp_bf16"))
        .collect();
    assert_eq!(held_out.len(), 2);
    for c in held_out {
        for term in ["peak_allocated_bytes", "peak_reserved_bytes"] {
            let e = error(c, term);
            assert!(e.abs() < 10.0, "{} {term}: {e:+.0} %", c.label);
        }
    }
}

/// Asserts a median error under `median` % and a worst ratio under `worst`.
fn within(e: &Errors, median: f64, worst: f64, what: &str) {
    assert!(
        e.median < median && e.worst < worst,
        "{what}: median {:.1} %, worst {:.2}x",
        e.median,
        e.worst
    );
}

/// cuDNN's own choice of 3-D convolution algorithms (the default) against timing them
/// (`torch.backends.cudnn.benchmark = True`), measured: the estimate assumes the timed ones.
#[test]
fn cudnn_benchmark_speeds_up_every_3d_cnn_measured() {
    let cases = cases();
    for bench in cases
        .iter()
        .filter(|c| c.cudnn_benchmark && c.model != "resnet50")
    {
        let label = bench.label.trim_end_matches(" bench");
        let Some(default) = cases
            .iter()
            .find(|c| !c.cudnn_benchmark && c.label == label)
        else {
            continue;
        };
        let step = |c: &Case| c.c.term("step_time_s").unwrap().measured;
        let speedup = step(default) / step(bench);
        println!("{label}: cudnn.benchmark {speedup:.2}x faster");
        assert!(speedup > 1.0, "{label}: {speedup}");
    }
}

/// Single 3-D convolutions timed alone (`tools/measure_conv.py`, cudnn.benchmark on): the
/// device model's forward + backward time of each, analysed as a one-layer model. The C ->
/// C sweep fitted `conv3d_*_half` and the Hopper factors (`perf.cudnn.hopper_conv3d_*`);
/// the zoo's layers check them.
#[test]
fn single_3d_convolutions_against_the_device_model() {
    let now = PerfAssumptions::default();
    // The model before the channel terms: one rate per class (fitted on the published
    // 3-D U-Net alone).
    let mut before = now.clone();
    before.device.conv3d_channels_half = 0.0;
    before.device.conv3d_fp32_channels_half = 0.0;
    before.device.conv3d_depth_half = 0.0;
    before.device.conv3d_tensor_factor = 0.14;
    before.device.conv3d_fp32_factor = 0.5;
    before.cudnn.hopper_conv3d_fp32_factor = 1.0;
    before.cudnn.hopper_conv3d_tensor_factor = 1.0;
    let (sweep, zoo) = conv_factors(&now);
    let (_, zoo_before) = conv_factors(&before);
    println!("median estimated / measured: sweep {sweep:.2}, zoo layers {zoo:.2} (before the channel terms {zoo_before:.2})");
    let off = |x: f64| x.ln().abs();
    assert!(off(sweep) < 1.1f64.ln(), "sweep {sweep:.2}");
    assert!(
        off(zoo) < 1.4f64.ln() && off(zoo) < off(zoo_before) / 2.0,
        "zoo layers {zoo:.2}"
    );
}

/// Median estimated / measured time of the sweep's and the zoo's compute-bound
/// convolutions (forward >= 1 GFLOP; the rest is the host's in a loop of one layer).
fn conv_factors(a: &PerfAssumptions) -> (f64, f64) {
    let gpu = gpu_by_id("h200_sxm").unwrap();
    let (mut sweep, mut zoo) = (Vec::new(), Vec::new());
    for r in common::h200_records("conv.jsonl") {
        let kernel = r["kernel"].as_array().unwrap();
        if !r["cudnn_benchmark"].as_bool().unwrap()
            || kernel.len() != 3
            || r["forward_flops"].as_f64().unwrap() < 1e9
        {
            continue;
        }
        let input = &r["input"];
        let spec: ModelSpec = serde_json::from_value(serde_json::json!({
            "name": "conv", "input": input.as_array().unwrap()[1..],
            "layers": [{"name": "conv", "from": ["input"], "op": "conv", "dims": 3,
                "out_channels": r["out_channels"], "kernel": kernel, "stride": r["stride"],
                "padding": r["padding"], "dilation": [1, 1, 1], "groups": r["groups"], "bias": true}]
        }))
        .unwrap();
        let precision = match r["precision"].as_str().unwrap() {
            "fp32" => Precision::Fp32,
            "tf32" => Precision::Tf32,
            _ => Precision::Bf16,
        };
        let analysis = analyze(&spec, input[0].as_u64().unwrap(), precision).unwrap();
        let mut layer = analysis.layers[0].clone();
        // The one layer's input is the model's, which needs no gradient; the timed step
        // computed one where the zoo's layer does.
        if r["input_grad"].as_bool().unwrap() {
            layer.bwd_flops = 2.0 * layer.fwd_flops;
            layer.kernels_bwd += 1;
            if let Some(c) = layer.conv.as_mut() {
                c.input_grad = true;
            }
        }
        let d = device_layer(&layer, Maths::of(precision, gpu).benchmarked(true), gpu, a);
        let ratio = (d.forward.time_s + d.backward.time_s) / r["step_s"].as_f64().unwrap();
        let case = r["case"].as_str().unwrap();
        if case.starts_with("sweep") {
            &mut sweep
        } else {
            &mut zoo
        }
        .push(ratio.ln());
    }
    (median(sweep).exp(), median(zoo).exp())
}

/// The CUDA context an H200 scenario counts by default is the measured one (device memory
/// in use less reserved, every step), and a scenario's own value overrides the card's.
#[test]
fn the_h200_context_is_the_measured_one() {
    let measured: Vec<f64> = ["zoo.jsonl", "followup.jsonl"]
        .iter()
        .flat_map(|f| common::h200_records(f))
        .filter_map(|r| r["measurement"]["context_bytes"].as_f64())
        .collect();
    assert!(measured.len() >= 70, "{} contexts", measured.len());
    let (low, high) = measured
        .iter()
        .fold((f64::MAX, 0.0f64), |(lo, hi), &c| (lo.min(c), hi.max(c)));
    let context = |json: &str| {
        let s = scenario_from_json(json).unwrap();
        hsi_gpu_core::memory::cuda_context(&s, gpu_by_id(&s.gpu).unwrap())
    };
    let h200 = context(r#"{"gpu": "h200_sxm", "interconnect": "nvswitch"}"#);
    assert!(
        h200 >= high && h200 <= high * 1.01,
        "{h200} against {low}..{high}"
    );
    let set = context(
        r#"{"gpu": "h200_sxm", "interconnect": "nvswitch", "memory": {"cuda_context_bytes": 1000}}"#,
    );
    assert_eq!(set, 1000.0);
    assert!(
        context(r#"{"gpu": "rtx_3090"}"#) < low,
        "cards not measured keep the general default"
    );
}

/// The headroom a step needed: how far under its measured device total (reserved peak +
/// CUDA context, what an out-of-memory error is decided on) the estimate's total was, as
/// a share of the measured one (0 or less: the estimate held it). The default headroom
/// (`memory.headroom`, 20 %) covered every compared step but three; the README and
/// docs/validation.md say how many and which, the page's note and the guide how many.
#[test]
fn the_default_headroom_covers_the_measured_device_totals() {
    let cases = cases();
    let compared: Vec<(&str, f64)> = cases
        .iter()
        .filter(|c| c.memory_compared())
        .map(|c| {
            let t = c.c.term("device_total_bytes").unwrap();
            (c.label.as_str(), 1.0 - t.predicted / t.measured)
        })
        .collect();
    let headroom = hsi_gpu_core::Scenario::default().memory.headroom;
    let short: Vec<&(&str, f64)> = compared.iter().filter(|c| c.1 > headroom).collect();
    // "GRU (Mou) at batch 512 in AMP bf16 (24 %)": the step in the docs' words.
    let named: Vec<String> = short
        .iter()
        .map(|(label, needed)| {
            let [model, batch, precision, ..] = label.split_whitespace().collect::<Vec<_>>()[..]
            else {
                panic!("{label}")
            };
            let model = display_name(model);
            let precision = match precision {
                "torch_default" => "PyTorch's default precision",
                "amp_bf16" => "AMP bf16",
                other => other,
            };
            let batch = &batch[1..];
            format!(
                "{model} at batch {batch} in {precision} ({:.0} %)",
                needed * 100.0
            )
        })
        .collect();
    println!("{named:?}");
    let covered = compared.len() - short.len();
    let stated = format!(
        "{:.0} % headroom covered {covered} of {}",
        headroom * 100.0,
        compared.len()
    );
    println!("{stated}");
    assert!(short.len() <= 3, "{stated}");
    // The page's note says it too, and the guide, in both languages.
    let (h, n) = (headroom * 100.0, compared.len());
    let zh = format!("默认的 {h:.0} % 余量覆盖了 {n} 个实测步骤中的 {covered} 个");
    for (file, said) in [
        (
            "src/i18n/strings.rs",
            format!("the default {h:.0} % covered {covered} of {n} measured steps"),
        ),
        ("src/i18n/strings.rs", zh.clone()),
        ("docs/guide.md", stated.clone()),
        ("docs/guide.zh.md", zh),
    ] {
        assert!(
            common::repo_prose(file).contains(&said),
            "{file} should say: {said}"
        );
    }
    for doc in ["README.md", "docs/validation.md"] {
        let text = common::repo_prose(doc);
        assert!(text.contains(&stated), "{doc} should say: {stated}");
        for step in &named {
            assert!(text.contains(step), "{doc} should name {step}");
        }
    }
}

/// The largest batches the docs state are the estimate's against the two sweeps' (a stale
/// figure fails), and HybridSN's stays on the safe side of its measured one.
#[test]
fn the_docs_state_the_largest_batches_the_sweeps_give() {
    let (readme, validation, models) = (
        common::repo_prose("README.md"),
        common::repo_prose("docs/validation.md"),
        common::repo_prose("docs/models.md"),
    );
    let mut swept = Vec::new();
    for c in cases() {
        let Some(t) = c.c.term("max_batch") else {
            continue;
        };
        let [p, m] = [t.predicted, t.measured].map(|b| hsi_gpu_core::format::count(b as u64));
        let said: Vec<(&str, String)> = match c.model.as_str() {
            "hybridsn" => {
                assert!(t.predicted < t.measured, "{p} against {m}: past the card");
                vec![
                    (&readme, format!("{p} estimated against {m} measured")),
                    (&validation, format!("{p} estimated against {m} measured")),
                    (&models, format!("HybridSN {p} against {m} measured")),
                ]
            }
            "vit" => vec![
                (&readme, format!("ViT-B/8's {p} against {m}")),
                (&validation, format!("ViT-B/8's {p} against {m}")),
            ],
            other => panic!("a sweep of {other} the docs do not state"),
        };
        for (text, words) in said {
            assert!(text.contains(&words), "a doc should say: {words}");
        }
        swept.push(c.model);
    }
    assert_eq!(swept, ["hybridsn", "vit"]);
}
