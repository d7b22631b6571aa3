//! ViT-style HSI foundation model, the architecture family of SpectralGPT (Hong et al.,
//! IEEE TPAMI 2024, github.com/danfenghong/IEEE_TPAMI_SpectralGPT) and HyperSIGMA (Wang
//! et al., arXiv 2406.11519, github.com/WHU-Sigma/HyperSIGMA, `SpatialVisionTransformer`),
//! written as a plain ViT (Dosovitskiy et al., ICLR 2021; timm `VisionTransformer`).
//!
//! Simplification: one Conv2d patch embedding (8 x 8 patches, stride 8, all B bands as
//! input channels) over the s x s tile, class token, learned position embedding, `depth`
//! pre-norm blocks (LayerNorm, attention with qkv bias, add, LayerNorm, Linear 4d, GELU,
//! Linear d, add; no dropout), final LayerNorm and a Linear head on the class token.
//! SpectralGPT's 3-D spectral tokens, HyperSIGMA's sparse sampling attention and its
//! separate spectral branch are not modelled: they change the token count and attention
//! pattern, not the order of magnitude of parameters and activations.
//! Sizes follow ViT-S/B/L/H (dim/depth/heads 384/12/6, 768/12/12, 1024/24/16,
//! 1280/32/16, MLP 4 x dim): about 22 M to 630 M parameters in the encoder; ViT-g
//! (1408/40/16, MLP 6144; Zhai et al., "Scaling Vision Transformers", CVPR 2022, Table 2:
//! 1,011 M) gives about 1.0 B, the scale of HyperSIGMA ("over one billion parameters").

use super::transformer::{at_least, reject_option, Chain, EncoderBlock};
use super::ZooOptions;
use crate::choices::VitSize;
use crate::graph::{ops, ModelBuilder, ModelSpec, Op};
use crate::problems::FieldError;

/// Side of the square patches the embedding cuts the tile into.
pub const PATCH_SIZE: u64 = 8;
/// Hidden width of the MLP as a multiple of dim (ViT's mlp_ratio) for ViT-S to ViT-H.
const MLP_RATIO: u64 = 4;
/// Tile side used when the UI has no other choice: 64 x 64 px gives 64 tokens.
pub const DEFAULT_TILE: u32 = 64;

/// dim, depth and heads of each ViT size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VitShape {
    pub dim: u64,
    pub depth: u64,
    pub heads: u64,
    /// Hidden width of each block's MLP.
    pub mlp: u64,
}

pub fn shape(size: VitSize) -> VitShape {
    let (dim, depth, heads, mlp) = match size {
        VitSize::Small => (384, 12, 6, MLP_RATIO * 384),
        VitSize::Base => (768, 12, 12, MLP_RATIO * 768),
        VitSize::Large => (1024, 24, 16, MLP_RATIO * 1024),
        VitSize::Huge => (1280, 32, 16, MLP_RATIO * 1280),
        VitSize::Giant => (1408, 40, 16, 6144),
    };
    VitShape {
        dim,
        depth,
        heads,
        mlp,
    }
}

/// The tile side (a multiple of `PATCH_SIZE`) and the size of a ViT preset's options.
pub(crate) fn tile(o: &ZooOptions) -> Result<(u64, VitSize), FieldError> {
    let patch = u64::from(o.patch);
    if patch == 0 || patch % PATCH_SIZE != 0 {
        return Err(FieldError {
            field: "patch".into(),
            value: patch.to_string(),
            allowed: format!("a positive multiple of {PATCH_SIZE} (the ViT patch size)"),
        });
    }
    Ok((patch, o.size.unwrap_or(VitSize::Base)))
}

/// Conv patch embedding to `dim` channels: `kernel` = stride (2-D, or 3-D with bands).
pub(crate) fn patch_embed(dims: u8, dim: u64, kernel: Vec<u64>) -> Op {
    Op::Conv {
        dims,
        out_channels: dim,
        stride: kernel.clone(),
        kernel,
        padding: vec![],
        dilation: vec![],
        groups: 1,
        bias: true,
    }
}

pub fn build(o: &ZooOptions) -> Result<ModelSpec, FieldError> {
    reject_option("model.width", o.width, "the ViT (it has model.size)")?;
    let bands = at_least("bands", o.bands, 1, "input channels of the patch embedding")?;
    let classes = at_least("classes", o.classes, 1, "one output per class")?;
    let (patch, size) = tile(o)?;
    let VitShape {
        dim,
        depth,
        heads,
        mlp,
    } = shape(size);
    let grid = patch / PATCH_SIZE;

    let mut b = ModelBuilder::new(
        &format!("ViT-{}", size_letter(size)),
        vec![bands, patch, patch],
    );
    let mut c = Chain::new(&mut b, "input");
    c.then("patch_embed", patch_embed(2, dim, vec![PATCH_SIZE]))
        .then(
            "flatten_grid",
            Op::Reshape {
                shape: vec![dim, grid * grid],
            },
        )
        .then("tokens", Op::Permute { order: vec![1, 0] })
        .then("cls_token", Op::ClassToken)
        .then("pos_embedding", Op::PositionEmbedding);
    let block = EncoderBlock {
        dim,
        heads,
        head_dim: None,
        qkv_bias: true,
        mlp_hidden: mlp,
        dropout: 0.0,
    };
    for i in 0..depth {
        block.push(&mut c, &format!("block{i}"));
    }
    c.then("norm", Op::LayerNorm)
        .then("take_cls", Op::TakeToken { index: 0 })
        .then("head", ops::linear(classes));
    Ok(b.build())
}

fn size_letter(size: VitSize) -> &'static str {
    match size {
        VitSize::Small => "S",
        VitSize::Base => "B",
        VitSize::Large => "L",
        VitSize::Huge => "H",
        VitSize::Giant => "g",
    }
}
