//! Tensor parallelism as Megatron-LM splits a transformer (Shoeybi et al. 2019, arXiv
//! 1909.08053, section 3; `megatron/core/tensor_parallel/layers.py`): every GPU of a group
//! of `t` runs the same layer list with the split layers narrowed to its share.
//!
//! - **Attention** (`Heads`): each GPU runs heads / t heads; the qkv projection is split by
//!   columns, the output projection by rows, whose partial outputs are all-reduced in
//!   forward (Megatron's `g`); the gradient of the attention's input is all-reduced in
//!   backward (`f`).
//! - **MLP pairs**: a linear layer whose output reaches another linear layer only through
//!   element-wise activations and dropout is split by output columns (`Columns`, its
//!   input's gradient all-reduced in backward); the second by input rows (`Rows`, its
//!   output all-reduced in forward). So a transformer block costs two all-reduces of its
//!   activations (batch x tokens x width) forward and two backward.
//! - **The logits** (`Logits`): the last layer, when it is a linear layer whose outputs
//!   divide by t in a model with other split layers, is split by outputs as Megatron's
//!   vocabulary-parallel output layer; its loss takes three all-reduces of one fp32 value
//!   per row (`vocab_parallel_cross_entropy`: the maximum, the predicted logit, the sum of
//!   exponentials) forward and its input's gradient backward.
//! - Everything else (convolutions, norms, embeddings, pooling) is `Replicated`: held and
//!   run whole on every GPU. Biases of row-split layers are added after the all-reduce,
//!   so every GPU keeps them whole, as the narrowed layer list does.
//!
//! What each GPU keeps for backward then follows from the narrowed layers (the split
//! layers' outputs are 1/t as wide; their replicated inputs are kept whole, as in Megatron).

use serde::Serialize;

use crate::analysis::LayerReport;
use crate::graph::{Layer, ModelSpec, Op};
use crate::links::ring_allreduce_s;
use crate::problems::FieldError;
use crate::steptime::LayerComm;

/// What tensor parallelism does to a layer (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    Replicated,
    Heads,
    Columns,
    Rows,
    Logits,
}

/// The layer list one GPU of a tensor-parallel group runs, and each layer's role.
#[derive(Clone, Debug, PartialEq)]
pub struct Split {
    pub spec: ModelSpec,
    pub roles: Vec<Role>,
}

/// Indices of the layers each layer feeds.
pub fn consumers(spec: &ModelSpec) -> Vec<Vec<usize>> {
    let names: Vec<String> = spec
        .layers
        .iter()
        .enumerate()
        .map(|(i, l)| {
            l.name
                .clone()
                .unwrap_or_else(|| format!("{}{i}", l.op.kind()))
        })
        .collect();
    let mut out = vec![Vec::new(); spec.layers.len()];
    for (i, layer) in spec.layers.iter().enumerate() {
        if layer.from.is_empty() {
            if i > 0 {
                out[i - 1].push(i);
            }
            continue;
        }
        for from in &layer.from {
            // The latest earlier layer of that name (names are unique once analysed).
            if let Some(j) = names[..i].iter().rposition(|n| n == from) {
                out[j].push(i);
            }
        }
    }
    out
}

/// Each layer's role in any tensor-parallel group (the structure; sizes are checked by
/// `divisors`).
pub fn roles(spec: &ModelSpec) -> Vec<Role> {
    let layers = &spec.layers;
    let feeds = consumers(spec);
    let mut roles = vec![Role::Replicated; layers.len()];
    let sole = |i: usize| match feeds[i][..] {
        [j] => Some(j),
        _ => None,
    };
    for i in 0..layers.len() {
        match layers[i].op {
            Op::Attention { .. } => roles[i] = Role::Heads,
            Op::Linear { .. } if roles[i] == Role::Replicated => {
                // Through element-wise layers with one consumer each to the next linear.
                let mut j = sole(i);
                while let Some(k) = j {
                    match layers[k].op {
                        Op::Act { .. } | Op::Dropout { .. } => j = sole(k),
                        _ => break,
                    }
                }
                if let Some(k) = j.filter(|&k| matches!(layers[k].op, Op::Linear { .. })) {
                    roles[i] = Role::Columns;
                    roles[k] = Role::Rows;
                }
            }
            _ => {}
        }
    }
    if roles.iter().any(|r| *r != Role::Replicated) {
        if let Some(last) = roles.last_mut() {
            if *last == Role::Replicated
                && matches!(layers.last().map(|l| &l.op), Some(Op::Linear { .. }))
            {
                *last = Role::Logits;
            }
        }
    }
    roles
}

