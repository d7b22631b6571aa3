//! The thesis map (`core/src/thesis.rs`) against the per-scenario levers it is made of: each
//! cell is the lever table of its model at its patch, trained with the aids it needs, and
//! the flips and claims follow from the cells.
//! `cargo test -p hsi-gpu-core --test thesis_map -- --nocapture` prints the maps.

use hsi_gpu_core::levers::{Lever, Limit};
use hsi_gpu_core::scenario::VitSize;
use hsi_gpu_core::thesis::{
    assemble, cell, cell_scenario, grid, map_key, thesis_map, trained, Aid, Cell, ClaimId,
    MapModel, ThesisMap, Untested, Verdict, FOUNDATION_PARAMS, MODELS, PATCHES,
};
use hsi_gpu_core::whatifs::estimate_all;
use hsi_gpu_core::Scenario;

fn print(label: &str, map: &ThesisMap) {
    println!("{label}");
    for row in map.cells.chunks(map.patches.len()) {
        let line: Vec<String> = row
            .iter()
            .map(|c| match (&c.error, c.best) {
                (Some(_), _) => "-".to_string(),
                (None, Some(b)) => format!("{:?} {:.2}", b.lever, b.speedup.unwrap_or(0.0)),
                (None, None) => "none".to_string(),
            })
            .collect();
        println!(
            "  {:>20} {:>13}: {}",
            row[0].model,
            row[2].params,
            line.join(" | ")
        );
    }
    for f in &map.flips {
        println!(
            "  flip at {} px: {} -> {}: {:?} -> {:?} ({:?})",
            f.patch, f.smaller, f.larger, f.from, f.to, f.why
        );
    }
    for c in &map.claims {
        println!(
            "  {:?} (sec. {}): {}/{} cells, {:?} {:?}",
            c.id, c.sections, c.supporting, c.cells, c.verdict, c.untested
        );
    }
}

fn giant() -> MapModel {
    MapModel {
        id: "vit",
        size: Some(VitSize::Giant),
    }
}

fn cell_of(map: &ThesisMap, model: MapModel, patch: u32) -> &Cell {
    map.cells
        .iter()
        .find(|c| c.id == model.id && c.size == model.size && c.patch == patch)
        .expect("every model at every patch")
}

/// The cell against its own scenario's levers: `estimate_all` on the scenario as trained.
fn check_against_levers(s: &Scenario, c: &Cell) {
    let model = MapModel {
        id: c.id,
        size: c.size,
    };
    let t = trained(&cell_scenario(s, model, c.patch)).expect("the cell estimated");
    assert_eq!(t.aids, c.aids, "{} at {}", c.model, c.patch);
    let r = estimate_all(&t.scenario).expect("the trained scenario estimates");
    assert_eq!(r.params, c.params);
    assert_eq!(r.best_lever, c.best, "{} at {}", c.model, c.patch);
    let base = r.lever_baseline.expect("estimate_all fills the baseline");
    assert_eq!(Some(base.limit), c.limit);
    assert_eq!(base.fits, c.fits);
    for g in &c.gains {
        let best = r
            .levers
            .iter()
            .filter(|o| o.lever == g.lever)
            .filter_map(|o| o.speedup)
            .reduce(f64::max);
        assert_eq!(
            best, g.speedup,
            "{:?} for {} at {}",
            g.lever, c.model, c.patch
        );
    }
}

