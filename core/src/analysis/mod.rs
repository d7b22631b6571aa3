//! Shape inference and per-layer accounting: parameters, FLOPs, the bytes autograd keeps
//! for backward, and the traffic primitives the roofline uses.
//!
//! The model of "what autograd keeps" follows PyTorch's derivatives.yaml, checked against
//! saved-tensor hooks by `tools/validate_zoo.py` (fixture `core/tests/fixtures/pytorch_zoo.json`):
//! - conv keeps its input and its weight; linear/matmul keep each operand the other
//!   operand's gradient needs (the input only when the weight needs a gradient, the
//!   weight only when the input does);
//! - ReLU, tanh, sigmoid and softmax keep their output; LeakyReLU, GELU, SiLU, Mish,
//!   Hardswish, Hardsigmoid and ReLU6 their input; dropout a 1-byte mask; layer scale
//!   (`scale`) its input; stochastic depth (`drop_path`) its per-sample factor; max-pool its input and int64 indices; average
//!   pools their input, except a global adaptive pool (a `mean`, which keeps nothing); batch/layer/group norm their input plus fp32 mean and inverse std;
//! - views (flatten, reshape, permute, token selection, slices) share their input's storage; a
//!   reshape of a non-contiguous view makes a copy, and so do linear and matmul where
//!   they fold leading dimensions into one (linear on [.., T, D], matmul on [.., B, M, K]);
//!   conv, and a matmul of per-sample matrices (bmm), keep a strided view as it is;
//! - an LSTM / GRU (`rnn`) keeps what PyTorch's native cells keep (`recurrent.rs`);
//! - a storage kept by two ops counts once (de-duplication by tensor id);
//! - under autocast (CUDA policy) conv/linear/matmul cast float inputs and weights to
//!   16 bit and keep those copies; layer/group norm, softmax and the loss run in fp32;
//! - the loss is cross-entropy: log_softmax keeps its fp32 output, nll_loss the int64
//!   targets (its 4-byte total weight is ignored).
//!
//! FLOPs follow `torch.utils.flop_counter`: only conv, linear and matmul count
//! (multiply-add = 2, bias ignored); backward counts the input gradient only where the
//! input requires one, so a first layer fed by the data costs 1x its forward, others 2x
//! (a grouped conv's weight gradient once per group's weights, as PyTorch's fix of the
//! counter, pull request 183405, counts it; torch 2.14 counts it `groups` times).

use crate::choices::Precision;
use crate::foundation::LayerTraining;
mod base;
mod broadcast;
mod class;
mod ctx;
mod extra;
mod lora;
mod ops;
mod recurrent;
mod resample;
mod tensor_ops;
mod training;
mod window;

use base::{checked_product, FP32, INT64};
pub use base::{Bytes, ConvShape};
pub use class::{op_class, param_tensors, OpClass, GROUPED_CHANNELS};
use ctx::{Ctx, Value};
use ops::apply;
pub use recurrent::KEPT_PER_STEP as RNN_KEPT_PER_STEP;
use training::layer_training;
pub use training::{attention_kernel, AttentionKernel, Training};

use crate::graph::{ModelSpec, Op};
use crate::problems::FieldError;
use serde::{Deserialize, Serialize};

/// Largest per-sample element count of any tensor; keeps every product exact in u64/f64.
pub const MAX_ELEMENTS_PER_SAMPLE: u64 = 1 << 40;

/// Largest parameter count of one layer (10^13: far above any trained model).
pub const MAX_PARAMS_PER_LAYER: u64 = 10_000_000_000_000;