/// The sizes a group must divide: each attention's heads and each MLP pair's hidden
/// width, with what they are (the logits are split only where they divide).
pub fn split_sizes(spec: &ModelSpec) -> Vec<(u64, String)> {
    spec.layers
        .iter()
        .zip(roles(spec))
        .enumerate()
        .filter_map(|(i, (l, role))| {
            let name = l
                .name
                .clone()
                .unwrap_or_else(|| format!("{}{i}", l.op.kind()));
            match (&l.op, role) {
                (Op::Attention { heads, .. }, Role::Heads) => {
                    Some((*heads, format!("the heads of {name}")))
                }
                (Op::Linear { out_features, .. }, Role::Columns) => {
                    Some((*out_features, format!("the outputs of {name}")))
                }
                _ => None,
            }
        })
        .collect()
}

/// What `tensor_parallel` allows for a model with nothing to split.
pub fn nothing_to_split(spec: &ModelSpec) -> String {
    format!(
        "1 ({} has no attention or MLP (linear, activation, linear) to split; \
         convolutions, norms and embeddings stay whole)",
        spec.name
    )
}

/// What `tensor_parallel` allows when `ways` does not divide the node's `cards` or a
/// split layer's size (the sizes that do, and the first it fails); None when it divides.
pub fn indivisible(spec: &ModelSpec, ways: u32, cards: u32) -> Option<String> {
    if ways <= 1 {
        return None;
    }
    let sizes = split_sizes(spec);
    let divides = |t: u32| {
        cards.is_multiple_of(t) && sizes.iter().all(|(n, _)| n.is_multiple_of(u64::from(t)))
    };
    if divides(ways) {
        return None;
    }
    let ok: Vec<String> = (1..=crate::scenario::MAX_CARDS)
        .filter(|t| divides(*t))
        .map(|t| t.to_string())
        .collect();
    let what = sizes
        .iter()
        .find(|(n, _)| !n.is_multiple_of(u64::from(ways)))
        .map_or(String::new(), |(n, what)| format!(" and {what} ({n})"));
    Some(format!(
        "{}: it must divide the {cards} cards per node{what}",
        ok.join(", ")
    ))
}

/// The layer list one GPU of a group of `ways` runs (`layers`: the whole model's analysed
/// layers, for the attention's width), on a node of `cards`. Errors name
/// `tensor_parallel` and what it allows: the model has nothing to split, or a size does
/// not divide.
pub fn split(
    spec: &ModelSpec,
    layers: &[LayerReport],
    ways: u32,
    cards: u32,
) -> Result<Split, FieldError> {
    let roles = roles(spec);
    let error = |allowed: String| FieldError {
        field: "tensor_parallel".into(),
        value: ways.to_string(),
        allowed,
    };
    if split_sizes(spec).is_empty() {
        return Err(error(nothing_to_split(spec)));
    }
    if let Some(allowed) = indivisible(spec, ways, cards) {
        return Err(error(allowed));
    }
    let t = u64::from(ways);
    let mut narrowed = spec.clone();
    for (i, (layer, role)) in narrowed.layers.iter_mut().zip(&roles).enumerate() {
        layer.op = match (&layer.op, role) {
            (
                Op::Attention {
                    heads,
                    head_dim,
                    qkv_bias,
                    extra_params,
                },
                Role::Heads,
            ) => {
                let width = input_width(spec, layers, i);
                Op::Attention {
                    heads: heads / t,
                    head_dim: Some(head_dim.unwrap_or(width / (*heads).max(1))),
                    qkv_bias: *qkv_bias,
                    extra_params: extra_params.div_ceil(t),
                }
            }
            (Op::Linear { out_features, bias }, Role::Columns) => Op::Linear {
                out_features: out_features / t,
                bias: *bias,
            },
            (Op::Linear { out_features, bias }, Role::Logits) if out_features.is_multiple_of(t) => {
                Op::Linear {
                    out_features: out_features / t,
                    bias: *bias,
                }
            }
            (op, _) => op.clone(),
        };
    }
    let roles = roles
        .into_iter()
        .zip(&narrowed.layers)
        .zip(&spec.layers)
        .map(|((role, new), old): ((Role, &Layer), &Layer)| {
            // Logits that do not divide stay whole.
            if role == Role::Logits && new.op == old.op {
                Role::Replicated
            } else {
                role
            }
        })
        .collect();
    Ok(Split {
        spec: narrowed,
        roles,
    })
}

