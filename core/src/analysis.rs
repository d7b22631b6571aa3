//! Shape inference and per-layer accounting: parameters, FLOPs, the bytes autograd keeps
//! for backward, and the traffic primitives the roofline uses.
//!
//! The model of "what autograd keeps" follows PyTorch's derivatives.yaml, checked against
//! saved-tensor hooks by `tools/validate_zoo.py` (fixture `core/tests/fixtures/pytorch_zoo.json`):
//! - conv keeps its input and its weight; linear/matmul keep each operand the other
//!   operand's gradient needs (the input only when the weight needs a gradient, the
//!   weight only when the input does);
//! - ReLU, tanh, sigmoid and softmax keep their output; LeakyReLU, GELU, SiLU and Mish
//!   their input; dropout a 1-byte mask; max-pool its input and int64 indices; average
//!   pools their input, except a global adaptive pool (a `mean`, which keeps nothing); batch/layer/group norm their input plus fp32 mean and inverse std;
//! - views (flatten, reshape, permute, token selection) share their input's storage; a
//!   reshape of a non-contiguous view makes a copy, and so do linear and matmul where
//!   they fold leading dimensions into one (linear on [.., T, D], matmul on [.., B, M, K]);
//!   conv, and a matmul of per-sample matrices (bmm), keep a strided view as it is;
//! - a storage kept by two ops counts once (de-duplication by tensor id);
//! - under autocast (CUDA policy) conv/linear/matmul cast float inputs and weights to
//!   16 bit and keep those copies; layer/group norm, softmax and the loss run in fp32;
//! - the loss is cross-entropy: log_softmax keeps its fp32 output, nll_loss the int64
//!   targets (its 4-byte total weight is ignored).
//!
//! FLOPs follow `torch.utils.flop_counter`: only conv, linear and matmul count
//! (multiply-add = 2, bias ignored); backward counts the input gradient only where the
//! input requires one, so a first layer fed by the data costs 1x its forward, others 2x.

use std::collections::{BTreeSet, HashMap};

use crate::graph::{Activation, ModelSpec, Op, UpsampleMode};
use crate::report::LayerReport;
use crate::scenario::{FieldError, Precision};

/// Largest per-sample element count of any tensor; keeps every product exact in u64/f64.
pub const MAX_ELEMENTS_PER_SAMPLE: u64 = 1 << 40;

/// Largest parameter count of one layer (10^13: far above any trained model).
pub const MAX_PARAMS_PER_LAYER: u64 = 10_000_000_000_000;

mod extra;

const FP32: u64 = 4;
const INT64: u64 = 8;
const MASK: u64 = 1;

/// Everything `analyze` finds for one batch size.
#[derive(Clone, Debug, PartialEq)]
pub struct Analysis {
    pub layers: Vec<LayerReport>,
    pub params: u64,
    /// Whole-batch FLOPs (flop_counter convention), including the loss's none.
    pub fwd_flops: f64,
    pub bwd_flops: f64,
    /// Every storage autograd keeps for backward, de-duplicated, parameters excluded,
    /// the loss's included: what saved-tensor hooks report.
    pub saved_bytes: f64,
    /// Bytes the loss keeps (log_softmax output, targets).
    pub loss_saved_bytes: f64,
    /// The input batch, when no layer keeps it (it is resident anyway).
    pub unsaved_input_bytes: f64,
    /// Largest temporary on top of the kept tensors (see `transient_bytes`).
    pub transient_bytes: f64,
    /// Per-sample output shape of the model.
    pub output_shape: Vec<u64>,
    /// The batch these figures are for.
    pub batch: u64,
    /// The memory terms as functions of the batch (the largest-batch search evaluates
    /// them instead of re-running the analysis).
    pub lines: MemoryLines,
}

/// Bytes that grow linearly with the batch: `per_sample x batch + fixed`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Bytes {
    pub per_sample: f64,
    pub fixed: f64,
}

impl Bytes {
    pub const ZERO: Bytes = Bytes {
        per_sample: 0.0,
        fixed: 0.0,
    };

    pub fn at(self, batch: u64) -> f64 {
        self.per_sample * batch as f64 + self.fixed
    }
}

impl std::ops::Add for Bytes {
    type Output = Bytes;
    fn add(self, o: Bytes) -> Bytes {
        Bytes {
            per_sample: self.per_sample + o.per_sample,
            fixed: self.fixed + o.fixed,
        }
    }
}

impl std::ops::AddAssign for Bytes {
    fn add_assign(&mut self, o: Bytes) {
        *self = *self + o;
    }
}

/// `Analysis`'s memory terms for any batch.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MemoryLines {
    /// Everything kept for backward (`Analysis::saved_bytes`).
    pub saved: Bytes,
    pub loss_saved: Bytes,
    pub unsaved_input: Bytes,
    /// One candidate per layer; the transient is their maximum.
    pub transient: Vec<Bytes>,
    /// Per layer: what it adds to the kept tensors, and its output.
    pub layer_saved: Vec<Bytes>,
    pub layer_output: Vec<Bytes>,
}

impl MemoryLines {
    pub fn transient_at(&self, batch: u64) -> f64 {
        self.transient
            .iter()
            .map(|t| t.at(batch))
            .fold(0.0, f64::max)
    }
}

#[derive(Clone, Copy, Debug)]
struct Storage {
    per_sample: u64,
    fixed: u64,
}

/// A tensor flowing between layers (per sample).
#[derive(Clone, Debug)]
struct Value {
    shape: Vec<u64>,
    dtype: u64,
    storage: usize,
    requires_grad: bool,
    contiguous: bool,
}

