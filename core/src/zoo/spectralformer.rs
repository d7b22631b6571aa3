//! SpectralFormer: Hong, Han, Yao, Gao, Zhang, Plaza, Chanussot, "SpectralFormer:
//! Rethinking Hyperspectral Image Classification with Transformers", IEEE TGRS 60, 2022
//! (arXiv 2021). Reference implementation: github.com/danfenghong/IEEE_TGRS_SpectralFormer,
//! `vit_pytorch.py`, class `ViT` with `mode='CAF'`, as `demo.py` builds it (dim 64,
//! depth 5, heads 4, dim_head 16, mlp_dim 8, dropout 0.1, emb_dropout 0.1).
//!
//! Patch-wise variant with group-wise spectral embedding: one token per band, each
//! token the s x s neighbourhood of 3 neighbouring bands (the data loader's
//! `gain_neighborhood_band` builds that [B, s*s*3] input outside the model); Linear
//! embedding to dim; class token; position embedding; dropout; 5 pre-norm encoder blocks
//! (qkv without bias) where blocks 3-5 first apply cross-layer adaptive fusion (CAF): the
//! block input and the input of the block two earlier are stacked as [B+1, dim, 2] and
//! mixed by a Conv2d (B+1 -> B+1 channels, kernel 1x2); head (LayerNorm, Linear) on
//! the class token. With s = 1 this is the pixel-wise variant.
//!
//! At Indian Pines defaults (B = 200, s = 7, 16 classes) this gives 355,577 parameters,
//! 243,009 of them in the three CAF convolutions. `model.width` sets dim (default 64,
//! a multiple of the 4 heads; dim_head stays 16 as in the reference).

use super::transformer::{at_least, reject_option, token_width, Chain, EncoderBlock};
use super::ZooOptions;
use crate::graph::{ops, ModelBuilder, ModelSpec, Op};
use crate::problems::FieldError;

/// Neighbouring bands grouped into one token (the reference's `band_patches`).
pub const BAND_GROUP: u64 = 3;
const DEFAULT_DIM: u64 = 64;
const DEPTH: usize = 5;
const HEADS: u64 = 4;
const HEAD_DIM: u64 = 16;
const MLP_HIDDEN: u64 = 8;
const DROPOUT: f64 = 0.1;
/// CAF joins block `i`'s input with block `i - CAF_SPAN`'s input, from block CAF_SPAN on.
const CAF_SPAN: usize = 2;

pub fn build(o: &ZooOptions) -> Result<ModelSpec, FieldError> {
    reject_option("model.size", o.size, "SpectralFormer")?;
    let bands = at_least("bands", o.bands, 1, "one token per band")?;
    let patch = at_least("patch", o.patch, 1, "s x s neighbourhood per token")?;
    let classes = at_least("classes", o.classes, 1, "one output per class")?;
    let dim = token_width(o.width, DEFAULT_DIM, HEADS)?;
    let tokens = bands + 1;

    let mut b = ModelBuilder::new("SpectralFormer", vec![bands, patch * patch * BAND_GROUP]);
    let mut c = Chain::new(&mut b, "input");
    c.then("embedding", ops::linear(dim))
        .then("cls_token", Op::ClassToken)
        .then("pos_embedding", Op::PositionEmbedding)
        .then("emb_drop", ops::dropout(DROPOUT));
    let block = EncoderBlock {
        dim,
        heads: HEADS,
        head_dim: Some(HEAD_DIM),
        qkv_bias: false,
        mlp_hidden: MLP_HIDDEN,
        dropout: DROPOUT,
    };
    // block_inputs[i] = the layer feeding block i (before any fusion), as the reference's
    // `last_output` list.
    let mut block_inputs = Vec::with_capacity(DEPTH);
    for i in 0..DEPTH {
        block_inputs.push(c.last.clone());
        if i >= CAF_SPAN {
            // x.unsqueeze(3): [T, dim] -> [T, dim, 1].
            let unsqueeze = || Op::Reshape {
                shape: vec![tokens, dim, 1],
            };
            let current = format!("caf{i}.current");
            let earlier = format!("caf{i}.earlier");
            c.join(&current, &[&block_inputs[i]], unsqueeze())
                .join(&earlier, &[&block_inputs[i - CAF_SPAN]], unsqueeze())
                .join(
                    &format!("caf{i}.stack"),
                    &[&current, &earlier],
                    Op::Concat { axis: 2 },
                )
                .then(
                    &format!("caf{i}.conv"),
                    Op::Conv {
                        dims: 2,
                        out_channels: tokens,
                        kernel: vec![1, 2],
                        stride: vec![],
                        padding: vec![],
                        dilation: vec![],
                        groups: 1,
                        bias: true,
                    },
                )
                .then(
                    &format!("caf{i}.squeeze"),
                    Op::Reshape {
                        shape: vec![tokens, dim],
                    },
                );
        }
        block.push(&mut c, &format!("block{i}"));
    }
    c.then("take_cls", Op::TakeToken { index: 0 })
        .then("head_norm", ops::layer_norm())
        .then("head", ops::linear(classes));
    Ok(b.build())
}
