//! "What breaks first": the largest patch and bands that fit, checked against the memory
//! model directly (a linear walk over the accepted values, not the searches' bisection).

use hsi_gpu_core::compare::sensitivity::{
    default_fit_grid, geometry_step, largest, largest_bands, largest_patch, Dimension, Largest,
};
use hsi_gpu_core::gpu::{gpu_by_id, GpuSpec};
use hsi_gpu_core::memory::total_at;
use hsi_gpu_core::scenario::{ModelChoice, Scenario};
use hsi_gpu_core::{build_model, estimate};

fn preset(id: &str, patch: u32, bands: u32, batch: u32, gpu: &str) -> Scenario {
    Scenario {
        model: ModelChoice::Preset {
            id: id.into(),
            width: None,
            size: None,
        },
        patch,
        bands,
        batch_per_gpu: batch,
        gpu: gpu.into(),
        ..Scenario::default()
    }
}

fn card(s: &Scenario) -> &'static GpuSpec {
    gpu_by_id(&s.gpu).unwrap()
}

/// Whether `s` fits: total at its batch within physical memory x (1 - headroom);
/// None when the model rejects the geometry.
fn fits_directly(s: &Scenario) -> Option<bool> {
    let gpu = card(s);
    let spec = build_model(s).ok()?;
    let total = total_at(&spec, s, gpu, s.batch_per_gpu).ok()?;
    Some(total <= gpu.memory_bytes as f64 * (1.0 - s.memory.headroom))
}

fn with_patch(s: &Scenario, patch: u32) -> Scenario {
    Scenario { patch, ..s.clone() }
}

fn with_bands(s: &Scenario, bands: u32) -> Scenario {
    Scenario { bands, ..s.clone() }
}

/// The largest value fitting, walking every value from 1 up to `upto`.
fn walk_largest(s: &Scenario, upto: u32, at: impl Fn(&Scenario, u32) -> Scenario) -> Option<u32> {
    (1..=upto)
        .filter(|&v| fits_directly(&at(s, v)) == Some(true))
        .max()
}

#[test]
fn largest_patch_of_hybridsn_on_24_gb_is_the_fit_boundary() {
    let s = preset("hybridsn", 25, 30, 64, "rtx_3090");
    let Largest::Fits(p) = largest_patch(&s, card(&s)) else {
        panic!("expected a finite largest patch");
    };
    assert_eq!(Some(p), walk_largest(&s, 2 * p + 8, with_patch));
    assert_eq!(fits_directly(&with_patch(&s, p + 1)), Some(false));
}

#[test]
fn a_patch_that_does_not_fit_searches_downwards() {
    let s = preset("hybridsn", 160, 30, 64, "rtx_3090");
    assert_eq!(
        fits_directly(&s),
        Some(false),
        "the test needs a patch too large"
    );
    let found = largest_patch(&s, card(&s)).value();
    assert_eq!(found, walk_largest(&s, 160, with_patch));
    assert!(found.is_some());
}

#[test]
fn a_bigger_card_fits_a_bigger_patch() {
    let small = preset("hybridsn", 25, 30, 64, "rtx_3090");
    let big = preset("hybridsn", 25, 30, 64, "rtx_a6000");
    let p_small = largest_patch(&small, card(&small)).value().unwrap();
    let p_big = largest_patch(&big, card(&big)).value().unwrap();
    assert!(p_big > p_small, "{p_big} vs {p_small}");
}

#[test]
fn nothing_fits_when_even_the_smallest_patch_is_too_big() {
    let s = preset("hybridsn", 25, 30, 1 << 20, "rtx_3090");
    assert_eq!(largest_patch(&s, card(&s)), Largest::NoneFits);
    let smallest_accepted = (1..=25)
        .find(|&p| fits_directly(&with_patch(&s, p)).is_some())
        .unwrap();
    assert_eq!(
        fits_directly(&with_patch(&s, smallest_accepted)),
        Some(false)
    );
}

