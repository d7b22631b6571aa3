//! The model description: a list of layers forming a DAG (residual adds and concats
//! refer to earlier layers by name). This is also the "custom layer list" format users
//! and the PyTorch exporter write. Shapes are per sample (no batch dimension), channels
//! first like PyTorch: Conv3d takes [C, D, H, W], Conv2d [C, H, W], Conv1d [C, L],
//! Linear and attention act on the last dimension ([..., features], tokens are [T, D]).

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelSpec {
    pub name: String,
    /// Per-sample input shape, e.g. [1, B, s, s] for a 3-D CNN.
    pub input: Vec<u64>,
    pub layers: Vec<Layer>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Layer {
    /// Unique name; other layers use it in `from`. Defaults to `<op><index>`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Layers feeding this one ("input" is the model input). Empty = the previous layer.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub from: Vec<String>,
    #[serde(flatten)]
    pub op: Op,
}

fn one() -> u64 {
    1
}
fn yes() -> bool {
    true
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Activation {
    Relu,
    LeakyRelu,
    Gelu,
    Mish,
    Silu,
    Tanh,
    Sigmoid,
    /// Softmax over the last dimension.
    Softmax,
}

/// One operation. Lists (`kernel`, `stride`, ...) have one entry per spatial dimension;
/// a single entry is repeated, an empty list takes the default.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub enum Op {
    /// nn.Conv1d/2d/3d (`dims` = 1, 2 or 3).
    Conv {
        dims: u8,
        out_channels: u64,
        kernel: Vec<u64>,
        #[serde(default)]
        stride: Vec<u64>,
        #[serde(default)]
        padding: Vec<u64>,
        #[serde(default)]
        dilation: Vec<u64>,
        #[serde(default = "one")]
        groups: u64,
        #[serde(default = "yes")]
        bias: bool,
    },
    /// nn.Linear on the last dimension.
    Linear {
        out_features: u64,
        #[serde(default = "yes")]
        bias: bool,
    },
    /// nn.BatchNorm1d/2d/3d over dimension 0 (channels).
    BatchNorm,
    /// nn.LayerNorm over the last dimension.
    LayerNorm,
    /// nn.GroupNorm over the channel dimension.
    GroupNorm {
        groups: u64,
    },
    Act {
        kind: Activation,
    },
    Dropout {
        p: f64,
    },
    MaxPool {
        dims: u8,
        kernel: Vec<u64>,
        #[serde(default)]
        stride: Vec<u64>,
        #[serde(default)]
        padding: Vec<u64>,
    },
    AvgPool {
        dims: u8,
        kernel: Vec<u64>,
        #[serde(default)]
        stride: Vec<u64>,
        #[serde(default)]
        padding: Vec<u64>,
    },
    /// nn.AdaptiveAvgPool1d/2d/3d to `output` (e.g. [1, 1] for global pooling).
    AdaptiveAvgPool {
        dims: u8,
        output: Vec<u64>,
    },
    /// Nearest-neighbour upsampling of the spatial dimensions by an integer factor.
    Upsample {
        dims: u8,
        scale: u64,
    },
    /// Flatten everything but the batch dimension.
    Flatten,
    /// Reshape (a view; element count must match).
    Reshape {
        shape: Vec<u64>,
    },
    /// Permute the per-sample dimensions (a view), e.g. [C, H*W] -> [H*W, C] with [1, 0].
    Permute {
        order: Vec<usize>,
    },
    /// Element-wise sum of two or more inputs of equal shape (residual connection).
    Add,
    /// Element-wise product of two inputs; the second may broadcast (attention gates).
    Mul,
    /// Concatenate inputs along per-sample dimension `axis`.
    Concat {
        axis: usize,
    },
    /// Batched matrix product of two inputs [.., M, K] x [.., K, N].
    Matmul,
    /// Multi-head self-attention on tokens [T, D], written out as PyTorch reference code
    /// does: qkv = Linear(D, 3*heads*head_dim); scores = q k^T * scale; softmax;
    /// attn v; out = Linear(heads*head_dim, D). The N x heads x T x T matrix is kept.
    Attention {
        heads: u64,
        /// Per-head dimension; default D / heads.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        head_dim: Option<u64>,
        #[serde(default)]
        qkv_bias: bool,
    },
    /// Prepend a learnable class token: [T, D] -> [T+1, D] (D parameters).
    ClassToken,
    /// Add a learnable position embedding of the input's shape (T*D parameters).
    PositionEmbedding,
    /// Take one token: [T, D] -> [D].
    TakeToken {
        index: u64,
    },
}

impl Op {
    /// Short lowercase kind name, used for default layer names and in reports.
    pub fn kind(&self) -> &'static str {
        match self {
            Op::Conv { dims: 1, .. } => "conv1d",
            Op::Conv { dims: 2, .. } => "conv2d",
            Op::Conv { .. } => "conv3d",
            Op::Linear { .. } => "linear",
            Op::BatchNorm => "batchnorm",
            Op::LayerNorm => "layernorm",
            Op::GroupNorm { .. } => "groupnorm",
            Op::Act { kind } => match kind {
                Activation::Relu => "relu",
                Activation::LeakyRelu => "leaky_relu",
                Activation::Gelu => "gelu",
                Activation::Mish => "mish",
                Activation::Silu => "silu",
                Activation::Tanh => "tanh",
                Activation::Sigmoid => "sigmoid",
                Activation::Softmax => "softmax",
            },
            Op::Dropout { .. } => "dropout",
            Op::MaxPool { .. } => "maxpool",
            Op::AvgPool { .. } => "avgpool",
            Op::AdaptiveAvgPool { .. } => "adaptive_avgpool",
            Op::Upsample { .. } => "upsample",
            Op::Flatten => "flatten",
            Op::Reshape { .. } => "reshape",
            Op::Permute { .. } => "permute",
            Op::Add => "add",
            Op::Mul => "mul",
            Op::Concat { .. } => "concat",
            Op::Matmul => "matmul",
            Op::Attention { .. } => "attention",
            Op::ClassToken => "class_token",
            Op::PositionEmbedding => "position_embedding",
            Op::TakeToken { .. } => "take_token",
        }
    }
}

