//! The 2026 catalog in the estimate: ECC on a GDDR card costs a sixteenth of its memory and
//! some bandwidth, on an HBM card nothing; prices come from the market rows in the
//! scenario's currency; a card without a cloud rate says so.

use hsi_gpu_core::choices::Currency;
use hsi_gpu_core::gpu::gpu_by_id;
use hsi_gpu_core::market::{market_by_id, Ecc};
use hsi_gpu_core::{estimate, Scenario};

fn with_ecc(gpu: &str, ecc: bool) -> Scenario {
    let mut s = Scenario {
        gpu: gpu.into(),
        ecc,
        ..Scenario::default()
    };
    s.interconnect = hsi_gpu_core::scaling::valid_interconnects(gpu_by_id(gpu).unwrap())[0];
    s
}

#[test]
fn ecc_on_a_gddr_card_takes_a_sixteenth_of_the_memory_and_slows_memory_bound_work() {
    assert_eq!(market_by_id("rtx_a5500").unwrap().ecc, Ecc::Inline);
    let off = estimate(&with_ecc("rtx_a5500", false)).unwrap();
    let on = estimate(&with_ecc("rtx_a5500", true)).unwrap();
    assert_eq!(off.memory.ecc_reserved, 0.0);
    assert_eq!(on.memory.ecc_reserved, off.memory.capacity / 16.0);
    assert_eq!(
        on.memory.capacity,
        off.memory.capacity - on.memory.ecc_reserved
    );
    assert_eq!(
        on.memory.total, off.memory.total,
        "ECC changes the card, not the model"
    );
    assert!(on.max_batch < off.max_batch);
    assert!(on.perf.bandwidth_bytes_per_s < off.perf.bandwidth_bytes_per_s);
    assert!(on.perf.time.step_s > off.perf.time.step_s);
}

#[test]
fn ecc_on_an_hbm_card_costs_nothing() {
    let off = estimate(&with_ecc("v100s_pcie", false)).unwrap();
    let on = estimate(&with_ecc("v100s_pcie", true)).unwrap();
    assert_eq!(on.memory, off.memory);
    assert_eq!(on.perf.time, off.perf.time);
}

#[test]
fn prices_show_in_the_scenarios_currency_at_its_rate() {
    let mut s = Scenario::default();
    let usd = estimate(&s).unwrap().perf.cost;
    s.cost.currency = Currency::Cny;
    s.cost.cny_per_usd = 7.0;
    let cny = estimate(&s).unwrap().perf.cost;
    assert_eq!(usd.money(100.0), "$100");
    assert_eq!(cny.money(100.0), "¥700");
    // The model itself stays in USD: only CNY-listed prices depend on the rate.
    assert_eq!(cny.tco_usd, usd.tco_usd);
    let d = Scenario {
        gpu: "rtx_4090_d".into(),
        ..Scenario::default()
    };
    let price = estimate(&d).unwrap().perf.cost.card_price_usd;
    let listed = market_by_id("rtx_4090_d").unwrap().street.unwrap().amount;
    assert!((price - listed / d.cost.cny_per_usd).abs() < 1e-9);
}

#[test]
fn the_cloud_rate_is_the_cards_or_unknown() {
    let h100 = estimate(&with_ecc("h100_sxm", false)).unwrap().perf.cost;
    let listed = market_by_id("h100_sxm")
        .unwrap()
        .cloud_per_hour
        .unwrap()
        .amount;
    assert!(h100.cloud_rate_known);
    assert_eq!(h100.cloud_usd_per_gpu_hour, listed);
    let a5500 = estimate(&Scenario::default()).unwrap().perf.cost;
    assert!(!a5500.cloud_rate_known);
    let mut s = Scenario::default();
    s.cost.cloud_usd_per_gpu_hour = Some(0.8);
    let set = estimate(&s).unwrap().perf.cost;
    assert!(set.cloud_rate_known && set.cloud_usd_per_experiment > 0.0);
}

#[test]
fn a_comparison_option_says_whether_its_cards_fit_one_workstation() {
    use hsi_gpu_core::compare::evaluate;
    use hsi_gpu_core::market::ChassisIssue;
    let four = |gpu: &str| Scenario {
        gpu: gpu.into(),
        cards: 4,
        ..Scenario::default()
    };
    let a5500 = evaluate(&four("rtx_a5500")).unwrap().complexity.chassis;
    assert!(a5500.fits(), "{a5500:?}");
    assert_eq!(a5500.slots_needed, 8);
    let rtx4090 = evaluate(&four("rtx_4090")).unwrap().complexity.chassis;
    assert!(
        rtx4090.issues.contains(&ChassisIssue::TooWide),
        "{rtx4090:?}"
    );
    let mut roomy = four("rtx_4090");
    roomy.cost.chassis_slots = 12;
    roomy.cost.max_psu_watts = 4000.0;
    let open_frame = evaluate(&roomy).unwrap().complexity.chassis;
    assert_eq!(open_frame.issues, vec![ChassisIssue::OpenAirStacked]);
}
