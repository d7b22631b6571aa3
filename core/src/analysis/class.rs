//! What kind of work a layer is for the device and the host: its op class (the unit and
//! memory behaviour `device` models) and its parameter tensors (what the optimizer loops
//! over).

use serde::{Deserialize, Serialize};

use crate::graph::Op;

/// Channels per group at or below which a grouped convolution runs on CUDA cores
/// (depthwise: 1).
pub const GROUPED_CHANNELS: u64 = 8;

/// The op classes the device model tells apart.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OpClass {
    /// Linear, matmul, attention.
    Gemm,
    /// Dense 1-D/2-D convolution.
    Conv,
    Conv3d,
    /// Depthwise or narrow grouped convolution.
    Grouped,
    Norm,
    /// Activations, dropout, add, mul, concat, pools, upsampling, tokens.
    #[default]
    Elementwise,
    /// Views and copies of a view.
    View,
}

pub fn op_class(op: &Op) -> OpClass {
    match op {
        Op::Conv {
            out_channels,
            groups,
            ..
        } if *groups > 1 && out_channels / groups <= GROUPED_CHANNELS => OpClass::Grouped,
        Op::Conv { dims: 3, .. } => OpClass::Conv3d,
        Op::Conv { .. } => OpClass::Conv,
        Op::Linear { .. } | Op::Matmul | Op::Attention { .. } | Op::Rnn { .. } => OpClass::Gemm,
        Op::BatchNorm | Op::LayerNorm | Op::GroupNorm { .. } => OpClass::Norm,
        Op::Flatten
        | Op::Reshape { .. }
        | Op::Permute { .. }
        | Op::TakeToken { .. }
        | Op::Slice { .. }
        | Op::Expand { .. }
        | Op::Windows { .. }
        | Op::Constant { .. } => OpClass::View,
        Op::Act { .. }
        | Op::Dropout { .. }
        | Op::MaxPool { .. }
        | Op::AvgPool { .. }
        | Op::AdaptiveAvgPool { .. }
        | Op::Upsample { .. }
        | Op::Add
        | Op::Mul
        | Op::Concat { .. }
        | Op::Scale { .. }
        | Op::DropPath
        | Op::ClassToken
        | Op::PositionEmbedding
        | Op::GatherTokens { .. }
        | Op::Pad { .. }
        | Op::Pointwise { .. }
        | Op::Div
        | Op::Reduce { .. }
        | Op::AdaptiveMaxPool { .. }
        | Op::Resize { .. }
        | Op::Unfold { .. }
        | Op::Fold { .. } => OpClass::Elementwise,
    }
}

/// Parameter tensors of a layer (weight, bias, norm scale and shift, tokens).
pub fn param_tensors(op: &Op) -> u32 {
    match op {
        Op::Conv { bias, .. } | Op::Linear { bias, .. } => 1 + u32::from(*bias),
        Op::BatchNorm | Op::LayerNorm | Op::GroupNorm { .. } => 2,
        // qkv weight (and bias), output projection weight and bias, and a bias table
        // (or BEiT's q and v biases) when it has extra parameters.
        Op::Attention {
            qkv_bias,
            extra_params,
            ..
        } => 3 + u32::from(*qkv_bias) + u32::from(*extra_params > 0),
        Op::Scale { bias, .. } => 1 + u32::from(*bias),
        // W_ih, W_hh (and two biases) per layer and direction.
        Op::Rnn {
            layers,
            bidirectional,
            bias,
            ..
        } => {
            let tensors = layers * (1 + u64::from(*bidirectional)) * (2 + 2 * u64::from(*bias));
            u32::try_from(tensors).unwrap_or(u32::MAX)
        }
        Op::ClassToken | Op::PositionEmbedding => 1,
        Op::Constant { params, .. } => u32::from(*params > 0),
        _ => 0,
    }
}
