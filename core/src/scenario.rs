//! The Scenario: the single source of truth that the URL query, localStorage, JSON
//! import/export and the CLI all read and write. Described once (`json_struct!`):
//! reading with field paths, writing, and the range checks of `validate` follow from it.

use serde_json::{Map, Value};

use crate::assumptions::{CostAssumptions, PerfAssumptions};
pub use crate::assumptions::{MemoryAssumptions, Pipeline, Workload};
pub use crate::choices::{
    Attention, CpuClass, Interconnect, NodeLink, Optimizer, ParallelMode, Precision, Sharding,
    VitSize,
};
pub use crate::foundation::{FineTune, Mae};
use crate::graph::ModelSpec;
use crate::json::{self, json_struct, Check, FromJson, ToJson};
pub use crate::json::{json_object_value, JsonDocument, MAX_JSON_BYTES};
pub use crate::problems::{FieldError, Problems};

/// Which model: a zoo preset with its options, or a custom layer list, told apart by
/// `kind`. Read and written by `FromJson` and `ToJson` below.
#[derive(Clone, Debug, PartialEq)]
pub enum ModelChoice {
    Preset {
        id: String,
        /// Width multiplier or base channel count where the paper has one; None = paper default.
        width: Option<u32>,
        /// Size for the ViT foundation model.
        size: Option<VitSize>,
    },
    Custom {
        spec: ModelSpec,
    },
}

