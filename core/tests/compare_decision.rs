//! The decision matrix on the article's ready-made set (HybridSN, Indian Pines, batch 64,
//! fp32 Adam, a sweep of 8 runs), its flips, and the cases where it changes.
//!
//! Option indices in the ready-made set: 0 RTX 3090, 1 RTX 4090, 2 V100S PCIe 32 GB,
//! 3 RTX A6000 (48 GB), 4 4x A5500 DDP PCIe, 5 4x A5500 DDP NVLink, 6 4x A5500 parallel.

use hsi_gpu_core::compare::decision::{decide_scenarios, Condition, DecisionInputs, Priority};
use hsi_gpu_core::compare::presets::article_options;
use hsi_gpu_core::compare::{compare, evaluate, Comparison};
use hsi_gpu_core::estimate;
use hsi_gpu_core::scenario::Scenario;

const RTX_4090: usize = 1;
const A6000: usize = 3;
const DDP_PCIE: usize = 4;
const PARALLEL: usize = 6;

fn article_scenarios(base: &Scenario) -> Vec<Scenario> {
    article_options(base)
        .into_iter()
        .map(|o| o.scenario)
        .collect()
}

fn fits(s: &Scenario) -> bool {
    estimate(s).unwrap().max_batch >= s.batch_per_gpu
}

#[test]
fn a_sweep_goes_to_four_cards_running_four_experiments() {
    // Four runs at a time beat one at a time unless a single card is over four times
    // faster than an A5500 (no card in the set is: the 4090's FP32 peak is 2.4x).
    let decision = decide_scenarios(
        &article_scenarios(&Scenario::default()),
        &DecisionInputs::default(),
    );
    assert_eq!(decision.recommended, Some(PARALLEL));
    assert_eq!(decision.fastest, Some(PARALLEL));
    let a = decision.assessments[PARALLEL].as_ref().unwrap();
    assert_eq!((a.runs, a.concurrent_runs), (8, 4));
    assert!(decision
        .assessments
        .iter()
        .flatten()
        .all(|a| a.fits && a.eligible));
}

#[test]
fn one_run_at_a_time_goes_to_ddp() {
    // A single run cannot use four independent cards; DDP spreads it over four A5500s.
    let inputs = DecisionInputs {
        priority: Priority::SingleRun,
        ..DecisionInputs::default()
    };
    let decision = decide_scenarios(&article_scenarios(&Scenario::default()), &inputs);
    assert_eq!(decision.recommended, Some(DDP_PCIE));
    let flip = decision
        .flips
        .iter()
        .find(|f| {
            f.condition
                == Condition::Priority {
                    priority: Priority::Sweep,
                }
        })
        .expect("switching back to sweeps flips it");
    assert_eq!(flip.recommended, Some(PARALLEL));
}

#[test]
fn the_patch_flip_is_where_24_gb_cards_stop_fitting() {
    let scenarios = article_scenarios(&Scenario::default());
    let decision = decide_scenarios(&scenarios, &DecisionInputs::default());
    let (patch, flip) = decision
        .flips
        .iter()
        .find_map(|f| match f.condition {
            Condition::PatchAbove { patch } => Some((patch, f)),
            _ => None,
        })
        .expect("a patch flip");
    let at = |s: &Scenario, patch| Scenario { patch, ..s.clone() };
    // The recommended option fits one pixel less and not at the flip.
    assert!(fits(&at(&scenarios[PARALLEL], patch - 1)));
    assert!(!fits(&at(&scenarios[PARALLEL], patch)));
    let lost: Vec<usize> = (0..scenarios.len())
        .filter(|&i| !fits(&at(&scenarios[i], patch)))
        .collect();
    assert_eq!(flip.no_longer_fit, lost);
    // Every 24 GB option is lost; the 32 and 48 GB cards remain, and the A6000 is more
    // than twice as fast as the V100S in FP32.
    assert_eq!(lost, vec![0, 1, 4, 5, 6]);
    assert_eq!(flip.recommended, Some(A6000));
}