#[test]
fn a_model_that_ignores_the_patch_has_no_largest_patch() {
    // The 1-D CNN, the GRU and the unmixing autoencoder see one pixel's spectrum: the
    // patch does not change their memory, and "up to 4,096 px" would mean nothing.
    for id in ["hu1d", "mou_rnn", "unmixing_ae"] {
        let s = preset(id, 1, 200, 64, "rtx_3090");
        let limit = with_patch(&s, hsi_gpu_core::scenario::MAX_PATCH);
        assert_eq!(fits_directly(&limit), Some(true), "{id}");
        assert_eq!(largest_patch(&s, card(&s)), Largest::NotApplicable, "{id}");
        // Their band count still has a largest value.
        assert!(largest_bands(&s, card(&s)).value().is_some(), "{id}");
    }
}

#[test]
fn vit_patches_step_by_its_patch_size_and_stay_on_the_grid() {
    let s = Scenario {
        model: ModelChoice::Preset {
            id: "vit".into(),
            width: None,
            size: None,
        },
        bands: 30,
        patch: 64,
        batch_per_gpu: 64,
        gpu: "rtx_3090".into(),
        ..Scenario::default()
    };
    let step = geometry_step(&s, card(&s), Dimension::Patch);
    assert!(step > 1, "a ViT takes only multiples of its patch size");
    assert!(fits_directly(&with_patch(&s, 64 + step)).is_some());
    assert_eq!(fits_directly(&with_patch(&s, 64 + 1)), None);
    let p = largest_patch(&s, card(&s)).value().unwrap();
    assert_eq!(p % step, 0);
    assert_eq!(fits_directly(&with_patch(&s, p)), Some(true));
    assert_eq!(fits_directly(&with_patch(&s, p + step)), Some(false));
}

#[test]
fn largest_bands_is_the_fit_boundary() {
    // Batch 64 fits every band count up to the input limit; at 1024 the bands matter.
    let s = preset("hybridsn", 25, 30, 1024, "rtx_3090");
    let b = largest_bands(&s, card(&s)).value().unwrap();
    assert_eq!(fits_directly(&with_bands(&s, b)), Some(true));
    assert_eq!(fits_directly(&with_bands(&s, b + 1)), Some(false));
    assert_eq!(Some(b), walk_largest(&s, b + 8, with_bands));
}

#[test]
fn custom_models_have_no_patch_or_band_limit() {
    let spec = build_model(&Scenario::default()).unwrap();
    let s = Scenario {
        model: ModelChoice::Custom { spec },
        ..Scenario::default()
    };
    assert!(estimate(&s).is_ok());
    assert_eq!(
        largest(&s, card(&s), Dimension::Patch),
        Largest::NotApplicable
    );
    assert_eq!(largest_bands(&s, card(&s)), Largest::NotApplicable);
    assert!(default_fit_grid(&s, card(&s)).is_none());
}

#[test]
fn fit_map_cells_match_the_memory_model_and_grow_along_each_axis() {
    // Batch 64 uses a few percent of 24 GB at patch 25: the map must reach the boundary.
    let s = preset("hybridsn", 25, 30, 64, "rtx_3090");
    let grid = default_fit_grid(&s, card(&s)).unwrap();
    assert!(grid.patches.contains(&25) && grid.bands.contains(&30));
    assert!(grid.patches.len() >= 6 && grid.bands.len() >= 6);
    let mut fitting = 0;
    let mut too_big = 0;
    for (i, &p) in grid.patches.iter().enumerate() {
        for (j, &b) in grid.bands.iter().enumerate() {
            let cell = grid.cells[i][j];
            let direct = fits_directly(&with_bands(&with_patch(&s, p), b));
            assert_eq!(cell.map(|u| u <= 1.0), direct, "patch {p}, bands {b}");
            match direct {
                Some(true) => fitting += 1,
                Some(false) => too_big += 1,
                None => {}
            }
            // The caching allocator's segments are not monotone in the tensors they hold
            // (a larger tensor may land in a cached block where a smaller one took a new
            // segment): a bigger cell may hold a little less, never much less.
            let slack = 0.02;
            if let (Some(u), Some(Some(right))) = (cell, grid.cells[i].get(j + 1)) {
                assert!(
                    *right >= u - slack,
                    "more bands never needs much less memory: {u} {right}"
                );
            }
            if let (Some(u), Some(Some(below))) = (cell, grid.cells.get(i + 1).map(|r| r[j])) {
                assert!(
                    below >= u - slack,
                    "a bigger patch never needs much less memory: {u} {below}"
                );
            }
        }
    }
    assert!(
        fitting > 0 && too_big > 0,
        "the default map shows the boundary"
    );
}
