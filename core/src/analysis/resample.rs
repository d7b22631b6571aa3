//! Ops that move or reduce elements: padding, reductions, adaptive max pooling, resizing,
//! unfold / fold (im2col, col2im) and sliding windows. What each keeps follows
//! derivatives.yaml, checked against saved-tensor hooks by `tools/export_coverage.py`.

use super::base::{per_dim, saturating_product, Bytes, FP32, INT64};
use super::ctx::{bad, spatial_input, Ctx, LayerAccount, OpResult, Value};
use super::tensor_ops::elementwise;
use super::window::{window, window_output};
use crate::graph::{Op, PadMode, Reduction, UpsampleMode};

/// FLOPs per output element of an interpolation: the neighbours it weighs (2 per
/// dimension linear, 4 cubic), a multiply-add and a weight each.
pub(super) fn interpolation_flops(mode: UpsampleMode, dims: u8) -> f64 {
    let neighbours: u32 = match mode {
        UpsampleMode::Nearest => return 0.0,
        UpsampleMode::Linear => 2,
        UpsampleMode::Cubic => 4,
    };
    3.0 * f64::from(neighbours.pow(u32::from(dims)))
}

fn sizes(list: &[u64], dims: u8, what: &str) -> Result<Vec<u64>, (String, String)> {
    per_dim(list, dims as usize, 1)
        .filter(|s| !s.contains(&0))
        .ok_or_else(|| {
            bad(
                format!("{what} {list:?}"),
                format!("one or {dims} positive sizes"),
            )
        })
}

pub(super) fn apply(ctx: &mut Ctx, op: &Op, x: &Value) -> OpResult {
    match op {
        Op::Pad { pad, mode } => {
            let rank = x.shape.len();
            if pad.is_empty() || pad.len() % 2 == 1 || pad.len() > 2 * rank {
                return Err(bad(
                    format!("pad {pad:?} for shape {:?}", x.shape),
                    "pairs (before, after) for the last dimensions, at most two per dimension",
                ));
            }
            let mut shape = x.shape.clone();
            for (i, pair) in pad.chunks(2).enumerate() {
                let d = &mut shape[rank - 1 - i];
                *d = d.saturating_add(pair[0]).saturating_add(pair[1]);
            }
            let keeps_input = matches!(mode, PadMode::Reflect | PadMode::Replicate);
            let saved = if keeps_input && x.requires_grad {
                ctx.keep(x.storage)
            } else {
                Bytes::ZERO
            };
            let output = ctx.fresh(shape, x.dtype, x.requires_grad);
            Ok((output.clone(), elementwise(&output, 0.0, saved, 1)))
        }
        Op::Reduce {
            kind,
            axes,
            keepdim,
        } => reduce(ctx, x, *kind, axes, *keepdim),
        Op::AdaptiveMaxPool { dims, output } => {
            let (channels, spatial) = spatial_input(x, *dims)?;
            let mut shape = vec![channels];
            shape.extend(sizes(output, *dims, "output")?);
            let output = ctx.fresh(shape, x.dtype, x.requires_grad);
            let saved = if x.requires_grad {
                ctx.keep(x.storage) + ctx.keep_new(output.elements().saturating_mul(INT64), 0)
            } else {
                Bytes::ZERO
            };
            let window = saturating_product(&spatial) as f64 * channels as f64
                / output.elements().max(1) as f64;
            Ok((output.clone(), elementwise(&output, window, saved, 1)))
        }
        Op::Resize { dims, size, mode } => {
            let (channels, _) = spatial_input(x, *dims)?;
            let mut shape = vec![channels];
            shape.extend(sizes(size, *dims, "size")?);
            let output = ctx.fresh(shape, x.dtype, x.requires_grad);
            let flops = interpolation_flops(*mode, *dims);
            Ok((output.clone(), elementwise(&output, flops, Bytes::ZERO, 1)))
        }
        Op::Unfold {
            kernel,
            stride,
            padding,
            dilation,
        } => {
            let (channels, spatial) = spatial_input(x, 2)?;
            let w = window(2, kernel, stride, padding, dilation, false)?;
            let positions = saturating_product(&window_output(&spatial, &w)?);
            let shape = vec![
                channels.saturating_mul(saturating_product(&w.kernel)),
                positions,
            ];
            let output = ctx.fresh(shape, x.dtype, x.requires_grad);
            Ok((output.clone(), elementwise(&output, 0.0, Bytes::ZERO, 1)))
        }
        Op::Fold {
            output: size,
            kernel,
            stride,
            padding,
            dilation,
        } => {
            let w = window(2, kernel, stride, padding, dilation, false)?;
            let size = sizes(size, 2, "output")?;
            let positions = saturating_product(&window_output(&size, &w)?);
            let area = saturating_product(&w.kernel);
            let [rows, columns] = x.shape[..] else {
                return Err(bad(
                    format!("input shape {:?}", x.shape),
                    "[C x kernel area, window positions]",
                ));
            };
            if rows % area != 0 || columns != positions {
                return Err(bad(
                    format!("input shape {:?}", x.shape),
                    format!("[C x {area}, {positions}] for output {size:?}"),
                ));
            }
            let mut shape = vec![rows / area];
            shape.extend(size);
            let output = ctx.fresh(shape, x.dtype, x.requires_grad);
            Ok((output.clone(), elementwise(&output, 1.0, Bytes::ZERO, 1)))
        }
        Op::Windows { axis, size, step } => {
            let len = x.shape.get(*axis).copied().unwrap_or(0);
            if *size == 0 || *step == 0 || *size > len {
                return Err(bad(
                    format!(
                        "axis {axis}, size {size}, step {step} of shape {:?}",
                        x.shape
                    ),
                    "a per-sample dimension at least `size` long, size and step >= 1",
                ));
            }
            // A strided view: no copy, nothing kept.
            let mut output = x.clone();
            output.shape[*axis] = (len - size) / step + 1;
            output.shape.push(*size);
            output.contiguous = false;
            output.leading_contiguous = false;
            Ok((output, LayerAccount::default()))
        }
        _ => Err(bad(op.kind(), "a padding, reduction or resampling op")),
    }
}

