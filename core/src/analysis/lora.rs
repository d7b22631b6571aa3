//! A linear map whose weight trains or not, and the LoRA adapter beside it. What each
//! keeps follows derivatives.yaml (mm / addmm): the input for the weight's gradient, the
//! weight (a 16-bit copy under autocast) for the input's; checked against saved-tensor
//! hooks by `tools/measure_foundation.py`.

use super::base::Bytes;
use super::ctx::{backward_flops, Ctx, Value};

/// A linear map's (or an adapter's) share of a layer.
#[derive(Default)]
pub(super) struct LinearMap {
    pub params: u64,
    pub saved: Bytes,
    pub fwd_flops: f64,
    pub bwd_flops: f64,
    pub kernels_fwd: u32,
    pub kernels_bwd: u32,
    pub output_requires_grad: bool,
    /// Dtype of the output (the compute dtype).
    pub dtype: u64,
}

/// x [.., in] -> [.., out] (F.linear, bias aside) with a weight that trains or not, and
/// the LoRA adapter of rank `rank` beside it (0 = none): (the map, the adapter).
pub(super) fn linear_map(
    ctx: &mut Ctx,
    x: &Value,
    out: u64,
    trains: bool,
    rank: u64,
) -> (LinearMap, LinearMap) {
    let features = *x.shape.last().unwrap_or(&1);
    let rows = (x.elements() / features.max(1)) as f64;
    // Per-sample [D] is a 2-D [N, D] addmm operand; [.., T, D] is reshaped first.
    let folds = x.shape.len() >= 2 && !x.contiguous;
    let operand = ctx.matmul_operand(x, folds);
    let mut saved = Bytes::ZERO;
    if trains {
        saved += ctx.keep(operand.storage);
    }
    if x.requires_grad {
        saved += ctx.keep_weight_copy(features.saturating_mul(out));
    }
    let fwd = 2.0 * rows * features as f64 * out as f64;
    let map = LinearMap {
        saved,
        fwd_flops: fwd,
        bwd_flops: backward_flops(fwd, x.requires_grad, trains),
        kernels_fwd: 1,
        kernels_bwd: u32::from(x.requires_grad) + u32::from(trains),
        output_requires_grad: x.requires_grad || trains || rank > 0,
        dtype: operand.dtype,
        ..LinearMap::default()
    };
    if rank == 0 {
        return (map, LinearMap::default());
    }
    // lora_B(lora_A(x)) * scaling, added to the frozen map's output: A keeps (its cast
    // of) x, B keeps A's [.., rank] output; the scaling and the sum keep nothing.
    let a_input = ctx.matmul_operand(x, folds);
    let mut saved = ctx.keep(a_input.storage);
    if x.requires_grad {
        saved += ctx.keep_weight_copy(rank.saturating_mul(features));
    }
    let mut h_shape = x.shape.clone();
    *h_shape.last_mut().expect("non-empty shape") = rank;
    let h = ctx.fresh(h_shape, a_input.dtype, true);
    saved += ctx.keep(h.storage) + ctx.keep_weight_copy(rank.saturating_mul(out));
    let (fwd_a, fwd_b) = (
        2.0 * rows * (rank * features) as f64,
        2.0 * rows * (rank * out) as f64,
    );
    let adapter = LinearMap {
        params: rank.saturating_mul(features.saturating_add(out)),
        saved,
        fwd_flops: fwd_a + fwd_b,
        bwd_flops: backward_flops(fwd_a, x.requires_grad, true) + 2.0 * fwd_b,
        // A, B, the scaling and the sum; backward: both weight gradients, B's input
        // gradient, the scaling's, and A's input gradient when x needs one.
        kernels_fwd: 4,
        kernels_bwd: 4 + u32::from(x.requires_grad),
        output_requires_grad: true,
        dtype: operand.dtype,
    };
    (map, adapter)
}
