//! DBDA: Li, Zheng, Duan, Yang, Wang, "Classification of Hyperspectral Image Based on
//! Double-Branch Dual-Attention Mechanism Network", Remote Sensing 12(3), 582, 2020.
//! Reference implementation: github.com/lironui/Double-Branch-Dual-Attention-Mechanism-Network,
//! `global_module/network.py`, class `DBDA_network_MISH`, with `CAM_Module` and
//! `PAM_Module` of `DBMA/attontion.py` (after DANet).
//!
//! Input [1, s, s, B] (bands last, as the reference), s = 9. Spectral branch: Conv3d
//! 1->24 (1,1,7) stride (1,1,2); a dense block of three BN + Mish + Conv3d ->12 (1,1,7)
//! steps, each fed by the concatenation of all earlier outputs; BN + Mish; Conv3d 60->60
//! (1,1,floor((B-6)/2)); channel attention softmax(X X^T) X + X, multiplied by its input.
//! Spatial branch: Conv3d 1->24 (1,1,B); a dense block of three BN + Mish + Conv3d ->12
//! (3,3,1) steps; position attention (1x1x1 query/key convs to 60/8 = 7 channels, value
//! conv to 60, softmax(Q^T K) over the s*s positions, V A^T + X), multiplied by its input.
//! Each branch: BN + Mish + Dropout 0.5, global average pool; concat; Linear 120 -> C.
//!
//! Deviations: the two attention scales `gamma` (one scalar parameter each, initialised
//! to 0) are left out, since the graph has no scalar-parameter op; the channel
//! attention's max-shift (max(E) - E) is left out, since softmax ignores a per-row shift
//! and negating E changes no cost; the reference's unused `conv25` (never called in
//! forward) is left out. At B = 200, s = 9, 16 classes this gives 382,326 parameters,
//! the reference's 382,347 less those 2 + 19.

use super::cnn::{conv3d, no_options};
use super::transformer::{at_least, Chain};
use super::ZooOptions;
use crate::graph::{ops, Activation, ModelBuilder, ModelSpec, Op};
use crate::problems::FieldError;

const FIRST_KERNELS: u64 = 24;
const GROWTH: u64 = 12;
const DENSE_STEPS: u64 = 3;
const BRANCH_CHANNELS: u64 = FIRST_KERNELS + DENSE_STEPS * GROWTH;
/// PAM's query/key reduction (in_dim // 8).
const ATTENTION_REDUCTION: u64 = 8;
const DROPOUT: f64 = 0.5;

pub fn build(o: &ZooOptions) -> Result<ModelSpec, FieldError> {
    no_options(o, "DBDA")?;
    let bands = at_least(
        "bands",
        o.bands,
        8,
        "the last spectral kernel spans floor((B-6)/2) bands",
    )?;
    let patch = at_least("patch", o.patch, 1, "at least one pixel")?;
    let classes = at_least("classes", o.classes, 1, "one output per class")?;

    let mut b = ModelBuilder::new("DBDA", vec![1, patch, patch, bands]);
    let mut c = Chain::new(&mut b, "input");

    // Spectral branch.
    c.then(
        "spe.conv1",
        conv3d(FIRST_KERNELS, [1, 1, 7], [1, 1, 2], [0, 0, 0]),
    );
    dense_block(&mut c, "spe", [1, 1, 7], [0, 0, 3]);
    c.then("spe.bn", Op::BatchNorm)
        .then("spe.mish", ops::act(Activation::Mish))
        .then(
            "spe.conv_last",
            conv3d(
                BRANCH_CHANNELS,
                [1, 1, (bands - 6) / 2],
                [1, 1, 1],
                [0, 0, 0],
            ),
        );
    // floor((B-7)/2)+1 spectral positions after the stride-2 conv; the last conv leaves
    // one (B even) or two (B odd).
    let depth = (bands - 7) / 2 + 1 - (bands - 6) / 2 + 1;
    channel_attention(&mut c, "cam", [BRANCH_CHANNELS, patch, patch, depth]);
    branch_head(&mut c, "spe");

    // Spatial branch.
    c.join(
        "spa.conv1",
        &["input"],
        conv3d(FIRST_KERNELS, [1, 1, bands], [1, 1, 1], [0, 0, 0]),
    );
    dense_block(&mut c, "spa", [3, 3, 1], [1, 1, 0]);
    position_attention(&mut c, "pam", [BRANCH_CHANNELS, patch, patch, 1]);
    branch_head(&mut c, "spa");

    c.join(
        "concat",
        &["spe.flatten", "spa.flatten"],
        Op::Concat { axis: 0 },
    )
    .then("fc", ops::linear(classes));
    Ok(b.build())
}