/// One layer, for the whole per-GPU batch.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LayerReport {
    pub name: String,
    pub kind: String,
    /// Per-sample output shape (no batch dimension).
    pub output_shape: Vec<u64>,
    /// Parameters counted here (0 where the layer shares an earlier one's).
    pub params: u64,
    /// Parameters the layer's kernels read: its own, or those of the layer it shares.
    #[serde(default)]
    pub weights: u64,
    /// Conv/linear/matmul FLOPs (multiply-add = 2) as torch.utils.flop_counter counts them.
    pub fwd_flops: f64,
    pub bwd_flops: f64,
    /// Element-wise, normalisation and pooling FLOPs (forward; rough, for the roofline).
    pub other_flops: f64,
    /// Bytes the forward pass reads as inputs (compute dtype).
    pub input_bytes: f64,
    /// Bytes the forward pass writes.
    pub output_bytes: f64,
    /// Parameter bytes as the kernel reads them (compute dtype).
    pub weight_bytes: f64,
    /// Bytes autograd keeps for backward that this layer adds (tensors shared with an
    /// earlier layer are counted there).
    pub saved_bytes: f64,
    /// Runs on tensor cores when the precision allows it (conv, linear, matmul).
    pub tensor_core: bool,
    /// CUDA kernels launched, forward and backward.
    pub kernels_fwd: u32,
    pub kernels_bwd: u32,
    /// PyTorch ops the host dispatches forward and backward where a library launches the
    /// kernels itself (cuDNN's RNN); `None`: one per kernel.
    #[serde(skip)]
    pub host_ops: Option<[u32; 2]>,
    /// cuDNN weight-parameter queries the host makes forward and backward (a cuDNN RNN's
    /// `get_parameters`, `HostAssumptions::rnn_weight_query_s`).
    #[serde(skip)]
    pub weight_queries: [f64; 2],
    /// The op class the device model times it by.
    pub class: OpClass,
    /// A convolution's groups (1 for every other op): its implicit GEMM is this many
    /// GEMMs of out_channels / groups columns.
    pub groups: u64,
    /// Parameter tensors (what the optimizer loops over).
    pub param_tensors: u32,
    /// Temporaries the op makes and consumes inside itself (attention's scores and their
    /// softmax), bytes for the whole batch.
    pub scratch_bytes: f64,
    /// Parameters that train (all of them unless `finetune` freezes some; LoRA's
    /// adapters, which `params` includes).
    pub trainable_params: u64,
    /// A convolution's geometry (what cuDNN's algorithms and workspaces depend on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conv: Option<ConvShape>,
    /// Forward and backward FLOPs of attention's core that a fused SDPA kernel runs
    /// (part of `fwd_flops` / `bwd_flops`; zero when attention is written out).
    pub fused_attention_flops: [f64; 2],
    /// A recurrent layer that trains: one hidden-sized value per step for the whole batch,
    /// bytes, summed over its layers and directions (0 for other ops). cuDNN's reserve
    /// space and workspaces on the GPU are multiples of it (`memory.rs`).
    #[serde(default)]
    pub rnn_step_bytes: f64,
    /// Steps a persistent cuDNN RNN kernel runs one after another in the forward and in
    /// the backward: sequence x layers x directions, 0 where the pass has no such kernel
    /// (another op, cuDNN's standard algorithm, no gradient). `device.rs` times them.
    #[serde(skip)]
    pub persistent_steps: [f64; 2],
    /// FLOPs of one such step's hidden-state product, 2 x gates x hidden^2 a sample, for
    /// the whole batch.
    #[serde(skip)]
    pub step_flops: f64,
}

impl LayerReport {
    /// Ops the host dispatches in the forward (a layer that launches nothing still costs
    /// its module call).
    pub fn host_ops_fwd(&self) -> u32 {
        self.host_ops
            .map_or(self.kernels_fwd.max(1), |[forward, _]| forward)
    }

    pub fn host_ops_bwd(&self) -> u32 {
        self.host_ops
            .map_or(self.kernels_bwd, |[_, backward]| backward)
    }
}

