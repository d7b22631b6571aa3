//! Pieces shared by the CNN presets (Hu 1-D, Hamida 3-D, HybridSN, SSRN, DBDA, U-Net):
//! option checks and the layer shapes the graph's shorthand constructors lack.

use super::transformer::unused_option;
use super::ZooOptions;
use crate::graph::Op;
use crate::problems::FieldError;

/// Largest channel count the `model.width` option accepts.
pub(crate) const MAX_CHANNELS: u32 = 4096;

/// Rejects `model.width` and `model.size` for a preset that has neither.
pub(crate) fn no_options(o: &ZooOptions, model: &str) -> Result<(), FieldError> {
    if let Some(width) = o.width {
        return Err(unused_option("model.width", width, model));
    }
    no_size(o, model)
}

/// Rejects `model.size` (only the ViT has sizes).
pub(crate) fn no_size(o: &ZooOptions, model: &str) -> Result<(), FieldError> {
    match o.size {
        Some(size) => Err(unused_option(
            "model.size",
            format!("{size:?}").to_ascii_lowercase(),
            model,
        )),
        None => Ok(()),
    }
}

/// The channel count `model.width` sets (1 to `MAX_CHANNELS`), else the paper's `default`.
pub(crate) fn channels(width: Option<u32>, default: u64) -> Result<u64, FieldError> {
    match width {
        None => Ok(default),
        Some(w) if (1..=MAX_CHANNELS).contains(&w) => Ok(u64::from(w)),
        Some(w) => Err(FieldError {
            field: "model.width".into(),
            value: w.to_string(),
            allowed: format!(
                "a channel count from 1 to {MAX_CHANNELS}, or empty for the paper's {default}"
            ),
        }),
    }
}

/// A biased 3-D convolution with per-dimension kernel, stride and padding.
pub(crate) fn conv3d(out: u64, kernel: [u64; 3], stride: [u64; 3], padding: [u64; 3]) -> Op {
    Op::Conv {
        dims: 3,
        out_channels: out,
        kernel: kernel.to_vec(),
        stride: stride.to_vec(),
        padding: padding.to_vec(),
        dilation: vec![],
        groups: 1,
        bias: true,
    }
}