#[test]
fn a_huge_foundation_model_only_fits_the_big_cards() {
    let decision = decide_scenarios(
        &article_scenarios(&Scenario::default()),
        &DecisionInputs::default(),
    );
    let flip = decision
        .flips
        .iter()
        .find(|f| {
            matches!(&f.condition, Condition::Model { id, .. } if id == "vit")
                && !f.no_longer_fit.is_empty()
        })
        .expect("some ViT size breaks the 24 GB cards");
    let Condition::Model { size, patch, .. } = &flip.condition else {
        unreachable!()
    };
    for (i, s) in article_scenarios(&Scenario::default()).iter().enumerate() {
        let vit = Scenario {
            model: hsi_gpu_core::scenario::ModelChoice::Preset {
                id: "vit".into(),
                width: None,
                size: *size,
            },
            patch: *patch,
            ..s.clone()
        };
        assert_eq!(fits(&vit), !flip.no_longer_fit.contains(&i), "option {i}");
    }
}

#[test]
fn sweep_run_flips_hold_when_the_scenarios_are_changed() {
    let base = Scenario::default();
    let inputs = DecisionInputs::default();
    let decision = decide_scenarios(&article_scenarios(&base), &inputs);
    let original = decision.recommended;
    let with_runs = |runs| {
        let mut s = base.clone();
        s.workload.sweep_runs = runs;
        decide_scenarios(&article_scenarios(&s), &inputs).recommended
    };
    let flips: Vec<_> = decision
        .flips
        .iter()
        .filter_map(|f| match f.condition {
            Condition::SweepRuns { runs } => Some((runs, f.recommended)),
            _ => None,
        })
        .collect();
    assert!(
        !flips.is_empty(),
        "a short enough sweep does not need four cards"
    );
    for (runs, recommended) in flips {
        assert_ne!(recommended, original);
        assert_eq!(with_runs(runs), recommended);
        // Nothing between the flip and the current count changes the answer.
        let current = base.workload.sweep_runs;
        let between: Vec<u32> = if runs < current {
            (runs + 1..current).collect()
        } else {
            (current + 1..runs).collect()
        };
        for r in between {
            assert_eq!(with_runs(r), original, "{r} runs");
        }
    }
    // One run alone gains nothing from four independent cards.
    assert_ne!(with_runs(1), Some(PARALLEL));
}

#[test]
fn a_budget_below_the_four_card_box_picks_a_single_card() {
    // Give the A5500 a price so the four-card box has a TCO.
    let mut options = article_options(&Scenario::default());
    for o in options.iter_mut().filter(|o| o.scenario.gpu == "rtx_a5500") {
        o.scenario.cost.card_price_usd = Some(2500.0);
    }
    let tco = |i: usize| evaluate(&options[i].scenario).unwrap().tco_usd.unwrap();
    let (single, box4) = (tco(RTX_4090), tco(PARALLEL));
    assert!(single < box4);
    let inputs = DecisionInputs {
        budget_usd: Some((single + box4) / 2.0),
        ..DecisionInputs::default()
    };
    let scenarios: Vec<Scenario> = options.iter().map(|o| o.scenario.clone()).collect();
    // Without a budget every option is within it (no limit), not "unknown".
    let unlimited = decide_scenarios(&scenarios, &DecisionInputs::default());
    assert!(unlimited
        .assessments
        .iter()
        .flatten()
        .all(|a| a.within_budget == Some(true)));
    let decision = decide_scenarios(&scenarios, &inputs);
    // Within budget: the single cards; the 4090 is the fastest of them by far.
    assert_eq!(decision.recommended, Some(RTX_4090));
    assert_eq!(
        decision.assessments[PARALLEL]
            .as_ref()
            .unwrap()
            .within_budget,
        Some(false)
    );
    let raised = decision
        .flips
        .iter()
        .find_map(|f| match f.condition {
            Condition::BudgetAtLeast { usd } => Some((usd, f.recommended)),
            _ => None,
        })
        .expect("a larger budget admits the four-card box");
    assert_eq!(raised, (box4, Some(PARALLEL)));
}

