//! The model description: a list of layers forming a DAG (residual adds and concats
//! refer to earlier layers by name). This is also the "custom layer list" format users
//! and the PyTorch exporter write. Shapes are per sample (no batch dimension), channels
//! first like PyTorch: Conv3d takes [C, D, H, W], Conv2d [C, H, W], Conv1d [C, L],
//! Linear and attention act on the last dimension ([..., features], tokens are [T, D]).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::json_fields::Fields;
use crate::scenario::FieldError;

/// Serialized by serde; read by hand (`read_model_spec`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ModelSpec {
    pub name: String,
    /// Per-sample input shape, e.g. [1, B, s, s] for a 3-D CNN.
    pub input: Vec<u64>,
    pub layers: Vec<Layer>,
}

/// Serialized by serde (`op` tag beside the fields); read by hand (`read_layer`).
#[derive(Clone, Debug, PartialEq, Serialize)]
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

impl<'de> Deserialize<'de> for ModelSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        read_model_spec(&Value::deserialize(d)?).map_err(serde::de::Error::custom)
    }
}

/// Reads a layer list; an error names the layer, e.g. `layers[3].kernel`.
pub(crate) fn read_model_spec(value: &Value) -> Result<ModelSpec, FieldError> {
    let f = Fields::new(value, String::new(), &["name", "input", "layers"])?;
    let layers = f.need("layers", f.get("layers"))?;
    let layers = layers
        .as_array()
        .ok_or_else(|| f.error("layers", layers, "a list of layers"))?
        .iter()
        .enumerate()
        .map(|(i, layer)| read_layer(layer).map_err(|e| e.within(&format!("layers[{i}]."))))
        .collect::<Result<_, _>>()?;
    Ok(ModelSpec {
        name: f.need("name", f.string("name")?)?,
        input: f.need("input", f.whole_list("input")?)?,
        layers,
    })
}

impl<'de> Deserialize<'de> for Layer {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        read_layer(&Value::deserialize(d)?).map_err(serde::de::Error::custom)
    }
}

/// Each op's JSON name and fields (besides `name`, `from` and `op`), as `Op` serializes.
const OP_FIELDS: [(&str, &[&str]); 25] = [
    (
        "conv",
        &[
            "dims",
            "out_channels",
            "kernel",
            "stride",
            "padding",
            "dilation",
            "groups",
            "bias",
        ],
    ),
    ("linear", &["out_features", "bias"]),
    ("batch_norm", &[]),
    ("layer_norm", &[]),
    ("group_norm", &["groups"]),
    ("act", &["kind"]),
    ("dropout", &["p"]),
    (
        "max_pool",
        &["dims", "kernel", "stride", "padding", "ceil_mode"],
    ),
    (
        "avg_pool",
        &["dims", "kernel", "stride", "padding", "ceil_mode"],
    ),
    ("adaptive_avg_pool", &["dims", "output"]),
    ("upsample", &["dims", "scale", "mode"]),
    ("flatten", &[]),
    ("reshape", &["shape"]),
    ("permute", &["order"]),
    ("add", &[]),
    ("mul", &[]),
    ("concat", &["axis"]),
    ("matmul", &[]),
    (
        "attention",
        &["heads", "head_dim", "qkv_bias", "extra_params"],
    ),
    ("class_token", &[]),
    ("position_embedding", &[]),
    ("take_token", &["index"]),
    ("scale", &["shape", "bias"]),
    ("drop_path", &[]),
    ("slice", &["axis", "start", "end", "step"]),
];