impl Value {
    fn elements(&self) -> u64 {
        saturating_product(&self.shape)
    }
    fn bytes(&self) -> u64 {
        self.elements().saturating_mul(self.dtype)
    }
}

struct Ctx {
    precision: Precision,
    storages: Vec<Storage>,
    saved: BTreeSet<usize>,
}

impl Ctx {
    fn new_storage(&mut self, per_sample: u64, fixed: u64) -> usize {
        self.storages.push(Storage { per_sample, fixed });
        self.storages.len() - 1
    }

    fn storage_bytes(&self, id: usize) -> Bytes {
        let s = self.storages[id];
        Bytes {
            per_sample: s.per_sample as f64,
            fixed: s.fixed as f64,
        }
    }

    /// A fresh activation tensor of `shape` and `dtype`.
    fn fresh(&mut self, shape: Vec<u64>, dtype: u64, requires_grad: bool) -> Value {
        let storage = self.new_storage(saturating_product(&shape).saturating_mul(dtype), 0);
        Value {
            shape,
            dtype,
            storage,
            requires_grad,
            contiguous: true,
        }
    }

    /// Keeps a storage for backward; returns the bytes newly kept.
    fn keep(&mut self, id: usize) -> Bytes {
        if self.saved.insert(id) {
            self.storage_bytes(id)
        } else {
            Bytes::ZERO
        }
    }

    /// Keeps a per-sample or fixed-size side tensor (mask, indices, statistics).
    fn keep_new(&mut self, per_sample: u64, fixed: u64) -> Bytes {
        let id = self.new_storage(per_sample, fixed);
        self.keep(id)
    }

    /// The operand a conv/linear/matmul op actually uses and keeps: cast to 16 bit under
    /// autocast; a contiguous copy of a strided view only when the op folds the leading
    /// dimensions with `reshape` (`folds_leading`), as torch.matmul and F.linear do for
    /// inputs above 2-D; conv and bmm take strided operands as they are.
    fn matmul_operand(&mut self, v: &Value, folds_leading: bool) -> Value {
        let dtype = self.compute_dtype(v.dtype);
        if (v.contiguous || !folds_leading) && dtype == v.dtype {
            return v.clone();
        }
        self.fresh(v.shape.clone(), dtype, v.requires_grad)
    }

    /// Dtype conv/linear/matmul compute in.
    fn compute_dtype(&self, dtype: u64) -> u64 {
        if self.precision.is_autocast() {
            2
        } else {
            dtype
        }
    }

    /// The input as an op in autocast's fp32 list (norms, softmax, loss) sees it.
    fn fp32_operand(&mut self, v: &Value) -> Value {
        if self.precision.is_autocast() && v.dtype != FP32 {
            self.fresh(v.shape.clone(), FP32, v.requires_grad)
        } else {
            v.clone()
        }
    }

    /// A half-precision weight copy autocast keeps (`params` elements, batch-independent).
    fn keep_weight_copy(&mut self, params: u64) -> Bytes {
        if self.precision.is_autocast() {
            self.keep_new(0, params.saturating_mul(2))
        } else {
            Bytes::ZERO
        }
    }

    fn param_dtype(&self) -> u64 {
        self.precision.param_bytes()
    }
}

/// What one layer contributes, per sample unless noted.
#[derive(Default)]
struct LayerAccount {
    params: u64,
    fwd_flops: f64,
    bwd_flops: f64,
    other_flops: f64,
    saved: Bytes,
    tensor_core: bool,
    kernels_fwd: u32,
    kernels_bwd: u32,
    /// Temporaries beyond gradients (bytes per sample), e.g. attention scores.
    scratch_per_sample: f64,
}

fn err(
    index: usize,
    name: &str,
    kind: &str,
    value: impl ToString,
    allowed: impl ToString,
) -> FieldError {
    FieldError {
        field: format!("model.layers[{index}] ({kind} '{name}')"),
        value: value.to_string(),
        allowed: allowed.to_string(),
    }
}

/// Expands a per-dimension list: empty = default, one entry = repeated.
fn per_dim(list: &[u64], dims: usize, default: u64) -> Option<Vec<u64>> {
    match list.len() {
        0 => Some(vec![default; dims]),
        1 => Some(vec![list[0]; dims]),
        n if n == dims => Some(list.to_vec()),
        _ => None,
    }
}

/// Product that stops at u64::MAX instead of overflowing: absurd sizes then fail the
/// output-size and parameter limits with a field error.
fn saturating_product(xs: &[u64]) -> u64 {
    xs.iter().fold(1u64, |acc, &d| acc.saturating_mul(d))
}

fn checked_product(shape: &[u64]) -> Option<u64> {
    shape.iter().try_fold(1u64, |acc, &d| acc.checked_mul(d))
}

