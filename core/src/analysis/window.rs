//! Sliding windows of convolutions and pools (PyTorch's output-size formula).

use super::base::per_dim;
use super::ctx::bad;

/// Output length of a sliding window (PyTorch's formula; ceil mode adds a last, partial
/// window unless it would start in the padding).
fn window_out(
    len: u64,
    kernel: u64,
    stride: u64,
    padding: u64,
    dilation: u64,
    ceil_mode: bool,
) -> Option<u64> {
    let span = dilation
        .checked_mul(kernel.checked_sub(1)?)?
        .checked_add(1)?;
    let padded = len.checked_add(padding.checked_mul(2)?)?;
    if stride == 0 || kernel == 0 || padded < span {
        return None;
    }
    let round_up = if ceil_mode { stride - 1 } else { 0 };
    let out = (padded - span).checked_add(round_up)? / stride + 1;
    let starts_in_padding = ceil_mode && (out - 1).checked_mul(stride)? >= len + padding;
    Some(out - u64::from(starts_in_padding))
}

/// A window's per-dimension kernel, stride, padding and dilation.
pub(super) struct Window {
    pub(super) kernel: Vec<u64>,
    pub(super) stride: Vec<u64>,
    pub(super) padding: Vec<u64>,
    pub(super) dilation: Vec<u64>,
    /// Pools only: PyTorch's ceil_mode.
    pub(super) ceil_mode: bool,
}

pub(super) fn window(
    dims: usize,
    kernel: &[u64],
    stride: &[u64],
    padding: &[u64],
    dilation: &[u64],
    stride_default_kernel: bool,
) -> Result<Window, (String, String)> {
    let list = |l: &[u64], default: u64, what: &str| {
        per_dim(l, dims, default).ok_or_else(|| {
            bad(
                format!("{what} {l:?}"),
                format!("empty, one value, or {dims} values"),
            )
        })
    };
    let kernel = list(kernel, 1, "kernel")?;
    if kernel.is_empty() || kernel.contains(&0) {
        return Err(bad(format!("kernel {kernel:?}"), "positive sizes"));
    }
    let stride = if stride.is_empty() && stride_default_kernel {
        kernel.clone()
    } else {
        list(stride, 1, "stride")?
    };
    Ok(Window {
        stride,
        padding: list(padding, 0, "padding")?,
        dilation: list(dilation, 1, "dilation")?,
        kernel,
        ceil_mode: false,
    })
}

pub(super) fn window_output(spatial: &[u64], w: &Window) -> Result<Vec<u64>, (String, String)> {
    spatial
        .iter()
        .enumerate()
        .map(|(i, &len)| {
            window_out(
                len,
                w.kernel[i],
                w.stride[i],
                w.padding[i],
                w.dilation[i],
                w.ceil_mode,
            )
            .ok_or_else(|| {
                bad(
                    format!(
                        "input size {len} with kernel {} (dilation {}, padding {})",
                        w.kernel[i], w.dilation[i], w.padding[i]
                    ),
                    "an input at least as large as the dilated kernel, and stride >= 1",
                )
            })
        })
        .collect()
}
