//! How a step trains: the attention kernel a card runs and which layers' parameters
//! train (`FineTune` resolved over the model's layers).

use serde::{Deserialize, Serialize};

use super::class::param_tensors;
use crate::choices::{Attention, Precision};
use crate::foundation::{FineTune, LayerTraining};
use crate::graph::{ModelSpec, Op};
use crate::problems::FieldError;

/// The kernel attention runs on: written out, or one of PyTorch's fused SDPA kernels
/// (flash: sm80+ with fp16/bf16, PyTorch's CPU kernel too; memory-efficient: sm50+, fp32
/// included). Both fused kernels keep q, k, v, the output and the fp32 log-sum-exp.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AttentionKernel {
    Math,
    Flash,
    MemEfficient,
}

/// The kernel `F.scaled_dot_product_attention` picks on `gpu` (PyTorch's sdp_utils:
/// flash needs Ampere or newer, which is what has native BF16, and a 16-bit dtype;
/// every catalog card has the memory-efficient kernel's sm50).
pub fn attention_kernel(
    a: Attention,
    precision: Precision,
    gpu: &crate::gpu::GpuSpec,
) -> AttentionKernel {
    match a {
        Attention::Math => AttentionKernel::Math,
        Attention::Sdpa if gpu.bf16 && precision.matmul_bytes() == 2 => AttentionKernel::Flash,
        Attention::Sdpa => AttentionKernel::MemEfficient,
    }
}

/// How a step trains: precision, attention kernel and which parameters train.
#[derive(Clone, Debug, PartialEq)]
pub struct Training {
    pub precision: Precision,
    pub attention: AttentionKernel,
    pub finetune: FineTune,
}

impl Training {
    /// Every parameter trains, attention written out.
    pub fn plain(precision: Precision) -> Self {
        Training {
            precision,
            attention: AttentionKernel::Math,
            finetune: FineTune::Full,
        }
    }

    /// The scenario's training on its card.
    pub fn of(s: &crate::scenario::Scenario, gpu: &crate::gpu::GpuSpec) -> Self {
        Training {
            precision: s.precision,
            attention: attention_kernel(s.attention, s.precision, gpu),
            finetune: s.finetune.clone(),
        }
    }
}

/// What a fine-tuning name may be for this model, with the model's own names (the first
/// few): LoRA adapts its linear layers and an attention's qkv and proj, freezing keeps
/// layers by name or prefix, or the head.
fn names_allowed(spec: &ModelSpec, finetune: &FineTune) -> String {
    const SHOWN: usize = 6;
    let named = |want: fn(&Op) -> bool| -> Vec<String> {
        spec.layers
            .iter()
            .enumerate()
            .filter(|(_, l)| want(&l.op))
            .map(|(i, l)| {
                l.name
                    .clone()
                    .unwrap_or_else(|| format!("{}{i}", l.op.kind()))
            })
            .take(SHOWN)
            .collect()
    };
    match finetune {
        FineTune::Lora { .. } => {
            let mut names = named(|op| matches!(op, Op::Linear { .. }));
            if spec
                .layers
                .iter()
                .any(|l| matches!(l.op, Op::Attention { .. }))
            {
                names.splice(0..0, ["qkv".to_string(), "proj".to_string()]);
            }
            match names.is_empty() {
                true => format!(
                    "nothing: {} has no linear or attention layer to adapt",
                    spec.name
                ),
                false => format!("a linear layer of {}: {}", spec.name, names.join(", ")),
            }
        }
        _ => format!(
            "a layer name or prefix of {}, or head: {}",
            spec.name,
            named(|_| true).join(", ")
        ),
    }
}

/// What layer `index` of `spec` trains; an error names a trainable or target name that
/// matches no layer.
pub(super) fn layer_training(
    spec: &ModelSpec,
    finetune: &FineTune,
) -> Result<Vec<LayerTraining>, FieldError> {
    let head = spec.layers.iter().rposition(|l| param_tensors(&l.op) > 0);
    let of = |f: &FineTune, i: usize| {
        let l = &spec.layers[i];
        let name = l
            .name
            .clone()
            .unwrap_or_else(|| format!("{}{i}", l.op.kind()));
        let linear = matches!(l.op, Op::Linear { .. });
        f.layer(
            &name,
            Some(i) == head,
            linear,
            matches!(l.op, Op::Attention { .. }),
        )
    };
    let (key, names) = finetune.names();
    for (k, name) in names.iter().enumerate() {
        let alone = match finetune {
            FineTune::Lora { rank, .. } => FineTune::Lora {
                rank: *rank,
                targets: vec![name.clone()],
            },
            _ => FineTune::Frozen {
                trainable: vec![name.clone()],
            },
        };
        if !(0..spec.layers.len()).any(|i| of(&alone, i) != LayerTraining::default()) {
            return Err(FieldError {
                field: format!("finetune.{key}[{k}]"),
                value: name.clone(),
                allowed: names_allowed(spec, finetune),
            });
        }
    }
    Ok((0..spec.layers.len()).map(|i| of(finetune, i)).collect())
}
