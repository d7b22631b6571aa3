//! One market row per catalog card (see the parent module for what each field means).
//!
//! Form factors are NVIDIA's reference / Founders Edition boards (product pages and
//! datasheets; partner GeForce cards are often wider). Prices:
//! - RUNLOCALAI: runlocalai.co "Best GPU for local AI in 2026" (May 2026): RTX 5090
//!   $2,300-2,800 street, RTX 4090 $1,800-2,000 new, RTX 3090 / 3090 Ti $700-1,000 used.
//! - NEWGEARHUB: newgearhub.com "Nvidia GTC 2026" (April 2026): RTX PRO 6000 Blackwell
//!   retailing at $8,000-9,200.
//! - RUNPOD: RunPod's on-demand rates per GPU-hour, March 2026, as tabulated by
//!   deploybase.ai "RunPod GPU pricing: 2026 comprehensive pricing guide" (one provider for
//!   every card it lists, so the rates compare; specialty-cloud medians are lower, e.g.
//!   H100 SXM about $2.95 in aimultiple.com's May 2026 index).
//! - V100_GUIDE: a user-written V100 sourcing guide (claude.ai public artifact, early
//!   2026): V100 32 GB modules $200-450 on eBay/Taobao; not a primary source.
//! - 4090 D: NVIDIA China's launch price, CNY 12,999 (December 2023), as widely reported.
//! - TRACKER: github.com/United-Compute/gpu-price-tracker, daily new-card listing prices
//!   (data/NVIDIA_RTX_A5000.json: $1,909.99 on 2025-08-04; data/NVIDIA_RTX_A6000.json:
//!   $5,172.96 on 2025-07-21; data/NVIDIA_Tesla_V100_SXM2_32_GB.json: $2,592 on
//!   2025-07-20). It does not track the RTX A5500 or the V100S.
//!
//! No dated listing was found for the article's RTX A5500 and V100S PCIe 32 GB (searched:
//! retailer and price-tracker pages, Hugging Face's hardware catalog, price datasets on
//! GitHub; June 2026). They keep placeholders marked unverified, placed by their
//! siblings' sourced prices: the A5500 (24 GB, 80 SMs) between the A5000 (24 GB, 64 SMs,
//! $1,910) and the A6000 (48 GB, 84 SMs, $5,173); the V100S between used V100 32 GB
//! modules ($200-450, V100_GUIDE) and a new-listed V100 SXM2 32 GB ($2,592, TRACKER).
//!
//! NVLink bridges, the price of joining one pair:
//! - GeForce RTX 3090 bridge: $40-80 used on eBay (localrig.pages.dev "Is NVLink worth it
//!   in 2026?"; runaihome.com "Multi-GPU for local AI in 2026", the same range); NVIDIA no
//!   longer sells it.
//! - RTX A-series / A40 bridge (NVIDIA's Ampere 2- and 3-slot bridges, PNY NVLAMP-2SLOT-PB:
//!   PNY's "Choosing the right NVLink bridge", April 2021, lists it for the RTX A6000 and
//!   the A40; the A4500-A5500 take the same 2-way low-profile bridge): "about 70 euros"
//!   at the A6000's launch (geektopia.es, 2020-10-05), $82 at 1.18 USD/EUR; not a 2026
//!   price.
//! - A100 PCIe: a pair takes three bridges; a set of three A100 bridges (P3655) sold for
//!   EUR 100 on eBay, used (r/homelab, "Building a custom 4-slot NVLink bridge for RTX
//!   3090", April 2025), $113 at 1.13 USD/EUR.
//! - Turing (RTX 2080 Ti, TITAN RTX): NVIDIA's GeForce RTX NVLink bridge at $79 at launch
//!   (TechPowerUp's RTX 2080 Ti NVLink review, September 2018; Puget Systems' 2019 chart:
//!   it works on the TITAN RTX).
//! - No price was found for the H100 PCIe, H200 NVL and A800 PCIe bridges.
//!
//! Midpoints of ranges are used. A price marked unverified is a placeholder: enter yours.

use super::{CardMarket, Cooler, Currency, Ecc, FormFactor, Price};

const RUNLOCALAI: &str = "runlocalai.co, Best GPU for local AI in 2026";
const NEWGEARHUB: &str = "newgearhub.com, Nvidia GTC 2026: Blackwell for pro workstations";
const RUNPOD: &str = "RunPod on-demand, via deploybase.ai RunPod GPU pricing 2026";
const V100_GUIDE: &str = "V100 SXM2 sourcing guide (user-written), eBay/Taobao used prices";
const TRACKER: &str = "United-Compute/gpu-price-tracker (GitHub), new-card listing price";
const A5500_GUESS: &str =
    "no dated listing found: a guess between the RTX A5000 ($1,910, 2025-08) \
     and RTX A6000 ($5,173, 2025-07) listings (gpu-price-tracker); enter your quote";
