//! The estimate against training steps measured on one NVIDIA H200 SXM
//! (`tools/measure_suite.py`, fixtures `measured_h200/zoo.jsonl` and `followup.jsonl`: the
//! zoo's HSI models, ViT-B with the foundation-model options and five published benchmark
//! models, PyTorch 2.11 / CUDA 13.0 / cuDNN 9.19 in a 16-vCPU Xeon virtual machine).
//!
//! The host constants (`perf.host`) were fitted on the `fit` models' host time per step
//! and are checked on the rest (`split`); nothing else was fitted to these measurements.
//! `cargo test --test measured_h200 -- --nocapture` prints the table docs/validation.md carries.

use hsi_gpu_core::analysis::analyze;
use hsi_gpu_core::assumptions::PerfAssumptions;
use hsi_gpu_core::device::{device_layer, Maths};
use hsi_gpu_core::gpu::gpu_by_id;
use hsi_gpu_core::graph::ModelSpec;
use hsi_gpu_core::measurement::{compare, measurement_from_json, PredictedVsMeasured};
use hsi_gpu_core::scenario::{scenario_from_json, Precision};
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

/// The JSON lines of `fixtures/measured_h200/<file>`.
fn records(file: &str) -> Vec<Value> {
    let path = format!(
        "{}/tests/fixtures/measured_h200/{file}",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

fn cases() -> Vec<Case> {
    let mut out = Vec::new();
    for file in ["zoo.jsonl", "followup.jsonl"] {
        for v in records(file) {
            let Some(m) = v.get("measurement") else {
                continue;
            };
            let mut s = v["scenario"].clone();
            // The measuring machine: one SXM card (its only interconnect id) in a server.
            s["interconnect"] = "nvswitch".into();
            s["cpu"] = "server".into();
            s["cudnn_benchmark"] = v["cudnn_benchmark"].as_bool().unwrap_or(false).into();
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

/// docs/validation.md's table: every case, then per model and per split.
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

/// Single 3-D convolutions timed alone (`tools/measure_conv.py`, cudnn.benchmark on): the
/// device model's forward + backward time of each, analysed as a one-layer model. The C ->
/// C sweep fitted `conv3d_*_half`; the zoo's layers check them.
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
    let (sweep, zoo) = conv_factors(&now);
    let (_, zoo_before) = conv_factors(&before);
    println!("median factor off: sweep {sweep:.2}, zoo layers {zoo:.2} (before the channel terms {zoo_before:.2})");
    assert!(
        zoo < 1.7 && zoo < zoo_before / 2.0,
        "zoo layers {zoo:.2}x off at the median"
    );
}

/// Median factor between the device model's and the measured time of the sweep's and
/// the zoo's compute-bound convolutions (forward >= 1 GFLOP; the rest is the host's in a
/// loop of one layer).
fn conv_factors(a: &PerfAssumptions) -> (f64, f64) {
    let gpu = gpu_by_id("h200_sxm").unwrap();
    let (mut sweep, mut zoo) = (Vec::new(), Vec::new());
    for r in records("conv.jsonl") {
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
        if !r["input_grad"].as_bool().unwrap() {
            layer.bwd_flops /= 2.0; // the weight gradient alone
        }
        let d = device_layer(&layer, Maths::of(precision, gpu), gpu, a);
        let ratio = (d.forward.time_s + d.backward.time_s) / r["step_s"].as_f64().unwrap();
        let case = r["case"].as_str().unwrap();
        if case.starts_with("sweep") {
            &mut sweep
        } else {
            &mut zoo
        }
        .push(ratio.ln().abs());
    }
    (median(sweep).exp(), median(zoo).exp())
}