/// Reads a layer by hand: the derived reader of the flattened, internally tagged `Op` was
/// the web page's largest function (~33 kB of wasm). Optional fields take the defaults
/// documented on `Op`.
fn read_layer(value: &Value) -> Result<Layer, FieldError> {
    if !value.is_object() {
        return Err(FieldError {
            field: "(layer)".into(),
            value: value.to_string(),
            allowed: "a JSON object with an \"op\" field".into(),
        });
    }
    let op = value.get("op");
    let kind = op.and_then(Value::as_str).unwrap_or_default();
    let Some((_, known)) = OP_FIELDS.iter().find(|(name, _)| *name == kind) else {
        let names: Vec<&str> = OP_FIELDS.iter().map(|(name, _)| *name).collect();
        return Err(FieldError {
            field: "op".into(),
            value: op.map_or("missing".into(), Value::to_string),
            allowed: format!("one of {}", names.join(", ")),
        });
    };
    let f = Fields::new(
        value,
        String::new(),
        &[&["name", "from", "op"], *known].concat(),
    )?;
    let whole = |key: &str| f.need(key, f.whole(key, u64::MAX)?);
    let list = |key: &str| Ok::<_, FieldError>(f.whole_list(key)?.unwrap_or_default());
    let needed_list = |key: &str| f.need(key, f.whole_list(key)?);
    let dims = || Ok::<_, FieldError>(f.need("dims", f.whole("dims", u8::MAX.into())?)? as u8);
    let op = match kind {
        "conv" => Op::Conv {
            dims: dims()?,
            out_channels: whole("out_channels")?,
            kernel: needed_list("kernel")?,
            stride: list("stride")?,
            padding: list("padding")?,
            dilation: list("dilation")?,
            groups: f.whole("groups", u64::MAX)?.unwrap_or(1),
            bias: f.bool("bias")?.unwrap_or(true),
        },
        "linear" => Op::Linear {
            out_features: whole("out_features")?,
            bias: f.bool("bias")?.unwrap_or(true),
        },
        "batch_norm" => Op::BatchNorm,
        "layer_norm" => Op::LayerNorm,
        "group_norm" => Op::GroupNorm {
            groups: whole("groups")?,
        },
        "act" => Op::Act {
            kind: f.need("kind", f.one_of("kind", &Activation::ALL, Activation::id)?)?,
        },
        "dropout" => Op::Dropout {
            p: f.need("p", f.number("p")?)?,
        },
        "max_pool" => Op::MaxPool {
            dims: dims()?,
            kernel: needed_list("kernel")?,
            stride: list("stride")?,
            padding: list("padding")?,
            ceil_mode: f.bool("ceil_mode")?.unwrap_or(false),
        },
        "avg_pool" => Op::AvgPool {
            dims: dims()?,
            kernel: needed_list("kernel")?,
            stride: list("stride")?,
            padding: list("padding")?,
            ceil_mode: f.bool("ceil_mode")?.unwrap_or(false),
        },
        "adaptive_avg_pool" => Op::AdaptiveAvgPool {
            dims: dims()?,
            output: needed_list("output")?,
        },
        "upsample" => Op::Upsample {
            dims: dims()?,
            scale: whole("scale")?,
            mode: f
                .one_of("mode", &UpsampleMode::ALL, UpsampleMode::id)?
                .unwrap_or(UpsampleMode::Nearest),
        },
        "flatten" => Op::Flatten,
        "reshape" => Op::Reshape {
            shape: needed_list("shape")?,
        },
        "permute" => Op::Permute {
            order: needed_list("order")?
                .into_iter()
                .map(|i| i as usize)
                .collect(),
        },
        "add" => Op::Add,
        "mul" => Op::Mul,
        "concat" => Op::Concat {
            axis: whole("axis")? as usize,
        },
        "matmul" => Op::Matmul,
        "attention" => Op::Attention {
            heads: whole("heads")?,
            head_dim: f.whole("head_dim", u64::MAX)?,
            qkv_bias: f.bool("qkv_bias")?.unwrap_or(false),
            extra_params: f.whole("extra_params", u64::MAX)?.unwrap_or(0),
        },
        "class_token" => Op::ClassToken,
        "position_embedding" => Op::PositionEmbedding,
        "scale" => Op::Scale {
            shape: needed_list("shape")?,
            bias: f.bool("bias")?.unwrap_or(false),
        },
        "drop_path" => Op::DropPath,
        "slice" => Op::Slice {
            axis: whole("axis")? as usize,
            start: whole("start")?,
            end: whole("end")?,
            step: f.whole("step", u64::MAX)?.unwrap_or(1),
        },
        _ => Op::TakeToken {
            index: whole("index")?,
        },
    };
    Ok(Layer {
        name: f.string("name")?,
        from: f.string_list("from")?.unwrap_or_default(),
        op,
    })
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
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
    /// x * relu6(x + 3) / 6 (MobileNetV3).
    Hardswish,
    /// relu6(x + 3) / 6 (MobileNetV3's squeeze-excitation gate).
    Hardsigmoid,
    /// min(max(x, 0), 6); keeps its input (in place too: autograd keeps a copy).
    Relu6,
}

impl Activation {
    pub const ALL: [Activation; 11] = [
        Activation::Relu,
        Activation::LeakyRelu,
        Activation::Gelu,
        Activation::Mish,
        Activation::Silu,
        Activation::Tanh,
        Activation::Sigmoid,
        Activation::Softmax,
        Activation::Hardswish,
        Activation::Hardsigmoid,
        Activation::Relu6,
    ];

