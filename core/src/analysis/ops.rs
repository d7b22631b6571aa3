//! Shape inference and accounting, op by op: `apply` turns one layer's inputs into its
//! output and what the layer adds (parameters, FLOPs, kept bytes, kernels).

use super::base::*;
use super::ctx::*;
use super::lora::linear_map;
use super::recurrent::{rnn, Recurrent};
use super::tensor_ops::{attention, elementwise, matmul, normalization, view};
use super::window::{window, window_output};
use super::{broadcast, extra, resample};
use crate::graph::{Activation, Op};

pub(super) fn apply(ctx: &mut Ctx, op: &Op, inputs: &[Value]) -> OpResult {
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
            // convolution_backward's one formula saves input and weight whenever any
            // gradient is needed (derivatives.yaml), a frozen conv inside a trainable
            // region included.
            let trains = ctx.train.params;
            let needs_grad = trains || first.requires_grad;
            let saved = if needs_grad {
                ctx.keep(operand.storage) + ctx.keep_weight_copy(weight)
            } else {
                Bytes::ZERO
            };
            let conv = ConvShape {
                in_channels: channels,
                out_channels: *out_channels,
                groups,
                input: spatial,
                output: out_spatial.clone(),
                kernel: w.kernel,
                stride: w.stride,
                padding: w.padding,
                dilation: w.dilation,
                input_grad: first.requires_grad,
                weight_grad: trains,
                element_bytes: operand.dtype,
            };
            let mut shape = vec![*out_channels];
            shape.extend(out_spatial);
            let output = ctx.fresh(shape, operand.dtype, needs_grad);
            Ok((
                output,
                LayerAccount {
                    params,
                    fwd_flops: fwd,
                    bwd_flops: backward_flops(fwd, first.requires_grad, trains),
                    other_flops: if *bias {
                        out_positions as f64 * *out_channels as f64
                    } else {
                        0.0
                    },
                    saved,
                    tensor_core: true,
                    kernels_fwd: 1 + *bias as u32,
                    kernels_bwd: (1 + *bias as u32) * trains as u32 + first.requires_grad as u32,
                    conv: Some(conv),
                    ..LayerAccount::default()
                },
            ))
        }
        Op::Linear { out_features, bias } => {
            expect_inputs(inputs, 1)?;
            let features = *first.shape.last().unwrap_or(&0);
            if *out_features == 0 {
                return Err(bad("out_features 0", "a positive number of features"));
            }
            let params = features
                .saturating_mul(*out_features)
                .saturating_add(if *bias { *out_features } else { 0 });
            let trains = ctx.train.params;
            let (lin, adapter) =
                linear_map(ctx, &first, *out_features, trains, ctx.train.linear_rank);
            let mut shape = first.shape.clone();
            *shape.last_mut().expect("non-empty shape") = *out_features;
            let output = ctx.fresh(shape, lin.dtype, lin.output_requires_grad);
            let bias_grad = (*bias && trains) as u32;
            Ok((
                output,
                LayerAccount {
                    params: params.saturating_add(adapter.params),
                    fwd_flops: lin.fwd_flops + adapter.fwd_flops,
                    bwd_flops: lin.bwd_flops + adapter.bwd_flops,
                    saved: lin.saved + adapter.saved,
                    tensor_core: true,
                    kernels_fwd: 1 + adapter.kernels_fwd,
                    kernels_bwd: lin.kernels_bwd + bias_grad + adapter.kernels_bwd,
                    adapter_params: adapter.params,
                    ..LayerAccount::default()
                },
            ))
        }
        Op::BatchNorm | Op::GroupNorm { .. } | Op::LayerNorm { .. } => {
            normalization(ctx, op, &first)
        }
        Op::Act { kind, inplace } => {
            expect_inputs(inputs, 1)?;
            let softmax = matches!(kind, Activation::Softmax | Activation::LogSoftmax);
            let operand = if softmax {
                ctx.fp32_operand(&first)
            } else {
                first.clone()
            };
            let output = ctx.fresh(first.shape.clone(), operand.dtype, first.requires_grad);
            // The others (LeakyReLU, GELU, SiLU, Mish, Hardswish, Hardsigmoid, ReLU6 in
            // place or not) keep their input.
            let keeps_output = softmax
                || (*inplace && *kind == Activation::LeakyRelu)
                || matches!(
                    kind,
                    Activation::Relu | Activation::Tanh | Activation::Sigmoid
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
                Activation::Gelu
                | Activation::Mish
                | Activation::Softmax
                | Activation::LogSoftmax => 8.0,
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
            // No mode keeps anything (backward needs only the sizes).
            let flops = resample::interpolation_flops(*mode, *dims);
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
            crate::order::insertion_sort(&mut sorted);
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
            // Only the last two swapped: the leading dimensions still merge.
            let rank = order.len();
            let leading_moves =
                (0..rank.saturating_sub(2)).any(|i| order[i] != i && first.shape[order[i]] > 1);
            output.leading_contiguous = first.leading_contiguous && !leading_moves;
            Ok((output, LayerAccount::default()))
        }
        Op::Add => broadcast::sum(ctx, inputs),
        Op::Mul => broadcast::product(ctx, inputs, false),
        Op::Div => broadcast::product(ctx, inputs, true),
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
        Op::GatherTokens { count } => {
            expect_inputs(inputs, 1)?;
            extra::gather_tokens(ctx, &first, *count)
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
        Op::Rnn {
            cell,
            hidden,
            layers,
            bidirectional,
            bias,
            batch_first,
        } => {
            expect_inputs(inputs, 1)?;
            let shape = Recurrent {
                cell: *cell,
                hidden: *hidden,
                layers: *layers,
                bidirectional: *bidirectional,
                bias: *bias,
                batch_first: *batch_first,
            };
            rnn(ctx, &first, &shape)
        }
        Op::Pointwise { .. } | Op::Expand { .. } | Op::Constant { .. } => {
            broadcast::apply(ctx, op, &first)
        }
        Op::Pad { .. }
        | Op::Reduce { .. }
        | Op::AdaptiveMaxPool { .. }
        | Op::Resize { .. }
        | Op::Unfold { .. }
        | Op::Fold { .. }
        | Op::Windows { .. } => {
            expect_inputs(inputs, 1)?;
            resample::apply(ctx, op, &first)
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
            let rg = first.requires_grad || ctx.train.params;
            let output = ctx.fresh(vec![tokens.saturating_add(1), dim], dtype, rg);
            let mut account = elementwise(&output, 0.0, Bytes::ZERO, 1);
            account.params = dim;
            Ok((output, account))
        }
        Op::PositionEmbedding => {
            expect_inputs(inputs, 1)?;
            let output = ctx.fresh(
                first.shape.clone(),
                first.dtype.max(ctx.param_dtype()),
                first.requires_grad || ctx.train.params,
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
