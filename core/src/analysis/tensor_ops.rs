//! Normalisation, matmul, attention, views and element-wise ops: the accounting `apply`
//! hands off for these op families.

use super::base::*;
use super::ctx::*;
use super::lora::linear_map;
use super::training::AttentionKernel;
use crate::graph::Op;

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

/// Flatten/reshape: a view of contiguous data, a copy of a strided view unless it only
/// adds or drops dimensions of size 1 (unsqueeze, squeeze: always views).
pub(super) fn view(ctx: &mut Ctx, input: &Value, shape: Vec<u64>) -> OpResult {
    let sizes = |s: &[u64]| s.iter().copied().filter(|&d| d != 1).collect::<Vec<_>>();
    if input.contiguous || sizes(&input.shape) == sizes(&shape) {
        // (A squeeze or unsqueeze of a strided view keeps its strides.)
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
        Op::GroupNorm {
            groups,
            weight,
            bias,
        } => {
            let c = input.shape[0];
            if *groups == 0 || !c.is_multiple_of(*groups) || input.shape.len() < 2 {
                return Err(bad(
                    format!("{groups} groups over {c} channels"),
                    "groups dividing the channel count, input [C, ...]",
                ));
            }
            let affine = u64::from(*weight) + u64::from(*bias);
            (c.saturating_mul(affine), groups.saturating_mul(2), 0, true)
        }
        _ => {
            let d = *input.shape.last().unwrap_or(&1);
            let affine = match op {
                Op::LayerNorm { weight, bias } => u64::from(*weight) + u64::from(*bias),
                _ => 2,
            };
            (
                d.saturating_mul(affine),
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
    // One backward formula for input, weight and bias: all is kept whenever any
    // gradient is needed (derivatives.yaml, native_layer_norm / native_batch_norm).
    let needs_grad = input.requires_grad || ctx.train.params;
    let saved = if needs_grad {
        ctx.keep(operand.storage)
            + ctx.keep_new(
                stats_per_sample.saturating_mul(FP32),
                fixed_stats.saturating_mul(FP32),
            )
    } else {
        Bytes::ZERO
    };
    let output = ctx.fresh(input.shape.clone(), operand.dtype, needs_grad);
    let mut account = elementwise(&output, 8.0, saved, 1);
    account.params = params;
    // A norm no gradient reaches (a frozen backbone's) runs no backward.
    account.kernels_bwd = if needs_grad { 2 } else { 0 };
    Ok((output, account))
}

/// Batched matmul [.., M, K] x [.., K, N]; a 2-D constant on either side is folded as
/// torch.matmul folds it.
pub(super) fn matmul(ctx: &mut Ctx, a: &Value, b: &Value) -> OpResult {
    let (ra, rb) = (a.shape.len(), b.shape.len());
    if a.batchless != b.batchless && (b.batchless && rb == 2 || a.batchless && ra == 2) {
        return folded_matmul(ctx, a, b);
    }
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
        ctx.matmul_operand(a, ra >= 3 && !a.leading_contiguous),
        ctx.matmul_operand(b, rb >= 3 && !b.leading_contiguous),
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

/// x @ W or W @ x with W a 2-D constant (per step) and x per sample: torch.matmul folds
/// x's leading dimensions into one mm (x @ W, a copy only of a strided x) or computes
/// (x^T @ W^T)^T (W @ x, folding a copy of x^T), and keeps x's operand and W.
fn folded_matmul(ctx: &mut Ctx, a: &Value, b: &Value) -> OpResult {
    let (x, w, left) = if b.batchless {
        (a, b, false)
    } else {
        (b, a, true)
    };
    let rx = x.shape.len();
    let (inner, other) = if left {
        (w.shape[1], w.shape[0])
    } else {
        (w.shape[0], w.shape[1])
    };
    let at = if left {
        rx.checked_sub(2)
    } else {
        rx.checked_sub(1)
    };
    let Some(at) = at.filter(|&i| x.shape[i] == inner) else {
        return Err(bad(
            format!("shapes {:?} and {:?}", a.shape, b.shape),
            "[.., M, K] and [.., K, N]",
        ));
    };
    let mut shape = x.shape.clone();
    shape[at] = other;
    let operand = if left {
        ctx.fresh(x.shape.clone(), ctx.compute_dtype(x.dtype), x.requires_grad)
    } else {
        ctx.matmul_operand(x, !x.contiguous)
    };
    let mut saved = Bytes::ZERO;
    if w.requires_grad {
        saved += ctx.keep(operand.storage);
    }
    if x.requires_grad {
        // W's 16-bit copy under autocast is one per step, as W is.
        let dtype = ctx.compute_dtype(w.dtype);
        saved += if dtype == w.dtype {
            ctx.keep(w.storage)
        } else {
            ctx.keep_new(0, w.elements().saturating_mul(dtype))
        };
    }
    let fwd = 2.0 * x.elements() as f64 * other as f64;
    let output = ctx.fresh(
        shape,
        ctx.compute_dtype(x.dtype),
        x.requires_grad || w.requires_grad,
    );
    let grads = u32::from(x.requires_grad) + u32::from(w.requires_grad);
    Ok((
        output,
        LayerAccount {
            fwd_flops: fwd,
            bwd_flops: fwd * f64::from(grads),
            saved,
            tensor_core: true,
            kernels_fwd: 1,
            kernels_bwd: grads,
            ..LayerAccount::default()
        },
    ))
}

/// Multi-head self-attention (see `Op::Attention`): the qkv projection, the attention
/// itself written out (`AttentionKernel::Math`) or fused (SDPA), the output projection.
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
    let qkv_bias_params = if qkv_bias { inner.saturating_mul(3) } else { 0 };
    let params = saturating_product(&[dim, 3, inner])
        .saturating_add(inner.saturating_mul(dim))
        .saturating_add(dim)
        .saturating_add(qkv_bias_params);
    let scores = saturating_product(&[sets, heads, tokens, tokens]);
    let train = ctx.train;

    let (qkv, qkv_lora) = linear_map(
        ctx,
        x,
        inner.saturating_mul(3),
        train.params,
        train.qkv_rank,
    );
    let act = qkv.dtype;
    let with_last = |last: u64| {
        let mut shape = x.shape.clone();
        *shape.last_mut().expect("[.., T, D]") = last;
        shape
    };
    let core_grad = qkv.output_requires_grad;
    let qkv_out = ctx.fresh(with_last(inner.saturating_mul(3)), act, core_grad);
    // Heads merged back to [.., T, inner]: the output projection's input.
    let merged = ctx.fresh(with_last(inner), act, core_grad);
    let mut saved = qkv.saved;
    let fused = ctx.attention != AttentionKernel::Math;
    let softmax_dtype = if ctx.precision.is_autocast() {
        FP32
    } else {
        act
    };
    if core_grad && fused {
        // SDPA keeps q, k, v (views of the qkv output), its output (which the merge
        // only views) and the fp32 log-sum-exp per query row: [N, heads, T], padded to
        // 32 rows by the memory-efficient kernel.
        let lse_rows = match ctx.attention {
            AttentionKernel::MemEfficient => tokens.div_ceil(32).saturating_mul(32),
            _ => tokens,
        };
        saved += ctx.keep(qkv_out.storage) + ctx.keep(merged.storage);
        saved += ctx.keep_new(saturating_product(&[sets, heads, lse_rows, FP32]), 0);
    } else if core_grad {
        // q, k and v are strided views of the qkv output; the two batched matmuls copy
        // them to [N*heads, T, hd] and keep the copies. Softmax (fp32 under autocast)
        // keeps its output; the second matmul keeps the probabilities again as a
        // 16-bit copy under autocast.
        for _ in 0..3 {
            saved += ctx.keep_new(saturating_product(&[rows, inner, act]), 0);
        }
        saved += ctx.keep_new(scores.saturating_mul(softmax_dtype), 0);
        if ctx.precision.is_autocast() {
            saved += ctx.keep_new(scores.saturating_mul(act), 0);
        }
    }
    let (proj, proj_lora) = linear_map(ctx, &merged, dim, train.params, train.proj_rank);
    saved += proj.saved + qkv_lora.saved + proj_lora.saved;

    // torch.utils.flop_counter: two batched matmuls forward; backward 2 x those written
    // out, 2.5 x fused (sdpa_backward_flop_count: the scores recomputed, then 4 matmuls).
    let core_fwd = 4.0 * scores as f64 * hd as f64;
    let core_bwd = match (core_grad, fused) {
        (false, _) => 0.0,
        (true, false) => 2.0 * core_fwd,
        (true, true) => 2.5 * core_fwd,
    };
    let (core_kernels_fwd, core_kernels_bwd) = if fused { (1, 3) } else { (4, 4) };
    let kernels_fwd = 2 + core_kernels_fwd + qkv_lora.kernels_fwd + proj_lora.kernels_fwd;
    let kernels_bwd = qkv.kernels_bwd
        + proj.kernels_bwd
        + core_kernels_bwd * u32::from(core_grad)
        + qkv_lora.kernels_bwd
        + proj_lora.kernels_bwd;
    // The host also dispatches the head split and merge, views that launch nothing, and
    // autograd runs a node for each of them.
    let views = if fused {
        ATTENTION_VIEWS_FUSED
    } else {
        ATTENTION_VIEWS_MATH
    };
    let host_ops = [
        kernels_fwd + views,
        kernels_bwd + views * u32::from(core_grad),
    ];
    let output = ctx.fresh(x.shape.clone(), act, proj.output_requires_grad);
    let adapter_params = qkv_lora.params.saturating_add(proj_lora.params);
    Ok((
        output,
        LayerAccount {
            params: params.saturating_add(adapter_params),
            adapter_params,
            fwd_flops: qkv.fwd_flops
                + core_fwd
                + proj.fwd_flops
                + qkv_lora.fwd_flops
                + proj_lora.fwd_flops,
            bwd_flops: qkv.bwd_flops
                + core_bwd
                + proj.bwd_flops
                + qkv_lora.bwd_flops
                + proj_lora.bwd_flops,
            other_flops: 8.0 * scores as f64,
            fused_attention_flops: if fused {
                [core_fwd, core_bwd]
            } else {
                [0.0; 2]
            },
            saved,
            tensor_core: true,
            kernels_fwd,
            kernels_bwd,
            // Written out: the scores before softmax, and their fp32 cast under autocast.
            // Fused: the flash backward's fp32 accumulator of the query gradient.
            scratch_per_sample: if fused {
                (rows * inner * FP32) as f64
            } else {
                scores as f64 * (act + softmax_dtype) as f64
            },
            host_ops: Some(host_ops),
            ..LayerAccount::default()
        },
    ))
}

/// Views a multi-head attention's forward dispatches besides its kernels (timm's
/// `Attention.forward`, SSFTT's and SpectralFormer's): the qkv output's reshape, permute
/// and unbind into q, k and v, then the heads' transpose and reshape back; written out
/// also k's transpose for the scores' matmul.
const ATTENTION_VIEWS_FUSED: u32 = 5;
const ATTENTION_VIEWS_MATH: u32 = 6;
