//! SegFormer-B0 on HSI tiles: Xie, Wang, Yu, Anandkumar, Alvarez, Luo, "SegFormer: Simple
//! and Efficient Design for Semantic Segmentation with Transformers", NeurIPS 2021;
//! reference code github.com/NVlabs/SegFormer (`mit_b0`, `SegFormerHead`).
//!
//! Input [B, s, s]: a tile with every band as a channel, s a multiple of 32. Mix
//! Transformer encoder (MiT-B0): four stages, each an overlapping patch embedding
//! (Conv2d 7x7 stride 4 for the first, 3x3 stride 2 after; LayerNorm) and 2 blocks of
//! efficient self-attention (queries from every token; keys and values from the tokens
//! reduced by a Conv2d of kernel and stride R, then LayerNorm) and Mix-FFN (Linear x4,
//! 3x3 depthwise Conv2d, GELU, Linear), with stochastic depth rising from 0 to 0.1 over
//! the 8 blocks and a LayerNorm closing each stage. Widths 32, 64, 160, 256; heads 1, 2,
//! 5, 8; R 8, 4, 2, 1. All-MLP decoder: per stage a Linear to 256, bilinear upsampling to
//! s/4, concat, 1x1 Conv2d (no bias) + BatchNorm + ReLU, dropout 0.1, 1x1 Conv2d to the
//! classes; the logits upsampled x4 to the tile for the per-pixel loss (as the reference
//! resizes them to the labels). 3,752,694 parameters at 3 channels and 150 classes
//! (ADE20K; the paper's 3.8 M: encoder 3.32 M, decoder 0.43 M).
//! Deviations that change no parameter, counted FLOP or kept byte (checked against
//! `tools/torch_zoo/segformer.py` in PyTorch): the 1/sqrt(d) attention scale folded into
//! the query projection; keys and values from two Linear layers (one of twice the width in
//! the reference); the decoder's Dropout2d element-wise; the decoder reading each stage's
//! tokens (the reference flattens the stage's map back into them).

use super::cnn::no_options;
use super::transformer::{at_least, Chain};
use super::ZooOptions;
use crate::graph::{ops, ModelBuilder, ModelSpec, Op, UpsampleMode};
use crate::problems::FieldError;

const DIMS: [u64; 4] = [32, 64, 160, 256];
const HEADS: [u64; 4] = [1, 2, 5, 8];
const REDUCTION: [u64; 4] = [8, 4, 2, 1];
const DEPTH: usize = 2;
const MLP_RATIO: u64 = 4;
const DECODER_DIM: u64 = 256;
const DECODER_DROPOUT: f64 = 0.1;
/// The encoder's total stride (s/4, then halved three times).
const STRIDE: u32 = 32;
/// Default tile side (the reference trains on 512 x 512 crops of ADE20K).
pub const DEFAULT_TILE: u32 = 128;

fn conv(out: u64, kernel: u64, stride: u64, padding: u64, groups: u64, bias: bool) -> Op {
    Op::Conv {
        dims: 2,
        out_channels: out,
        kernel: vec![kernel],
        stride: vec![stride],
        padding: vec![padding],
        dilation: vec![],
        groups,
        bias,
    }
}

fn upsample(scale: u64) -> Op {
    Op::Upsample {
        dims: 2,
        scale,
        mode: UpsampleMode::Linear,
    }
}

/// Tokens [h*w, C] as a map [C, h, w]: a strided view (reshape, then permute).
fn to_map(c: &mut Chain, name: &str, (h, w): (u64, u64), channels: u64) {
    c.then(
        &format!("{name}.reshape"),
        Op::Reshape {
            shape: vec![h, w, channels],
        },
    )
    .then(
        &format!("{name}.permute"),
        Op::Permute {
            order: vec![2, 0, 1],
        },
    );
}

/// A map [C, h, w] as tokens [h*w, C]: flatten, then transpose (a strided view).
fn to_tokens(c: &mut Chain, name: &str, (h, w): (u64, u64), channels: u64) {
    c.then(
        &format!("{name}.flatten"),
        Op::Reshape {
            shape: vec![channels, h * w],
        },
    )
    .then(
        &format!("{name}.transpose"),
        Op::Permute { order: vec![1, 0] },
    );
}

