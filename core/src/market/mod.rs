//! What a card costs and what it asks of a workstation, beside its datasheet (`gpu`):
//! ECC and its cost, form factor, a dated street price and a dated cloud rate.
//!
//! - **ECC.** HBM stacks carry ECC in dedicated storage: turning it on costs nothing.
//!   On GDDR cards ECC is stored inline: CUDA's Best Practices Guide ("Theoretical
//!   Bandwidth Calculation") says the available DRAM drops by 6.25 % (1/16) and fetching
//!   the check bits costs "approximately 20 %" of effective bandwidth, "higher" for some
//!   access patterns. A T4 with ECC on reports 15 of its 16 GB (NVIDIA developer forum
//!   thread 173099; exafunction.com/blog/ecc-gpu). The bandwidth loss is a named,
//!   editable constant; the capacity loss follows from the format. GeForce 3090 Ti and
//!   4090 let the driver turn the same inline ECC on; the RTX 5090 no longer does
//!   (notebookcheck.net, 2025).
//! - **Form factor** of the reference / Founders Edition board: slots, cooler, power
//!   connector. SXM modules need an HGX/DGX server board; passive cards need a server's
//!   forced airflow.
//! - **Prices** are dated market observations with their source, in the currency they
//!   were seen in; an `unverified` price has no primary source and is only a placeholder
//!   so that a TCO is not $0: enter your quote. A card with an NVLink bridge connector
//!   also has the price of joining one pair (`pair_bridge`): one bridge for GA102 and
//!   Turing cards, the three bridges an A100 PCIe pair takes.

mod cards;

use serde::{Deserialize, Serialize};

pub use crate::choices::Currency;
use crate::gpu::{gpu_by_id, GpuSpec};
use crate::scenario::Scenario;

use crate::assumptions::CostAssumptions;
pub use crate::assumptions::{DEFAULT_CNY_PER_USD, DEFAULT_GDDR_ECC_BANDWIDTH_LOSS};
pub use cards::{market_by_id, MARKET};

/// Fraction of GDDR capacity inline ECC takes (CUDA Best Practices Guide: 6.25 %).
pub const GDDR_ECC_CAPACITY_FRACTION: f64 = 1.0 / 16.0;

/// What turning ECC on costs a card.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Ecc {
    /// No ECC the user can turn on.
    None,
    /// HBM with dedicated ECC storage: no capacity or bandwidth cost.
    Free,
    /// GDDR with inline ECC: 1/16 of capacity and some bandwidth.
    Inline,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Cooler {
    /// Radial fan exhausting through the bracket: stacks in adjacent slots.
    Blower,
    /// Axial fans blowing into the case (and the card above).
    OpenAir,
    /// No fan: needs a server chassis's forced airflow.
    Passive,
    /// Module on a server baseboard or carrier (SXM, Jetson).
    Module,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct FormFactor {
    /// PCIe slot widths the card occupies (0 for a module).
    pub slots: u8,
    pub cooler: Cooler,
    /// Board power connector.
    pub power: &'static str,
}

/// A dated price and where it was seen.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Price {
    pub amount: f64,
    pub currency: Currency,
    /// When it was observed, `YYYY-MM` (`YYYY` where the source gives only the year).
    pub date: &'static str,
    pub source: &'static str,
    /// No primary source: a placeholder estimate.
    pub unverified: bool,
}

impl Price {
    pub fn usd(&self, cny_per_usd: f64) -> f64 {
        match self.currency {
            Currency::Usd => self.amount,
            Currency::Cny => self.amount / cny_per_usd,
        }
    }
}

/// One card's market row.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct CardMarket {
    pub id: &'static str,
    pub ecc: Ecc,
    pub form: FormFactor,
    /// Street price of one card (new unless the source says used).
    pub street: Option<Price>,
    /// On-demand cloud rent per GPU-hour.
    pub cloud_per_hour: Option<Price>,
    /// The NVLink bridge(s) joining one pair of these cards; None for a card without a
    /// bridge connector, or one whose bridge has no price we found.
    pub pair_bridge: Option<Price>,
    /// Fields without a primary source (names as in this struct and `FormFactor`).
    pub unverified: &'static [&'static str],
}