const V100S_GUESS: &str = "no dated listing found: a guess between used V100 32 GB modules \
     ($200-450, 2026) and a new-listed V100 SXM2 32 GB ($2,592, 2025-07); enter your quote";
const BRIDGE_3090: &str = "used on eBay, $40-80 (localrig.pages.dev; runaihome.com, 2026)";
const BRIDGE_AMPERE_PRO: &str =
    "RTX A6000 / A40 NVLink bridge, about EUR 70 at launch (geektopia.es), at 1.18 USD/EUR";
const BRIDGE_A100: &str =
    "a set of three A100 PCIe bridges, EUR 100 used on eBay (r/homelab), at 1.13 USD/EUR";
const BRIDGE_TURING: &str = "GeForce RTX NVLink bridge at launch (TechPowerUp)";

const fn usd(amount: f64, date: &'static str, source: &'static str) -> Option<Price> {
    Some(Price {
        amount,
        currency: Currency::Usd,
        date,
        source,
        unverified: false,
    })
}

const fn guess_usd(amount: f64, date: &'static str, why: &'static str) -> Option<Price> {
    Some(Price {
        amount,
        currency: Currency::Usd,
        date,
        source: why,
        unverified: true,
    })
}

const fn form(slots: u8, cooler: Cooler, power: &'static str) -> FormFactor {
    FormFactor {
        slots,
        cooler,
        power,
    }
}

const PCIE_8: &str = "8-pin PCIe";
const CPU_8: &str = "8-pin CPU (EPS)";
const HPWR_16: &str = "16-pin 12VHPWR / 12V-2x6";
const SLOT_ONLY: &str = "none (slot power)";
const SXM: FormFactor = form(0, Cooler::Module, "server baseboard (SXM)");
const TWO_PASSIVE_EPS: FormFactor = form(2, Cooler::Passive, CPU_8);
const TWO_PASSIVE_16: FormFactor = form(2, Cooler::Passive, HPWR_16);
const TWO_BLOWER_8: FormFactor = form(2, Cooler::Blower, PCIE_8);
const THREE_OPEN_16: FormFactor = form(3, Cooler::OpenAir, HPWR_16);

const fn row(
    id: &'static str,
    ecc: Ecc,
    form: FormFactor,
    street: Option<Price>,
    cloud_per_hour: Option<Price>,
    unverified: &'static [&'static str],
) -> CardMarket {
    CardMarket {
        id,
        ecc,
        form,
        street,
        cloud_per_hour,
        pair_bridge: None,
        unverified,
    }
}

impl CardMarket {
    /// The row with the price of joining a pair with NVLink.
    const fn bridged(mut self, pair_bridge: Option<Price>) -> CardMarket {
        self.pair_bridge = pair_bridge;
        self
    }
}

const GA102_PRO_BRIDGE: Option<Price> = usd(82.0, "2020-10", BRIDGE_AMPERE_PRO);
const TURING_NVLINK: Option<Price> = usd(79.0, "2018-09", BRIDGE_TURING);
const A100_PCIE_BRIDGES: Option<Price> = usd(113.0, "2025-04", BRIDGE_A100);

pub fn market_by_id(id: &str) -> Option<&'static CardMarket> {
    MARKET.iter().find(|m| m.id == id)
}

use Ecc::{Free, Inline};

