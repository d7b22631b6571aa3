//! The model description: a list of layers forming a DAG (residual adds and concats
//! refer to earlier layers by name). This is also the "custom layer list" format users
//! and the PyTorch exporter write. Shapes are per sample (no batch dimension), channels
//! first like PyTorch: Conv3d takes [C, D, H, W], Conv2d [C, H, W], Conv1d [C, L],
//! Linear and attention act on the last dimension ([..., features], tokens are [T, D]).

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::json::{self, FromJson, ToJson};
use crate::problems::FieldError;

mod builder;
pub use builder::{ops, ModelBuilder};
mod kinds;
pub use kinds::{Activation, Keeps, PadMode, Reduction, RnnCell, UpsampleMode};

/// The most layers a list may have: six times the largest exported model's (timm's XCiT,
/// 637), and a bound on the time the memory replays over them take.
pub const MAX_LAYERS: usize = 4096;

/// A layer list, read and written by `FromJson` and `ToJson` below.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelSpec {
    pub name: String,
    /// Per-sample input shape, e.g. [1, B, s, s] for a 3-D CNN.
    pub input: Vec<u64>,
    pub layers: Vec<Layer>,
}

impl ModelSpec {
    pub const FIELDS: [&'static str; 3] = ["name", "input", "layers"];
}

/// One layer: its own fields beside its op's (`op` tag and fields in the same object),
/// read and written by `FromJson` and `ToJson` below.
#[derive(Clone, Debug, PartialEq)]
pub struct Layer {
    /// Unique name; other layers use it in `from`. Defaults to `<op><index>`.
    pub name: Option<String>,
    /// Layers feeding this one ("input" is the model input). Empty = the previous layer.
    pub from: Vec<String>,
    /// An earlier layer whose parameters this one reuses (a module called more than
    /// once): they are counted, trained and cast once.
    pub shares: Option<String>,
    pub op: Op,
}

impl Layer {
    /// A layer's own fields, besides its op's.
    pub const FIELDS: [&'static str; 4] = ["name", "from", "shares", "op"];
}

impl FromJson for ModelSpec {
    fn from_json(v: &Value) -> Result<Self, FieldError> {
        let map = json::object(v, &Self::FIELDS)?;
        let layers = json::required("layers", map.get("layers"))?;
        // Not a list: `Vec`'s reader says so (`Layer::LIST`).
        if let Some(n) = layers.as_array().map(Vec::len) {
            if n == 0 || n > MAX_LAYERS {
                return Err(FieldError {
                    field: "layers".into(),
                    value: format!("{n} layers"),
                    allowed: format!("1 to {MAX_LAYERS} layers"),
                });
            }
        }
        let layers = Vec::<Layer>::from_json(layers).map_err(|e| e.at("layers"))?;
        Ok(ModelSpec {
            name: json::need(map, "name")?,
            input: json::need(map, "input")?,
            layers,
        })
    }
}

impl FromJson for Layer {
    const LIST: &'static str = "a list of layers";
    fn from_json(v: &Value) -> Result<Self, FieldError> {
        if !v.is_object() {
            return Err(json::wrong(v, "a JSON object with an \"op\" field"));
        }
        let tag = v.get("op");
        let Some((tag, fields)) = tag
            .and_then(Value::as_str)
            .and_then(|t| Op::TAGS.iter().find(|(name, _)| *name == t))
        else {
            return Err(unknown_op(tag));
        };
        let map = json::object(v, &[&Layer::FIELDS[..], fields].concat())?;
        Ok(Layer {
            name: json::field(map, "name")?,
            from: json::field(map, "from")?.unwrap_or_default(),
            shares: json::field(map, "shares")?,
            op: Op::read(tag, map)?,
        })
    }
}

impl ToJson for ModelSpec {
    fn to_json(&self) -> Value {
        let mut map = Map::new();
        json::put(&mut map, "name", &self.name);
        json::put(&mut map, "input", &self.input);
        json::put(&mut map, "layers", &self.layers);
        Value::Object(map)
    }
}

/// The op's object with the layer's own fields added; those at their default (none,
/// empty) are left out.
impl ToJson for Layer {
    fn to_json(&self) -> Value {
        let mut map = self.op.write();
        json::put_field!(&mut map, "name", &self.name, omitted, None);
        json::put_field!(&mut map, "from", &self.from, omitted, Vec::<String>::new());
        json::put_field!(&mut map, "shares", &self.shares, omitted, None);
        Value::Object(map)
    }
}
json::serialize_by_to_json!(ModelSpec, Layer);

impl<'de> Deserialize<'de> for ModelSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        json::read_document(&Value::deserialize(d)?, "(document)").map_err(serde::de::Error::custom)
    }
}