#[test]
fn the_default_map_runs_from_small_hsi_models_to_a_billion_parameters() {
    let s = Scenario::default();
    let map = thesis_map(&s).unwrap();
    print("1 x RTX A5500 (the default scenario)", &map);
    assert_eq!(map.cells.len(), MODELS.len() * PATCHES.len());
    assert_eq!(map.patches, PATCHES);
    let params: Vec<u64> = map.models.iter().map(|r| r.params).collect();
    assert!(
        params.windows(2).all(|w| w[0] <= w[1]),
        "small to large: {params:?}"
    );
    assert!(params[0] < 1_000_000, "a small HSI model first: {params:?}");
    assert!(*params.last().unwrap() >= 1_000_000_000, "a 1 B ViT last");
    // Every cell names its model, size, patch and bands; the built ones their lever.
    for c in &map.cells {
        assert_eq!(c.bands, s.bands);
        assert!(PATCHES.contains(&c.patch));
        if c.error.is_none() {
            assert!(c.params > 0 && c.limit.is_some(), "{c:?}");
        }
    }
    // The small models train as they are; the 1 B ViT does not fit one 24 GB card in fp32
    // Adam (16 GB of states before activations) and gets what it needs.
    let small = cell_of(
        &map,
        MapModel {
            id: "hybridsn",
            size: None,
        },
        32,
    );
    assert!(small.aids.is_empty() && small.fits);
    let big = cell_of(&map, giant(), 32);
    assert!(!big.aids.is_empty(), "{big:?}");
    assert!(
        !big.aids.contains(&Aid::Sharding),
        "one card: nothing to shard over"
    );
}

#[test]
fn cells_equal_the_levers_of_their_own_scenarios() {
    let s = Scenario::default();
    let map = thesis_map(&s).unwrap();
    // A cell per model (alternating patches), and both sides of every flip.
    let mut checked = 0;
    for (i, c) in map.cells.iter().enumerate() {
        let (row, col) = (i / PATCHES.len(), i % PATCHES.len());
        let flip_side = map
            .flips
            .iter()
            .any(|f| f.col == col && (f.row == row || f.row == row + 1));
        if c.error.is_none() && ((row + col) % 4 == 0 || (flip_side && row % 3 == 0)) {
            check_against_levers(&s, c);
            checked += 1;
        }
    }
    assert!(checked >= 12, "{checked} cells checked");
}

#[test]
fn aids_are_added_in_order_until_the_model_fits_and_not_one_more() {
    let four = Scenario {
        cards: 4,
        ..Scenario::default()
    };
    for s in [Scenario::default(), four] {
        for patch in [8, 64] {
            let base = cell_scenario(&s, giant(), patch);
            let t = trained(&base).unwrap();
            let order: Vec<usize> = t
                .aids
                .iter()
                .map(|a| Aid::ALL.iter().position(|x| x == a).unwrap())
                .collect();
            assert!(order.windows(2).all(|w| w[0] < w[1]), "{:?}", t.aids);
            assert!(t.report.max_batch >= s.batch_per_gpu, "fits: {:?}", t.aids);
            // Without its last aid it did not fit.
            let mut fewer = base.clone();
            for aid in &t.aids[..t.aids.len() - 1] {
                match aid {
                    Aid::TensorParallel => fewer.tensor_parallel = 2,
                    Aid::Sharding => {
                        fewer.sharding = hsi_gpu_core::scenario::Sharding::Fsdp;
                    }
                    Aid::MixedPrecision => {
                        fewer.precision = hsi_gpu_core::scenario::Precision::AmpBf16;
                    }
                    Aid::Checkpointing => fewer.checkpointing = true,
                    Aid::Offload => fewer.offload = true,
                }
            }
            let r = hsi_gpu_core::estimate(&fewer).unwrap();
            assert!(r.max_batch < s.batch_per_gpu, "{:?} was enough", &t.aids);
            // With more than one card, tensor parallelism in pairs comes first.
            assert_eq!(
                t.aids[0] == Aid::TensorParallel,
                s.cards > 1,
                "{:?}",
                t.aids
            );
        }
    }
}

