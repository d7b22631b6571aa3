//! Foundation-model training choices: which parameters train (`FineTune`: full, frozen
//! with a trainable part, or LoRA adapters) and the masked-autoencoder settings of the MAE
//! pre-training presets (`Mae`). How layers are matched by name is decided here once.

use serde_json::{Map, Value};

use crate::json::{self, json_struct, Check, FromJson, ToJson};
use crate::problems::{FieldError, Problems};

/// Largest LoRA rank accepted (far above the 4..64 used in practice).
pub const MAX_LORA_RANK: u32 = 4096;

/// Which parameters train, told apart by `mode`. Gradients and optimizer states exist
/// only for what trains; autograd keeps only what backward then needs.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum FineTune {
    /// Every parameter trains.
    #[default]
    Full,
    /// Only the layers named in `trainable` train: a layer name, a prefix of layer names
    /// up to a `.` (`block11` is every layer of block 11), or `head` (the model's last
    /// layer with parameters).
    Frozen { trainable: Vec<String> },
    /// The model is frozen; LoRA adapters (Hu et al., ICLR 2022: x A^T B^T, A r x in, B
    /// out x r, no dropout) of rank `rank` train on the linear maps named in `targets`:
    /// `qkv` and `proj` are the attention layers' projections, any other name a linear
    /// layer whose name is it or ends in `.` + it (`fc1`, `head`).
    Lora { rank: u32, targets: Vec<String> },
}

/// The rank LoRA starts at where none is given (the page's mode select, a link).
pub const LORA_RANK: u32 = 8;

impl FineTune {
    /// A mode by its id with what the page trains in it: the head when frozen, the
    /// attention projections' adapters at `rank` with LoRA (`full` for an unknown id).
    pub fn for_mode(id: &str, rank: u32) -> FineTune {
        match id {
            "frozen" => FineTune::Frozen {
                trainable: vec!["head".into()],
            },
            "lora" => FineTune::Lora {
                rank,
                targets: vec!["qkv".into(), "proj".into()],
            },
            _ => FineTune::Full,
        }
    }

    /// The JSON fields of each mode (`mode` included); any other is refused.
    pub const MODES: [(&'static str, &'static [&'static str]); 3] = [
        ("full", &["mode"]),
        ("frozen", &["mode", "trainable"]),
        ("lora", &["mode", "rank", "targets"]),
    ];
}

impl FromJson for FineTune {
    fn from_json(v: &Value) -> Result<Self, FieldError> {
        let mode = v.get("mode");
        let Some((id, known)) = mode.and_then(Value::as_str).and_then(|m| {
            FineTune::MODES
                .iter()
                .find(|(id, _)| *id == m)
                .map(|(id, f)| (*id, *f))
        }) else {
            return Err(FieldError {
                field: "mode".into(),
                value: mode.map_or("missing".into(), json::to_text),
                allowed: "one of full, frozen, lora".into(),
            });
        };
        let map = json::object(v, known)?;
        let list = |key| json::required(key, json::field::<Vec<String>>(map, key)?);
        Ok(match id {
            "frozen" => FineTune::Frozen {
                trainable: list("trainable")?,
            },
            "lora" => FineTune::Lora {
                rank: json::required("rank", json::field(map, "rank")?)?,
                targets: list("targets")?,
            },
            _ => FineTune::Full,
        })
    }
}

impl ToJson for FineTune {
    fn to_json(&self) -> Value {
        let mut map = Map::new();
        let mode = match self {
            FineTune::Full => "full",
            FineTune::Frozen { trainable } => {
                json::put(&mut map, "trainable", trainable);
                "frozen"
            }
            FineTune::Lora { rank, targets } => {
                json::put(&mut map, "rank", rank);
                json::put(&mut map, "targets", targets);
                "lora"
            }
        };
        json::put_tag(&mut map, "mode", mode);
        Value::Object(map)
    }
}

json::serialize_by_to_json!(FineTune);

impl Check for FineTune {
    fn check(&self, path: &str, p: &mut Problems) {
        let (key, names) = match self {
            FineTune::Full => return,
            FineTune::Frozen { trainable } => ("trainable", trainable),
            FineTune::Lora { rank, targets } => {
                json::Bounded::bound(rank, path, "rank", 1, MAX_LORA_RANK, p);
                ("targets", targets)
            }
        };
        if names.is_empty() {
            p.push(
                &json::join(path, key),
                "[]",
                "at least one layer name".to_string(),
            );
        }
    }
}

/// What one layer trains under a `FineTune`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LayerTraining {
    /// The layer's own parameters train.
    pub params: bool,
    /// LoRA rank on the layer's linear map (a linear layer), 0 = none.
    pub linear_rank: u64,
    /// LoRA rank on an attention layer's qkv and output projections, 0 = none.
    pub qkv_rank: u64,
    pub proj_rank: u64,
}

/// `name` is `target` or lies under it (`block3` covers `block3.fc1`).
fn under(name: &str, target: &str) -> bool {
    name.strip_prefix(target)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
}

/// `name` is `target` or ends in `.` + `target` (a LoRA target, as peft matches them).
fn ends_with_part(name: &str, target: &str) -> bool {
    name.strip_suffix(target)
        .is_some_and(|rest| rest.is_empty() || rest.ends_with('.'))
}

impl FineTune {
    /// What layer `name` trains; `is_head` marks the model's last layer with
    /// parameters, `is_attention` / `is_linear` the layer's kind.
    pub fn layer(
        &self,
        name: &str,
        is_head: bool,
        is_linear: bool,
        is_attention: bool,
    ) -> LayerTraining {
        match self {
            FineTune::Full => LayerTraining {
                params: true,
                ..LayerTraining::default()
            },
            FineTune::Frozen { trainable } => LayerTraining {
                params: trainable
                    .iter()
                    .any(|t| under(name, t) || (t == "head" && is_head)),
                ..LayerTraining::default()
            },
            FineTune::Lora { rank, targets } => {
                let rank = u64::from(*rank);
                let has = |t: &str| targets.iter().any(|x| x == t);
                let on = |yes: bool| if yes { rank } else { 0 };
                LayerTraining {
                    params: false,
                    linear_rank: on(is_linear && targets.iter().any(|t| ends_with_part(name, t))),
                    qkv_rank: on(is_attention && has("qkv")),
                    proj_rank: on(is_attention && has("proj")),
                }
            }
        }
    }

    /// The names listed (`trainable` or `targets`) with the field that lists them.
    pub fn names(&self) -> (&'static str, &[String]) {
        match self {
            FineTune::Full => ("mode", &[]),
            FineTune::Frozen { trainable } => ("trainable", trainable),
            FineTune::Lora { targets, .. } => ("targets", targets),
        }
    }
}

json_struct! {
    /// The masked-autoencoder pre-training presets' settings (He et al., CVPR 2022:
    /// mask ratio 0.75, decoder 512 wide and 8 deep; SpectralGPT masks 90 %).
    #[derive(Clone, Debug, PartialEq)]
    pub struct Mae {
        /// Share of the patch tokens masked out; the encoder sees only the rest.
        pub mask_ratio: f64 [0.0, 0.95] = 0.75,
        pub decoder_dim: u32 [16, 4096] = 512,
        pub decoder_depth: u32 [1, 64] = 8,
    }
}
