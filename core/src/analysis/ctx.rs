//! The walk's working state: each tensor's storage, what autograd keeps, and one
//! layer's account of parameters, FLOPs and saved bytes.

use super::base::{saturating_product, Bytes, ConvShape, FP32};
use super::training::AttentionKernel;
use crate::choices::Precision;
use crate::foundation::LayerTraining;

#[derive(Clone, Copy, Debug)]
pub(super) struct Storage {
    pub(super) per_sample: u64,
    pub(super) fixed: u64,
    /// Kept for backward (each storage counts once however many ops keep it).
    pub(super) saved: bool,
}

/// A tensor flowing between layers (per sample).
#[derive(Clone, Debug)]
pub(super) struct Value {
    pub(super) shape: Vec<u64>,
    pub(super) dtype: u64,
    pub(super) storage: usize,
    pub(super) requires_grad: bool,
    pub(super) contiguous: bool,
    /// Its dimensions before the last two merge into one without a copy (contiguous, or
    /// a contiguous tensor with its last two dimensions swapped: k.transpose(-2, -1)).
    pub(super) leading_contiguous: bool,
    /// The same for every sample (a `constant`, or made from constants alone): its
    /// storage is counted once per step, not per sample.
    pub(super) batchless: bool,
}

impl Value {
    pub(super) fn elements(&self) -> u64 {
        saturating_product(&self.shape)
    }
    pub(super) fn bytes(&self) -> u64 {
        self.elements().saturating_mul(self.dtype)
    }
}

pub(super) struct Ctx {
    pub(super) precision: Precision,
    pub(super) attention: AttentionKernel,
    /// What the layer being applied trains.
    pub(super) train: LayerTraining,
    pub(super) storages: Vec<Storage>,
    /// The storages kept for backward, in the order they were kept.
    pub(super) kept_order: Vec<usize>,
    /// The layer being applied reuses an earlier layer's parameters (`Layer::shares`):
    /// autocast's cached 16-bit copy of them is kept already.
    pub(super) shared_weights: bool,
}

impl Ctx {
    pub(super) fn new_storage(&mut self, per_sample: u64, fixed: u64) -> usize {
        self.storages.push(Storage {
            per_sample,
            fixed,
            saved: false,
        });
        self.storages.len() - 1
    }

    pub(super) fn storage_bytes(&self, id: usize) -> Bytes {
        let s = self.storages[id];
        Bytes {
            per_sample: s.per_sample as f64,
            fixed: s.fixed as f64,
        }
    }

    /// A fresh activation tensor of `shape` and `dtype`.
    pub(super) fn fresh(&mut self, shape: Vec<u64>, dtype: u64, requires_grad: bool) -> Value {
        let storage = self.new_storage(saturating_product(&shape).saturating_mul(dtype), 0);
        Value {
            shape,
            dtype,
            storage,
            requires_grad,
            contiguous: true,
            leading_contiguous: true,
            batchless: false,
        }
    }

    /// Storages `first..` (made by a layer whose inputs are all batch-independent) as
    /// one copy per step: their per-sample bytes become fixed bytes.
    pub(super) fn once_per_step(&mut self, first: usize) {
        for s in &mut self.storages[first..] {
            s.fixed = s.fixed.saturating_add(s.per_sample);
            s.per_sample = 0;
        }
    }

    /// Keeps a storage for backward; returns the bytes newly kept.
    pub(super) fn keep(&mut self, id: usize) -> Bytes {
        if !std::mem::replace(&mut self.storages[id].saved, true) {
            self.kept_order.push(id);
            self.storage_bytes(id)
        } else {
            Bytes::ZERO
        }
    }

    /// Keeps a per-sample or fixed-size side tensor (mask, indices, statistics).
    pub(super) fn keep_new(&mut self, per_sample: u64, fixed: u64) -> Bytes {
        let id = self.new_storage(per_sample, fixed);
        self.keep(id)
    }