/// Runs shape inference and accounting for `spec` at `batch` samples per GPU.
pub fn analyze(spec: &ModelSpec, batch: u64, precision: Precision) -> Result<Analysis, FieldError> {
    if spec.input.is_empty() || spec.input.contains(&0) {
        return Err(FieldError {
            field: "model.input".into(),
            value: format!("{:?}", spec.input),
            allowed: "a non-empty list of positive dimensions".into(),
        });
    }
    if spec.layers.is_empty() {
        return Err(FieldError {
            field: "model.layers".into(),
            value: "[]".into(),
            allowed: "at least one layer".into(),
        });
    }
    if checked_product(&spec.input).is_none_or(|n| n > MAX_ELEMENTS_PER_SAMPLE) {
        return Err(FieldError {
            field: "model.input".into(),
            value: format!("{:?}", spec.input),
            allowed: format!("at most {MAX_ELEMENTS_PER_SAMPLE} elements per sample"),
        });
    }
    let mut ctx = Ctx {
        precision,
        storages: Vec::new(),
        saved: BTreeSet::new(),
    };
    // The data arrive in fp32; a model cast to bf16 gets bf16 data.
    let data_dtype = if precision == Precision::Bf16 {
        2
    } else {
        FP32
    };
    let input = ctx.fresh(spec.input.clone(), data_dtype, false);
    let input_storage = input.storage;
    let mut values: HashMap<String, Value> = HashMap::new();
    values.insert("input".into(), input.clone());
    let mut previous = input;
    let mut layers = Vec::with_capacity(spec.layers.len());
    let mut lines = MemoryLines::default();

    for (index, layer) in spec.layers.iter().enumerate() {
        let kind = layer.op.kind();
        let name = layer
            .name
            .clone()
            .unwrap_or_else(|| format!("{kind}{index}"));
        let inputs: Vec<Value> = if layer.from.is_empty() {
            vec![previous.clone()]
        } else {
            layer
                .from
                .iter()
                .map(|f| {
                    values.get(f).cloned().ok_or_else(|| {
                        err(
                            index,
                            &name,
                            kind,
                            format!("from '{f}'"),
                            "names of earlier layers or 'input'",
                        )
                    })
                })
                .collect::<Result<_, _>>()?
        };
        let (output, account) = apply(&mut ctx, &layer.op, &inputs)
            .map_err(|(value, allowed)| err(index, &name, kind, value, allowed))?;
        if output.shape.contains(&0)
            || checked_product(&output.shape).is_none_or(|n| n > MAX_ELEMENTS_PER_SAMPLE)
        {
            return Err(err(
                index,
                &name,
                kind,
                format!("output shape {:?}", output.shape),
                format!(
                    "positive dimensions, at most {MAX_ELEMENTS_PER_SAMPLE} elements per sample"
                ),
            ));
        }
        if account.params > MAX_PARAMS_PER_LAYER {
            return Err(err(
                index,
                &name,
                kind,
                format!("{} parameters", account.params),
                format!("at most {MAX_PARAMS_PER_LAYER} parameters in one layer"),
            ));
        }
        let n = batch as f64;
        let input_per_sample: f64 = inputs.iter().map(|v| v.bytes() as f64).sum();
        let output_per_sample = output.bytes() as f64;
        // Gradients of the output and of the inputs coexist in backward.
        let input_grads = if inputs.iter().any(|v| v.requires_grad) {
            input_per_sample
        } else {
            0.0
        };
        lines.transient.push(Bytes {
            per_sample: output_per_sample + input_grads + account.scratch_per_sample,
            fixed: 0.0,
        });
        lines.layer_saved.push(account.saved);
        lines.layer_output.push(Bytes {
            per_sample: output_per_sample,
            fixed: 0.0,
        });
        let weight_dtype = ctx.compute_dtype(ctx.param_dtype());
        layers.push(LayerReport {
            name: name.clone(),
            kind: kind.into(),
            output_shape: output.shape.clone(),
            params: account.params,
            fwd_flops: account.fwd_flops * n,
            bwd_flops: account.bwd_flops * n,
            other_flops: account.other_flops * n,
            input_bytes: input_per_sample * n,
            output_bytes: output_per_sample * n,
            weight_bytes: (account.params * weight_dtype) as f64,
            saved_bytes: account.saved.at(batch),
            tensor_core: account.tensor_core,
            kernels_fwd: account.kernels_fwd,
            kernels_bwd: account.kernels_bwd,
        });
        if values.insert(name.clone(), output.clone()).is_some() && layer.name.is_some() {
            return Err(err(
                index,
                &name,
                kind,
                format!("name '{name}'"),
                "a name not used by an earlier layer",
            ));
        }
        previous = output;
    }

    // Cross-entropy: log_softmax (fp32 under autocast) keeps its output; nll_loss the
    // targets and its 0-d fp32 `total_weight` (derivatives.yaml, nll_loss_forward).
    let logits = ctx.fp32_operand(&previous);
    let log_probs = ctx.fresh(logits.shape.clone(), logits.dtype, true);
    let classes = previous.shape[0].max(1);
    let targets_per_sample = previous.elements() / classes;
    lines.loss_saved = ctx.keep(log_probs.storage)
        + ctx.keep_new(targets_per_sample * INT64, 0)
        + ctx.keep_new(0, FP32);

    lines.saved = ctx
        .saved
        .iter()
        .fold(Bytes::ZERO, |sum, &id| sum + ctx.storage_bytes(id));
    if !ctx.saved.contains(&input_storage) {
        lines.unsaved_input = ctx.storage_bytes(input_storage);
    }
    Ok(Analysis {
        params: layers.iter().map(|l| l.params).sum(),
        fwd_flops: layers.iter().map(|l| l.fwd_flops).sum(),
        bwd_flops: layers.iter().map(|l| l.bwd_flops).sum(),
        layers,
        saved_bytes: lines.saved.at(batch),
        loss_saved_bytes: lines.loss_saved.at(batch),
        unsaved_input_bytes: lines.unsaved_input.at(batch),
        transient_bytes: lines.transient_at(batch),
        output_shape: previous.shape,
        batch,
        lines,
    })
}