/// Everything `analyze` finds for one batch size.
#[derive(Clone, Debug, PartialEq)]
pub struct Analysis {
    pub layers: Vec<LayerReport>,
    pub params: u64,
    /// Parameters with gradients and optimizer states (`LayerReport::trainable_params`).
    pub trainable_params: u64,
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

/// `Analysis`'s memory terms for any batch.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MemoryLines {
    /// Everything kept for backward (`Analysis::saved_bytes`).
    pub saved: Bytes,
    pub loss_saved: Bytes,
    pub unsaved_input: Bytes,
    /// One candidate per layer; the transient is their maximum.
    pub transient: Vec<Bytes>,
    /// Every tensor kept for backward, one by one, in the order they are kept (the
    /// loss's last); per layer, the end of its run in that list (`layer_saved` sums it).
    pub kept_tensors: Vec<Bytes>,
    pub layer_kept_end: Vec<usize>,
    /// Per layer: its output when backward keeps none of it (freed once the next layer
    /// ran), else zero.
    pub layer_unkept_output: Vec<Bytes>,
    /// Per layer: its output.
    pub layer_output: Vec<Bytes>,
}

impl MemoryLines {
    /// Per layer: what it adds to the kept tensors (its run of `kept_tensors`).
    pub fn layer_saved(&self) -> Vec<Bytes> {
        let mut start = 0;
        self.layer_kept_end
            .iter()
            .map(|&end| {
                let run = &self.kept_tensors[std::mem::replace(&mut start, end)..end];
                run.iter().fold(Bytes::ZERO, |sum, b| sum + *b)
            })
            .collect()
    }