/// One block of a stage at `dim` channels on an h x w map: efficient attention and
/// Mix-FFN, each a residual branch with stochastic depth when `drop_path`.
fn block(
    c: &mut Chain,
    p: &str,
    dim: u64,
    heads: u64,
    reduction: u64,
    hw: (u64, u64),
    drop_path: bool,
) {
    let name = |part: &str| format!("{p}.{part}");
    let tokens = hw.0 * hw.1;
    let head_dim = dim / heads;
    let input = c.last.clone();
    c.then(&name("norm1"), Op::LayerNorm);
    let normed = c.last.clone();
    c.then(&name("q"), ops::linear(dim))
        .then(
            &name("q.split"),
            Op::Reshape {
                shape: vec![tokens, heads, head_dim],
            },
        )
        .then(
            &name("q.heads"),
            Op::Permute {
                order: vec![1, 0, 2],
            },
        );
    let q = c.last.clone();
    let mut kv_tokens = tokens;
    if reduction > 1 {
        c.last = normed.clone();
        to_map(c, &name("sr.map"), hw, dim);
        c.then(&name("sr"), conv(dim, reduction, reduction, 0, 1, true));
        let reduced = (hw.0 / reduction, hw.1 / reduction);
        kv_tokens = reduced.0 * reduced.1;
        to_tokens(c, &name("sr.tokens"), reduced, dim);
        c.then(&name("sr.norm"), Op::LayerNorm);
    }
    let kv = if reduction > 1 {
        c.last.clone()
    } else {
        normed
    };
    c.last = kv.clone();
    let split = Op::Reshape {
        shape: vec![kv_tokens, heads, head_dim],
    };
    c.then(&name("k"), ops::linear(dim))
        .then(&name("k.split"), split.clone())
        .then(
            &name("k.transposed"),
            Op::Permute {
                order: vec![1, 2, 0],
            },
        );
    let k = c.last.clone();
    c.last = kv;
    c.then(&name("v"), ops::linear(dim))
        .then(&name("v.split"), split)
        .then(
            &name("v.heads"),
            Op::Permute {
                order: vec![1, 0, 2],
            },
        );
    let v = c.last.clone();
    c.join(&name("scores"), &[&q, &k], Op::Matmul).then(
        &name("softmax"),
        ops::act(crate::graph::Activation::Softmax),
    );
    let attn = c.last.clone();
    c.join(&name("attn_v"), &[&attn, &v], Op::Matmul)
        .then(
            &name("merge"),
            Op::Permute {
                order: vec![1, 0, 2],
            },
        )
        .then(
            &name("merge.reshape"),
            Op::Reshape {
                shape: vec![tokens, dim],
            },
        )
        .then(&name("proj"), ops::linear(dim));
    residual(c, &name("attn"), &input, drop_path);

    let mid = c.last.clone();
    let hidden = dim * MLP_RATIO;
    c.then(&name("norm2"), Op::LayerNorm)
        .then(&name("fc1"), ops::linear(hidden));
    to_map(c, &name("dw.map"), hw, hidden);
    c.then(&name("dwconv"), conv(hidden, 3, 1, 1, hidden, true));
    to_tokens(c, &name("dw.tokens"), hw, hidden);
    c.then(&name("gelu"), ops::act(crate::graph::Activation::Gelu))
        .then(&name("fc2"), ops::linear(dim));
    residual(c, &name("mlp"), &mid, drop_path);
}

fn residual(c: &mut Chain, name: &str, input: &str, drop_path: bool) {
    if drop_path {
        c.then(&format!("{name}.drop_path"), Op::DropPath);
    }
    let branch = c.last.clone();
    c.join(&format!("{name}.add"), &[input, &branch], Op::Add);
}

pub fn build(o: &ZooOptions) -> Result<ModelSpec, FieldError> {
    no_options(o, "SegFormer-B0")?;
    let bands = at_least("bands", o.bands, 1, "one channel per band")?;
    let classes = at_least("classes", o.classes, 1, "one output per class")?;
    if o.patch == 0 || !o.patch.is_multiple_of(STRIDE) {
        return Err(FieldError {
            field: "patch".into(),
            value: o.patch.to_string(),
            allowed: format!("a positive multiple of {STRIDE} (the encoder's total stride)"),
        });
    }
    let tile = u64::from(o.patch);
    let mut b = ModelBuilder::new("SegFormer-B0", vec![bands, tile, tile]);
    let mut c = Chain::new(&mut b, "input");
    let mut side = tile;
    let mut stages = Vec::new();
    for (i, ((&dim, &heads), &reduction)) in DIMS.iter().zip(&HEADS).zip(&REDUCTION).enumerate() {
        let s = format!("stage{i}");
        let (kernel, stride) = if i == 0 { (7, 4) } else { (3, 2) };
        if let Some(&(_, _, previous)) = stages.last() {
            to_map(&mut c, &format!("{s}.map"), (side, side), previous);
        }
        c.then(
            &format!("{s}.embed"),
            conv(dim, kernel, stride, kernel / 2, 1, true),
        );
        side /= stride;
        to_tokens(&mut c, &format!("{s}.embed"), (side, side), dim);
        c.then(&format!("{s}.embed_norm"), Op::LayerNorm);
        for j in 0..DEPTH {
            // Stochastic depth rises linearly from 0 (the first block: none) to 0.1.
            let drop_path = i * DEPTH + j > 0;
            block(
                &mut c,
                &format!("{s}.block{j}"),
                dim,
                heads,
                reduction,
                (side, side),
                drop_path,
            );
        }
        c.then(&format!("{s}.norm"), Op::LayerNorm);
        stages.push((c.last.clone(), side, dim));
    }
    let quarter = tile / 4;
    let mut decoded = Vec::new();
    for (i, (tokens, side, _)) in stages.iter().enumerate().rev() {
        let d = format!("decode{i}");
        c.last = tokens.clone();
        c.then(&format!("{d}.mlp"), ops::linear(DECODER_DIM));
        to_map(&mut c, &d, (*side, *side), DECODER_DIM);
        if *side != quarter {
            c.then(&format!("{d}.up"), upsample(quarter / side));
        }
        decoded.push(c.last.clone());
    }
    let decoded: Vec<&str> = decoded.iter().map(String::as_str).collect();
    c.join("fuse.concat", &decoded, Op::Concat { axis: 0 })
        .then("fuse", conv(DECODER_DIM, 1, 1, 0, 1, false))
        .then("fuse.bn", Op::BatchNorm)
        .then("fuse.relu", ops::relu())
        .then("dropout", ops::dropout(DECODER_DROPOUT))
        .then("pred", conv(classes, 1, 1, 0, 1, true))
        .then("up", upsample(4));
    Ok(b.build())
}
