//! The Scenario: the single source of truth that the URL query, localStorage, JSON
//! import/export and the CLI all read and write. `validate` lists every problem with its
//! field, value and allowed range.

use serde::{Deserialize, Serialize};

use serde_json::Value;

use crate::cost::CostAssumptions;
use crate::graph::{read_model_spec, ModelSpec};
use crate::json_fields::Fields;
use crate::perf::PerfAssumptions;
pub use crate::problems::{FieldError, Problems};

/// Numeric precision of training.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Precision {
    /// Plain fp32 on CUDA cores (TF32 disabled).
    Fp32,
    /// fp32 storage, matmul/conv on TF32 tensor cores (`allow_tf32 = True`).
    Tf32,
    /// `torch.autocast(dtype=float16)` + GradScaler: fp32 weights, fp16 conv/linear.
    AmpFp16,
    /// `torch.autocast(dtype=bfloat16)`: fp32 weights, bf16 conv/linear.
    AmpBf16,
    /// The whole model cast to bf16 (`model.to(torch.bfloat16)`), optimizer states in bf16.
    Bf16,
}

impl Precision {
    pub const ALL: [Precision; 5] = [
        Precision::Fp32,
        Precision::Tf32,
        Precision::AmpFp16,
        Precision::AmpBf16,
        Precision::Bf16,
    ];

    /// True for autocast modes, where fp32 parameters are the master weights and
    /// conv/linear/matmul run on half-precision copies.
    pub fn is_autocast(self) -> bool {
        matches!(self, Precision::AmpFp16 | Precision::AmpBf16)
    }

    /// Bytes of one parameter (and of its gradient) as stored.
    pub fn param_bytes(self) -> u64 {
        match self {
            Precision::Bf16 => 2,
            _ => 4,
        }
    }

    /// Bytes of one element of a conv/linear/matmul operand or result.
    pub fn matmul_bytes(self) -> u64 {
        match self {
            Precision::Fp32 | Precision::Tf32 => 4,
            _ => 2,
        }
    }

    pub fn id(self) -> &'static str {
        match self {
            Precision::Fp32 => "fp32",
            Precision::Tf32 => "tf32",
            Precision::AmpFp16 => "amp_fp16",
            Precision::AmpBf16 => "amp_bf16",
            Precision::Bf16 => "bf16",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Optimizer {
    Sgd,
    SgdMomentum,
    Adam,
    Adamw,
}

impl Optimizer {
    pub const ALL: [Optimizer; 4] = [
        Optimizer::Sgd,
        Optimizer::SgdMomentum,
        Optimizer::Adam,
        Optimizer::Adamw,
    ];

    /// State tensors kept per parameter (momentum buffer; Adam's exp_avg and exp_avg_sq).
    pub fn states_per_param(self) -> u64 {
        match self {
            Optimizer::Sgd => 0,
            Optimizer::SgdMomentum => 1,
            Optimizer::Adam | Optimizer::Adamw => 2,
        }
    }

    pub fn id(self) -> &'static str {
        match self {
            Optimizer::Sgd => "sgd",
            Optimizer::SgdMomentum => "sgd_momentum",
            Optimizer::Adam => "adam",
            Optimizer::Adamw => "adamw",
        }
    }
}

/// How the cards talk to each other.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Interconnect {
    /// PCIe x16; peer-to-peer where the card allows it, else through host memory.
    Pcie,
    /// NVLink bridges joining pairs of cards; the ring still crosses PCIe between pairs.
    NvlinkBridge,
    /// SXM boards: every card on NVLink / NVSwitch.
    Nvswitch,
}

impl Interconnect {
    pub const ALL: [Interconnect; 3] = [
        Interconnect::Pcie,
        Interconnect::NvlinkBridge,
        Interconnect::Nvswitch,
    ];

    pub fn id(self) -> &'static str {
        match self {
            Interconnect::Pcie => "pcie",
            Interconnect::NvlinkBridge => "nvlink_bridge",
            Interconnect::Nvswitch => "nvswitch",
        }
    }
}

