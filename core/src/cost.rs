//! Cost model: owning an N-card box over its life versus renting the same GPU-hours.
//!
//! - capex = cards + NVLink bridges (one pair's price per bridged pair, with NVLink-bridged
//!   cards) + platform + PSU + cooling. Platform = base + per card, plus a
//!   premium above two cards (a board and CPU with enough PCIe lanes: HEDT / server).
//!   PSU watts = (cards x TDP + system base) x margin, priced per watt.
//! - energy (kWh) = (cards x TDP + system base) x utilization x lifetime hours x PUE / 1000.
//! - operations = (hours/month for one card + per extra card) x 12 x years x rate.
//! - TCO = capex + energy cost + operations. Cost per GPU-hour = TCO / (cards x lifetime
//!   hours x utilization), i.e. per GPU-hour actually used.
//! - cost per million samples and per experiment follow from the throughput and run time;
//!   the cloud alternative prices the same GPU-hours at an hourly rate.
//!
//! - a cluster is `nodes` such boxes (capex, energy, operations x nodes) plus a NIC, its
//!   switch port and cable per NIC (`network_usd_per_nic`); GPU-hours count every GPU.
//!
//! Every price below is a rough, dated default: set your own.

use serde::{Deserialize, Serialize};

pub use crate::assumptions::CostAssumptions;
use crate::choices::Currency;

use crate::gpu::GpuSpec;

const HOURS_PER_YEAR: f64 = 24.0 * 365.0;

/// What the cost model needs from the performance model.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Usage {
    /// Cards per node.
    pub cards: u32,
    pub nodes: u32,
    pub nics_per_node: u32,
    /// Samples per second over all cards in the chosen mode.
    pub samples_per_s: f64,
    /// Wall time of one run (workload.epochs epochs).
    pub run_s: f64,
    /// Cards one run occupies (all of them with DDP, one with parallel experiments).
    pub cards_per_run: u32,
    /// Pairs of cards joined by NVLink bridges, per node (0 without bridges).
    pub bridged_pairs: u32,
    /// Runs the box trains at once (1 with DDP, `cards` with parallel experiments).
    pub concurrent_runs: u32,
    pub sweep_runs: u32,
}

/// Where the card price of a cost estimate comes from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PriceBasis {
    /// `cost.card_price_usd`.
    Scenario,
    /// A dated listing with its source (`market`).
    Listed,
    /// A placeholder without a primary source (`market`, marked unverified).
    Guess,
    /// The card's launch price (`gpu`).
    Launch,
    /// None known: the figures that need it are not shown.
    #[default]
    Unknown,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CostReport {
    pub card_price_usd: f64,
    pub card_price_basis: PriceBasis,
    /// The listing's date and source (or why it is a guess) for a listed or guessed
    /// price; empty otherwise.
    pub card_price_seen: String,
    /// False when neither the scenario nor the catalog has a card price: the figures that
    /// contain it (cards, capex, TCO and every cost per unit) are not to be shown.
    pub card_price_known: bool,
    /// The cloud rate used, USD per GPU-hour (0 when unknown).
    pub cloud_usd_per_gpu_hour: f64,
    /// False when neither the scenario nor the catalog has a cloud rate: the cloud
    /// figures are not to be shown.
    pub cloud_rate_known: bool,
    /// The currency the figures are shown in, and its rate (the model computes in USD).
    pub currency: Currency,
    pub cny_per_usd: f64,
    pub cards_usd: f64,
    /// The NVLink bridges of every bridged pair (0 when none is needed or its price is
    /// unknown).
    pub bridges_usd: f64,
    /// False when bridges are needed and neither the scenario nor the catalog has their
    /// price: capex and TCO then leave them out, and the page says so.
    pub bridge_price_known: bool,
    /// The bridge price's date and source when it comes from the catalog; empty otherwise.
    pub bridge_price_seen: String,
    pub platform_usd: f64,
    /// One node's PSU capacity (a cluster has one per node).
    pub psu_watts: f64,
    pub psu_usd: f64,
    pub cooling_usd: f64,
    pub capex_usd: f64,
    pub energy_kwh: f64,
    pub energy_usd: f64,
    pub ops_usd: f64,
    pub tco_usd: f64,
    /// GPU-hours used over the lifetime (cards x hours x utilization).
    pub gpu_hours: f64,
    pub usd_per_gpu_hour: f64,
    pub usd_per_million_samples: f64,
    pub cloud_usd_per_million_samples: f64,
    pub experiment_gpu_hours: f64,
    pub usd_per_experiment: f64,
    pub cloud_usd_per_experiment: f64,
    /// Wall time to finish workload.sweep_runs runs on this box.
    pub sweep_wall_s: f64,
    pub sweep_usd: f64,
    pub cloud_sweep_usd: f64,
    /// Renting the same GPU-hours as the box delivers over its life.
    pub cloud_usd_same_usage: f64,
}

