//! Masked-autoencoder pre-training of the ViT foundation model (He et al., CVPR 2022;
//! github.com/facebookresearch/mae models_mae.py `MaskedAutoencoderViT`): the encoder
//! sees only the visible tokens, a narrower decoder rebuilds every patch.
//!
//! Two token layouts: `mae_vit` cuts the s x s tile into 8 x 8 patches over all bands (the
//! zoo's ViT, HyperSIGMA's spatial MAE: github.com/WHU-Sigma/HyperSIGMA, ViT-B/L/H);
//! `mae_spectralgpt` cuts 3 bands x 8 x 8 cubes with a Conv3d, so T = B/3 x (s/8)^2
//! (SpectralGPT, Hong et al., IEEE TPAMI 2024, github.com/danfenghong/IEEE_TPAMI_SpectralGPT
//! `mae_vit_base_patch8_128`: 12 bands, t_patch_size 3, mask ratio 0.90 then 0.75).
//!
//! Per step: patch embedding of all T tokens, the random masking as a gather of the
//! T' = T x (1 - mask_ratio) kept tokens (int(), as MAE rounds), class token, the ViT
//! encoder blocks on T' + 1 tokens, LayerNorm, decoder embedding (Linear to the decoder
//! width), the restore as a gather of T tokens, class token, decoder blocks (16 heads),
//! LayerNorm, prediction Linear to the pixels of a patch, class token dropped.
//! Deviations: MAE's fixed sin-cos position embeddings (buffers) and their adds are left
//! out, the mask token's and the decoder class token's d parameters are the class-token
//! op's; the loss is the estimator's cross-entropy over [pixels per patch, T], which
//! keeps as many bytes as MAE's mean-squared error (its fp32 difference, and a T-sized
//! mask instead of the int64 targets).

use super::transformer::{at_least, reject_option, Chain, EncoderBlock};
use super::vit::{patch_embed, shape, tile, VitShape, PATCH_SIZE};
use super::ZooOptions;
use crate::foundation::Mae;
use crate::graph::{ops, ModelBuilder, ModelSpec, Op};
use crate::problems::FieldError;

/// Zoo ids of the two layouts.
pub const SPATIAL: &str = "mae_vit";
pub const SPECTRAL: &str = "mae_spectralgpt";
/// Bands per token of SpectralGPT's 3-D patches (t_patch_size).
pub const SPECTRAL_GROUP: u64 = 3;
/// Decoder heads (MAE's decoder_num_heads).
const DECODER_HEADS: u64 = 16;

/// The spatial layout with the default mask ratio and decoder.
pub fn build_spatial(o: &ZooOptions) -> Result<ModelSpec, FieldError> {
    build(o, &Mae::default(), None)
}

/// The spectral (SpectralGPT) layout with the default mask ratio and decoder.
pub fn build_spectral(o: &ZooOptions) -> Result<ModelSpec, FieldError> {
    build(o, &Mae::default(), Some(SPECTRAL_GROUP))
}

/// The MAE step for `o` and `mae`; `group` bands per token (3-D patches) or all bands.
pub fn build(o: &ZooOptions, mae: &Mae, group: Option<u64>) -> Result<ModelSpec, FieldError> {
    reject_option(
        "model.width",
        o.width,
        "the MAE presets (they have model.size)",
    )?;
    let bands = at_least("bands", o.bands, 1, "input bands")?;
    let (patch, size) = tile(o)?;
    // A width the 16 heads do not divide is refused by the decoder's attention layers.
    let decoder_dim = u64::from(mae.decoder_dim);
    let VitShape {
        dim,
        depth,
        heads,
        mlp,
    } = shape(size);
    let grid = (patch / PATCH_SIZE) * (patch / PATCH_SIZE);
    let (input, embed, tokens, pixels) = match group {
        Some(t) => {
            // Like PyTorch's Conv3d, bands beyond the last whole group are dropped.
            let embed = patch_embed(3, dim, vec![t, PATCH_SIZE, PATCH_SIZE]);
            (
                vec![1, bands, patch, patch],
                embed,
                bands / t * grid,
                t * PATCH_SIZE * PATCH_SIZE,
            )
        }
        None => {
            let embed = patch_embed(2, dim, vec![PATCH_SIZE]);
            (
                vec![bands, patch, patch],
                embed,
                grid,
                bands * PATCH_SIZE * PATCH_SIZE,
            )
        }
    };
    // MAE keeps int(T x (1 - mask_ratio)) tokens; at least one.
    let kept = ((tokens as f64 * (1.0 - mae.mask_ratio)) as u64).max(1);

    let mut b = ModelBuilder::new(&format!("MAE ViT-{size:?}"), input);
    let mut c = Chain::new(&mut b, "input");
    c.then("patch_embed", embed)
        .then(
            "flatten_grid",
            Op::Reshape {
                shape: vec![dim, tokens],
            },
        )
        .then("tokens", Op::Permute { order: vec![1, 0] })
        .then("mask", Op::GatherTokens { count: kept })
        .then("cls_token", Op::ClassToken);
    let encoder = EncoderBlock {
        dim,
        heads,
        head_dim: None,
        qkv_bias: true,
        mlp_hidden: mlp,
        dropout: 0.0,
    };
    for i in 0..depth {
        encoder.push(&mut c, &format!("block{i}"));
    }
    c.then("norm", Op::LayerNorm)
        .then("decoder_embed", ops::linear(decoder_dim))
        .then(
            "drop_cls",
            Op::Slice {
                axis: 0,
                start: 1,
                end: kept + 1,
                step: 1,
            },
        )
        .then("restore", Op::GatherTokens { count: tokens })
        .then("decoder_cls", Op::ClassToken);
    let decoder = EncoderBlock {
        dim: decoder_dim,
        heads: DECODER_HEADS,
        head_dim: None,
        qkv_bias: true,
        mlp_hidden: 4 * decoder_dim,
        dropout: 0.0,
    };
    for i in 0..u64::from(mae.decoder_depth) {
        decoder.push(&mut c, &format!("decoder{i}"));
    }
    c.then("decoder_norm", Op::LayerNorm)
        .then("decoder_pred", ops::linear(pixels))
        .then(
            "pred",
            Op::Slice {
                axis: 0,
                start: 1,
                end: tokens + 1,
                step: 1,
            },
        )
        .then("per_pixel", Op::Permute { order: vec![1, 0] });
    Ok(b.build())
}