/// A memory aid that frees nothing is not listed: DBDA at 64 px does not fit the default
/// card even in bf16 with checkpointing (its 4,096-position attention), and offloading its
/// 72 k parameters' optimizer would not change that.
#[test]
fn an_aid_that_frees_no_memory_is_not_what_a_model_needs() {
    let base = cell_scenario(
        &Scenario::default(),
        MapModel {
            id: "dbda",
            size: None,
        },
        64,
    );
    let t = trained(&base).unwrap();
    assert!(t.report.max_batch < base.batch_per_gpu);
    assert_eq!(t.aids, [Aid::MixedPrecision, Aid::Checkpointing]);
    let offloaded = Scenario {
        offload: true,
        ..t.scenario.clone()
    };
    let r = hsi_gpu_core::estimate(&offloaded).unwrap();
    assert!(r.memory.total > 0.99 * t.report.memory.total);
}

#[test]
fn flips_are_exactly_the_neighbours_whose_best_levers_differ() {
    let map = thesis_map(&Scenario::default()).unwrap();
    let cols = PATCHES.len();
    let lever = |c: &Cell| c.best.map(|b| b.lever);
    for (i, larger) in map.cells.iter().enumerate().skip(cols) {
        let smaller = &map.cells[i - cols];
        let differ =
            smaller.error.is_none() && larger.error.is_none() && lever(smaller) != lever(larger);
        let flip = map
            .flips
            .iter()
            .find(|f| f.row == i / cols && f.col == i % cols);
        assert_eq!(
            flip.is_some(),
            differ,
            "{} -> {} at {}",
            smaller.model,
            larger.model,
            larger.patch
        );
        if let Some(f) = flip {
            assert_eq!((f.from, f.to), (lever(smaller), lever(larger)));
            assert_eq!(f.why, larger.limit);
            assert_eq!(f.patch, larger.patch);
        }
    }
    assert!(
        !map.flips.is_empty(),
        "the ranking changes somewhere across model size"
    );
}

#[test]
fn the_articles_claims_are_counted_from_the_cells() {
    let s = Scenario::default();
    let map = thesis_map(&s).unwrap();
    let small: Vec<&Cell> = map
        .cells
        .iter()
        .filter(|c| c.error.is_none() && c.size.is_none())
        .collect();
    let claim = |id| map.claims.iter().find(|c| c.id == id).unwrap();
    let fits = claim(ClaimId::SmallModelsFitOneCard);
    assert_eq!(fits.cells as usize, small.len());
    assert_eq!(
        fits.supporting as usize,
        small.iter().filter(|c| c.states_share < 1.0).count()
    );
    let first = claim(ClaimId::CapacityBandwidthFirst);
    assert_eq!(first.cells as usize, small.len());
    assert!(first.supporting <= first.cells);
    let verdict = match 3 * first.supporting {
        k if k >= 2 * first.cells => Verdict::Agrees,
        k if k <= first.cells => Verdict::Disagrees,
        _ => Verdict::Partly,
    };
    assert_eq!(first.verdict, verdict);
    let large: Vec<&Cell> = map
        .cells
        .iter()
        .filter(|c| c.error.is_none() && c.params >= FOUNDATION_PARAMS)
        .collect();
    let outgrow = claim(ClaimId::FoundationModelsOutgrowOneCard);
    assert_eq!(outgrow.cells as usize, large.len());
    assert_eq!(
        outgrow.supporting as usize,
        large
            .iter()
            .filter(|c| !c.aids.is_empty() || !c.fits)
            .count()
    );
    // A 1 B ViT outgrows one 24 GB card at every patch.
    assert!(outgrow.supporting as usize >= PATCHES.len());
    // One card: the interconnect claim cannot be tested.
    let link = claim(ClaimId::InterconnectRisesWithScale);
    assert_eq!(
        (link.verdict, link.untested),
        (Verdict::NotTested, Some(Untested::OneCard))
    );
}

