//! Sums, products and quotients that broadcast (x + bias, x * gate, x / norm), broadcast
//! views (`expand`), element-wise functions of one input and constants (`pointwise`), and
//! the tensors that do not depend on the input (`constant`). What each keeps follows
//! derivatives.yaml, checked against saved-tensor hooks by `tools/export_coverage.py`.

use super::base::{Bytes, FP32};
use super::ctx::{bad, expect_inputs, Ctx, LayerAccount, OpResult, Value};
use super::tensor_ops::elementwise;
use crate::graph::{Keeps, Op};

/// The broadcast of two per-sample shapes (numpy's rule: trailing dimensions aligned, a
/// 1 stretches), or None.
pub(super) fn broadcast_shape(a: &[u64], b: &[u64]) -> Option<Vec<u64>> {
    let rank = a.len().max(b.len());
    let at = |s: &[u64], i: usize| (i + s.len()).checked_sub(rank).map_or(1, |j| s[j]);
    (0..rank)
        .map(|i| match (at(a, i), at(b, i)) {
            (x, y) if x == y || y == 1 => Some(x),
            (1, y) => Some(y),
            _ => None,
        })
        .collect()
}

fn shapes(inputs: &[Value]) -> String {
    format!("{:?}", inputs.iter().map(|v| &v.shape).collect::<Vec<_>>())
}

/// The output of an element-wise op of `inputs` (broadcast shape, widest dtype).
fn joined(ctx: &mut Ctx, inputs: &[Value], shape: Vec<u64>) -> Value {
    ctx.fresh(
        shape,
        inputs.iter().map(|v| v.dtype).max().unwrap_or(FP32),
        inputs.iter().any(|v| v.requires_grad),
    )
}

/// Residual adds and broadcast sums (x + bias, x - y): keep nothing.
pub(super) fn sum(ctx: &mut Ctx, inputs: &[Value]) -> OpResult {
    let shape = match inputs {
        [first, rest @ ..] if !rest.is_empty() => rest
            .iter()
            .try_fold(first.shape.clone(), |s, v| broadcast_shape(&s, &v.shape)),
        _ => None,
    };
    let Some(shape) = shape else {
        return Err(bad(
            format!("{} inputs of shapes {}", inputs.len(), shapes(inputs)),
            "two or more inputs that broadcast (trailing dimensions aligned, 1s stretch)",
        ));
    };
    let output = joined(ctx, inputs, shape);
    let adds = inputs.len() as u32 - 1;
    Ok((
        output.clone(),
        elementwise(&output, f64::from(adds), Bytes::ZERO, adds),
    ))
}

/// a * b keeps each operand for the other's gradient; a / b keeps b for a's gradient and
/// both for b's (div_tensor_other_backward).
pub(super) fn product(ctx: &mut Ctx, inputs: &[Value], divide: bool) -> OpResult {
    expect_inputs(inputs, 2)?;
    let (a, b) = (&inputs[0], &inputs[1]);
    let Some(shape) = broadcast_shape(&a.shape, &b.shape) else {
        return Err(bad(
            format!("shapes {}", shapes(inputs)),
            "two inputs that broadcast (trailing dimensions aligned, 1s stretch)",
        ));
    };
    let mut saved = Bytes::ZERO;
    if a.requires_grad || (divide && b.requires_grad) {
        saved += ctx.keep(b.storage);
    }
    if b.requires_grad {
        saved += ctx.keep(a.storage);
    }
    let output = joined(ctx, inputs, shape);
    Ok((output.clone(), elementwise(&output, 1.0, saved, 1)))
}

/// Element-wise functions of one input, broadcast views and constants.
pub(super) fn apply(ctx: &mut Ctx, op: &Op, x: &Value) -> OpResult {
    match op {
        Op::Pointwise { keeps, fp32, flops } => {
            // CUDA autocast's fp32 functions compute on an fp32 copy of a 16-bit input.
            let operand = if *fp32 {
                ctx.fp32_operand(x)
            } else {
                x.clone()
            };
            let output = ctx.fresh(x.shape.clone(), operand.dtype, x.requires_grad);
            let saved = match keeps {
                _ if !x.requires_grad => Bytes::ZERO,
                Keeps::Nothing => Bytes::ZERO,
                Keeps::Input => ctx.keep(operand.storage),
                Keeps::Output => ctx.keep(output.storage),
            };
            Ok((
                output.clone(),
                elementwise(&output, *flops as f64, saved, 1),
            ))
        }
        Op::Expand { shape } => {
            if broadcast_shape(&x.shape, shape).as_ref() != Some(shape) {
                return Err(bad(
                    format!("shape {shape:?} from {:?}", x.shape),
                    "a shape the input broadcasts to (trailing dimensions aligned, 1s stretch)",
                ));
            }
            // A view with zero strides; a constant becomes one per sample.
            let mut output = x.clone();
            output.contiguous = x.contiguous && !x.batchless && *shape == x.shape;
            output.leading_contiguous = output.contiguous;
            output.shape = shape.clone();
            output.batchless = false;
            Ok((output, LayerAccount::default()))
        }
        Op::Constant {
            shape,
            learned,
            params,
        } => {
            if shape.is_empty() || shape.contains(&0) {
                return Err(bad(format!("shape {shape:?}"), "positive sizes"));
            }
            // Parameters and buffers are not activations: the tensor itself costs no
            // activation memory (what is computed from it does).
            let value = Value {
                shape: shape.clone(),
                dtype: ctx.param_dtype(),
                storage: ctx.new_storage(0, 0),
                requires_grad: *learned && ctx.train.params,
                contiguous: true,
                leading_contiguous: true,
                batchless: true,
            };
            let account = LayerAccount {
                params: *params,
                ..LayerAccount::default()
            };
            Ok((value, account))
        }
        _ => Err(bad(op.kind(), "an element-wise op")),
    }
}