/// Three BN + Mish + conv steps after the chain's last layer (the block's first conv),
/// each fed by the concatenation of everything before it; ends with the concatenation
/// of all four outputs (`BRANCH_CHANNELS` channels).
fn dense_block(c: &mut Chain, prefix: &str, kernel: [u64; 3], padding: [u64; 3]) {
    let name = |part: String| format!("{prefix}.{part}");
    let mut features = vec![c.last.clone()];
    for step in 1..=DENSE_STEPS {
        // The first step reads the first conv's output as it is.
        if features.len() > 1 {
            let from: Vec<&str> = features.iter().map(String::as_str).collect();
            c.join(&name(format!("cat{step}")), &from, Op::Concat { axis: 0 });
        }
        c.then(&name(format!("bn{step}")), Op::BatchNorm)
            .then(&name(format!("mish{step}")), ops::act(Activation::Mish))
            .then(
                &name(format!("conv{}", step + 1)),
                conv3d(GROWTH, kernel, [1, 1, 1], padding),
            );
        features.push(c.last.clone());
    }
    let from: Vec<&str> = features.iter().map(String::as_str).collect();
    c.join(&name("dense".into()), &from, Op::Concat { axis: 0 });
}

fn flat(shape: [u64; 4]) -> Vec<u64> {
    vec![shape[0], shape[1..].iter().product()]
}

fn transpose() -> Op {
    Op::Permute { order: vec![1, 0] }
}

fn pointwise(out: u64) -> Op {
    ops::conv(3, out, &[1], &[0])
}

/// CAM without gamma on the chain's last layer X of `shape` [C, ...]:
/// softmax(X X^T) X + X over the flattened positions, then multiplied by X.
fn channel_attention(c: &mut Chain, prefix: &str, shape: [u64; 4]) {
    let name = |part: &str| format!("{prefix}.{part}");
    let x = c.last.clone();
    c.then(&name("flat"), Op::Reshape { shape: flat(shape) })
        .then(&name("flat_t"), transpose())
        .join(
            &name("energy"),
            &[&name("flat"), &name("flat_t")],
            Op::Matmul,
        )
        .then(&name("softmax"), ops::act(Activation::Softmax))
        .join(&name("out"), &[&name("softmax"), &name("flat")], Op::Matmul);
    residual_gate(c, prefix, shape, &x);
}

/// PAM without gamma on the chain's last layer X of `shape` [C, ...]: Q, K = 1x1x1
/// convs to C/8, V = 1x1x1 conv to C, A = softmax(Q^T K) over positions, V A^T + X,
/// then multiplied by X.
fn position_attention(c: &mut Chain, prefix: &str, shape: [u64; 4]) {
    let name = |part: &str| format!("{prefix}.{part}");
    let x = c.last.clone();
    let reduced = shape[0] / ATTENTION_REDUCTION;
    let reduced_shape = [reduced, shape[1], shape[2], shape[3]];
    c.join(&name("query"), &[&x], pointwise(reduced))
        .then(
            &name("query_flat"),
            Op::Reshape {
                shape: flat(reduced_shape),
            },
        )
        .then(&name("query_t"), transpose())
        .join(&name("key"), &[&x], pointwise(reduced))
        .then(
            &name("key_flat"),
            Op::Reshape {
                shape: flat(reduced_shape),
            },
        )
        .join(
            &name("energy"),
            &[&name("query_t"), &name("key_flat")],
            Op::Matmul,
        )
        .then(&name("softmax"), ops::act(Activation::Softmax))
        .join(&name("value"), &[&x], pointwise(shape[0]))
        .then(&name("value_flat"), Op::Reshape { shape: flat(shape) })
        .join(&name("softmax_t"), &[&name("softmax")], transpose())
        .join(
            &name("out"),
            &[&name("value_flat"), &name("softmax_t")],
            Op::Matmul,
        );
    residual_gate(c, prefix, shape, &x);
}

/// The attention modules' tail: the attended map back to `shape`, plus X, times X.
fn residual_gate(c: &mut Chain, prefix: &str, shape: [u64; 4], x: &str) {
    let name = |part: &str| format!("{prefix}.{part}");
    c.then(
        &name("unflat"),
        Op::Reshape {
            shape: shape.to_vec(),
        },
    )
    .join(&name("add"), &[&name("unflat"), x], Op::Add)
    .join(&name("gate"), &[&name("add"), x], Op::Mul);
}

/// BN + Mish + Dropout, global average pool, flatten (named `<prefix>.flatten`).
fn branch_head(c: &mut Chain, prefix: &str) {
    let name = |part: &str| format!("{prefix}.{part}");
    c.then(&name("head_bn"), Op::BatchNorm)
        .then(&name("head_mish"), ops::act(Activation::Mish))
        .then(&name("dropout"), ops::dropout(DROPOUT))
        .then(
            &name("pool"),
            Op::AdaptiveAvgPool {
                dims: 3,
                output: vec![1],
            },
        )
        .then(&name("flatten"), Op::Flatten);
}