/// The card as it behaves with ECC on: inline ECC gives up 1/16 of the memory and
/// `bandwidth_loss` of the bandwidth; free and absent ECC change nothing.
pub fn with_ecc(gpu: &GpuSpec, ecc: Ecc, bandwidth_loss: f64) -> GpuSpec {
    let mut out = *gpu;
    if ecc == Ecc::Inline {
        out.memory_bytes = ecc_usable_bytes(gpu.memory_bytes);
        out.bandwidth_bytes_per_s *= 1.0 - bandwidth_loss;
    }
    out
}

/// The scenario's card as it runs: the catalog card, with ECC's cost when `ecc` is on.
/// None for an id the catalog lacks.
pub fn scenario_card(s: &Scenario) -> Option<GpuSpec> {
    let gpu = gpu_by_id(&s.gpu)?;
    Some(match (s.ecc, market_by_id(gpu.id)) {
        (true, Some(m)) => with_ecc(gpu, m.ecc, s.memory.ecc_bandwidth_loss),
        _ => *gpu,
    })
}

/// Bytes the scenario's card gives up to ECC (0 with ECC off or free).
pub fn ecc_reserved_bytes(s: &Scenario) -> f64 {
    match (gpu_by_id(&s.gpu), scenario_card(s)) {
        (Some(physical), Some(running)) => {
            physical.memory_bytes.saturating_sub(running.memory_bytes) as f64
        }
        _ => 0.0,
    }
}

/// Memory left to programs on an inline-ECC card with ECC on.
pub fn ecc_usable_bytes(physical: u64) -> u64 {
    physical - (physical as f64 * GDDR_ECC_CAPACITY_FRACTION) as u64
}

/// The price a cost estimate starts from, USD: the user's, else the dated street price,
/// else the launch price; None when none is known (cost figures then ask for one).
pub fn default_card_price_usd(gpu: &GpuSpec, cny_per_usd: f64) -> Option<f64> {
    market_by_id(gpu.id)
        .and_then(|m| m.street)
        .map(|p| p.usd(cny_per_usd))
        .or(gpu.launch_price_usd)
}

/// What joining one pair of these cards with NVLink costs, USD, when a price is known.
pub fn default_pair_bridge_usd(gpu: &GpuSpec, cny_per_usd: f64) -> Option<f64> {
    market_by_id(gpu.id)
        .and_then(|m| m.pair_bridge)
        .map(|p| p.usd(cny_per_usd))
}

/// The dated cloud rate for a card, USD per GPU-hour, when one is known.
pub fn default_cloud_usd_per_hour(gpu: &GpuSpec, cny_per_usd: f64) -> Option<f64> {
    market_by_id(gpu.id)
        .and_then(|m| m.cloud_per_hour)
        .map(|p| p.usd(cny_per_usd))
}

/// Why N cards may not go into the workstation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChassisIssue {
    /// More slot widths than the chassis has.
    TooWide,
    /// The sustained draw with the PSU margin exceeds the largest single PSU.
    TooMuchPower,
    /// SXM or other modules need a server baseboard.
    NeedsServerBoard,
    /// Passive cards need a server chassis's forced airflow.
    NeedsServerAirflow,
    /// Open-air coolers stacked without a gap blow into each other.
    OpenAirStacked,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChassisFit {
    pub slots_needed: u32,
    pub slots: u32,
    /// (cards x TDP + system) x PSU margin, W.
    pub psu_watts_needed: f64,
    pub issues: Vec<ChassisIssue>,
}

impl ChassisFit {
    pub fn fits(&self) -> bool {
        self.issues.is_empty()
    }
}

