//! What every file of the analysis uses: element sizes, bytes as functions of the batch,
//! a convolution's shape, and checked size arithmetic. Imports nothing of the analysis.

use serde::{Deserialize, Serialize};

pub(super) const FP32: u64 = 4;
pub(super) const INT64: u64 = 8;
pub(super) const MASK: u64 = 1;

/// Bytes that grow linearly with the batch: `per_sample x batch + fixed`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Bytes {
    pub per_sample: f64,
    pub fixed: f64,
}

impl Bytes {
    pub const ZERO: Bytes = Bytes {
        per_sample: 0.0,
        fixed: 0.0,
    };

    pub fn at(self, batch: u64) -> f64 {
        self.per_sample * batch as f64 + self.fixed
    }
}

impl std::ops::Add for Bytes {
    type Output = Bytes;
    fn add(self, o: Bytes) -> Bytes {
        Bytes {
            per_sample: self.per_sample + o.per_sample,
            fixed: self.fixed + o.fixed,
        }
    }
}

impl std::ops::AddAssign for Bytes {
    fn add_assign(&mut self, o: Bytes) {
        *self = *self + o;
    }
}

/// One convolution as cuDNN sees it, per sample: channels, spatial extents, window, and
/// which gradients backward computes.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ConvShape {
    pub in_channels: u64,
    pub out_channels: u64,
    pub groups: u64,
    pub input: Vec<u64>,
    pub output: Vec<u64>,
    pub kernel: Vec<u64>,
    pub stride: Vec<u64>,
    pub padding: Vec<u64>,
    pub dilation: Vec<u64>,
    /// The input gradient (backward data) is computed.
    pub input_grad: bool,
    /// The weight gradient (backward filter) is computed.
    pub weight_grad: bool,
    /// Bytes of one element of the operands (4 fp32/tf32, 2 in 16 bit).
    pub element_bytes: u64,
}

/// Expands a per-dimension list: empty = default, one entry = repeated.
pub(super) fn per_dim(list: &[u64], dims: usize, default: u64) -> Option<Vec<u64>> {
    match list.len() {
        0 => Some(vec![default; dims]),
        1 => Some(vec![list[0]; dims]),
        n if n == dims => Some(list.to_vec()),
        _ => None,
    }
}

/// Product that stops at u64::MAX instead of overflowing: absurd sizes then fail the
/// output-size and parameter limits with a field error.
pub(super) fn saturating_product(xs: &[u64]) -> u64 {
    xs.iter().fold(1u64, |acc, &d| acc.saturating_mul(d))
}

pub(super) fn checked_product(shape: &[u64]) -> Option<u64> {
    shape.iter().try_fold(1u64, |acc, &d| acc.checked_mul(d))
}