#[rustfmt::skip]
pub static MARKET: &[CardMarket] = &[
    row("rtx_3090", Ecc::None, form(3, Cooler::OpenAir, "12-pin (FE); 2-3 x 8-pin PCIe on partner cards"), usd(850.0, "2026-05", RUNLOCALAI), usd(0.39, "2026-03", RUNPOD), &["ecc"]).bridged(usd(60.0, "2026", BRIDGE_3090)),
    row("rtx_3090_ti", Inline, THREE_OPEN_16, usd(850.0, "2026-05", RUNLOCALAI), None, &[]),
    row("rtx_4080", Ecc::None, THREE_OPEN_16, None, None, &["ecc"]),
    row("rtx_4090", Inline, THREE_OPEN_16, usd(1900.0, "2026-05", RUNLOCALAI), usd(0.60, "2026-03", RUNPOD), &[]),
    row("rtx_5090", Ecc::None, form(2, Cooler::OpenAir, HPWR_16), usd(2550.0, "2026-05", RUNLOCALAI), usd(1.22, "2026-03", RUNPOD), &[]),
    row("rtx_a4000", Inline, form(1, Cooler::Blower, "6-pin PCIe"), None, None, &[]),
    row("rtx_a4500", Inline, TWO_BLOWER_8, None, None, &[]).bridged(GA102_PRO_BRIDGE),
    row("rtx_a5000", Inline, TWO_BLOWER_8, usd(1910.0, "2025-08", TRACKER), None, &[]).bridged(GA102_PRO_BRIDGE),
    row("rtx_a5500", Inline, TWO_BLOWER_8, guess_usd(2500.0, "2026-06", A5500_GUESS), None, &["street"]).bridged(GA102_PRO_BRIDGE),
    row("rtx_a6000", Inline, form(2, Cooler::Blower, CPU_8), usd(5173.0, "2025-07", TRACKER), None, &[]).bridged(GA102_PRO_BRIDGE),
    row("rtx_6000_ada", Inline, form(2, Cooler::Blower, HPWR_16), None, None, &[]),
    row("l40s", Inline, TWO_PASSIVE_16, None, usd(1.40, "2026-03", RUNPOD), &[]),
    row("l4", Inline, form(1, Cooler::Passive, SLOT_ONLY), None, usd(0.78, "2026-03", RUNPOD), &["ecc"]),
    row("a10", Inline, form(1, Cooler::Passive, CPU_8), None, None, &[]),
    row("t4", Inline, form(1, Cooler::Passive, SLOT_ONLY), None, None, &[]),
    row("v100_pcie_16", Free, TWO_PASSIVE_EPS, None, None, &[]),
    row("v100_pcie_32", Free, TWO_PASSIVE_EPS, None, None, &[]),
    row("v100_sxm2_16", Free, SXM, None, None, &[]),
    row("v100_sxm2_32", Free, SXM, usd(325.0, "2026-02", V100_GUIDE), None, &["street"]),
    row("v100s_pcie", Free, TWO_PASSIVE_EPS, guess_usd(1000.0, "2026-06", V100S_GUESS), None, &["street"]),
    row("a100_40_pcie", Free, TWO_PASSIVE_EPS, None, None, &[]).bridged(A100_PCIE_BRIDGES),
    row("a100_80_pcie", Free, TWO_PASSIVE_EPS, None, usd(2.10, "2026-03", RUNPOD), &[]).bridged(A100_PCIE_BRIDGES),
    row("a100_80_sxm", Free, SXM, None, usd(2.45, "2026-03", RUNPOD), &[]),
    row("h100_pcie", Free, TWO_PASSIVE_16, None, usd(3.51, "2026-03", RUNPOD), &[]),
    row("h100_sxm", Free, SXM, None, usd(4.76, "2026-03", RUNPOD), &[]),
    row("h200_sxm", Free, SXM, None, usd(6.35, "2026-03", RUNPOD), &[]),
    row("h200_nvl", Free, TWO_PASSIVE_16, None, None, &[]),
    row("b200", Free, SXM, None, usd(10.57, "2026-03", RUNPOD), &[]),
    row("rtx_pro_6000_bw", Inline, form(2, Cooler::OpenAir, HPWR_16), usd(8600.0, "2026-04", NEWGEARHUB), usd(1.57, "2026-03", RUNPOD), &["ecc"]),
    row("rtx_5080", Ecc::None, form(2, Cooler::OpenAir, HPWR_16), None, None, &[]),
    row("rtx_5070_ti", Ecc::None, THREE_OPEN_16, None, None, &["form"]),
    row("rtx_4090_d", Inline, THREE_OPEN_16, Some(Price { amount: 12999.0, currency: Currency::Cny, date: "2023-12", source: "NVIDIA China launch price (as reported)", unverified: false }), None, &["ecc", "form"]),
    row("l40", Inline, TWO_PASSIVE_16, None, usd(1.22, "2026-03", RUNPOD), &[]),
    row("a40", Inline, TWO_PASSIVE_EPS, None, None, &[]).bridged(GA102_PRO_BRIDGE),
    row("a800_80_pcie", Free, TWO_PASSIVE_EPS, None, None, &["form"]),
    row("a800_80_sxm", Free, SXM, None, None, &[]),
    row("h800_sxm", Free, SXM, None, None, &[]),
    row("h20", Free, SXM, None, None, &[]),
    row("rtx_2080_ti", Ecc::None, form(2, Cooler::OpenAir, "2 x 8-pin PCIe"), None, None, &[]).bridged(TURING_NVLINK),
    row("titan_rtx", Ecc::None, form(2, Cooler::OpenAir, "2 x 8-pin PCIe"), None, None, &[]).bridged(TURING_NVLINK),
    row("jetson_agx_orin_64", Ecc::None, form(0, Cooler::Module, "carrier board (dev kit: barrel jack / USB-C)"), None, None, &["ecc"]),
];