type OpResult = Result<(Value, LayerAccount), (String, String)>;

fn bad(value: impl ToString, allowed: impl ToString) -> (String, String) {
    (value.to_string(), allowed.to_string())
}

fn expect_inputs(inputs: &[Value], n: usize) -> Result<(), (String, String)> {
    if inputs.len() == n {
        Ok(())
    } else {
        Err(bad(
            format!("{} inputs", inputs.len()),
            format!("exactly {n} input(s) in 'from'"),
        ))
    }
}

/// Checks a channels-first input of `dims` spatial dimensions and returns (channels, spatial).
fn spatial_input(v: &Value, dims: u8) -> Result<(u64, Vec<u64>), (String, String)> {
    if !(1..=3).contains(&dims) {
        return Err(bad(format!("dims {dims}"), "1, 2 or 3"));
    }
    if v.shape.len() != dims as usize + 1 {
        return Err(bad(
            format!("input shape {:?}", v.shape),
            format!("[channels, {dims} spatial dimensions]"),
        ));
    }
    Ok((v.shape[0], v.shape[1..].to_vec()))
}

/// Output length of a sliding window (PyTorch's formula; ceil mode adds a last, partial
/// window unless it would start in the padding).
fn window_out(
    len: u64,
    kernel: u64,
    stride: u64,
    padding: u64,
    dilation: u64,
    ceil_mode: bool,
) -> Option<u64> {
    let span = dilation
        .checked_mul(kernel.checked_sub(1)?)?
        .checked_add(1)?;
    let padded = len.checked_add(padding.checked_mul(2)?)?;
    if stride == 0 || kernel == 0 || padded < span {
        return None;
    }
    let round_up = if ceil_mode { stride - 1 } else { 0 };
    let out = (padded - span).checked_add(round_up)? / stride + 1;
    let starts_in_padding = ceil_mode && (out - 1).checked_mul(stride)? >= len + padding;
    Some(out - u64::from(starts_in_padding))
}

struct Window {
    kernel: Vec<u64>,
    stride: Vec<u64>,
    padding: Vec<u64>,
    dilation: Vec<u64>,
    ceil_mode: bool,
}

fn window(
    dims: usize,
    kernel: &[u64],
    stride: &[u64],
    padding: &[u64],
    dilation: &[u64],
    stride_default_kernel: bool,
) -> Result<Window, (String, String)> {
    let list = |l: &[u64], default: u64, what: &str| {
        per_dim(l, dims, default).ok_or_else(|| {
            bad(
                format!("{what} {l:?}"),
                format!("empty, one value, or {dims} values"),
            )
        })
    };
    let kernel = list(kernel, 1, "kernel")?;
    if kernel.is_empty() || kernel.contains(&0) {
        return Err(bad(format!("kernel {kernel:?}"), "positive sizes"));
    }
    let stride = if stride.is_empty() && stride_default_kernel {
        kernel.clone()
    } else {
        list(stride, 1, "stride")?
    };
    Ok(Window {
        stride,
        padding: list(padding, 0, "padding")?,
        dilation: list(dilation, 1, "dilation")?,
        kernel,
        ceil_mode: false,
    })
}

fn window_output(spatial: &[u64], w: &Window) -> Result<Vec<u64>, (String, String)> {
    spatial
        .iter()
        .enumerate()
        .map(|(i, &len)| {
            window_out(
                len,
                w.kernel[i],
                w.stride[i],
                w.padding[i],
                w.dilation[i],
                w.ceil_mode,
            )
            .ok_or_else(|| {
                bad(
                    format!(
                        "input size {len} with kernel {} (dilation {}, padding {})",
                        w.kernel[i], w.dilation[i], w.padding[i]
                    ),
                    "an input at least as large as the dilated kernel, and stride >= 1",
                )
            })
        })
        .collect()
}

/// Backward FLOPs of a matmul-class op: weight gradient always, input gradient only
/// when the input requires one.
fn backward_flops(fwd: f64, input_requires_grad: bool) -> f64 {
    if input_requires_grad {
        2.0 * fwd
    } else {
        fwd
    }
}

