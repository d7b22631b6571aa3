//! The steps measured on one NVIDIA H200 SXM as the `measured_h200*` tests read them:
//! the fixture records (`fixtures/measured_h200/`), each step of the suite's files against
//! its estimate (`cases`), which steps fitted which constants, which memory peaks are
//! compared, and the names the docs give the models.

use hsi_gpu_core::measurement::{compare, measurement_from_json, PredictedVsMeasured};
use hsi_gpu_core::scenario::scenario_from_json;
use serde_json::Value;

/// The JSON lines of `fixtures/measured_h200/<file>` (one run's record each).
pub fn records(file: &str) -> Vec<Value> {
    let path = format!(
        "{}/tests/fixtures/measured_h200/{file}",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{path}: {e}")))
        .collect()
}

/// A record's scenario on the machine that measured it: one SXM card (its only
/// interconnect id) in a server, `cudnn.benchmark` as the run set it.
pub fn scenario(record: &Value) -> Value {
    let mut s = record["scenario"].clone();
    s["interconnect"] = "nvswitch".into();
    s["cpu"] = "server".into();
    s["cudnn_benchmark"] = record["cudnn_benchmark"].as_bool().unwrap_or(false).into();
    s
}

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

/// Steps of held-out models whose step time fitted a constant: the GRU's FP32 step that
/// waits for its device, `perf.cudnn.rnn_persistent_efficiency`, and its FP32 step that
/// waits for the host (`HOST_FIT_STEPS`); its bf16 steps are held out.
const TIME_FIT_STEPS: [&str; 2] = ["mou_rnn b512 torch_default", "mou_rnn b64 torch_default"];

/// Steps of held-out models whose host time fitted a constant: the GRU's FP32 step at
/// batch 64, `perf.host.rnn_weight_query_s` (cuDNN's weight queries in its backward).
const HOST_FIT_STEPS: [&str; 1] = ["mou_rnn b64 torch_default"];

/// One measured step against its estimate.
pub struct Case {
    pub model: String,
    pub label: String,
    pub fit: bool,
    /// Its memory peaks fitted constants (`fit`, or `MEMORY_FIT_MODELS`).
    pub memory_fit: bool,
    /// Its step time fitted constants (`fit`, or `TIME_FIT_STEPS`).
    pub time_fit: bool,
    /// Its host time fitted constants (`fit`, or `HOST_FIT_STEPS`).
    pub host_fit: bool,
    /// `torch.backends.cudnn.benchmark` was on (the published benchmarks' setting).
    pub cudnn_benchmark: bool,
    /// GradScaler's inf check syncs the host, so its host time includes the device's.
    pub host_synced: bool,
    /// A layer list measured before 2026-12-02 (`MEASURED_BEFORE_THE_LAYER_LIST_FIX`), whose
    /// forward kept every layer's output until it returned (a module drops what backward
    /// does not need): its memory peaks are not the program the estimate describes.
    pub held_every_output: bool,
    /// Device memory the suite's process still held when the step began, beyond a
    /// fresh process's (`left_over`): its peaks hold it too, so they are not compared.
    pub left_over_bytes: f64,
    pub c: PredictedVsMeasured,
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

/// Every step the suite's files (`zoo.jsonl`, `followup.jsonl`) measured, in file order.
pub fn cases() -> Vec<Case> {
    let mut out = Vec::new();
    for file in ["zoo.jsonl", "followup.jsonl"] {
        let mut previous_context = None;
        for v in records(file) {
            let Some(m) = v.get("measurement") else {
                continue;
            };
            let left_over_bytes = left_over(m, previous_context);
            previous_context = m["context_bytes"].as_f64();
            let s = scenario(&v);
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
                host_fit: FIT_MODELS.contains(&model.as_str())
                    || HOST_FIT_STEPS.contains(&label.as_str()),
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
    pub fn fitted(&self, term: &str) -> bool {
        if term.starts_with("peak_") {
            self.memory_fit
        } else if term == "step_time_s" {
            self.time_fit
        } else if term == "host_step_s" {
            self.host_fit
        } else {
            self.fit
        }
    }

    /// Whether its memory peaks measured the program the estimate describes, from a
    /// fresh start.
    pub fn memory_compared(&self) -> bool {
        !self.held_every_output && self.left_over_bytes < LEFT_OVER_LIMIT
    }
}

/// A model's name as the docs write it (its id where it has none).
pub fn display_name(model: &str) -> &str {
    DISPLAY_NAMES
        .iter()
        .find(|(id, _)| *id == model)
        .map_or(model, |(_, name)| name)
}

/// The estimate's error on `term` of a step, % of the measurement.
pub fn error(c: &Case, term: &str) -> f64 {
    c.c.term(term).and_then(|t| t.error_pct).unwrap()
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