/// Builder used by the model zoo: `b.push(op)` appends after the previous layer,
/// `b.push_from(name, &["a", "b"], op)` names a layer and its inputs.
pub struct ModelBuilder {
    spec: ModelSpec,
}

impl ModelBuilder {
    pub fn new(name: &str, input: Vec<u64>) -> Self {
        ModelBuilder {
            spec: ModelSpec {
                name: name.into(),
                input,
                layers: Vec::new(),
            },
        }
    }

    /// Appends an unnamed layer fed by the previous one.
    pub fn push(&mut self, op: Op) -> &mut Self {
        self.spec.layers.push(Layer {
            name: None,
            from: Vec::new(),
            op,
        });
        self
    }

    /// Appends a named layer fed by the previous one.
    pub fn named(&mut self, name: &str, op: Op) -> &mut Self {
        self.push_from(name, &[], op)
    }

    /// Appends a named layer fed by the named layers (`"input"` = model input).
    pub fn push_from(&mut self, name: &str, from: &[&str], op: Op) -> &mut Self {
        self.spec.layers.push(Layer {
            name: Some(name.into()),
            from: from.iter().map(|s| s.to_string()).collect(),
            op,
        });
        self
    }

    pub fn build(self) -> ModelSpec {
        self.spec
    }
}

/// Shorthand constructors for the zoo.
pub mod ops {
    use super::{Activation, Op};

    pub fn conv(dims: u8, out: u64, kernel: &[u64], padding: &[u64]) -> Op {
        Op::Conv {
            dims,
            out_channels: out,
            kernel: kernel.to_vec(),
            stride: vec![],
            padding: padding.to_vec(),
            dilation: vec![],
            groups: 1,
            bias: true,
        }
    }
    pub fn linear(out: u64) -> Op {
        Op::Linear {
            out_features: out,
            bias: true,
        }
    }
    pub fn act(kind: Activation) -> Op {
        Op::Act { kind }
    }
    pub fn relu() -> Op {
        act(Activation::Relu)
    }
    pub fn dropout(p: f64) -> Op {
        Op::Dropout { p }
    }
}