    /// The operand a conv/linear/matmul op actually uses and keeps: cast to 16 bit under
    /// autocast; a contiguous copy of a strided view where the op's `reshape` cannot be a
    /// view (`copies`: F.linear folding every dimension but the last of a strided input,
    /// torch.matmul folding the leading ones of an input whose leading dimensions do not
    /// merge); conv and bmm take strided operands as they are.
    pub(super) fn matmul_operand(&mut self, v: &Value, copies: bool) -> Value {
        let dtype = self.compute_dtype(v.dtype);
        if !copies && dtype == v.dtype {
            return v.clone();
        }
        self.fresh(v.shape.clone(), dtype, v.requires_grad)
    }

    /// Dtype conv/linear/matmul compute in.
    pub(super) fn compute_dtype(&self, dtype: u64) -> u64 {
        if self.precision.is_autocast() {
            2
        } else {
            dtype
        }
    }

    /// The input as an op in autocast's fp32 list (norms, softmax, loss) sees it.
    pub(super) fn fp32_operand(&mut self, v: &Value) -> Value {
        if self.precision.is_autocast() && v.dtype != FP32 {
            self.fresh(v.shape.clone(), FP32, v.requires_grad)
        } else {
            v.clone()
        }
    }

    /// A half-precision weight copy autocast keeps (`params` elements, batch-independent).
    pub(super) fn keep_weight_copy(&mut self, params: u64) -> Bytes {
        if self.precision.is_autocast() && !self.shared_weights {
            self.keep_new(0, params.saturating_mul(2))
        } else {
            Bytes::ZERO
        }
    }

    pub(super) fn param_dtype(&self) -> u64 {
        self.precision.param_bytes()
    }
}

/// What one layer contributes, per sample unless noted.
#[derive(Default)]
pub(super) struct LayerAccount {
    pub(super) params: u64,
    pub(super) fwd_flops: f64,
    pub(super) bwd_flops: f64,
    pub(super) other_flops: f64,
    pub(super) saved: Bytes,
    pub(super) tensor_core: bool,
    pub(super) kernels_fwd: u32,
    pub(super) kernels_bwd: u32,
    pub(super) host_ops: Option<[u32; 2]>,
    /// `LayerReport::weight_queries`.
    pub(super) weight_queries: [f64; 2],
    /// Temporaries beyond gradients (bytes per sample), e.g. attention scores.
    pub(super) scratch_per_sample: f64,
    /// A recurrent layer's step unit, bytes per sample (`LayerReport::rnn_step_bytes`).
    pub(super) rnn_step_per_sample: f64,
    /// A recurrent layer's persistent steps, its step FLOPs per sample
    /// (`LayerReport::persistent_steps`, `step_flops`).
    pub(super) persistent_steps: [f64; 2],
    pub(super) step_flops_per_sample: f64,
    /// LoRA adapter parameters (included in `params`; they train).
    pub(super) adapter_params: u64,
    pub(super) conv: Option<ConvShape>,
    /// Forward and backward FLOPs of attention's core when a fused SDPA kernel runs it
    /// (included in `fwd_flops` / `bwd_flops`; the kernel has its own math unit).
    pub(super) fused_attention_flops: [f64; 2],
}

impl LayerAccount {
    /// The account of a layer that runs once per step (`Ctx::once_per_step`).
    pub(super) fn per_step(&mut self) {
        self.saved = Bytes {
            per_sample: 0.0,
            fixed: self.saved.per_sample + self.saved.fixed,
        };
    }
}

/// What an op gives: its output and what it adds, or the bad value and what is allowed.
pub(super) type OpResult = Result<(Value, LayerAccount), (String, String)>;

pub(super) fn bad(value: impl ToString, allowed: impl ToString) -> (String, String) {
    (value.to_string(), allowed.to_string())
}

pub(super) fn expect_inputs(inputs: &[Value], n: usize) -> Result<(), (String, String)> {
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
pub(super) fn spatial_input(v: &Value, dims: u8) -> Result<(u64, Vec<u64>), (String, String)> {
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

/// Backward FLOPs of a matmul-class op: the weight gradient when the weight trains, the
/// input gradient when the input requires one; each costs the forward's FLOPs.
pub(super) fn backward_flops(fwd: f64, input_requires_grad: bool, weight_trains: bool) -> f64 {
    fwd * f64::from(u8::from(input_requires_grad) + u8::from(weight_trains))
}