/// How several cards are used.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ParallelMode {
    /// One run, DistributedDataParallel over all cards (fixed per-GPU batch).
    Ddp,
    /// N independent runs, one per card, no communication.
    ParallelExperiments,
}

impl ParallelMode {
    pub const ALL: [ParallelMode; 2] = [ParallelMode::Ddp, ParallelMode::ParallelExperiments];

    /// The JSON id.
    pub fn id(self) -> &'static str {
        match self {
            ParallelMode::Ddp => "ddp",
            ParallelMode::ParallelExperiments => "parallel_experiments",
        }
    }
}

/// Vision-transformer foundation-model size presets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VitSize {
    Small,
    Base,
    Large,
    Huge,
}

impl VitSize {
    pub const ALL: [VitSize; 4] = [VitSize::Small, VitSize::Base, VitSize::Large, VitSize::Huge];

    /// The JSON id.
    pub fn id(self) -> &'static str {
        match self {
            VitSize::Small => "small",
            VitSize::Base => "base",
            VitSize::Large => "large",
            VitSize::Huge => "huge",
        }
    }
}

/// Which model: a zoo preset with its options, or a custom layer list. Serialized by
/// serde with a `kind` tag; read by hand (`read_model_choice`).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ModelChoice {
    Preset {
        id: String,
        /// Width multiplier or base channel count where the paper has one; None = paper default.
        #[serde(skip_serializing_if = "Option::is_none")]
        width: Option<u32>,
        /// Size for the ViT foundation model.
        #[serde(skip_serializing_if = "Option::is_none")]
        size: Option<VitSize>,
    },
    Custom {
        spec: ModelSpec,
    },
}

impl<'de> Deserialize<'de> for ModelChoice {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        read_model_choice(&Value::deserialize(d)?).map_err(serde::de::Error::custom)
    }
}

/// Reads the model choice by hand: the derived reader of an internally tagged enum pulls
/// serde's buffering deserializer into the web page (a few kB of its download budget).
/// Like that reader, it ignores the other kind's fields (a link may set `kind` alone).
fn read_model_choice(value: &Value) -> Result<ModelChoice, FieldError> {
    match value.get("kind").and_then(Value::as_str) {
        Some("preset") => {
            let f = Fields::object(value, String::new())?;
            Ok(ModelChoice::Preset {
                id: f.need("id", f.string("id")?)?,
                width: f.whole_u32("width")?,
                size: f.one_of("size", &VitSize::ALL, VitSize::id)?,
            })
        }
        Some("custom") => {
            let f = Fields::object(value, String::new())?;
            let spec = f.need("spec", f.get("spec"))?;
            Ok(ModelChoice::Custom {
                spec: read_model_spec(spec).map_err(|e| e.within("spec."))?,
            })
        }
        _ => Err(FieldError {
            field: "kind".into(),
            value: value.get("kind").map_or("missing".into(), Value::to_string),
            allowed: "preset or custom".into(),
        }),
    }
}

/// Memory-model constants that cannot be derived; each is documented where it is used
/// (see `memory.rs`) and can be overridden here.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MemoryAssumptions {
    /// Fraction of card memory kept free when computing the largest batch (0.2 = 20 %).
    pub headroom: f64,
    /// CUDA context + PyTorch/cuDNN/cuBLAS kernels and handles, bytes.
    pub cuda_context_bytes: u64,
    /// Caching-allocator fragmentation, as a fraction of the allocated peak.
    pub fragmentation: f64,
    /// Bytes of the card's memory that the driver keeps for itself (not usable by CUDA).
    pub driver_reserved_bytes: u64,
}

impl Default for MemoryAssumptions {
    fn default() -> Self {
        MemoryAssumptions {
            headroom: 0.20,
            cuda_context_bytes: crate::memory::DEFAULT_CUDA_CONTEXT_BYTES,
            fragmentation: crate::memory::DEFAULT_FRAGMENTATION,
            driver_reserved_bytes: crate::memory::DEFAULT_DRIVER_RESERVED_BYTES,
        }
    }
}