/// The last dimension of layer `i`'s (first) input in the whole model.
fn input_width(spec: &ModelSpec, layers: &[LayerReport], i: usize) -> u64 {
    let from = spec.layers[i].from.first();
    let shape = match from {
        None if i > 0 => layers.get(i - 1).map(|l| l.output_shape.as_slice()),
        Some(name) if name != "input" => layers[..i]
            .iter()
            .rev()
            .find(|l| &l.name == name)
            .map(|l| l.output_shape.as_slice()),
        _ => Some(spec.input.as_slice()),
    };
    shape.and_then(|s| s.last().copied()).unwrap_or(1)
}

/// One layer's all-reduces per micro-step on each GPU of the group.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Allreduces {
    /// Bytes of each forward all-reduce, and how many.
    pub forward_bytes: f64,
    pub forward_count: u32,
    /// Bytes of the backward all-reduce (0: none).
    pub backward_bytes: f64,
}

/// Each layer's all-reduces for the split model (`layers`: its analysed layers at `batch`).
/// Backward all-reduces run only where a gradient reaches the layer's input (some earlier
/// layer trains).
pub fn allreduces(roles: &[Role], layers: &[LayerReport], batch: u64) -> Vec<Allreduces> {
    let mut trains_before = false;
    roles
        .iter()
        .zip(layers)
        .map(|(role, l)| {
            let backward_bytes = if trains_before { l.input_bytes } else { 0.0 };
            trains_before |= l.trainable_params > 0;
            let forward = |bytes, count| Allreduces {
                forward_bytes: bytes,
                forward_count: count,
                backward_bytes: 0.0,
            };
            match role {
                Role::Replicated => Allreduces::default(),
                Role::Rows => forward(l.output_bytes, 1),
                Role::Columns => Allreduces {
                    backward_bytes,
                    ..Allreduces::default()
                },
                Role::Heads => Allreduces {
                    backward_bytes,
                    ..forward(l.output_bytes, 1)
                },
                Role::Logits => {
                    let rows: u64 = l.output_shape[..l.output_shape.len().saturating_sub(1)]
                        .iter()
                        .product();
                    Allreduces {
                        backward_bytes,
                        ..forward(4.0 * (rows * batch) as f64, 3)
                    }
                }
            }
        })
        .collect()
}

/// Seconds of each layer's all-reduces on a group of `ways` GPUs whose ring carries
/// `bus_bytes_per_s` with `hop_latency_s` per step.
pub fn collectives(
    all: &[Allreduces],
    ways: u32,
    bus_bytes_per_s: f64,
    hop_latency_s: f64,
) -> Vec<LayerComm> {
    let t = |b: f64| ring_allreduce_s(b, ways, bus_bytes_per_s, hop_latency_s);
    all.iter()
        .map(|a| LayerComm {
            forward_s: f64::from(a.forward_count) * t(a.forward_bytes),
            backward_s: t(a.backward_bytes),
        })
        .collect()
}