    pub fn transient_at(&self, batch: u64) -> f64 {
        self.transient
            .iter()
            .map(|t| t.at(batch))
            .fold(0.0, f64::max)
    }
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

/// Runs shape inference and accounting for `spec` at `batch` samples per GPU, every
/// parameter training, attention written out.
pub fn analyze(spec: &ModelSpec, batch: u64, precision: Precision) -> Result<Analysis, FieldError> {
    analyze_with(spec, batch, &Training::plain(precision))
}

/// `analyze` for any `Training`: which parameters train, which attention kernel runs.
pub fn analyze_with(
    spec: &ModelSpec,
    batch: u64,
    training: &Training,
) -> Result<Analysis, FieldError> {
    let precision = training.precision;
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
    let trains = layer_training(spec, &training.finetune)?;
    let mut ctx = Ctx {
        precision,
        attention: training.attention,
        train: LayerTraining::default(),
        storages: Vec::new(),
        kept_order: Vec::new(),
        shared_weights: false,
    };
    // The data arrive in fp32; a model cast to bf16 gets bf16 data.
    let data_dtype = if precision == Precision::Bf16 {
        2
    } else {
        FP32
    };
    let input = ctx.fresh(spec.input.clone(), data_dtype, false);
    let input_storage = input.storage;
    // Each layer's output by name, the latest of a name last (a list: a HashMap's code
    // costs the page more than the lookups of a few hundred layers cost the estimate).
    let mut values: Vec<(String, Value)> = vec![("input".into(), input.clone())];
    let find = |values: &[(String, Value)], name: &str| {
        values
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
    };
    let named = |values: &[(String, Value)], name: &str| values.iter().any(|(n, _)| n == name);
    let mut previous = input;
    let mut layers = Vec::with_capacity(spec.layers.len());
    let mut lines = MemoryLines::default();
    let mut output_storages = Vec::new();

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
                    find(&values, f).ok_or_else(|| {
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
        ctx.train = trains[index];
        if let Some(owner) = layer
            .shares
            .as_ref()
            .filter(|o| *o == "input" || !named(&values, o))
        {
            return Err(err(
                index,
                &name,
                kind,
                format!("shares '{owner}'"),
                "the name of an earlier layer",
            ));
        }
        ctx.shared_weights = layer.shares.is_some();
        let first_storage = ctx.storages.len();
        let (mut output, mut account) = apply(&mut ctx, &layer.op, &inputs)
            .map_err(|(value, allowed)| err(index, &name, kind, value, allowed))?;
        // A layer that reads only batch-independent tensors runs once per step.
        let once = match layer.op {
            Op::Constant { .. } => true,
            Op::Expand { .. } => false,
            _ => inputs.iter().all(|v| v.batchless),
        };
        let weights = account.params;
        if ctx.shared_weights {
            // Counted, trained, cast and stepped by the optimizer at the layer it shares.
            account.params = 0;
            account.adapter_params = 0;
        }
        if once {
            ctx.once_per_step(first_storage);
            account.per_step();
            output.batchless = true;
        }
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
        let n = if once { 1.0 } else { batch as f64 };
        let input_per_sample: f64 = inputs.iter().map(|v| v.bytes() as f64).sum();
        let output_per_sample = output.bytes() as f64;
        // Gradients of the output and of the inputs coexist in backward.
        let input_grads = if inputs.iter().any(|v| v.requires_grad) {
            input_per_sample
        } else {
            0.0
        };
        let per = |bytes: f64| {
            if once {
                Bytes {
                    per_sample: 0.0,
                    fixed: bytes,
                }
            } else {
                Bytes {
                    per_sample: bytes,
                    fixed: 0.0,
                }
            }
        };
        lines.transient.push(per(output_per_sample
            + input_grads
            + account.scratch_per_sample));
        lines.layer_kept_end.push(ctx.kept_order.len());
        lines.layer_output.push(per(output_per_sample));
        // A view's output is its input's storage, allocated already (no storage then).
        output_storages.push(if output.storage >= first_storage {
            output.storage
        } else {
            usize::MAX
        });
        let weight_dtype = ctx.compute_dtype(ctx.param_dtype());
        layers.push(LayerReport {
            name: name.clone(),
            kind: kind.into(),
            output_shape: output.shape.clone(),
            params: account.params,
            weights,
            fwd_flops: account.fwd_flops * n,
            bwd_flops: account.bwd_flops * n,
            other_flops: account.other_flops * n,
            input_bytes: input_per_sample * n,
            output_bytes: output_per_sample * n,
            weight_bytes: (weights * weight_dtype) as f64,
            saved_bytes: account.saved.at(batch),
            tensor_core: account.tensor_core,
            kernels_fwd: account.kernels_fwd,
            kernels_bwd: account.kernels_bwd,
            host_ops: account.host_ops,
            weight_queries: account.weight_queries,
            class: op_class(&layer.op),
            groups: match layer.op {
                Op::Conv { groups, .. } => groups.max(1),
                _ => 1,
            },
            // The optimizer loops over what trains: the layer's tensors, or two per adapter.
            param_tensors: if ctx.shared_weights {
                0
            } else if ctx.train.params {
                param_tensors(&layer.op)
            } else {
                2 * [
                    ctx.train.linear_rank,
                    ctx.train.qkv_rank,
                    ctx.train.proj_rank,
                ]
                .iter()
                .filter(|&&r| r > 0)
                .count() as u32
            },
            scratch_bytes: account.scratch_per_sample * n,
            trainable_params: if ctx.train.params {
                account.params
            } else {
                account.adapter_params
            },
            conv: account.conv,
            fused_attention_flops: account.fused_attention_flops.map(|f| f * n),
            rnn_step_bytes: account.rnn_step_per_sample * n,
            persistent_steps: account.persistent_steps,
            step_flops: account.step_flops_per_sample * n,
        });
        let taken = layer.name.is_some() && named(&values, &name);
        values.push((name.clone(), output.clone()));
        if taken {
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

    lines.kept_tensors = ctx
        .kept_order
        .iter()
        .map(|&id| ctx.storage_bytes(id))
        .collect();
    lines.layer_unkept_output = output_storages
        .iter()
        .map(|&id| match ctx.storages.get(id) {
            Some(storage) if !storage.saved => ctx.storage_bytes(id),
            _ => Bytes::ZERO,
        })
        .collect();
    lines.saved = (0..ctx.storages.len())
        .filter(|&id| ctx.storages[id].saved)
        .fold(Bytes::ZERO, |sum, id| sum + ctx.storage_bytes(id));
    if !ctx.storages[input_storage].saved {
        lines.unsaved_input = ctx.storage_bytes(input_storage);
    }
    Ok(Analysis {
        params: layers.iter().map(|l| l.params).sum(),
        trainable_params: layers.iter().map(|l| l.trainable_params).sum(),
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
