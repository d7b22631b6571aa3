//! Ops the exporter needs for torchvision's and timm's architectures: layer scale,
//! stochastic depth and slices; and MAE's token gather. What each keeps follows derivatives.yaml, checked
//! against saved-tensor hooks by `tools/export_coverage.py`.

use super::base::{saturating_product, Bytes};
use super::ctx::{bad, Ctx, LayerAccount, OpResult, Value};
use super::tensor_ops::{broadcasts, elementwise};

/// x * gamma (+ beta): gamma's gradient needs x, x's needs gamma (a parameter, not
/// counted), so x is kept. The product takes the parameter's dtype (fp32 under
/// autocast: type promotion, mul is not an autocast op).
pub(super) fn scale(ctx: &mut Ctx, x: &Value, shape: &[u64], bias: bool) -> OpResult {
    if shape.len() > x.shape.len() || !broadcasts(shape, &x.shape) {
        return Err(bad(
            format!("shape {shape:?} over input {:?}", x.shape),
            "a shape that broadcasts over the input (trailing dimensions, 1 stretches)",
        ));
    }
    let trains = ctx.train.params;
    let saved = if trains {
        ctx.keep(x.storage)
    } else {
        Bytes::ZERO
    };
    let output = ctx.fresh(
        x.shape.clone(),
        x.dtype.max(ctx.param_dtype()),
        x.requires_grad || trains,
    );
    let mut account = elementwise(&output, 1.0 + f64::from(u8::from(bias)), saved, 1);
    account.params = saturating_product(shape).saturating_mul(1 + u64::from(bias));
    Ok((output, account))
}

/// x * mask with a [N, 1, ..] random factor: x's gradient needs the factor (one value
/// of x's dtype per sample), nothing needs x.
pub(super) fn drop_path(ctx: &mut Ctx, x: &Value) -> (Value, LayerAccount) {
    let saved = if x.requires_grad {
        ctx.keep_new(x.dtype, 0)
    } else {
        Bytes::ZERO
    };
    let output = ctx.fresh(x.shape.clone(), x.dtype, x.requires_grad);
    let account = elementwise(&output, 1.0, saved, 1);
    (output, account)
}

/// x[:, .., start:end:step] on per-sample dimension `axis`: a view of x's storage (kept
/// whole by any op that keeps the slice), strided since the batch dimension is outside.
pub(super) fn slice(x: &Value, axis: usize, start: u64, end: u64, step: u64) -> OpResult {
    let Some(&size) = x.shape.get(axis) else {
        return Err(bad(
            format!("axis {axis} of shape {:?}", x.shape),
            "a per-sample dimension",
        ));
    };
    if start >= end || end > size || step == 0 {
        return Err(bad(
            format!("{start}..{end} step {step} of size {size}"),
            "start < end <= the dimension's size, step >= 1",
        ));
    }
    let mut output = x.clone();
    output.shape[axis] = (end - start).div_ceil(step);
    output.contiguous = false;
    // A cut of the last two dimensions leaves the leading ones mergeable.
    output.leading_contiguous = x.leading_contiguous && axis + 2 >= x.shape.len();
    Ok((output, LayerAccount::default()))
}

/// torch.gather of `count` tokens of [T, D]: a copy; backward scatters through the int64
/// index, [count, D] after MAE's `repeat` over D, which it keeps.
pub(super) fn gather_tokens(ctx: &mut Ctx, x: &Value, count: u64) -> OpResult {
    let [_, dim] = x.shape[..] else {
        return Err(bad(format!("input shape {:?}", x.shape), "tokens [T, D]"));
    };
    if count == 0 {
        return Err(bad("count 0", "a positive number of tokens"));
    }
    let saved = if x.requires_grad {
        ctx.keep_new(saturating_product(&[count, dim, 8]), 0)
    } else {
        Bytes::ZERO
    };
    let output = ctx.fresh(vec![count, dim], x.dtype, x.requires_grad);
    let account = elementwise(&output, 0.0, saved, 1);
    Ok((output, account))
}