    /// The JSON name (as serialized).
    pub fn id(self) -> &'static str {
        match self {
            Activation::Relu => "relu",
            Activation::LeakyRelu => "leaky_relu",
            Activation::Gelu => "gelu",
            Activation::Mish => "mish",
            Activation::Silu => "silu",
            Activation::Tanh => "tanh",
            Activation::Sigmoid => "sigmoid",
            Activation::Softmax => "softmax",
            Activation::Hardswish => "hardswish",
            Activation::Hardsigmoid => "hardsigmoid",
            Activation::Relu6 => "relu6",
        }
    }
}

/// How `Op::Upsample` fills the new positions (neither keeps anything for backward).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum UpsampleMode {
    #[default]
    Nearest,
    /// Linear, bilinear or trilinear interpolation (by `dims`), align_corners=False.
    Linear,
}

impl UpsampleMode {
    pub const ALL: [UpsampleMode; 2] = [UpsampleMode::Nearest, UpsampleMode::Linear];

    pub fn id(self) -> &'static str {
        match self {
            UpsampleMode::Nearest => "nearest",
            UpsampleMode::Linear => "linear",
        }
    }

    fn is_nearest(&self) -> bool {
        *self == UpsampleMode::Nearest
    }
}

/// One operation. Lists (`kernel`, `stride`, ...) have one entry per spatial dimension;
/// a single entry is repeated, an empty list takes the default.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Op {
    /// nn.Conv1d/2d/3d (`dims` = 1, 2 or 3).
    Conv {
        dims: u8,
        out_channels: u64,
        kernel: Vec<u64>,
        stride: Vec<u64>,
        padding: Vec<u64>,
        dilation: Vec<u64>,
        /// Default 1.
        groups: u64,
        /// Default true.
        bias: bool,
    },
    /// nn.Linear on the last dimension.
    Linear {
        out_features: u64,
        /// Default true.
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
        stride: Vec<u64>,
        padding: Vec<u64>,
        /// Default false; true adds a last, partial window where the input leaves one.
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        ceil_mode: bool,
    },
    AvgPool {
        dims: u8,
        kernel: Vec<u64>,
        stride: Vec<u64>,
        padding: Vec<u64>,
        /// As for `MaxPool`.
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        ceil_mode: bool,
    },
    /// nn.AdaptiveAvgPool1d/2d/3d to `output` (e.g. [1, 1] for global pooling).
    AdaptiveAvgPool {
        dims: u8,
        output: Vec<u64>,
    },
    /// Upsampling of the spatial dimensions by an integer factor.
    Upsample {
        dims: u8,
        scale: u64,
        /// Default nearest.
        #[serde(skip_serializing_if = "UpsampleMode::is_nearest")]
        mode: UpsampleMode,
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
        #[serde(skip_serializing_if = "Option::is_none")]
        head_dim: Option<u64>,
        /// Default false.
        qkv_bias: bool,
        /// Learned parameters besides the projections that change neither FLOPs nor kept
        /// bytes: a relative position bias table added to the scores (Swin, BEiT), separate
        /// q and v biases (BEiT). Default 0.
        #[serde(skip_serializing_if = "is_zero")]
        extra_params: u64,
    },
    /// Prepend a learnable class token: [T, D] -> [T+1, D] (D parameters).
    ClassToken,
    /// Add a learnable position embedding of the input's shape (T*D parameters).
    PositionEmbedding,
    /// Take one token: [T, D] -> [D].
    TakeToken {
        index: u64,
    },
    /// Multiply by a learned tensor of `shape` broadcast over the input (layer scale:
    /// ConvNeXt, CaiT, BEiT), plus a learned tensor of the same shape with `bias`
    /// (ResMLP's affine). Default bias false.
    Scale {
        shape: Vec<u64>,
        bias: bool,
    },
    /// Stochastic depth in training: each sample's branch times 0 or 1/(1-p), a
    /// per-sample random factor (torchvision's StochasticDepth, timm's DropPath).
    DropPath,
    /// Every `step`-th element of `start..end` of per-sample dimension `axis`
    /// (x[:, a:b:step]): a strided view. Default step 1.
    Slice {
        axis: usize,
        start: u64,
        end: u64,
        step: u64,
    },
}

fn is_zero(n: &u64) -> bool {
    *n == 0
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
            Op::Act { kind } => kind.id(),
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
            Op::Scale { .. } => "scale",
            Op::DropPath => "drop_path",
            Op::Slice { .. } => "slice",
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