/// Whether `cards` such cards fit one workstation (`cost.chassis_slots`,
/// `cost.max_psu_watts`; the draw is the cost model's: cards x TDP + system, x PSU margin).
pub fn chassis_fit(gpu: &GpuSpec, cards: u32, a: &CostAssumptions) -> ChassisFit {
    let form = market_by_id(gpu.id).map(|m| m.form);
    let slots_needed = form.map_or(0, |f| u32::from(f.slots) * cards);
    let psu_watts_needed = (f64::from(cards) * gpu.tdp_watts + a.system_base_watts) * a.psu_margin;
    let mut issues = Vec::new();
    if slots_needed > a.chassis_slots {
        issues.push(ChassisIssue::TooWide);
    }
    if psu_watts_needed > a.max_psu_watts {
        issues.push(ChassisIssue::TooMuchPower);
    }
    match form.map(|f| f.cooler) {
        Some(Cooler::Module) => issues.push(ChassisIssue::NeedsServerBoard),
        Some(Cooler::Passive) => issues.push(ChassisIssue::NeedsServerAirflow),
        // Two open-air cards fit with a gap in an 8-slot tower; more stack.
        Some(Cooler::OpenAir) if cards > 2 => issues.push(ChassisIssue::OpenAirStacked),
        _ => {}
    }
    ChassisFit {
        slots_needed,
        slots: a.chassis_slots,
        psu_watts_needed,
        issues,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::{gpu_by_id, GPUS};

    #[test]
    fn every_card_has_one_market_row_and_every_row_a_card() {
        for g in GPUS {
            assert!(market_by_id(g.id).is_some(), "{} has no market row", g.id);
        }
        for m in MARKET {
            assert!(gpu_by_id(m.id).is_some(), "market row {} has no card", m.id);
            assert_eq!(
                MARKET.iter().filter(|o| o.id == m.id).count(),
                1,
                "{}",
                m.id
            );
        }
    }

    #[test]
    fn inline_ecc_costs_a_sixteenth_and_hbm_ecc_nothing() {
        let t4 = gpu_by_id("t4").unwrap();
        let on = with_ecc(t4, market_by_id("t4").unwrap().ecc, 0.2);
        assert_eq!(on.memory_bytes, 15 << 30);
        assert!((on.bandwidth_bytes_per_s / t4.bandwidth_bytes_per_s - 0.8).abs() < 1e-12);
        let v100s = gpu_by_id("v100s_pcie").unwrap();
        assert_eq!(
            with_ecc(v100s, market_by_id("v100s_pcie").unwrap().ecc, 0.2),
            *v100s
        );
    }

    #[test]
    fn ecc_kind_follows_the_memory_type() {
        for g in GPUS {
            let ecc = market_by_id(g.id).unwrap().ecc;
            if g.memory_type.starts_with("HBM") {
                assert_eq!(ecc, Ecc::Free, "{}", g.id);
            } else if g.ecc {
                assert_eq!(ecc, Ecc::Inline, "{}", g.id);
            }
        }
    }

    #[test]
    fn the_articles_cards_have_a_price() {
        for id in ["rtx_3090", "rtx_4090", "rtx_a5500", "v100s_pcie"] {
            let g = gpu_by_id(id).unwrap();
            assert!(
                default_card_price_usd(g, DEFAULT_CNY_PER_USD).unwrap() > 0.0,
                "{id}"
            );
        }
    }

    #[test]
    fn four_blower_cards_fit_a_tower_and_four_4090s_do_not() {
        let a = CostAssumptions::default();
        let a5500 = gpu_by_id("rtx_a5500").unwrap();
        let fit = chassis_fit(a5500, 4, &a);
        assert!(fit.fits(), "{fit:?}");
        let rtx4090 = gpu_by_id("rtx_4090").unwrap();
        let fit = chassis_fit(rtx4090, 4, &a);
        assert!(fit.issues.contains(&ChassisIssue::TooWide));
        assert!(fit.issues.contains(&ChassisIssue::TooMuchPower));
        let h100 = gpu_by_id("h100_sxm").unwrap();
        let fit = chassis_fit(h100, 1, &a);
        assert_eq!(fit.issues, vec![ChassisIssue::NeedsServerBoard]);
    }

    #[test]
    fn cny_prices_convert_at_the_given_rate() {
        let p = Price {
            amount: 710.0,
            currency: Currency::Cny,
            date: "2026-01",
            source: "test",
            unverified: false,
        };
        assert!((p.usd(7.1) - 100.0).abs() < 1e-9);
    }
}