fn apply(ctx: &mut Ctx, op: &Op, inputs: &[Value]) -> OpResult {
    let first = inputs
        .first()
        .cloned()
        .ok_or_else(|| bad("no input", "one input"))?;
    match op {
        Op::Conv {
            dims,
            out_channels,
            kernel,
            stride,
            padding,
            dilation,
            groups,
            bias,
        } => {
            expect_inputs(inputs, 1)?;
            let (channels, spatial) = spatial_input(&first, *dims)?;
            let groups = *groups;
            if groups == 0
                || channels % groups != 0
                || out_channels % groups != 0
                || *out_channels == 0
            {
                return Err(bad(
                    format!("in {channels}, out {out_channels}, groups {groups}"),
                    "positive channels divisible by groups",
                ));
            }
            let w = window(*dims as usize, kernel, stride, padding, dilation, false)?;
            let out_spatial = window_output(&spatial, &w)?;
            let weight = saturating_product(&[
                *out_channels,
                channels / groups,
                saturating_product(&w.kernel),
            ]);
            let params = weight.saturating_add(if *bias { *out_channels } else { 0 });
            let out_positions = saturating_product(&out_spatial);
            let fwd = 2.0 * out_positions as f64 * weight as f64;
            let operand = ctx.matmul_operand(&first, false);
            let saved = ctx.keep(operand.storage) + ctx.keep_weight_copy(weight);
            let mut shape = vec![*out_channels];
            shape.extend(out_spatial);
            let output = ctx.fresh(shape, operand.dtype, true);
            Ok((
                output,
                LayerAccount {
                    params,
                    fwd_flops: fwd,
                    bwd_flops: backward_flops(fwd, first.requires_grad),
                    other_flops: if *bias {
                        out_positions as f64 * *out_channels as f64
                    } else {
                        0.0
                    },
                    saved,
                    tensor_core: true,
                    kernels_fwd: 1 + *bias as u32,
                    kernels_bwd: 1 + first.requires_grad as u32 + *bias as u32,
                    scratch_per_sample: 0.0,
                },
            ))
        }
        Op::Linear { out_features, bias } => {
            expect_inputs(inputs, 1)?;
            let features = *first.shape.last().unwrap_or(&0);
            if *out_features == 0 {
                return Err(bad("out_features 0", "a positive number of features"));
            }
            let rows = first.elements() / features.max(1);
            let weight = features.saturating_mul(*out_features);
            let params = weight.saturating_add(if *bias { *out_features } else { 0 });
            let fwd = 2.0 * rows as f64 * weight as f64;
            // Per-sample [D] is a 2-D [N, D] addmm operand; [.., T, D] is reshaped first.
            let operand = ctx.matmul_operand(&first, first.shape.len() >= 2);
            let mut saved = ctx.keep(operand.storage);
            if first.requires_grad {
                saved += ctx.keep_weight_copy(weight);
            }
            let mut shape = first.shape.clone();
            *shape.last_mut().expect("non-empty shape") = *out_features;
            let output = ctx.fresh(shape, operand.dtype, true);
            Ok((
                output,
                LayerAccount {
                    params,
                    fwd_flops: fwd,
                    bwd_flops: backward_flops(fwd, first.requires_grad),
                    other_flops: 0.0,
                    saved,
                    tensor_core: true,
                    kernels_fwd: 1,
                    kernels_bwd: 1 + first.requires_grad as u32 + *bias as u32,
                    scratch_per_sample: 0.0,
                },
            ))
        }
        Op::BatchNorm | Op::GroupNorm { .. } | Op::LayerNorm => normalization(ctx, op, &first),
        Op::Act { kind } => {
            expect_inputs(inputs, 1)?;
            let softmax = *kind == Activation::Softmax;
            let operand = if softmax {
                ctx.fp32_operand(&first)
            } else {
                first.clone()
            };
            let output = ctx.fresh(first.shape.clone(), operand.dtype, first.requires_grad);
            // The others (LeakyReLU, GELU, SiLU, Mish, Hardswish, Hardsigmoid, ReLU6 out
            // of place) keep their input.
            let keeps_output = matches!(
                kind,
                Activation::Relu | Activation::Tanh | Activation::Sigmoid | Activation::Softmax
            );
            let saved = if !first.requires_grad {
                Bytes::ZERO
            } else if keeps_output {
                ctx.keep(output.storage)
            } else {
                ctx.keep(operand.storage)
            };
            let flops_per_element = match kind {
                Activation::Relu | Activation::LeakyRelu | Activation::Relu6 => 1.0,
                Activation::Hardsigmoid => 3.0,
                Activation::Sigmoid
                | Activation::Tanh
                | Activation::Silu
                | Activation::Hardswish => 4.0,
                Activation::Gelu | Activation::Mish | Activation::Softmax => 8.0,
            };
            Ok((
                output.clone(),
                elementwise(&output, flops_per_element, saved, 1),
            ))
        }
        Op::Dropout { p } => {
            expect_inputs(inputs, 1)?;
            if !(0.0..1.0).contains(p) {
                return Err(bad(format!("p {p}"), "a probability in [0, 1)"));
            }
            if *p == 0.0 {
                return Ok((first, LayerAccount::default()));
            }
            let output = ctx.fresh(first.shape.clone(), first.dtype, first.requires_grad);
            let saved = if first.requires_grad {
                ctx.keep_new(first.elements() * MASK, 0)
            } else {
                Bytes::ZERO
            };
            Ok((output.clone(), elementwise(&output, 2.0, saved, 1)))
        }
        Op::MaxPool {
            dims,
            kernel,
            stride,
            padding,
            ceil_mode,
        }
        | Op::AvgPool {
            dims,
            kernel,
            stride,
            padding,
            ceil_mode,
        } => {
            expect_inputs(inputs, 1)?;
            let (channels, spatial) = spatial_input(&first, *dims)?;
            let mut w = window(*dims as usize, kernel, stride, padding, &[], true)?;
            w.ceil_mode = *ceil_mode;
            if w.padding.iter().zip(&w.kernel).any(|(p, k)| 2 * p > *k) {
                return Err(bad(
                    format!("padding {:?} with kernel {:?}", w.padding, w.kernel),
                    "padding at most half the kernel",
                ));
            }
            let mut shape = vec![channels];
            shape.extend(window_output(&spatial, &w)?);
            let output = ctx.fresh(shape, first.dtype, first.requires_grad);
            let mut saved = Bytes::ZERO;
            if first.requires_grad {
                saved += ctx.keep(first.storage);
                if matches!(op, Op::MaxPool { .. }) {
                    saved += ctx.keep_new(output.elements().saturating_mul(INT64), 0);
                }
            }
            let window_elems = saturating_product(&w.kernel);
            Ok((
                output.clone(),
                elementwise(&output, window_elems as f64, saved, 1),
            ))
        }
        Op::AdaptiveAvgPool {
            dims,
            output: target,
        } => {
            expect_inputs(inputs, 1)?;
            let (channels, spatial) = spatial_input(&first, *dims)?;
            let target = per_dim(target, *dims as usize, 1)
                .filter(|t| !t.contains(&0))
                .ok_or_else(|| {
                    bad(
                        format!("output {target:?}"),
                        format!("one or {dims} positive sizes"),
                    )
                })?;
            // PyTorch computes a pool to a single position as `mean`, which keeps nothing.
            let global = target.iter().all(|&t| t == 1);
            let mut shape = vec![channels];
            shape.extend(target);
            let output = ctx.fresh(shape, first.dtype, first.requires_grad);
            let saved = if first.requires_grad && !global {
                ctx.keep(first.storage)
            } else {
                Bytes::ZERO
            };
            let per_output = spatial.iter().product::<u64>() as f64
                / output.elements().max(1) as f64
                * channels as f64;
            Ok((output.clone(), elementwise(&output, per_output, saved, 1)))
        }
        Op::Upsample { dims, scale, mode } => {
            expect_inputs(inputs, 1)?;
            let (channels, spatial) = spatial_input(&first, *dims)?;
            if *scale == 0 {
                return Err(bad("scale 0", "a positive integer factor"));
            }
            let mut shape = vec![channels];
            shape.extend(spatial.iter().map(|s| s.saturating_mul(*scale)));
            let output = ctx.fresh(shape, first.dtype, first.requires_grad);
            // Linear interpolation weighs 2 neighbours per dimension; neither mode keeps
            // anything (backward needs only the sizes).
            let flops = match mode {
                UpsampleMode::Nearest => 0.0,
                UpsampleMode::Linear => 3.0 * f64::from(1u32 << *dims),
            };
            Ok((output.clone(), elementwise(&output, flops, Bytes::ZERO, 1)))
        }
        Op::Flatten => {
            expect_inputs(inputs, 1)?;
            view(ctx, &first, vec![first.elements()])
        }
        Op::Reshape { shape } => {
            expect_inputs(inputs, 1)?;
            if checked_product(shape) != Some(first.elements()) {
                return Err(bad(
                    format!("shape {shape:?} from {:?}", first.shape),
                    "a shape with the same number of elements",
                ));
            }
            view(ctx, &first, shape.clone())
        }
        Op::Permute { order } => {
            expect_inputs(inputs, 1)?;
            let mut sorted = order.clone();
            sorted.sort_unstable();
            if sorted != (0..first.shape.len()).collect::<Vec<_>>() {
                return Err(bad(
                    format!("order {order:?} for shape {:?}", first.shape),
                    "a permutation of the per-sample dimensions",
                ));
            }
            let mut output = first.clone();
            output.shape = order.iter().map(|&i| first.shape[i]).collect();
            let moves_data = order
                .iter()
                .zip(&first.shape)
                .enumerate()
                .any(|(i, (&o, _))| o != i && first.shape[o] > 1);
            output.contiguous = first.contiguous && !moves_data;
            Ok((output, LayerAccount::default()))
        }
        Op::Add => {
            if inputs.len() < 2 || inputs.iter().any(|v| v.shape != first.shape) {
                return Err(bad(
                    format!(
                        "{} inputs of shapes {:?}",
                        inputs.len(),
                        inputs.iter().map(|v| &v.shape).collect::<Vec<_>>()
                    ),
                    "two or more inputs of equal shape",
                ));
            }
            let output = ctx.fresh(
                first.shape.clone(),
                inputs.iter().map(|v| v.dtype).max().unwrap_or(FP32),
                inputs.iter().any(|v| v.requires_grad),
            );
            Ok((
                output.clone(),
                elementwise(
                    &output,
                    (inputs.len() - 1) as f64,
                    Bytes::ZERO,
                    inputs.len() as u32 - 1,
                ),
            ))
        }
        Op::Mul => {
            expect_inputs(inputs, 2)?;
            let (a, b) = (&inputs[0], &inputs[1]);
            if !broadcasts(&b.shape, &a.shape) {
                return Err(bad(
                    format!("shapes {:?} and {:?}", a.shape, b.shape),
                    "the second input broadcastable to the first",
                ));
            }
            // Each operand is kept for the other's gradient.
            let mut saved = Bytes::ZERO;
            if a.requires_grad {
                saved += ctx.keep(b.storage);
            }
            if b.requires_grad {
                saved += ctx.keep(a.storage);
            }
            let output = ctx.fresh(
                a.shape.clone(),
                a.dtype.max(b.dtype),
                a.requires_grad || b.requires_grad,
            );
            Ok((output.clone(), elementwise(&output, 1.0, saved, 1)))
        }
        // One input is a copy (DenseNet's first layer concatenates a list of one).
        Op::Concat { axis } => {
            let rank = first.shape.len();
            let same_elsewhere = inputs.iter().all(|v| {
                v.shape.len() == rank
                    && v.shape
                        .iter()
                        .enumerate()
                        .all(|(i, d)| i == *axis || *d == first.shape[i])
            });
            if *axis >= rank || !same_elsewhere {
                return Err(bad(
                    format!(
                        "axis {axis}, shapes {:?}",
                        inputs.iter().map(|v| &v.shape).collect::<Vec<_>>()
                    ),
                    "inputs equal in every dimension but the axis, which must exist",
                ));
            }
            let mut shape = first.shape.clone();
            shape[*axis] = inputs
                .iter()
                .fold(0u64, |sum, v| sum.saturating_add(v.shape[*axis]));
            let output = ctx.fresh(
                shape,
                inputs.iter().map(|v| v.dtype).max().unwrap_or(FP32),
                inputs.iter().any(|v| v.requires_grad),
            );
            Ok((output.clone(), elementwise(&output, 0.0, Bytes::ZERO, 1)))
        }
        Op::Matmul => {
            expect_inputs(inputs, 2)?;
            matmul(ctx, &inputs[0], &inputs[1])
        }
        Op::Attention {
            heads,
            head_dim,
            qkv_bias,
            extra_params,
        } => {
            expect_inputs(inputs, 1)?;
            let (output, mut account) = attention(ctx, &first, *heads, *head_dim, *qkv_bias)?;
            account.params = account.params.saturating_add(*extra_params);
            Ok((output, account))
        }
        Op::Scale { shape, bias } => {
            expect_inputs(inputs, 1)?;
            extra::scale(ctx, &first, shape, *bias)
        }
        Op::DropPath => {
            expect_inputs(inputs, 1)?;
            Ok(extra::drop_path(ctx, &first))
        }
        Op::Slice {
            axis,
            start,
            end,
            step,
        } => {
            expect_inputs(inputs, 1)?;
            extra::slice(&first, *axis, *start, *end, *step)
        }
        Op::ClassToken => {
            expect_inputs(inputs, 1)?;
            let [tokens, dim] = first.shape[..] else {
                return Err(bad(
                    format!("input shape {:?}", first.shape),
                    "tokens [T, D]",
                ));
            };
            // torch.cat promotes to the (fp32 under autocast) parameter's dtype.
            let dtype = first.dtype.max(ctx.param_dtype());
            let output = ctx.fresh(vec![tokens.saturating_add(1), dim], dtype, true);
            let mut account = elementwise(&output, 0.0, Bytes::ZERO, 1);
            account.params = dim;
            Ok((output, account))
        }
        Op::PositionEmbedding => {
            expect_inputs(inputs, 1)?;
            let output = ctx.fresh(
                first.shape.clone(),
                first.dtype.max(ctx.param_dtype()),
                true,
            );
            let mut account = elementwise(&output, 1.0, Bytes::ZERO, 1);
            account.params = first.elements();
            Ok((output, account))
        }
        Op::TakeToken { index } => {
            expect_inputs(inputs, 1)?;
            let [tokens, dim] = first.shape[..] else {
                return Err(bad(
                    format!("input shape {:?}", first.shape),
                    "tokens [T, D]",
                ));
            };
            if *index >= tokens {
                return Err(bad(
                    format!("index {index}"),
                    format!("a token index below {tokens}"),
                ));
            }
            // A strided view into the token storage; kept whole if a later op saves it.
            let mut output = first.clone();
            output.shape = vec![dim];
            Ok((output, LayerAccount::default()))
        }
    }
}

