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
//!
//! Midpoints of ranges are used. A price marked unverified is a placeholder: enter yours.

use super::{CardMarket, Cooler, Currency, Ecc, FormFactor, Price};

const RUNLOCALAI: &str = "runlocalai.co, Best GPU for local AI in 2026";
const NEWGEARHUB: &str = "newgearhub.com, Nvidia GTC 2026: Blackwell for pro workstations";
const RUNPOD: &str = "RunPod on-demand, via deploybase.ai RunPod GPU pricing 2026";
const V100_GUIDE: &str = "V100 SXM2 sourcing guide (user-written), eBay/Taobao used prices";
const NO_SOURCE: &str =
    "no dated listing found: placeholder between comparable cards; enter your quote";

const fn usd(amount: f64, date: &'static str, source: &'static str) -> Option<Price> {
    Some(Price {
        amount,
        currency: Currency::Usd,
        date,
        source,
        unverified: false,
    })
}

const fn guess_usd(amount: f64, date: &'static str) -> Option<Price> {
    Some(Price {
        amount,
        currency: Currency::Usd,
        date,
        source: NO_SOURCE,
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
        unverified,
    }
}

pub fn market_by_id(id: &str) -> Option<&'static CardMarket> {
    MARKET.iter().find(|m| m.id == id)
}

use Ecc::{Free, Inline};

#[rustfmt::skip]
pub static MARKET: &[CardMarket] = &[
    row("rtx_3090", Ecc::None, form(3, Cooler::OpenAir, "12-pin (FE); 2-3 x 8-pin PCIe on partner cards"), usd(850.0, "2026-05", RUNLOCALAI), usd(0.39, "2026-03", RUNPOD), &["ecc"]),
    row("rtx_3090_ti", Inline, THREE_OPEN_16, usd(850.0, "2026-05", RUNLOCALAI), None, &[]),
    row("rtx_4080", Ecc::None, THREE_OPEN_16, None, None, &["ecc"]),
    row("rtx_4090", Inline, THREE_OPEN_16, usd(1900.0, "2026-05", RUNLOCALAI), usd(0.60, "2026-03", RUNPOD), &[]),
    row("rtx_5090", Ecc::None, form(2, Cooler::OpenAir, HPWR_16), usd(2550.0, "2026-05", RUNLOCALAI), usd(1.22, "2026-03", RUNPOD), &[]),
    row("rtx_a4000", Inline, form(1, Cooler::Blower, "6-pin PCIe"), None, None, &[]),
    row("rtx_a4500", Inline, TWO_BLOWER_8, None, None, &[]),
    row("rtx_a5000", Inline, TWO_BLOWER_8, None, None, &[]),
    row("rtx_a5500", Inline, TWO_BLOWER_8, guess_usd(2500.0, "2026-11"), None, &["street"]),
    row("rtx_a6000", Inline, form(2, Cooler::Blower, CPU_8), None, None, &[]),
    row("rtx_6000_ada", Inline, form(2, Cooler::Blower, HPWR_16), None, None, &[]),
    row("l40s", Inline, TWO_PASSIVE_16, None, usd(1.40, "2026-03", RUNPOD), &[]),
    row("l4", Inline, form(1, Cooler::Passive, SLOT_ONLY), None, usd(0.78, "2026-03", RUNPOD), &["ecc"]),
    row("a10", Inline, form(1, Cooler::Passive, CPU_8), None, None, &[]),
    row("t4", Inline, form(1, Cooler::Passive, SLOT_ONLY), None, None, &[]),
    row("v100_pcie_16", Free, TWO_PASSIVE_EPS, None, None, &[]),
    row("v100_pcie_32", Free, TWO_PASSIVE_EPS, None, None, &[]),
    row("v100_sxm2_16", Free, SXM, None, None, &[]),
    row("v100_sxm2_32", Free, SXM, usd(325.0, "2026-02", V100_GUIDE), None, &["street"]),
    row("v100s_pcie", Free, TWO_PASSIVE_EPS, guess_usd(1000.0, "2026-11"), None, &["street"]),
    row("a100_40_pcie", Free, TWO_PASSIVE_EPS, None, None, &[]),
    row("a100_80_pcie", Free, TWO_PASSIVE_EPS, None, usd(2.10, "2026-03", RUNPOD), &[]),
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
    row("a40", Inline, TWO_PASSIVE_EPS, None, None, &[]),
    row("a800_80_pcie", Free, TWO_PASSIVE_EPS, None, None, &["form"]),
    row("a800_80_sxm", Free, SXM, None, None, &[]),
    row("h800_sxm", Free, SXM, None, None, &[]),
    row("h20", Free, SXM, None, None, &[]),
    row("rtx_2080_ti", Ecc::None, form(2, Cooler::OpenAir, "2 x 8-pin PCIe"), None, None, &[]),
    row("titan_rtx", Ecc::None, form(2, Cooler::OpenAir, "2 x 8-pin PCIe"), None, None, &[]),
    row("jetson_agx_orin_64", Ecc::None, form(0, Cooler::Module, "carrier board (dev kit: barrel jack / USB-C)"), None, None, &["ecc"]),
];