impl<'de> Deserialize<'de> for Layer {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        json::read_document(&Value::deserialize(d)?, "(layer)").map_err(serde::de::Error::custom)
    }
}

/// The error for a missing or unknown `op`.
fn unknown_op(tag: Option<&Value>) -> FieldError {
    let names: Vec<&str> = Op::TAGS.iter().map(|(name, _)| *name).collect();
    FieldError {
        field: "op".into(),
        value: tag.map_or("missing".into(), json::to_text),
        allowed: format!("one of {}", names.join(", ")),
    }
}

/// The ops, described once: `Variant = "tag" { field: Type (= default), ... }`. A field
/// without a default is required; one marked `[omitted]` (`field: Type [omitted] =
/// default`) is left out of the JSON written where it equals its default. Gives the enum,
/// `Op::TAGS` (each tag with its fields), `Op::read`, and `Op::write` with `ToJson` (the
/// `op` tag beside the fields).
macro_rules! json_ops {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $(
                $(#[$vmeta:meta])*
                $variant:ident = $tag:literal $({
                    $(
                        $(#[$fmeta:meta])*
                        $field:ident : $ty:ty $([$omit:ident])? $(= $default:expr)?
                    ),* $(,)?
                })?
            ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        pub enum $name {
            $(
                $(#[$vmeta])*
                $variant $({ $( $(#[$fmeta])* $field: $ty ),* })?,
            )*
        }

        impl $name {
            /// Each op's JSON tag and fields (besides `name`, `from` and `op`).
            pub const TAGS: &'static [(&'static str, &'static [&'static str])] = &[
                $( ($tag, &[$($(stringify!($field)),*)?]), )*
            ];

            /// The op tagged `tag` from the layer's fields.
            fn read(tag: &str, map: &Map<String, Value>) -> Result<Self, FieldError> {
                match tag {
                    $( $tag => Ok($name::$variant $({ $(
                        $field: json::or_default!(map, stringify!($field) $(, $default)?),
                    )* })?), )*
                    other => Err(unknown_op(Some(&Value::from(other)))),
                }
            }

            /// The op's tag and fields.
            fn write(&self) -> Map<String, Value> {
                let mut map = Map::new();
                let tag = match self {
                    $( $name::$variant $({ $($field),* })? => {
                        $($( json::put_field!(
                            &mut map, stringify!($field), $field $(, $omit)? $(, $default)?
                        ); )*)?
                        $tag
                    } )*
                };
                json::put_tag(&mut map, "op", tag);
                map
            }
        }

        impl ToJson for $name {
            fn to_json(&self) -> Value {
                Value::Object(self.write())
            }
        }
        json::serialize_by_to_json!($name);
    };
}

json_ops! {
    /// One operation. Lists (`kernel`, `stride`, ...) have one entry per spatial
    /// dimension; a single entry is repeated, an empty list takes the default.
    #[derive(Clone, Debug, PartialEq)]
    pub enum Op {
        /// nn.Conv1d/2d/3d (`dims` = 1, 2 or 3).
        Conv = "conv" {
            dims: u8,
            out_channels: u64,
            kernel: Vec<u64>,
            stride: Vec<u64> = vec![],
            padding: Vec<u64> = vec![],
            dilation: Vec<u64> = vec![],
            groups: u64 = 1,
            bias: bool = true,
        },
        /// nn.Linear on the last dimension.
        Linear = "linear" {
            out_features: u64,
            bias: bool = true,
        },
        /// nn.BatchNorm1d/2d/3d over dimension 0 (channels).
        BatchNorm = "batch_norm",
        /// nn.LayerNorm over the last dimension; `weight` and `bias` false where it has no
        /// such parameter (elementwise_affine=False, bias=False).
        LayerNorm = "layer_norm" {
            weight: bool [omitted] = true,
            bias: bool [omitted] = true,
        },
        /// nn.GroupNorm over the channel dimension; `weight` and `bias` false where it
        /// has no such parameter (affine=False, timm's GroupNorm1NoBias).
        GroupNorm = "group_norm" {
            groups: u64,
            weight: bool [omitted] = true,
            bias: bool [omitted] = true,
        },
        Act = "act" {
            kind: Activation,
            /// Run in place (nn.LeakyReLU(inplace=True)): a leaky ReLU then keeps its
            /// output, the input it overwrote, instead of its input. (ReLU keeps its output
            /// either way; the other kinds keep a copy of their input in place too.)
            inplace: bool [omitted] = false,
        },
        Dropout = "dropout" { p: f64 },
        MaxPool = "max_pool" {
            dims: u8,
            kernel: Vec<u64>,
            stride: Vec<u64> = vec![],
            padding: Vec<u64> = vec![],
            /// True adds a last, partial window where the input leaves one.
            ceil_mode: bool [omitted] = false,
        },
        AvgPool = "avg_pool" {
            dims: u8,
            kernel: Vec<u64>,
            stride: Vec<u64> = vec![],
            padding: Vec<u64> = vec![],
            /// As for `MaxPool`.
            ceil_mode: bool [omitted] = false,
        },
        /// nn.AdaptiveAvgPool1d/2d/3d to `output` (e.g. [1, 1] for global pooling).
        AdaptiveAvgPool = "adaptive_avg_pool" { dims: u8, output: Vec<u64> },
        /// Upsampling of the spatial dimensions by an integer factor.
        Upsample = "upsample" {
            dims: u8,
            scale: u64,
            mode: UpsampleMode [omitted] = UpsampleMode::Nearest,
        },
        /// Flatten everything but the batch dimension.
        Flatten = "flatten",
        /// Reshape (a view; element count must match).
        Reshape = "reshape" { shape: Vec<u64> },
        /// Permute the per-sample dimensions (a view), e.g. [C, H*W] -> [H*W, C] with
        /// [1, 0].
        Permute = "permute" { order: Vec<usize> },
        /// Element-wise sum of two or more inputs (residual connection); they may
        /// broadcast (per-sample shapes aligned at the end, 1s stretched).
        Add = "add",
        /// Element-wise product of two inputs that may broadcast (attention gates).
        Mul = "mul",
        /// Concatenate inputs along per-sample dimension `axis`.
        Concat = "concat" { axis: usize },
        /// Batched matrix product of two inputs [.., M, K] x [.., K, N] (equal leading
        /// dimensions); a 2-D `constant` on either side is folded as torch.matmul does.
        Matmul = "matmul",
        /// Multi-head self-attention on tokens [.., T, D] (leading dimensions are
        /// independent token sets, e.g. Swin's windows), written out as PyTorch reference
        /// code does: qkv = Linear(D, 3*heads*head_dim); scores = q k^T * scale; softmax;
        /// attn v; out = Linear(heads*head_dim, D). The N x heads x T x T matrix is kept.
        Attention = "attention" {
            heads: u64,
            /// Per-head dimension; None = D / heads.
            head_dim: Option<u64> [omitted] = None,
            qkv_bias: bool = false,
            /// Learned parameters besides the projections that change neither FLOPs nor
            /// kept bytes: a relative position bias table added to the scores (Swin, BEiT,
            /// MaxViT), separate q and v biases (BEiT).
            extra_params: u64 [omitted] = 0,
        },
        /// Prepend a learnable class token: [T, D] -> [T+1, D] (D parameters).
        ClassToken = "class_token",
        /// Add a learnable position embedding of the input's shape (T*D parameters).
        PositionEmbedding = "position_embedding",
        /// Take one token: [T, D] -> [D].
        TakeToken = "take_token" { index: u64 },
        /// `count` tokens of [T, D] picked by an index (torch.gather: MAE's random
        /// masking and its restore; `count` may exceed T when mask tokens are appended).
        GatherTokens = "gather_tokens" { count: u64 },
        /// Multiply by a learned tensor of `shape` broadcast over the input (layer scale:
        /// ConvNeXt, CaiT, BEiT), plus a learned tensor of the same shape with `bias`
        /// (ResMLP's affine).
        Scale = "scale" { shape: Vec<u64>, bias: bool = false },
        /// Stochastic depth in training: each sample's branch times 0 or 1/(1-p), a
        /// per-sample random factor (torchvision's StochasticDepth, timm's DropPath).
        DropPath = "drop_path",
        /// nn.LSTM / nn.GRU over a sequence [T, D] (T steps of D features, e.g. the bands
        /// of a spectrum as the steps) -> [T, directions x hidden]: the output of every
        /// step of the last layer. `batch_first` as in torch (the per-sample shape is
        /// [T, D] either way; it decides whether the input is copied).
        Rnn = "rnn" {
            cell: RnnCell,
            hidden: u64,
            layers: u64 = 1,
            bidirectional: bool = false,
            bias: bool = true,
            batch_first: bool = true,
        },
        /// Every `step`-th element of `start..end` of per-sample dimension `axis`
        /// (x[:, a:b:step]): a strided view.
        Slice = "slice" {
            axis: usize,
            start: u64,
            end: u64,
            step: u64 [omitted] = 1,
        },
        /// F.pad: `pad` as F.pad takes it (before and after of the last dimension, then of
        /// the one before, ...), a new tensor.
        Pad = "pad" {
            pad: Vec<u64>,
            mode: PadMode = PadMode::Constant,
        },
        /// An element-wise function of one input and constants (x * 0.5, x + 1, x ** 2,
        /// exp, clamp, ...): `keeps` says what its gradient reads, `fp32` that CUDA
        /// autocast runs it in fp32 (exp, log, pow, reciprocal, rsqrt, softplus, ...),
        /// `flops` per element.
        Pointwise = "pointwise" {
            keeps: Keeps = Keeps::Nothing,
            fp32: bool [omitted] = false,
            flops: u64 = 1,
        },
        /// a / b of two inputs that broadcast (per-sample shapes aligned at the end; an
        /// input made from the parameters alone broadcasts over the batch): keeps b for
        /// a's gradient, a and b for b's.
        Div = "div",
        /// A broadcast view of the input as `shape` (x.expand, expand_as): trailing
        /// dimensions aligned, 1s stretched; an input made from the parameters alone
        /// (`constant`) is expanded over the batch too.
        Expand = "expand" { shape: Vec<u64> },
        /// A reduction over per-sample dimensions `axes` (`keepdim` keeps them as 1s).
        Reduce = "reduce" {
            kind: Reduction,
            axes: Vec<usize>,
            keepdim: bool [omitted] = false,
        },
        /// nn.AdaptiveMaxPool1d/2d/3d to `output`: keeps its input and int64 indices.
        AdaptiveMaxPool = "adaptive_max_pool" { dims: u8, output: Vec<u64> },
        /// F.interpolate to an explicit size (or by a factor that is not an integer):
        /// `size` per spatial dimension; keeps nothing.
        Resize = "resize" {
            dims: u8,
            size: Vec<u64>,
            mode: UpsampleMode [omitted] = UpsampleMode::Nearest,
        },
        /// F.unfold (im2col) of [C, H, W]: [C x kh x kw, L] with L the window positions;
        /// keeps nothing.
        Unfold = "unfold" {
            kernel: Vec<u64>,
            stride: Vec<u64> = vec![],
            padding: Vec<u64> = vec![],
            dilation: Vec<u64> = vec![],
        },
        /// F.fold (col2im), unfold's inverse: [C x kh x kw, L] summed into [C, H, W] with
        /// `output` = [H, W]; keeps nothing.
        Fold = "fold" {
            output: Vec<u64>,
            kernel: Vec<u64>,
            stride: Vec<u64> = vec![],
            padding: Vec<u64> = vec![],
            dilation: Vec<u64> = vec![],
        },
        /// Tensor.unfold(axis, size, step): windows of `size` every `step` along per-sample
        /// dimension `axis`, as a new last dimension (a view).
        Windows = "windows" { axis: usize, size: u64, step: u64 },
        /// A tensor that does not depend on the input, the same for every sample: a buffer
        /// or a fixed grid (`learned` false), or one made from parameters (`learned`:
        /// they train; `params` of them counted here). Layers that read only such tensors
        /// run once per step, not per sample (a positional encoding made by a convolution
        /// over a fixed grid); its `from` is empty.
        Constant = "constant" {
            shape: Vec<u64>,
            learned: bool [omitted] = false,
            params: u64 [omitted] = 0,
        },
    }
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
            Op::LayerNorm { .. } => "layernorm",
            Op::GroupNorm { .. } => "groupnorm",
            Op::Act { kind, .. } => kind.id(),
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
            Op::GatherTokens { .. } => "gather_tokens",
            Op::Scale { .. } => "scale",
            Op::DropPath => "drop_path",
            Op::Slice { .. } => "slice",
            Op::Rnn { cell, .. } => cell.id(),
            Op::Pad { .. } => "pad",
            Op::Pointwise { .. } => "pointwise",
            Op::Div => "div",
            Op::Expand { .. } => "expand",
            Op::Reduce { kind, .. } => kind.id(),
            Op::AdaptiveMaxPool { .. } => "adaptive_maxpool",
            Op::Resize { .. } => "resize",
            Op::Unfold { .. } => "unfold",
            Op::Fold { .. } => "fold",
            Op::Windows { .. } => "windows",
            Op::Constant { .. } => "constant",
        }
    }
}