/// True if `small` broadcasts to `big` (trailing alignment, 1s stretch).
fn broadcasts(small: &[u64], big: &[u64]) -> bool {
    small.len() <= big.len()
        && small
            .iter()
            .rev()
            .zip(big.iter().rev())
            .all(|(s, b)| s == b || *s == 1)
}

/// A memory-bound op over `output`: `flops` per output element, one read and one write.
fn elementwise(output: &Value, flops_per_element: f64, saved: Bytes, kernels: u32) -> LayerAccount {
    LayerAccount {
        other_flops: flops_per_element * output.elements() as f64,
        saved,
        kernels_fwd: kernels,
        kernels_bwd: kernels * output.requires_grad as u32,
        ..LayerAccount::default()
    }
}

/// Flatten/reshape: a view of contiguous data, a copy of a strided view.
fn view(ctx: &mut Ctx, input: &Value, shape: Vec<u64>) -> OpResult {
    if input.contiguous {
        let mut output = input.clone();
        output.shape = shape;
        return Ok((output, LayerAccount::default()));
    }
    let output = ctx.fresh(shape, input.dtype, input.requires_grad);
    Ok((output.clone(), elementwise(&output, 0.0, Bytes::ZERO, 1)))
}

fn normalization(ctx: &mut Ctx, op: &Op, input: &Value) -> OpResult {
    let (params, stats_per_sample, fixed_stats, autocast_fp32) = match op {
        Op::BatchNorm => {
            let c = input.shape[0];
            // Per-channel mean and inverse std of the batch; running stats are buffers.
            (c.saturating_mul(2), 0, c.saturating_mul(2), false)
        }
        Op::GroupNorm { groups } => {
            let c = input.shape[0];
            if *groups == 0 || !c.is_multiple_of(*groups) || input.shape.len() < 2 {
                return Err(bad(
                    format!("{groups} groups over {c} channels"),
                    "groups dividing the channel count, input [C, ...]",
                ));
            }
            (c.saturating_mul(2), groups.saturating_mul(2), 0, true)
        }
        _ => {
            let d = *input.shape.last().unwrap_or(&1);
            (
                d.saturating_mul(2),
                (input.elements() / d.max(1)).saturating_mul(2),
                0,
                true,
            )
        }
    };
    let operand = if autocast_fp32 {
        ctx.fp32_operand(input)
    } else {
        input.clone()
    };
    let saved = ctx.keep(operand.storage)
        + ctx.keep_new(
            stats_per_sample.saturating_mul(FP32),
            fixed_stats.saturating_mul(FP32),
        );
    let output = ctx.fresh(input.shape.clone(), operand.dtype, true);
    let mut account = elementwise(&output, 8.0, saved, 1);
    account.params = params;
    account.kernels_bwd = 2;
    Ok((output, account))
}

