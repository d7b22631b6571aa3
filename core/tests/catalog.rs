//! The 2026 catalog in the estimate: ECC on a GDDR card costs a sixteenth of its memory and
//! some bandwidth, on an HBM card nothing; prices come from the market rows in the
//! scenario's currency; a card without a cloud rate says so; settings the card or the
//! dataset cannot have are estimated as asked, with a remark.

use hsi_gpu_core::choices::{Currency, Interconnect};
use hsi_gpu_core::gpu::gpu_by_id;
use hsi_gpu_core::market::{market_by_id, Ecc};
use hsi_gpu_core::warning::Warning;
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
fn ecc_on_a_card_without_it_changes_nothing_and_says_so() {
    assert_eq!(market_by_id("rtx_3090").unwrap().ecc, Ecc::None);
    let off = estimate(&with_ecc("rtx_3090", false)).unwrap();
    let on = estimate(&with_ecc("rtx_3090", true)).unwrap();
    assert_eq!((&on.memory, &on.perf.time), (&off.memory, &off.perf.time));
    let ignored = Warning::EccIgnored {
        gpu: "RTX 3090".into(),
    };
    assert!(on.warnings.contains(&ignored), "{:?}", on.warnings);
    assert!(!off.warnings.contains(&ignored));
    // A card whose ECC costs something, or nothing, has no such remark.
    for gpu in ["rtx_a5500", "v100s_pcie"] {
        let on = estimate(&with_ecc(gpu, true)).unwrap();
        assert!(!on
            .warnings
            .iter()
            .any(|w| matches!(w, Warning::EccIgnored { .. })));
    }
}