fn reduce(ctx: &mut Ctx, x: &Value, kind: Reduction, axes: &[usize], keepdim: bool) -> OpResult {
    let rank = x.shape.len();
    let mut sorted = axes.to_vec();
    crate::order::insertion_sort(&mut sorted);
    sorted.dedup();
    if axes.is_empty() || sorted.len() != axes.len() || sorted.iter().any(|&a| a >= rank) {
        return Err(bad(
            format!("axes {axes:?} of shape {:?}", x.shape),
            "distinct per-sample dimensions",
        ));
    }
    let mut shape: Vec<u64> = x
        .shape
        .iter()
        .enumerate()
        .filter_map(|(i, &d)| match (axes.contains(&i), keepdim) {
            (false, _) => Some(d),
            (true, true) => Some(1),
            (true, false) => None,
        })
        .collect();
    if shape.is_empty() {
        shape.push(1); // one value per sample
    }
    // CUDA autocast (aten/src/ATen/autocast_mode.h): logsumexp casts its input to fp32;
    // sum, prod and norm compute in fp32 from the input as it is (a dtype argument).
    let operand = if kind == Reduction::Logsumexp {
        ctx.fp32_operand(x)
    } else {
        x.clone()
    };
    let fp32_out = matches!(kind, Reduction::Sum | Reduction::Prod | Reduction::Norm)
        && ctx.precision.is_autocast();
    let dtype = if fp32_out { FP32 } else { operand.dtype };
    let output = ctx.fresh(shape, dtype, x.requires_grad);
    let saved = if !x.requires_grad {
        Bytes::ZERO
    } else {
        match kind {
            Reduction::Sum | Reduction::Mean => Bytes::ZERO,
            Reduction::Var => ctx.keep(operand.storage),
            Reduction::Max | Reduction::Min => {
                ctx.keep_new(output.elements().saturating_mul(INT64), 0)
            }
            Reduction::Amax
            | Reduction::Amin
            | Reduction::Prod
            | Reduction::Std
            | Reduction::Norm
            | Reduction::Logsumexp => ctx.keep(operand.storage) + ctx.keep(output.storage),
        }
    };
    let per_output = x.elements() as f64 / output.elements().max(1) as f64;
    Ok((output.clone(), elementwise(&output, per_output, saved, 1)))
}