/// Batched matmul [.., M, K] x [.., K, N].
fn matmul(ctx: &mut Ctx, a: &Value, b: &Value) -> OpResult {
    let (ra, rb) = (a.shape.len(), b.shape.len());
    if ra < 2
        || rb < 2
        || a.shape[ra - 1] != b.shape[rb - 2]
        || a.shape[..ra - 2] != b.shape[..rb - 2]
    {
        return Err(bad(
            format!("shapes {:?} and {:?}", a.shape, b.shape),
            "[.., M, K] and [.., K, N] with equal leading dimensions",
        ));
    }
    let (m, k, n) = (a.shape[ra - 2], a.shape[ra - 1], b.shape[rb - 1]);
    let batch = saturating_product(&a.shape[..ra - 2]);
    let fwd = 2.0 * (batch * m * k * n) as f64;
    // Per-sample matrices are a plain bmm; more leading dimensions are folded first.
    let (oa, ob) = (
        ctx.matmul_operand(a, ra >= 3),
        ctx.matmul_operand(b, rb >= 3),
    );
    let mut saved = Bytes::ZERO;
    if b.requires_grad {
        saved += ctx.keep(oa.storage);
    }
    if a.requires_grad {
        saved += ctx.keep(ob.storage);
    }
    let mut shape = a.shape[..ra - 2].to_vec();
    shape.extend([m, n]);
    let output = ctx.fresh(shape, oa.dtype, a.requires_grad || b.requires_grad);
    let grads = a.requires_grad as u32 + b.requires_grad as u32;
    Ok((
        output,
        LayerAccount {
            fwd_flops: fwd,
            bwd_flops: fwd * grads as f64,
            saved,
            tensor_core: true,
            kernels_fwd: 1,
            kernels_bwd: grads,
            ..LayerAccount::default()
        },
    ))
}