/// What is trained, for how long: drives epoch time, sweeps and cost.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Workload {
    pub mode: ParallelMode,
    /// Fraction of the labeled pixels used for training (0..1].
    pub train_fraction: f64,
    pub epochs: u32,
    /// Runs in a hyper-parameter sweep (K).
    pub sweep_runs: u32,
    /// Gradient-accumulation micro-steps per optimizer step.
    pub grad_accum_steps: u32,
}

impl Default for Workload {
    fn default() -> Self {
        Workload {
            mode: ParallelMode::Ddp,
            train_fraction: 0.1,
            epochs: 100,
            sweep_runs: 8,
            grad_accum_steps: 1,
        }
    }
}

/// Everything the estimator needs. Serialises to the JSON the CLI, the URL and storage use;
/// read by hand (`scenario_from_value`): a missing field takes its default.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Scenario {
    pub model: ModelChoice,
    /// Dataset preset id; fills bands/classes defaults in the UI and sizes an epoch.
    pub dataset: String,
    /// Spectral bands B fed to the model (after PCA or band removal).
    pub bands: u32,
    /// Spatial patch side s (pixels); the patch is s x s.
    pub patch: u32,
    pub classes: u32,
    pub batch_per_gpu: u32,
    pub precision: Precision,
    pub optimizer: Optimizer,
    pub checkpointing: bool,
    pub gpu: String,
    pub cards: u32,
    pub interconnect: Interconnect,
    pub workload: Workload,
    pub memory: MemoryAssumptions,
    pub perf: PerfAssumptions,
    pub cost: CostAssumptions,
}

impl Default for Scenario {
    /// HybridSN on Indian Pines (PCA to 30 bands, 25x25 patches), batch 64, fp32 Adam,
    /// one RTX A5500: the article's workload.
    fn default() -> Self {
        Scenario {
            model: ModelChoice::Preset {
                id: "hybridsn".into(),
                width: None,
                size: None,
            },
            dataset: "indian_pines".into(),
            bands: 30,
            patch: 25,
            classes: 16,
            batch_per_gpu: 64,
            precision: Precision::Fp32,
            optimizer: Optimizer::Adam,
            checkpointing: false,
            gpu: "rtx_a5500".into(),
            cards: 1,
            interconnect: Interconnect::Pcie,
            workload: Workload::default(),
            memory: MemoryAssumptions::default(),
            perf: PerfAssumptions::default(),
            cost: CostAssumptions::default(),
        }
    }
}

impl<'de> Deserialize<'de> for Scenario {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        scenario_from_value(&Value::deserialize(d)?).map_err(serde::de::Error::custom)
    }
}

/// The top-level fields of a Scenario; any other is refused (a typo must not pass).
const SCENARIO_FIELDS: [&str; 16] = [
    "model",
    "dataset",
    "bands",
    "patch",
    "classes",
    "batch_per_gpu",
    "precision",
    "optimizer",
    "checkpointing",
    "gpu",
    "cards",
    "interconnect",
    "workload",
    "memory",
    "perf",
    "cost",
];