/// How a scenario writes a USD amount: in its currency, at its rate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Money {
    pub currency: Currency,
    pub cny_per_usd: f64,
}

impl Money {
    pub fn of(a: &CostAssumptions) -> Money {
        Money {
            currency: a.currency,
            cny_per_usd: a.cny_per_usd,
        }
    }

    /// Units of the currency per US dollar.
    pub fn per_usd(self) -> f64 {
        match self.currency {
            Currency::Usd => 1.0,
            Currency::Cny => self.cny_per_usd,
        }
    }

    pub fn text(self, usd: f64) -> String {
        match self.currency {
            Currency::Usd => crate::format::money(usd),
            Currency::Cny => crate::format::money_cny(usd * self.cny_per_usd),
        }
    }
}

impl CostReport {
    /// How the scenario shows costs: its currency at its rate.
    pub fn shown(&self) -> Money {
        Money {
            currency: self.currency,
            cny_per_usd: self.cny_per_usd,
        }
    }

    /// A USD amount in the currency the scenario shows costs in.
    pub fn money(&self, usd: f64) -> String {
        self.shown().text(usd)
    }
}

pub fn cost(a: &CostAssumptions, gpu: &GpuSpec, usage: &Usage) -> CostReport {
    let per_node = f64::from(usage.cards);
    let nodes = f64::from(usage.nodes.max(1));
    let cards = per_node * nodes;
    let network_usd = if usage.nodes > 1 {
        nodes * f64::from(usage.nics_per_node) * a.network_usd_per_nic
    } else {
        0.0
    };
    let price = a
        .card_price_usd
        .or_else(|| crate::market::default_card_price_usd(gpu, a.cny_per_usd));
    let market = crate::market::market_by_id(gpu.id);
    let listing = market.and_then(|m| m.street);
    let card_price_basis = match (a.card_price_usd, listing, gpu.launch_price_usd) {
        (Some(_), ..) => PriceBasis::Scenario,
        (None, Some(p), _) if p.unverified => PriceBasis::Guess,
        (None, Some(_), _) => PriceBasis::Listed,
        (None, None, Some(_)) => PriceBasis::Launch,
        (None, None, None) => PriceBasis::Unknown,
    };
    let seen = |p: crate::market::Price| format!("{}, {}", p.date, p.source);
    let card_price_seen = match card_price_basis {
        PriceBasis::Listed | PriceBasis::Guess => listing.map(seen).unwrap_or_default(),
        _ => String::new(),
    };
    let cloud_rate = a
        .cloud_usd_per_gpu_hour
        .or_else(|| crate::market::default_cloud_usd_per_hour(gpu, a.cny_per_usd));
    let cloud_usd_per_gpu_hour = cloud_rate.unwrap_or(0.0);
    let card_price_usd = price.unwrap_or(0.0);
    let cards_usd = cards * card_price_usd;
    let pair_price = a
        .bridge_usd_per_pair
        .or_else(|| crate::market::default_pair_bridge_usd(gpu, a.cny_per_usd));
    let pairs = nodes * f64::from(usage.bridged_pairs);
    let bridge_price_seen = match (a.bridge_usd_per_pair, market.and_then(|m| m.pair_bridge)) {
        (None, Some(p)) if pairs > 0.0 => seen(p),
        _ => String::new(),
    };
    let bridges_usd = pairs * pair_price.unwrap_or(0.0);
    let multi_gpu = if usage.cards > 2 {
        a.multi_gpu_platform_usd
    } else {
        0.0
    };
    let platform_usd = nodes
        * (a.platform_base_usd + per_node * a.platform_per_card_usd + multi_gpu)
        + network_usd;
    let draw_watts = nodes * (per_node * gpu.tdp_watts + a.system_base_watts);
    // One PSU per node.
    let psu_watts = draw_watts / nodes * a.psu_margin;
    let psu_usd = nodes * psu_watts * a.psu_usd_per_watt;
    let cooling_usd = cards * a.cooling_usd_per_card;
    let capex_usd = cards_usd + bridges_usd + platform_usd + psu_usd + cooling_usd;

    let busy_hours = HOURS_PER_YEAR * a.lifetime_years * a.utilization;
    let energy_kwh = draw_watts * busy_hours * a.pue / 1000.0;
    let energy_usd = energy_kwh * a.electricity_usd_per_kwh;
    let ops_hours_per_month =
        nodes * a.ops_hours_per_month + (cards - nodes) * a.ops_hours_per_month_per_extra_card;
    let ops_usd = ops_hours_per_month * 12.0 * a.lifetime_years * a.ops_usd_per_hour;
    let tco_usd = capex_usd + energy_usd + ops_usd;

    let gpu_hours = cards * busy_hours;
    let usd_per_gpu_hour = tco_usd / gpu_hours;
    let gpu_hours_per_million = |samples_per_s: f64| {
        if samples_per_s > 0.0 {
            cards * 1e6 / samples_per_s / 3600.0
        } else {
            0.0
        }
    };
    let million_gpu_hours = gpu_hours_per_million(usage.samples_per_s);
    let experiment_gpu_hours = f64::from(usage.cards_per_run) * usage.run_s / 3600.0;
    let rounds = usage.sweep_runs.div_ceil(usage.concurrent_runs.max(1));
    let sweep_runs = f64::from(usage.sweep_runs);
    CostReport {
        card_price_usd,
        card_price_basis,
        card_price_seen,
        card_price_known: price.is_some(),
        cloud_usd_per_gpu_hour,
        cloud_rate_known: cloud_rate.is_some(),
        currency: a.currency,
        cny_per_usd: a.cny_per_usd,
        cards_usd,
        bridges_usd,
        bridge_price_known: pairs == 0.0 || pair_price.is_some(),
        bridge_price_seen,
        platform_usd,
        psu_watts,
        psu_usd,
        cooling_usd,
        capex_usd,
        energy_kwh,
        energy_usd,
        ops_usd,
        tco_usd,
        gpu_hours,
        usd_per_gpu_hour,
        usd_per_million_samples: million_gpu_hours * usd_per_gpu_hour,
        cloud_usd_per_million_samples: million_gpu_hours * cloud_usd_per_gpu_hour,
        experiment_gpu_hours,
        usd_per_experiment: experiment_gpu_hours * usd_per_gpu_hour,
        cloud_usd_per_experiment: experiment_gpu_hours * cloud_usd_per_gpu_hour,
        sweep_wall_s: f64::from(rounds) * usage.run_s,
        sweep_usd: sweep_runs * experiment_gpu_hours * usd_per_gpu_hour,
        cloud_sweep_usd: sweep_runs * experiment_gpu_hours * cloud_usd_per_gpu_hour,
        cloud_usd_same_usage: gpu_hours * cloud_usd_per_gpu_hour,
    }
}
