//! The estimate against training steps measured on one NVIDIA H200 SXM
//! (`tools/measure_suite.py`, fixtures `measured_h200/zoo.jsonl` and `followup.jsonl`: the
//! zoo's HSI models, ViT-B with the foundation-model options and five published benchmark
//! models, PyTorch 2.11 / CUDA 13.0 / cuDNN 9.19 in a 16-vCPU Xeon virtual machine).
//!
//! The host constants (`perf.host`) were fitted on the `fit` models' host time per step
//! and are checked on the rest (`split`); nothing else was fitted to these measurements.
//! `cargo test --test measured_h200 -- --nocapture` prints the table the README carries.

use hsi_gpu_core::measurement::{compare, measurement_from_json, PredictedVsMeasured};
use hsi_gpu_core::scenario::scenario_from_json;
use serde_json::Value;

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

struct Case {
    model: String,
    label: String,
    fit: bool,
    /// `torch.backends.cudnn.benchmark` was on (the published benchmarks' setting).
    cudnn_benchmark: bool,
    /// GradScaler's inf check syncs the host, so its host time includes the device's.
    host_synced: bool,
    c: PredictedVsMeasured,
}

fn cases() -> Vec<Case> {
    let mut out = Vec::new();
    for file in ["zoo.jsonl", "followup.jsonl"] {
        let path = format!(
            "{}/tests/fixtures/measured_h200/{file}",
            env!("CARGO_MANIFEST_DIR")
        );
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        for line in text.lines() {
            let v: Value = serde_json::from_str(line).unwrap();
            let Some(m) = v.get("measurement") else {
                continue;
            };
            let mut s = v["scenario"].clone();
            // The measuring machine: one SXM card (its only interconnect id) in a server.
            s["interconnect"] = "nvswitch".into();
            s["cpu"] = "server".into();
            let scenario =
                scenario_from_json(&s.to_string()).unwrap_or_else(|e| panic!("{line}: {e:?}"));
            let measurement =
                measurement_from_json(&m.to_string()).unwrap_or_else(|e| panic!("{line}: {e:?}"));
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
                model,
                label,
                cudnn_benchmark,
                host_synced: precision == "amp_fp16",
                c: compare(&scenario, &measurement).unwrap(),
            });
        }
    }
    out
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

fn median_abs(cases: &[&Case], term: &str) -> f64 {
    median(cases.iter().map(|c| error(c, term).abs()).collect())
}

/// The README's table: every case, then per model and per split.
#[test]
fn the_estimate_against_the_h200_measurements() {
    let cases = cases();
    println!(
        "| case | split | step measured ms | step error % | host error % | allocated error % |"
    );
    for c in &cases {
        let ms = c.c.term("step_time_s").unwrap().measured * 1e3;
        println!(
            "| {} | {} | {ms:.2} | {:+.0} | {:+.0} | {:+.0} |",
            c.label,
            if c.fit { "fit" } else { "holdout" },
            error(c, "step_time_s"),
            error(c, "host_step_s"),
            error(c, "peak_allocated_bytes"),
        );
    }
    let mut models: Vec<&str> = Vec::new();
    for c in &cases {
        if !models.contains(&c.model.as_str()) {
            models.push(&c.model);
        }
    }
    println!("| model | cases | step median abs error % | host | allocated |");
    for model in models {
        let set: Vec<&Case> = cases.iter().filter(|c| c.model == model).collect();
        let host: Vec<&Case> = set.iter().copied().filter(|c| !c.host_synced).collect();
        // GradScaler's cases alone (ConvNeXt): no host time of its own.
        let host = match host.is_empty() {
            true => "n/a".to_string(),
            false => format!("{:.0}", median_abs(&host, "host_step_s")),
        };
        println!(
            "| {model} | {} | {:.0} | {host} | {:.0} |",
            set.len(),
            median_abs(&set, "step_time_s"),
            median_abs(&set, "peak_allocated_bytes")
        );
    }
    let mut held_out = (0.0, 0.0);
    for fit in [true, false] {
        let set: Vec<&Case> = cases.iter().filter(|c| c.fit == fit).collect();
        let unsynced: Vec<&Case> = set.iter().copied().filter(|c| !c.host_synced).collect();
        let (step, host) = (
            median_abs(&set, "step_time_s"),
            median_abs(&unsynced, "host_step_s"),
        );
        println!(
            "{}: {} cases, step median |error| {step:.1} %, host ({} cases) {host:.1} %",
            if fit { "fit" } else { "holdout" },
            set.len(),
            unsynced.len()
        );
        if !fit {
            held_out = (step, host);
        }
    }
    let all: Vec<&Case> = cases.iter().collect();
    let allocated = median_abs(&all, "peak_allocated_bytes");
    println!(
        "all {} cases: allocated peak median |error| {allocated:.1} %",
        all.len()
    );
    // 24 % before the BLAS workspaces were counted.
    assert!(
        allocated < 15.0,
        "allocated peak median error {allocated:.1} %"
    );
    // Before the host constants were fitted (and cuDNN's RNN counted as one op) the
    // held-out medians were 59 % (host) and 59 % (step).
    assert!(
        held_out.1 < 25.0,
        "held-out host time median error {:.1} %",
        held_out.1
    );
    assert!(
        held_out.0 < 40.0,
        "held-out step time median error {:.1} %",
        held_out.0
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