/// Reads a Scenario by hand: serde's derived reader for it and its sections was about
/// 9 kB of the web page's download budget. Every field may be missing or null (it keeps
/// its default); the sections ignore fields they do not have, as the derived reader did.
/// `tests/scenario_json.rs` checks that every field the Scenario writes is read back.
pub fn scenario_from_value(value: &Value) -> Result<Scenario, FieldError> {
    let f = Fields::new(value, String::new(), &SCENARIO_FIELDS)?;
    let mut s = Scenario::default();
    if let Some(model) = f.get("model") {
        s.model = read_model_choice(model).map_err(|e| e.within("model."))?;
    }
    f.set_each(
        [("dataset", &mut s.dataset), ("gpu", &mut s.gpu)],
        Fields::string,
    )?;
    f.counts([
        ("bands", &mut s.bands),
        ("patch", &mut s.patch),
        ("classes", &mut s.classes),
        ("batch_per_gpu", &mut s.batch_per_gpu),
        ("cards", &mut s.cards),
    ])?;
    s.precision = f
        .one_of("precision", &Precision::ALL, Precision::id)?
        .unwrap_or(s.precision);
    s.optimizer = f
        .one_of("optimizer", &Optimizer::ALL, Optimizer::id)?
        .unwrap_or(s.optimizer);
    s.interconnect = f
        .one_of("interconnect", &Interconnect::ALL, Interconnect::id)?
        .unwrap_or(s.interconnect);
    s.checkpointing = f.bool("checkpointing")?.unwrap_or(s.checkpointing);

    let section = |key: &str| -> Result<Option<Fields>, FieldError> {
        f.get(key)
            .map(|v| Fields::object(v, format!("{key}.")))
            .transpose()
    };
    if let Some(w) = section("workload")? {
        let workload = &mut s.workload;
        workload.mode = w
            .one_of("mode", &ParallelMode::ALL, ParallelMode::id)?
            .unwrap_or(workload.mode);
        w.numbers([("train_fraction", &mut workload.train_fraction)])?;
        w.counts([
            ("epochs", &mut workload.epochs),
            ("sweep_runs", &mut workload.sweep_runs),
            ("grad_accum_steps", &mut workload.grad_accum_steps),
        ])?;
    }
    if let Some(m) = section("memory")? {
        let memory = &mut s.memory;
        m.numbers([
            ("headroom", &mut memory.headroom),
            ("fragmentation", &mut memory.fragmentation),
        ])?;
        m.set_each(
            [
                ("cuda_context_bytes", &mut memory.cuda_context_bytes),
                ("driver_reserved_bytes", &mut memory.driver_reserved_bytes),
            ],
            |m, key| m.whole(key, u64::MAX),
        )?;
    }
    if let Some(p) = section("perf")? {
        let perf = &mut s.perf;
        p.numbers([
            ("compute_efficiency", &mut perf.compute_efficiency),
            ("efficiency_ramp_s", &mut perf.efficiency_ramp_s),
            ("memory_efficiency", &mut perf.memory_efficiency),
            ("kernel_launch_s", &mut perf.kernel_launch_s),
        ])?;
        perf.optimizer_kernels = p.whole_u32("optimizer_kernels")?;
        if let Some(scaling) = p.get("scaling") {
            let sc = Fields::object(scaling, "perf.scaling.".into())?;
            let a = &mut perf.scaling;
            sc.numbers([
                ("pcie_efficiency", &mut a.pcie_efficiency),
                ("host_staged_factor", &mut a.host_staged_factor),
                ("nvlink_efficiency", &mut a.nvlink_efficiency),
                ("hop_latency_s", &mut a.hop_latency_s),
                ("bucket_bytes", &mut a.bucket_bytes),
                ("first_bucket_bytes", &mut a.first_bucket_bytes),
                ("overlap", &mut a.overlap),
            ])?;
        }
    }
    if let Some(c) = section("cost")? {
        let cost = &mut s.cost;
        cost.card_price_usd = c.number("card_price_usd")?;
        c.numbers([
            ("platform_base_usd", &mut cost.platform_base_usd),
            ("platform_per_card_usd", &mut cost.platform_per_card_usd),
            ("multi_gpu_platform_usd", &mut cost.multi_gpu_platform_usd),
            ("system_base_watts", &mut cost.system_base_watts),
            ("psu_margin", &mut cost.psu_margin),
            ("psu_usd_per_watt", &mut cost.psu_usd_per_watt),
            ("cooling_usd_per_card", &mut cost.cooling_usd_per_card),
            ("electricity_usd_per_kwh", &mut cost.electricity_usd_per_kwh),
            ("pue", &mut cost.pue),
            ("utilization", &mut cost.utilization),
            ("lifetime_years", &mut cost.lifetime_years),
            ("ops_hours_per_month", &mut cost.ops_hours_per_month),
            (
                "ops_hours_per_month_per_extra_card",
                &mut cost.ops_hours_per_month_per_extra_card,
            ),
            ("ops_usd_per_hour", &mut cost.ops_usd_per_hour),
            ("cloud_usd_per_gpu_hour", &mut cost.cloud_usd_per_gpu_hour),
        ])?;
    }
    Ok(s)
}

