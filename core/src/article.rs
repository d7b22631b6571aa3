//! Where the seed article's numbers are off, each figure computed by the core next to
//! the article's (quoted, never used as a result):
//!
//! - section 5.2: a first 3-D conv with 32 output channels that keeps the band axis, on a
//!   16 x 16 x 200 patch at batch 64, "about 4.2 GB" in fp32 and 2.1 GB with AMP: the
//!   analysis of that layer gives its output bytes;
//! - section 5.2: parameters, gradients and Adam states of a ~5 M-parameter model "about
//!   0.3 GB": the memory model for HybridSN (5.1 M parameters on Indian Pines);
//! - section 7.1: PCIe 4.0 x16 "about 32 GB/s bidirectional": the link rate per direction
//!   and both ways;
//! - section 6.2: fully connected layers "lean compute-bound": HybridSN's first linear
//!   layer at batch 64 in fp32, placed on the roofline of the article's four cards.

use serde::Serialize;

use crate::analysis::analyze;
use crate::graph::{ops, ModelBuilder};
use crate::perf::Bound;
use crate::scaling::pcie_x16_bytes_per_s;
use crate::scenario::{Precision, Scenario};

/// The article's figures, as printed (bytes and bytes/s, decimal as the article writes).
pub const ARTICLE_FIRST_LAYER_FP32_BYTES: f64 = 4.2e9;
pub const ARTICLE_FIRST_LAYER_AMP_BYTES: f64 = 2.1e9;
pub const ARTICLE_ADAM_5M_BYTES: f64 = 0.3e9;
pub const ARTICLE_PCIE4_BYTES_PER_S: f64 = 32e9;
/// The article's four cards (table 2).
pub const ARTICLE_CARDS: [&str; 4] = ["rtx_3090", "rtx_4090", "rtx_a5500", "v100s_pcie"];

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FirstLayer {
    pub batch: u64,
    /// Output elements of the layer for the batch.
    pub elements: f64,
    pub fp32_bytes: f64,
    pub amp_bytes: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AdamStates {
    pub model: String,
    pub params: u64,
    /// Weights + gradients + optimizer states, fp32 Adam.
    pub fp32_bytes: f64,
    /// The same with AMP (fp32 master weights and states, as the memory model keeps them).
    pub amp_bytes: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PcieLink {
    pub one_way_bytes_per_s: f64,
    pub both_ways_bytes_per_s: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LayerOnCard {
    pub gpu: String,
    /// FLOP per byte of the forward pass.
    pub intensity: f64,
    /// The card's ridge point for fp32, FLOP per byte.
    pub ridge: f64,
    pub memory_bound: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LinearLayer {
    pub model: String,
    pub layer: String,
    pub batch: u32,
    pub cards: Vec<LayerOnCard>,
}

impl LinearLayer {
    pub fn memory_bound_cards(&self) -> usize {
        self.cards.iter().filter(|c| c.memory_bound).count()
    }
}

/// Every correction, computed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ArticleCheck {
    pub first_layer: FirstLayer,
    pub adam_states: AdamStates,
    pub pcie4: PcieLink,
    pub linear_layer: LinearLayer,
}

fn first_layer() -> FirstLayer {
    let batch = 64;
    let mut b = ModelBuilder::new("section 5.2 first layer", vec![1, 200, 16, 16]);
    b.push(ops::conv(3, 32, &[3], &[1]));
    let spec = b.build();
    let out = |precision| {
        // Not `expect`: that would print the error's `Debug` (the errors' Debug impls
        // would follow into the page for a case that cannot happen).
        analyze(&spec, batch, precision)
            .unwrap_or_else(|_| unreachable!("a valid conv"))
            .layers[0]
            .output_bytes
    };
    let fp32_bytes = out(Precision::Fp32);
    FirstLayer {
        batch,
        elements: fp32_bytes / 4.0,
        fp32_bytes,
        amp_bytes: out(Precision::AmpFp16),
    }
}

fn adam_states() -> AdamStates {
    let states = |precision| {
        let s = Scenario {
            precision,
            ..Scenario::default()
        };
        let r =
            crate::estimate(&s).unwrap_or_else(|_| unreachable!("the default scenario estimates"));
        let m = &r.memory;
        (
            r.model_name,
            r.params,
            m.weights + m.gradients + m.optimizer_states,
        )
    };
    let (model, params, fp32_bytes) = states(Precision::Fp32);
    AdamStates {
        model,
        params,
        fp32_bytes,
        amp_bytes: states(Precision::AmpFp16).2,
    }
}

fn linear_layer() -> LinearLayer {
    let base = Scenario {
        precision: Precision::Fp32,
        ..Scenario::default()
    };
    let mut cards = Vec::new();
    let mut layer = String::new();
    let mut model = String::new();
    for id in ARTICLE_CARDS {
        let s = Scenario {
            gpu: id.into(),
            ..base.clone()
        };
        let r =
            crate::estimate(&s).unwrap_or_else(|_| unreachable!("the article's cards estimate"));
        let l = r
            .perf
            .layers
            .iter()
            .find(|l| l.kind == "linear")
            .expect("HybridSN has linear layers");
        let roof = &l.forward.roofline;
        layer.clone_from(&l.name);
        model.clone_from(&r.model_name);
        let gpu = crate::gpu::gpu_by_id(id).expect("catalog card");
        cards.push(LayerOnCard {
            gpu: gpu.name.into(),
            intensity: roof.intensity,
            ridge: roof.ridge,
            memory_bound: roof.bound == Bound::Memory,
        });
    }
    LinearLayer {
        model,
        layer,
        batch: base.batch_per_gpu,
        cards,
    }
}

pub fn article_check() -> ArticleCheck {
    let one_way = pcie_x16_bytes_per_s(4);
    ArticleCheck {
        first_layer: first_layer(),
        adam_states: adam_states(),
        pcie4: PcieLink {
            one_way_bytes_per_s: one_way,
            both_ways_bytes_per_s: 2.0 * one_way,
        },
        linear_layer: linear_layer(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_layer_is_a_tenth_of_the_articles_figure() {
        let f = article_check().first_layer;
        // 64 x 32 x 16 x 16 x 200 values, as the article multiplies them.
        assert_eq!(f.elements, 64.0 * 32.0 * 16.0 * 16.0 * 200.0);
        let ratio = ARTICLE_FIRST_LAYER_FP32_BYTES / f.fp32_bytes;
        assert!((9.9..10.1).contains(&ratio), "{ratio}");
        assert_eq!(f.amp_bytes, f.fp32_bytes / 2.0);
    }

    #[test]
    fn adam_states_of_hybridsn_are_well_below_the_articles_figure() {
        let a = article_check().adam_states;
        assert!((4_500_000..5_500_000).contains(&a.params), "{}", a.params);
        // 16 B per parameter either way.
        assert_eq!(a.fp32_bytes, 16.0 * a.params as f64);
        assert_eq!(a.amp_bytes, a.fp32_bytes);
        assert!(a.fp32_bytes < ARTICLE_ADAM_5M_BYTES / 3.0);
    }

    #[test]
    fn pcie4_x16_carries_the_articles_figure_each_way() {
        let p = article_check().pcie4;
        assert!((p.one_way_bytes_per_s / ARTICLE_PCIE4_BYTES_PER_S - 1.0).abs() < 0.02);
        assert_eq!(p.both_ways_bytes_per_s, 2.0 * p.one_way_bytes_per_s);
    }

    #[test]
    fn hybridsns_first_linear_layer_is_memory_bound_on_three_of_the_four_cards() {
        let l = article_check().linear_layer;
        assert_eq!(l.cards.len(), 4);
        assert_eq!(l.memory_bound_cards(), 3, "{l:?}");
        let v100s = l.cards.iter().find(|c| c.gpu.starts_with("V100S")).unwrap();
        assert!(!v100s.memory_bound);
    }
}