#[test]
fn little_ops_time_rules_out_the_four_card_box() {
    let scenarios = article_scenarios(&Scenario::default());
    let one_card_hours = scenarios[0].cost.ops_hours_per_month;
    let inputs = DecisionInputs {
        ops_hours_per_month: Some(one_card_hours),
        ..DecisionInputs::default()
    };
    let decision = decide_scenarios(&scenarios, &inputs);
    assert_eq!(decision.recommended, Some(RTX_4090));
    for i in [DDP_PCIE, PARALLEL] {
        assert!(!decision.assessments[i].as_ref().unwrap().within_ops);
    }
}

#[test]
fn a_bigger_team_only_strengthens_the_case_for_parallel_runs() {
    let inputs = DecisionInputs {
        team_size: 4,
        ..DecisionInputs::default()
    };
    let decision = decide_scenarios(&article_scenarios(&Scenario::default()), &inputs);
    assert_eq!(decision.recommended, Some(PARALLEL));
    assert_eq!(decision.assessments[PARALLEL].as_ref().unwrap().runs, 32);
}

#[test]
fn compare_runs_the_same_decision_and_marks_invalid_options() {
    let mut c = Comparison::default();
    c.options[2].scenario.batch_per_gpu = 0;
    let report = compare(&c).unwrap();
    assert!(report.options[2].result.is_none());
    assert_eq!(
        report.options[2].errors[0].field,
        "options[2].scenario.batch_per_gpu"
    );
    assert!(report.decision.assessments[2].is_none());
    assert_eq!(report.decision.recommended, Some(PARALLEL));
}

/// The decision's time to a result is the table's sweep time (one person's sweep): both
/// count each run's CUDA start-up.
#[test]
fn the_time_to_a_result_is_the_tables_sweep_time() {
    let report = compare(&Comparison::default()).unwrap();
    assert_eq!(report.decision.inputs.team_size, 1);
    for (i, option) in report.options.iter().enumerate() {
        let result = option.result.as_ref().unwrap();
        let time = report.decision.assessments[i]
            .as_ref()
            .and_then(|a| a.time_to_result_s)
            .unwrap();
        let sweep = result.sweep_wall_s;
        assert!(
            (time - sweep).abs() <= 1e-9 * sweep,
            "{}: {time} against {sweep}",
            option.label
        );
    }
}

#[test]
fn under_a_budget_an_option_of_unknown_price_is_not_recommended() {
    // The QA case: an RTX A6000 priced within the budget against an H100 PCIe with no
    // price: the H100 is faster but could cost anything.
    let options: Vec<Scenario> = ["rtx_a6000", "h100_pcie"]
        .into_iter()
        .map(|gpu| Scenario {
            gpu: gpu.into(),
            ..Scenario::default()
        })
        .collect();
    let a6000 = evaluate(&options[0])
        .unwrap()
        .tco_usd
        .expect("a listed price");
    assert!(evaluate(&options[1]).unwrap().tco_usd.is_none());
    let inputs = DecisionInputs {
        budget_usd: Some(a6000 * 1.05),
        ..DecisionInputs::default()
    };
    let decision = decide_scenarios(&options, &inputs);
    let h100 = decision.assessments[1].as_ref().unwrap();
    assert_eq!((h100.within_budget, h100.eligible), (None, false));
    assert_eq!(decision.recommended, Some(0));
    // Without a budget its price does not matter: the faster card wins.
    let unlimited = decide_scenarios(&options, &DecisionInputs::default());
    assert_eq!(unlimited.recommended, Some(1));
}
