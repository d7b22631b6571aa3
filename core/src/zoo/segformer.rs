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
use crate::graph::{ops, Activation, ModelBuilder, ModelSpec, Op, UpsampleMode};
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

fn reshape(shape: &[u64]) -> Op {
    Op::Reshape {
        shape: shape.to_vec(),
    }
}

fn permute(order: &[usize]) -> Op {
    Op::Permute {
        order: order.to_vec(),
    }
}

/// Appends layers named `<prefix>.<part>` to a chain (one naming function keeps the
/// page's code small).
struct Named<'a, 'b> {
    c: &'a mut Chain<'b>,
    prefix: String,
}

impl Named<'_, '_> {
    fn name(&self, part: &str) -> String {
        [self.prefix.as_str(), part].join(".")
    }

    fn then(&mut self, part: &str, op: Op) -> &mut Self {
        let name = self.name(part);
        self.c.then(&name, op);
        self
    }

    fn join(&mut self, part: &str, from: &[&str], op: Op) -> &mut Self {
        let name = self.name(part);
        self.c.join(&name, from, op);
        self
    }

    fn last(&self) -> String {
        self.c.last.clone()
    }

    /// Tokens [h*w, C] as a map [C, h, w]: a strided view (reshape, then permute).
    fn as_map(&mut self, part: &str, (h, w): (u64, u64), channels: u64) -> &mut Self {
        self.then(&[part, ".reshape"].concat(), reshape(&[h, w, channels]))
            .then(&[part, ".permute"].concat(), permute(&[2, 0, 1]))
    }

    /// A map [C, h, w] as tokens [h*w, C]: flatten, then transpose (a strided view).
    fn as_tokens(&mut self, part: &str, (h, w): (u64, u64), channels: u64) -> &mut Self {
        self.then(&[part, ".flatten"].concat(), reshape(&[channels, h * w]))
            .then(&[part, ".transpose"].concat(), permute(&[1, 0]))
    }

    /// `input` + the branch just appended (after stochastic depth when `drop_path`).
    fn residual(&mut self, part: &str, input: &str, drop_path: bool) {
        if drop_path {
            self.then(&[part, ".drop_path"].concat(), Op::DropPath);
        }
        let branch = self.last();
        self.join(&[part, ".add"].concat(), &[input, &branch], Op::Add);
    }
}

/// One block of a stage at `dim` channels on an h x w map: efficient attention and
/// Mix-FFN, each a residual branch with stochastic depth when `drop_path`.
fn block(n: &mut Named, dim: u64, heads: u64, reduction: u64, hw: (u64, u64), drop_path: bool) {
    let tokens = hw.0 * hw.1;
    let head_dim = dim / heads;
    let input = n.last();
    n.then("norm1", ops::layer_norm());
    let normed = n.last();
    n.then("q", ops::linear(dim))
        .then("q.split", reshape(&[tokens, heads, head_dim]))
        .then("q.heads", permute(&[1, 0, 2]));
    let q = n.last();
    let mut kv_tokens = tokens;
    if reduction > 1 {
        let reduced = (hw.0 / reduction, hw.1 / reduction);
        kv_tokens = reduced.0 * reduced.1;
        n.c.last = normed.clone();
        n.as_map("sr.map", hw, dim)
            .then("sr", conv(dim, reduction, reduction, 0, 1, true))
            .as_tokens("sr.tokens", reduced, dim)
            .then("sr.norm", ops::layer_norm());
    }
    let kv = if reduction > 1 { n.last() } else { normed };
    n.c.last = kv.clone();
    n.then("k", ops::linear(dim))
        .then("k.split", reshape(&[kv_tokens, heads, head_dim]))
        .then("k.transposed", permute(&[1, 2, 0]));
    let k = n.last();
    n.c.last = kv;
    n.then("v", ops::linear(dim))
        .then("v.split", reshape(&[kv_tokens, heads, head_dim]))
        .then("v.heads", permute(&[1, 0, 2]));
    let v = n.last();
    n.join("scores", &[&q, &k], Op::Matmul)
        .then("softmax", ops::act(Activation::Softmax));
    let attn = n.last();
    n.join("attn_v", &[&attn, &v], Op::Matmul)
        .then("merge", permute(&[1, 0, 2]))
        .then("merge.reshape", reshape(&[tokens, dim]))
        .then("proj", ops::linear(dim))
        .residual("attn", &input, drop_path);

    let mid = n.last();
    let hidden = dim * MLP_RATIO;
    n.then("norm2", ops::layer_norm())
        .then("fc1", ops::linear(hidden))
        .as_map("dw.map", hw, hidden)
        .then("dwconv", conv(hidden, 3, 1, 1, hidden, true))
        .as_tokens("dw.tokens", hw, hidden)
        .then("gelu", ops::act(Activation::Gelu))
        .then("fc2", ops::linear(dim))
        .residual("mlp", &mid, drop_path);
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
        let mut n = Named {
            c: &mut c,
            prefix: format!("stage{i}"),
        };
        let (kernel, stride) = if i == 0 { (7, 4) } else { (3, 2) };
        if let Some(&(_, _, previous)) = stages.last() {
            n.as_map("map", (side, side), previous);
        }
        n.then("embed", conv(dim, kernel, stride, kernel / 2, 1, true));
        side /= stride;
        n.as_tokens("embed", (side, side), dim)
            .then("embed_norm", ops::layer_norm());
        for j in 0..DEPTH {
            // Stochastic depth rises linearly from 0 (the first block: none) to 0.1.
            let mut blk = Named {
                prefix: format!("stage{i}.block{j}"),
                c: n.c,
            };
            block(
                &mut blk,
                dim,
                heads,
                reduction,
                (side, side),
                i * DEPTH + j > 0,
            );
        }
        n.then("norm", ops::layer_norm());
        stages.push((n.last(), side, dim));
    }
    let quarter = tile / 4;
    let mut decoded = Vec::new();
    for (i, (tokens, side, _)) in stages.iter().enumerate().rev() {
        c.last = tokens.clone();
        let mut n = Named {
            c: &mut c,
            prefix: format!("decode{i}"),
        };
        n.then("mlp", ops::linear(DECODER_DIM))
            .as_map("map", (*side, *side), DECODER_DIM);
        if *side != quarter {
            n.then("up", upsample(quarter / side));
        }
        decoded.push(n.last());
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
