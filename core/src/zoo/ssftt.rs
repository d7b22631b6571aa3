//! SSFTT: Sun, Zhao, Zheng, Wu, "Spectral-Spatial Feature Tokenization Transformer for
//! Hyperspectral Image Classification", IEEE TGRS 60, 2022.
//! Reference implementation: github.com/zgr6010/HSI_SSFTT, `cls_SSFTT_IP/SSFTTnet.py`,
//! class `SSFTTnet` (num_tokens 4, dim 64, depth 1, heads 8, mlp_dim 8, dropout 0.1).
//!
//! The input is the PCA-reduced cube (30 components for Indian Pines in the paper), so
//! `bands` here means the number of PCA components. Layers: Conv3d 1->8 (3,3,3) + BN + ReLU;
//! reshape to 8*(B-2) channels; Conv2d ->64 3x3 + BN + ReLU; the Gaussian-weighted
//! tokenizer (A = softmax over pixels of (x W_A)^T, T = A (x W_V), L = 4 tokens of width
//! dim); class token; position embedding; dropout; one pre-norm encoder block; head on
//! the class token.
//!
//! Deviations: the reference writes the tokenizer as `torch.einsum` on parameters
//! `token_wA` [1, L, 64] and `token_wV` [1, 64, dim]; here they are bias-free Linear
//! layers (same parameters, same FLOPs). Memory agrees too: einsum broadcasts the
//! parameter's size-1 batch by folding batch and pixels into one matrix product, which
//! copies the strided [pixels, 64] view once per einsum, as a Linear on that view does.
//! At Indian Pines defaults (B = 30, s = 13,
//! 16 classes) this gives 153,224 parameters, the count the paper reports.
//! `model.width` sets dim (default 64, a multiple of the 8 heads); the Conv2d stays at
//! 64 channels as in the reference.

use super::transformer::{at_least, reject_option, token_width, Chain, EncoderBlock};
use super::ZooOptions;
use crate::graph::{ops, Activation, ModelBuilder, ModelSpec, Op};
use crate::problems::FieldError;

const CONV3D_CHANNELS: u64 = 8;
const CONV2D_CHANNELS: u64 = 64;
const TOKENS: u64 = 4;
const DEFAULT_DIM: u64 = 64;
const HEADS: u64 = 8;
const MLP_HIDDEN: u64 = 8;
const DROPOUT: f64 = 0.1;

pub fn build(o: &ZooOptions) -> Result<ModelSpec, FieldError> {
    reject_option("model.size", o.size, "SSFTT")?;
    // Two valid 3x3 convolutions shrink the patch by 4 and the 3-D kernel the bands by 2.
    let bands = at_least("bands", o.bands, 3, "the 3x3x3 Conv3d is unpadded")?;
    let patch = at_least("patch", o.patch, 5, "two unpadded 3x3 convolutions")?;
    let classes = at_least("classes", o.classes, 1, "one output per class")?;
    let dim = token_width(o.width, DEFAULT_DIM, HEADS)?;
    let pixels = (patch - 4) * (patch - 4);

    let mut b = ModelBuilder::new("SSFTT", vec![1, bands, patch, patch]);
    let mut c = Chain::new(&mut b, "input");
    c.then("conv3d", ops::conv(3, CONV3D_CHANNELS, &[3], &[0]))
        .then("bn3d", Op::BatchNorm)
        .then("relu3d", ops::relu())
        .then(
            "to_2d",
            Op::Reshape {
                shape: vec![CONV3D_CHANNELS * (bands - 2), patch - 2, patch - 2],
            },
        )
        .then("conv2d", ops::conv(2, CONV2D_CHANNELS, &[3], &[0]))
        .then("bn2d", Op::BatchNorm)
        .then("relu2d", ops::relu())
        .then(
            "flatten_pixels",
            Op::Reshape {
                shape: vec![CONV2D_CHANNELS, pixels],
            },
        )
        .then("pixels", Op::Permute { order: vec![1, 0] })
        // A = softmax over the pixels of (x W_A)^T: one map of the pixels per token.
        .then("token_wa", linear_no_bias(TOKENS))
        .then("token_wa_t", Op::Permute { order: vec![1, 0] })
        .then("token_attention", ops::act(Activation::Softmax))
        // T = A (x W_V).
        .join("token_wv", &["pixels"], linear_no_bias(dim))
        .join("tokens", &["token_attention", "token_wv"], Op::Matmul)
        .then("cls_token", Op::ClassToken)
        .then("pos_embedding", Op::PositionEmbedding)
        .then("emb_drop", ops::dropout(DROPOUT));
    EncoderBlock {
        dim,
        heads: HEADS,
        head_dim: None,
        qkv_bias: true,
        mlp_hidden: MLP_HIDDEN,
        dropout: DROPOUT,
    }
    .push(&mut c, "block0");
    c.then("take_cls", Op::TakeToken { index: 0 })
        .then("head", ops::linear(classes));
    Ok(b.build())
}

fn linear_no_bias(out_features: u64) -> Op {
    Op::Linear {
        out_features,
        bias: false,
    }
}