impl ModelChoice {
    /// The JSON fields of each kind (`kind` included); any other is refused.
    pub const KINDS: [(&'static str, &'static [&'static str]); 2] = [
        ("preset", &["kind", "id", "width", "size"]),
        ("custom", &["kind", "spec"]),
    ];

    /// The JSON fields of `kind`.
    pub fn fields_of(kind: &str) -> Option<&'static [&'static str]> {
        Self::KINDS
            .iter()
            .find(|(k, _)| *k == kind)
            .map(|(_, f)| *f)
    }
}

impl FromJson for ModelChoice {
    fn from_json(v: &Value) -> Result<Self, FieldError> {
        let kind = v.get("kind");
        let Some(known) = kind
            .and_then(Value::as_str)
            .and_then(ModelChoice::fields_of)
        else {
            return Err(FieldError {
                field: "kind".into(),
                value: kind.map_or("missing".into(), json::to_text),
                allowed: "one of preset, custom".into(),
            });
        };
        let map = json::object(v, known)?;
        Ok(match kind.and_then(Value::as_str) {
            Some("custom") => ModelChoice::Custom {
                spec: json::need(map, "spec")?,
            },
            _ => ModelChoice::Preset {
                id: json::need(map, "id")?,
                width: json::field(map, "width")?,
                size: json::field(map, "size")?,
            },
        })
    }
}

/// A preset's unset width and size are left out.
impl ToJson for ModelChoice {
    fn to_json(&self) -> Value {
        let mut map = Map::new();
        let kind = match self {
            ModelChoice::Preset { id, width, size } => {
                json::put(&mut map, "id", id);
                json::put_field!(&mut map, "width", width, omitted, None);
                json::put_field!(&mut map, "size", size, omitted, None);
                "preset"
            }
            ModelChoice::Custom { spec } => {
                json::put(&mut map, "spec", spec);
                "custom"
            }
        };
        json::put_tag(&mut map, "kind", kind);
        Value::Object(map)
    }
}

json::serialize_by_to_json!(ModelChoice);

/// The model's checks come from building it (`crate::build_model`).
impl Check for ModelChoice {
    const LEAF: bool = true;
}

/// Input-geometry limits: wide enough for whole-scene segmentation, small enough that
/// every product stays exact in f64 and u64.
pub const MAX_BANDS: u32 = 1024;
pub const MAX_PATCH: u32 = 4096;
pub const MAX_CLASSES: u32 = 10_000;
pub const MAX_BATCH: u32 = 1 << 20;
pub const MAX_CARDS: u32 = 8;
pub const MAX_NODES: u32 = 64;
/// Most micro-batches one optimizer step pushes through a pipeline.
pub const MAX_MICRO_BATCHES: u32 = 1024;

json_struct! {
    /// Everything the estimator needs. The default is HybridSN on Indian Pines (PCA to 30
    /// bands, 25x25 patches), batch 64, Adam in PyTorch's default precision, one RTX
    /// A5500 on a workstation: the article's workload.
    #[derive(Clone, Debug, PartialEq)]
    pub struct Scenario {
        pub model: ModelChoice = ModelChoice::Preset {
            id: "hybridsn".into(),
            width: None,
            size: None,
        },
        /// Dataset preset id; fills bands/classes defaults in the UI and sizes an epoch.
        pub dataset: String = "indian_pines".into(),
        /// Spectral bands B fed to the model (after PCA or band removal).
        pub bands: u32 [1, MAX_BANDS] = 30,
        /// Spatial patch side s (pixels); the patch is s x s.
        pub patch: u32 [1, MAX_PATCH] = 25,
        pub classes: u32 [1, MAX_CLASSES] = 16,
        pub batch_per_gpu: u32 [1, MAX_BATCH] = 64,
        /// PyTorch's default (TF32 convolutions where the card has TF32) unless set.
        pub precision: Precision = Precision::TorchDefault,
        /// `torch.backends.cudnn.benchmark`: cuDNN times its convolution algorithms on the
        /// first step of each shape and keeps the fastest (`cudnn`); off (PyTorch's
        /// default) it takes the one its heuristics rank first.
        pub cudnn_benchmark: bool = false,
        pub optimizer: Optimizer = Optimizer::Adam,
        pub checkpointing: bool = false,
        /// Fused SDPA where the card has a kernel for it (`analysis::attention_kernel`).
        pub attention: Attention = Attention::Sdpa,
        pub finetune: FineTune = FineTune::Full,
        /// Mask ratio and decoder of the MAE pre-training presets.
        pub mae: Mae = Mae::default(),
        pub gpu: String = "rtx_a5500".into(),
        pub cards: u32 [1, MAX_CARDS] = 1,
        pub interconnect: Interconnect = Interconnect::Pcie,
        /// Megatron-style tensor parallelism over this many of a node's cards
        /// (`parallel`): attention heads and MLP columns split across the group.
        pub tensor_parallel: u32 [1, MAX_CARDS] = 1,
        /// Pipeline stages (1F1B) and the micro-batches of `batch_per_gpu` samples that one
        /// optimizer step pushes through them; cards = data x tensor x pipeline per node.
        pub pipeline_parallel: u32 [1, MAX_CARDS] = 1,
        pub micro_batches: u32 [1, MAX_MICRO_BATCHES] = 1,
        /// Model states split over the data-parallel ranks (`shard`): none (DDP), ZeRO
        /// 1/2/3 or FSDP; `offload` puts the optimizer states on the host (ZeRO-Offload).
        pub sharding: Sharding = Sharding::None,
        pub offload: bool = false,
        /// Nodes of `cards` GPUs each, joined by `node_link` through `nics_per_node` NICs.
        pub nodes: u32 [1, MAX_NODES] = 1,
        pub node_link: NodeLink = NodeLink::IbHdr,
        pub nics_per_node: u32 [1, 16] = 1,
        /// ECC on (`nvidia-smi -e 1`): inline GDDR ECC takes 1/16 of the memory and some
        /// bandwidth (`memory.ecc_bandwidth_loss`); HBM's is free; cards without ECC ignore
        /// it.
        pub ecc: bool = false,
        /// The host CPU's class: sets the per-op dispatch speed and the cores.
        pub cpu: CpuClass = CpuClass::Workstation,
        /// How the data reach the model (DataLoader workers, cube on the GPU, ...).
        pub pipeline: Pipeline = Pipeline::default(),
        pub workload: Workload = Workload::default(),
        pub memory: MemoryAssumptions = MemoryAssumptions::default(),
        pub perf: PerfAssumptions = PerfAssumptions::default(),
        pub cost: CostAssumptions = CostAssumptions::default(),
    }
}

/// A Scenario from a JSON value: a missing or null field keeps its default, an unknown
/// field anywhere is refused with its path and the allowed fields.
pub fn scenario_from_value(value: &Value) -> Result<Scenario, FieldError> {
    json::read_document(value, "(document)")
}

impl Scenario {
    /// Every problem with this scenario's plain fields (the model's own checks come from
    /// building it). Empty means valid.
    pub fn validate(&self) -> Vec<FieldError> {
        let mut p = Problems::default();
        self.check("", &mut p);
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
        p.0
    }
}

/// Parses Scenario JSON; a missing field takes its default.
pub fn scenario_from_json(text: &str) -> Result<Scenario, FieldError> {
    let value = json_object_value(
        text,
        &JsonDocument {
            field: "(document)",
            expected: "one JSON object: a Scenario (see docs/formats.md, 'Scenario JSON')",
        },
    )?;
    scenario_from_value(&value)
}