/// Input-geometry limits: wide enough for whole-scene segmentation, small enough that
/// every product stays exact in f64 and u64.
pub const MAX_BANDS: u32 = 1024;
pub const MAX_PATCH: u32 = 4096;
pub const MAX_CLASSES: u32 = 10_000;
pub const MAX_BATCH: u32 = 1 << 20;
pub const MAX_CARDS: u32 = 8;

impl Scenario {
    /// Every problem with this scenario's plain fields (the model's own checks come from
    /// building it). Empty means valid.
    pub fn validate(&self) -> Vec<FieldError> {
        let mut p = Problems::default();
        p.range_u64("bands", self.bands.into(), 1, MAX_BANDS.into());
        p.range_u64("patch", self.patch.into(), 1, MAX_PATCH.into());
        p.range_u64("classes", self.classes.into(), 1, MAX_CLASSES.into());
        p.range_u64(
            "batch_per_gpu",
            self.batch_per_gpu.into(),
            1,
            MAX_BATCH.into(),
        );
        p.range_u64("cards", self.cards.into(), 1, MAX_CARDS.into());
        if crate::gpu::gpu_by_id(&self.gpu).is_none() {
            p.push("gpu", &self.gpu, crate::gpu::gpu_ids().join(", "));
        }
        if crate::dataset::dataset_by_id(&self.dataset).is_none() {
            p.push(
                "dataset",
                &self.dataset,
                crate::dataset::dataset_ids().join(", "),
            );
        }
        let w = &self.workload;
        p.range_f64("workload.train_fraction", w.train_fraction, 1e-6, 1.0);
        p.range_u64("workload.epochs", w.epochs.into(), 1, 100_000);
        p.range_u64("workload.sweep_runs", w.sweep_runs.into(), 1, 100_000);
        p.range_u64(
            "workload.grad_accum_steps",
            w.grad_accum_steps.into(),
            1,
            4096,
        );
        let m = &self.memory;
        p.range_f64("memory.headroom", m.headroom, 0.0, 0.9);
        p.range_u64(
            "memory.cuda_context_bytes",
            m.cuda_context_bytes,
            0,
            1 << 36,
        );
        p.range_f64("memory.fragmentation", m.fragmentation, 0.0, 1.0);
        p.range_u64(
            "memory.driver_reserved_bytes",
            m.driver_reserved_bytes,
            0,
            1 << 36,
        );
        self.perf.validate(&mut p);
        self.cost.validate(&mut p);
        p.0
    }
}

/// Largest Scenario JSON accepted (a custom model of thousands of layers fits easily).
pub const MAX_JSON_BYTES: usize = 4 << 20;

/// What a JSON document is, for the errors `json_object_value` gives.
pub struct JsonDocument {
    /// Field name for errors about the document as a whole, e.g. "(document)".
    pub field: &'static str,
    /// What the document must be, e.g. "one JSON object: a Scenario".
    pub expected: &'static str,
}

impl JsonDocument {
    fn error(&self, value: String, allowed: String) -> FieldError {
        FieldError {
            field: self.field.into(),
            value,
            allowed,
        }
    }
}

/// One JSON object as a `serde_json::Value`, for documents read field by field (their
/// errors name the field path). A syntax error has serde_json's line and column;
/// documents over `MAX_JSON_BYTES` and other JSON values are refused.
pub fn json_object_value(text: &str, doc: &JsonDocument) -> Result<Value, FieldError> {
    if text.len() > MAX_JSON_BYTES {
        return Err(doc.error(
            format!("{} bytes", text.len()),
            format!("at most {MAX_JSON_BYTES} bytes of JSON"),
        ));
    }
    if !text.trim_start().starts_with('{') {
        return Err(doc.error("not a JSON object".into(), doc.expected.into()));
    }
    serde_json::from_str(text).map_err(|e| doc.error(e.to_string(), doc.expected.into()))
}

/// Parses Scenario JSON; a missing field takes its default.
pub fn scenario_from_json(text: &str) -> Result<Scenario, FieldError> {
    let value = json_object_value(
        text,
        &JsonDocument {
            field: "(document)",
            expected: "one JSON object: a Scenario (see README, 'Scenario JSON')",
        },
    )?;
    scenario_from_value(&value)
}