#[test]
fn on_a_pair_over_pcie_nvlink_pays_most_for_large_vits_and_never_for_small_hsi_models() {
    // Sec. 7.2: NVLink matters once the model's traffic outweighs its compute. Two RTX
    // A5500 over PCIe, where the lever is the pair's NVLink bridge.
    let pair = Scenario {
        cards: 2,
        ..Scenario::default()
    };
    let map = thesis_map(&pair).unwrap();
    print("2 x RTX A5500 over PCIe", &map);
    // ViT-H fits each card: DDP all-reduces its 0.63 B gradients over PCIe every short
    // step at small tiles, and the bridge pays most.
    let huge = cell_of(
        &map,
        MapModel {
            id: "vit",
            size: Some(VitSize::Huge),
        },
        8,
    );
    assert!(huge.aids.is_empty(), "{huge:?}");
    assert_eq!(
        huge.best.map(|b| b.lever),
        Some(Lever::Interconnect),
        "{huge:?}"
    );
    assert_eq!(huge.limit, Some(Limit::Interconnect));
    check_against_levers(&pair, huge);
    // ViT-g does not fit one card: tensor parallelism over the pair, whose all-reduces
    // the bridge speeds up too (at 16 px: at 8 px the host bounds its step).
    let big = cell_of(&map, giant(), 16);
    assert_eq!(big.aids.first(), Some(&Aid::TensorParallel), "{big:?}");
    let link = big
        .gains
        .iter()
        .find(|g| g.lever == Lever::Interconnect)
        .unwrap();
    assert!(link.speedup.is_some_and(|s| s > 1.0), "{link:?}");
    check_against_levers(&pair, big);
    // The small HSI models never need the link.
    let small_links = map
        .cells
        .iter()
        .filter(|c| c.size.is_none() && c.best.map(|b| b.lever) == Some(Lever::Interconnect))
        .count();
    assert_eq!(small_links, 0);
    let link = map
        .claims
        .iter()
        .find(|c| c.id == ClaimId::InterconnectRisesWithScale)
        .unwrap();
    assert_eq!(link.untested, None);
    assert!(link.supporting > 0 && link.verdict != Verdict::NotTested);
    assert_eq!(
        link.baseline.map(|b| b.1),
        Some(0),
        "never for the small models"
    );
    // Four cards: bridges join pairs, so a ring over four still crosses PCIe.
    let four = thesis_map(&Scenario {
        cards: 4,
        ..Scenario::default()
    })
    .unwrap();
    print("4 x RTX A5500 over PCIe", &four);
}

#[test]
fn the_model_and_patch_sliders_leave_the_map_as_it_is() {
    let moved = Scenario {
        patch: 9,
        model: hsi_gpu_core::scenario::ModelChoice::Preset {
            id: "ssrn".into(),
            width: None,
            size: None,
        },
        ..Scenario::default()
    };
    assert_eq!(map_key(&moved), map_key(&Scenario::default()));
    let card = Scenario {
        gpu: "rtx_4090".into(),
        ..Scenario::default()
    };
    assert_ne!(map_key(&card), map_key(&Scenario::default()));
}

#[test]
fn a_scenario_the_core_rejects_gives_its_field_errors() {
    let bad = Scenario {
        gpu: "no_such_card".into(),
        ..Scenario::default()
    };
    let errors = thesis_map(&bad).unwrap_err();
    assert!(errors.iter().any(|e| e.field == "gpu"), "{errors:?}");
}

/// On an SXM card the default scenario's PCIe is replaced by NVSwitch: the cells estimate
/// (no error in them) and the map says which link they ran on.
#[test]
fn an_sxm_cards_map_runs_on_its_own_link() {
    let s = Scenario {
        gpu: "h100_sxm".into(),
        ..Scenario::default()
    };
    let row: Vec<_> = grid()
        .take(PATCHES.len())
        .map(|(model, patch)| cell(&s, model, patch))
        .collect();
    assert!(row.iter().all(|c| c.error.is_none()), "{row:?}");
    let map = assemble(&s, row);
    assert_eq!(
        map.interconnect,
        hsi_gpu_core::scenario::Interconnect::Nvswitch
    );
}