/// Multi-head self-attention written out (see `Op::Attention`).
fn attention(
    ctx: &mut Ctx,
    x: &Value,
    heads: u64,
    head_dim: Option<u64>,
    qkv_bias: bool,
) -> OpResult {
    // Leading dimensions are independent token sets (Swin's windows: [windows, T, D]).
    let [.., tokens, dim] = x.shape[..] else {
        return Err(bad(
            format!("input shape {:?}", x.shape),
            "tokens [.., T, D]",
        ));
    };
    let sets = saturating_product(&x.shape[..x.shape.len() - 2]);
    let rows = sets.saturating_mul(tokens);
    if heads == 0 || (head_dim.is_none() && dim % heads != 0) || head_dim == Some(0) {
        return Err(bad(
            format!("{heads} heads over dim {dim}"),
            "heads dividing the dimension, or an explicit head_dim",
        ));
    }
    let hd = head_dim.unwrap_or(dim / heads);
    let inner = heads.saturating_mul(hd);
    let qkv_weight = saturating_product(&[dim, 3, inner]);
    let out_weight = inner.saturating_mul(dim);
    let qkv_bias_params = if qkv_bias { inner.saturating_mul(3) } else { 0 };
    let params = qkv_weight
        .saturating_add(out_weight)
        .saturating_add(dim)
        .saturating_add(qkv_bias_params);
    let scores = saturating_product(&[sets, heads, tokens, tokens]);

    // qkv projection keeps x (and its weight copy under autocast).
    let xin = ctx.matmul_operand(x, true);
    let mut saved = ctx.keep(xin.storage);
    if x.requires_grad {
        saved += ctx.keep_weight_copy(qkv_weight);
    }
    let act = xin.dtype;
    // q, k and v are strided views of the qkv output; the two batched matmuls copy them
    // to [N*heads, T, hd] and keep the copies.
    for _ in 0..3 {
        saved += ctx.keep_new(saturating_product(&[rows, inner, act]), 0);
    }
    // Softmax (fp32 under autocast) keeps its output; the second matmul keeps the
    // probabilities again as a 16-bit copy under autocast.
    let softmax_dtype = if ctx.precision.is_autocast() {
        FP32
    } else {
        act
    };
    saved += ctx.keep_new(scores.saturating_mul(softmax_dtype), 0);
    if ctx.precision.is_autocast() {
        saved += ctx.keep_new(scores.saturating_mul(act), 0);
    }
    // Heads merged back to [T, inner]: a copy the output projection keeps.
    saved += ctx.keep_new(saturating_product(&[rows, inner, act]), 0);
    saved += ctx.keep_weight_copy(out_weight);

    let tokens_f = rows as f64;
    let qkv_flops = 2.0 * tokens_f * qkv_weight as f64;
    let fwd = qkv_flops + 4.0 * scores as f64 * hd as f64 + 2.0 * tokens_f * out_weight as f64;
    let input_grad_flops = if x.requires_grad { qkv_flops } else { 0.0 };
    let output = ctx.fresh(x.shape.clone(), act, true);
    Ok((
        output,
        LayerAccount {
            params,
            fwd_flops: fwd,
            bwd_flops: 2.0 * fwd - qkv_flops + input_grad_flops,
            other_flops: 8.0 * scores as f64,
            saved,
            tensor_core: true,
            kernels_fwd: 6,
            kernels_bwd: 8,
            // Scores before softmax, and their fp32 cast under autocast.
            scratch_per_sample: scores as f64 * (act + softmax_dtype) as f64,
        },
    ))
}