#[test]
fn bands_or_a_patch_beyond_the_dataset_are_estimated_as_asked_and_remarked() {
    let remarks = |json: &str| {
        let s = hsi_gpu_core::scenario::scenario_from_json(json).unwrap();
        estimate(&s).unwrap().warnings
    };
    // Indian Pines: 224 bands (200 used), 145 x 145 px.
    assert_eq!(remarks(r#"{"bands": 224, "patch": 145}"#), vec![]);
    assert_eq!(
        remarks(r#"{"bands": 225, "patch": 146}"#),
        vec![
            Warning::BandsOverDataset {
                bands: 225,
                dataset: "Indian Pines".into(),
                raw: 224,
                used: 200,
            },
            Warning::PatchOverScene {
                patch: 146,
                dataset: "Indian Pines".into(),
                height: 145,
                width: 145,
            },
        ]
    );
    // Pavia University's scene is 610 x 340: the narrower side bounds a square patch.
    let pavia = remarks(r#"{"dataset": "pavia_university", "bands": 103, "patch": 341}"#);
    assert!(
        matches!(&pavia[..], [Warning::PatchOverScene { patch: 341, .. }]),
        "{pavia:?}"
    );
    // A custom model loads its own input: the scenario's bands and patch do not apply.
    let custom = r#"{"bands": 999, "patch": 999, "model": {"kind": "custom", "spec": {"name": "m",
        "input": [1, 200, 16, 16], "layers": [{"op": "flatten"}, {"op": "linear", "out_features": 16}]}}}"#;
    assert_eq!(remarks(custom), vec![]);
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

fn four_bridged(gpu: &str) -> Scenario {
    Scenario {
        gpu: gpu.into(),
        cards: 4,
        interconnect: Interconnect::NvlinkBridge,
        ..Scenario::default()
    }
}

#[test]
fn nvlink_bridged_pairs_cost_their_bridges_and_pcie_boxes_do_not() {
    let bridged = estimate(&four_bridged("rtx_a5500")).unwrap().perf.cost;
    let pcie = estimate(&Scenario {
        interconnect: Interconnect::Pcie,
        ..four_bridged("rtx_a5500")
    })
    .unwrap()
    .perf
    .cost;
    let pair = market_by_id("rtx_a5500")
        .unwrap()
        .pair_bridge
        .expect("the A5500 bridge has a dated price")
        .amount;
    // Four cards are two bridged pairs.
    assert_eq!(bridged.bridges_usd, 2.0 * pair);
    assert_eq!(pcie.bridges_usd, 0.0);
    assert!(bridged.bridge_price_known && pcie.bridge_price_known);
    assert!((bridged.capex_usd - pcie.capex_usd - 2.0 * pair).abs() < 1e-6);
    assert!(bridged.bridge_price_seen.contains("2020-10"));
    // The user's own quote replaces the catalog's.
    let mut quoted = four_bridged("rtx_a5500");
    quoted.cost.bridge_usd_per_pair = Some(300.0);
    assert_eq!(estimate(&quoted).unwrap().perf.cost.bridges_usd, 600.0);
    // A bridge without a known price is left out and said so, never counted as $0 silently.
    let h100 = estimate(&four_bridged("h100_pcie")).unwrap().perf.cost;
    assert!(!h100.bridge_price_known);
    assert_eq!(h100.bridges_usd, 0.0);
}

#[test]
fn every_bridge_connector_has_a_dated_bridge_price_or_is_a_known_gap() {
    use hsi_gpu_core::gpu::{NvLink, GPUS};
    // No price was found for these bridges (market/cards.rs says so).
    let unpriced = ["h100_pcie", "h200_nvl", "a800_80_pcie"];
    for g in GPUS {
        let bridge = market_by_id(g.id).unwrap().pair_bridge;
        match g.nvlink {
            NvLink::Bridge { .. } if unpriced.contains(&g.id) => {
                assert!(bridge.is_none(), "{}", g.id)
            }
            NvLink::Bridge { .. } => {
                let p = bridge.unwrap_or_else(|| panic!("{} has no bridge price", g.id));
                assert!(p.amount > 0.0 && !p.date.is_empty() && !p.source.is_empty());
            }
            _ => assert!(bridge.is_none(), "{} has no bridge connector", g.id),
        }
    }
}

#[test]
fn the_articles_cards_say_where_their_price_comes_from() {
    use hsi_gpu_core::cost::PriceBasis;
    let basis = |gpu: &str| {
        let c = estimate(&Scenario {
            gpu: gpu.into(),
            ..Scenario::default()
        })
        .unwrap()
        .perf
        .cost;
        (c.card_price_basis, c.card_price_seen)
    };
    // No dated listing exists for the A5500 and the V100S: their prices stay guesses, with
    // the siblings' sourced listings that bracket them.
    for gpu in ["rtx_a5500", "v100s_pcie"] {
        let (b, seen) = basis(gpu);
        assert_eq!(b, PriceBasis::Guess, "{gpu}");
        assert!(seen.contains("no dated listing found"), "{gpu}: {seen}");
        assert!(market_by_id(gpu).unwrap().street.unwrap().unverified);
    }
    for gpu in ["rtx_3090", "rtx_4090", "rtx_a5000", "rtx_a6000"] {
        let (b, seen) = basis(gpu);
        assert_eq!(b, PriceBasis::Listed, "{gpu}");
        assert!(seen.starts_with("20"), "{gpu}: a date first: {seen}");
    }
    assert_eq!(basis("rtx_4080").0, PriceBasis::Launch);
    assert_eq!(basis("l40s").0, PriceBasis::Unknown);
    let mut yours = Scenario::default();
    yours.cost.card_price_usd = Some(1234.0);
    let c = estimate(&yours).unwrap().perf.cost;
    assert_eq!(
        (c.card_price_basis, c.card_price_usd),
        (PriceBasis::Scenario, 1234.0)
    );
}

/// Every card estimates from the default scenario (PCIe): a card without that link is
/// estimated on its own (NVSwitch for an SXM module) and the report says so, the same
/// figures as when the scenario names that link.
#[test]
fn every_card_estimates_on_a_link_it_has() {
    use hsi_gpu_core::gpu::GPUS;
    use hsi_gpu_core::report::Warning;
    for gpu in GPUS {
        let plain = Scenario {
            gpu: gpu.id.into(),
            cards: 4,
            ..Scenario::default()
        };
        let own = with_ecc(gpu.id, false);
        let mut on_own = estimate(&Scenario {
            cards: 4,
            ..own.clone()
        })
        .unwrap();
        let mut report = estimate(&plain).unwrap_or_else(|e| panic!("{}: {e:?}", gpu.id));
        if own.interconnect == Interconnect::Pcie {
            assert_eq!(report, on_own, "{}", gpu.id);
            continue;
        }
        let remark = Warning::LinkReplaced {
            gpu: gpu.name.into(),
            nvswitch: true,
        };
        assert_eq!(report.warnings.pop(), Some(remark), "{}", gpu.id);
        assert_eq!(report.perf.scaling.chosen, Interconnect::Nvswitch);
        on_own
            .warnings
            .retain(|w| !matches!(w, Warning::LinkReplaced { .. }));
        assert_eq!(report, on_own, "{}", gpu.id);
    }
    // A link the card lacks otherwise (a bridge on a card without the connector): PCIe.
    let bridged = Scenario {
        gpu: "rtx_4090".into(),
        interconnect: Interconnect::NvlinkBridge,
        cards: 2,
        ..Scenario::default()
    };
    let report = estimate(&bridged).unwrap();
    assert_eq!(report.perf.scaling.chosen, Interconnect::Pcie);
    assert!(report.warnings.contains(&Warning::LinkReplaced {
        gpu: "RTX 4090".into(),
        nvswitch: false,
    }));
}

#[test]
fn the_topologies_offered_are_the_cards_own_and_the_scenarios_choice() {
    use hsi_gpu_core::interconnect_choices;
    let on = |gpu: &str, interconnect| Scenario {
        gpu: gpu.into(),
        interconnect,
        ..Scenario::default()
    };
    assert_eq!(
        interconnect_choices(&on("rtx_a5500", Interconnect::Pcie)),
        [Interconnect::Pcie, Interconnect::NvlinkBridge]
    );
    assert_eq!(
        interconnect_choices(&on("rtx_4090", Interconnect::Pcie)),
        [Interconnect::Pcie]
    );
    // A choice the card lacks stays listed, after the card's own, so a select shows it.
    assert_eq!(
        interconnect_choices(&on("h100_sxm", Interconnect::Pcie)),
        [Interconnect::Nvswitch, Interconnect::Pcie]
    );
    assert_eq!(
        interconnect_choices(&on("no_such_card", Interconnect::Pcie)),
        Interconnect::ALL
    );
}
