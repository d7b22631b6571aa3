//! Normalisation, matmul, attention, views and element-wise ops: the accounting `apply`
//! hands off for these op families.

use super::ops::{bad, OpResult};
use super::*;

/// True if `small` broadcasts to `big` (trailing alignment, 1s stretch).
pub(super) fn broadcasts(small: &[u64], big: &[u64]) -> bool {
    small.len() <= big.len()
        && small
            .iter()
            .rev()
            .zip(big.iter().rev())
            .all(|(s, b)| s == b || *s == 1)
}

/// A memory-bound op over `output`: `flops` per output element, one read and one write.
pub(super) fn elementwise(
    output: &Value,
    flops_per_element: f64,
    saved: Bytes,
    kernels: u32,
) -> LayerAccount {
    LayerAccount {
        other_flops: flops_per_element * output.elements() as f64,
        saved,
        kernels_fwd: kernels,
        kernels_bwd: kernels * output.requires_grad as u32,
        ..LayerAccount::default()
    }
}

/// Flatten/reshape: a view of contiguous data, a copy of a strided view.
pub(super) fn view(ctx: &mut Ctx, input: &Value, shape: Vec<u64>) -> OpResult {
    if input.contiguous {
        let mut output = input.clone();
        output.shape = shape;
        return Ok((output, LayerAccount::default()));
    }
    let output = ctx.fresh(shape, input.dtype, input.requires_grad);
    Ok((output.clone(), elementwise(&output, 0.0, Bytes::ZERO, 1)))
}

pub(super) fn normalization(ctx: &mut Ctx, op: &Op, input: &Value) -> OpResult {
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
pub(super) fn matmul(ctx: &mut Ctx, a: &Value, b: &Value) -> OpResult {
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
pub(super) fn attention(
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
