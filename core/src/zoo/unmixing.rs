//! Spectral unmixing autoencoder (DAEU): Palsson, Sigurdsson, Sveinsson, Ulfarsson,
//! "Hyperspectral Unmixing Using a Neural Network Autoencoder", IEEE Access 6, 2018.
//!
//! Input [B]: one pixel's spectrum. Encoder: bias-free Linear layers to 9R, 6R, 3R and R
//! units (R endmembers), each followed by LeakyReLU(0.1); BatchNorm1d; the abundance
//! sum-to-one constraint; dropout (p 0.0045, the port's); decoder: one bias-free
//! Linear R -> B whose weights are the endmembers. Output [B], the reconstruction.
//! Deviations: the dynamical soft threshold relu(x - alpha) (R learned thresholds) is
//! a ReLU, and the sum-to-one division x / sum(x) is a softmax (no op divides by a
//! sum; softmax keeps its output, the division both its operands). The planner's loss
//! is cross-entropy over the output; an autoencoder trains on MSE or the spectral
//! angle, which keep the output and the input spectrum (about as many bytes).
//! `model.width` sets R, the endmembers (default 4: Jasper Ridge's).

use super::cnn::{channels, no_size};
use super::transformer::at_least;
use super::ZooOptions;
use crate::graph::{ops, Activation, ModelBuilder, ModelSpec, Op};
use crate::problems::FieldError;

const ENDMEMBERS: u64 = 4;
const DROPOUT: f64 = 0.0045;

fn bias_free(out_features: u64) -> Op {
    Op::Linear {
        out_features,
        bias: false,
    }
}

pub fn build(o: &ZooOptions) -> Result<ModelSpec, FieldError> {
    no_size(o, "the unmixing autoencoder")?;
    let r = channels(o.width, ENDMEMBERS)?;
    let bands = at_least("bands", o.bands, 2, "a spectrum to reconstruct")?;
    let mut b = ModelBuilder::new("Unmixing autoencoder (Palsson)", vec![bands]);
    for units in [9 * r, 6 * r, 3 * r, r] {
        b.push(bias_free(units))
            .push(ops::act(Activation::LeakyRelu));
    }
    b.push(Op::BatchNorm)
        .push(ops::relu())
        .push(ops::act(Activation::Softmax))
        .push(ops::dropout(DROPOUT))
        .push(bias_free(bands));
    Ok(b.build())
}
