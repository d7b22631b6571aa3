//! The reducer: each action's effect on the scenario and the view.

use super::*;

fn reduce(state: AppState, action: Action) -> AppState {
    (*Rc::new(state).reduce(action)).clone()
}

fn initial() -> AppState {
    AppState::from_parsed(query::parse_query(""), Lang::En)
}

#[test]
fn picking_a_dataset_takes_its_bands_and_classes() {
    let target = dataset::DATASETS
        .iter()
        .find(|d| d.bands_used != initial().scenario.bands)
        .expect("a dataset with other band count");
    let next = reduce(initial(), Action::Dataset(target.id.into()));
    assert_eq!(next.scenario.dataset, target.id);
    assert_eq!(next.scenario.bands, target.bands_used);
    assert_eq!(next.scenario.classes, target.classes);
}

#[test]
fn picking_a_model_takes_its_paper_patch() {
    let start = initial();
    // At least one preset moves the patch, so the test sees the change.
    assert!(zoo::ZOO
        .iter()
        .any(|e| e.default_patch != start.scenario.patch));
    // Within the scene: the paper's patch, else the largest the model takes there.
    let scene = dataset::dataset_by_id(&start.scenario.dataset).unwrap();
    let side = scene.height.min(scene.width);
    let mut shrunk = 0;
    for entry in zoo::ZOO.iter() {
        let next = reduce(start.clone(), Action::Model(entry.id.into()));
        assert_eq!(next.model_id(), Some(entry.id));
        let patch = next.scenario.patch;
        if entry.default_patch <= side {
            assert_eq!(patch, entry.default_patch, "{}", entry.id);
        } else {
            shrunk += 1;
            assert!(patch <= side && hsi_gpu_core::build_model(&next.scenario).is_ok());
            let wider = Scenario {
                patch: patch + 1,
                ..next.scenario.clone()
            };
            assert!(
                patch == side || hsi_gpu_core::build_model(&wider).is_err(),
                "{}",
                entry.id
            );
        }
    }
    // U-Net's 256 px tile is wider than Indian Pines' scene.
    assert!(shrunk >= 1);
    // On a larger scene it keeps the tile; back on Indian Pines the tile shrinks.
    let pavia = reduce(start, Action::Dataset("pavia_university".into()));
    let unet = reduce(pavia, Action::Model("unet".into()));
    assert_eq!(unet.scenario.patch, 256);
    let back = reduce(unet, Action::Dataset("indian_pines".into()));
    assert!(back.scenario.patch <= side);
}

#[test]
fn finetune_modes_and_the_lora_rank_set_the_scenario() {
    let lora = reduce(initial(), Action::FineTuneMode("lora".into()));
    assert_eq!(lora_rank(&lora.scenario), Some(8));
    let rank_16 = reduce(lora, Action::LoraRank(16));
    let frozen = reduce(rank_16.clone(), Action::FineTuneMode("frozen".into()));
    assert_eq!(lora_rank(&frozen.scenario), None);
    assert_eq!(
        frozen.scenario.finetune,
        FineTune::Frozen {
            trainable: vec!["head".into()]
        }
    );
    // Back to LoRA from LoRA keeps the rank; the link carries it.
    let again = reduce(rank_16, Action::FineTuneMode("lora".into()));
    assert_eq!(lora_rank(&again.scenario), Some(16));
    let link = query::to_query(&again.scenario, &ViewParams::default());
    assert_eq!(query::parse_query(&link).scenario, again.scenario);
}

#[test]
fn model_size_applies_to_the_preset_and_resets_with_a_new_model() {
    let vit = reduce(initial(), Action::Model("vit".into()));
    let large = reduce(vit, Action::ModelSize(VitSize::Large));
    assert_eq!(large.model_size(), Some(VitSize::Large));
    let back = reduce(large, Action::Model("hybridsn".into()));
    assert_eq!(back.model_size(), None);
}

#[test]
fn a_loaded_layer_list_becomes_the_custom_model_and_keeps_the_rest() {
    use hsi_gpu_core::graph::{ops, ModelBuilder};
    let mut b = ModelBuilder::new("mine", vec![1, 30, 9, 9]);
    b.push(ops::conv(3, 4, &[3, 3, 3], &[])).push(ops::relu());
    let spec = b.build();
    let before = reduce(initial(), Action::Bands(77));
    let next = reduce(before.clone(), Action::CustomModel(spec.clone()));
    assert_eq!(next.scenario.model, ModelChoice::Custom { spec });
    assert_eq!(next.model_id(), None);
    assert_eq!(next.scenario.bands, 77);
    // A whole scenario replaces everything, the view stays.
    let replaced = reduce(next, Action::Replace(Box::new(before.scenario.clone())));
    assert_eq!(replaced.scenario, before.scenario);
}

#[test]
fn reset_restores_the_default_scenario_and_keeps_the_view() {
    let changed = reduce(initial(), Action::Bands(77));
    let changed = reduce(changed, Action::Lang(Lang::Zh));
    let reset = reduce(changed, Action::Reset);
    assert_eq!(reset.scenario, Scenario::default());
    assert_eq!(reset.lang, Lang::Zh);
}

#[test]
fn bad_assumption_text_keeps_the_last_good_value() {
    let good = reduce(
        initial(),
        Action::Field {
            path: "memory.headroom".into(),
            text: "0.3".into(),
        },
    );
    assert_eq!(good.scenario.memory.headroom, 0.3);
    let bad = reduce(
        good,
        Action::Field {
            path: "memory.headroom".into(),
            text: "0.3x".into(),
        },
    );
    assert_eq!(bad.scenario.memory.headroom, 0.3);
    assert_eq!(bad.rejected_text("memory.headroom"), Some("0.3x"));
    let out_of_range = reduce(
        bad,
        Action::Field {
            path: "memory.headroom".into(),
            text: "7".into(),
        },
    );
    let rejected = out_of_range.rejected.clone().expect("7 is rejected");
    assert!(
        rejected
            .allowed
            .as_deref()
            .is_some_and(|a| a.contains("to")),
        "{rejected:?}"
    );
    // A number of the wrong kind names the range too.
    let fraction = reduce(
        initial(),
        Action::Field {
            path: "nodes".into(),
            text: "3.5".into(),
        },
    );
    let allowed = fraction.rejected.and_then(|r| r.allowed);
    assert!(
        allowed
            .as_deref()
            .is_some_and(|a| a.starts_with("an integer from 1 to")),
        "{allowed:?}"
    );
    let restored = reduce(out_of_range, Action::Restore);
    assert_eq!(restored.rejected, None);
    assert_eq!(restored.scenario.memory.headroom, 0.3);
}

#[test]
fn a_rejected_number_stays_beside_the_last_valid_scenario_until_fixed() {
    let typed = reduce(
        initial(),
        Action::Rejected {
            field: "batch".into(),
            text: "99999999".into(),
        },
    );
    assert_eq!(typed.scenario, initial().scenario);
    assert_eq!(typed.rejected_text("batch"), Some("99999999"));
    // Another control's value leaves it; the box's own valid value replaces it.
    let other = reduce(typed, Action::Patch(9));
    assert_eq!(other.rejected_text("batch"), Some("99999999"));
    let fixed = reduce(other, Action::BatchPerGpu(128));
    assert_eq!(fixed.rejected, None);
    assert_eq!(fixed.scenario.batch_per_gpu, 128);
}

#[test]
fn a_link_wins_over_storage_and_storage_fills_a_bare_link() {
    let saved = "bands=103&lang=zh";
    let from_link = AppState::at_load("patch=9", Some(saved), Lang::En);
    assert_eq!(from_link.scenario.patch, 9);
    assert_eq!(from_link.scenario.bands, Scenario::default().bands);
    assert_eq!(from_link.lang, Lang::En);

    let restored = AppState::at_load("embed=1", Some(saved), Lang::En);
    assert_eq!(restored.scenario.bands, 103);
    assert_eq!(restored.lang, Lang::Zh);
    assert!(restored.embed);

    let fresh = AppState::at_load("", None, Lang::Zh);
    assert_eq!(fresh.scenario, Scenario::default());
    assert_eq!(fresh.lang, Lang::Zh);
    assert!(!fresh.lang_chosen);
}

#[test]
fn a_link_never_replaces_the_saved_scenario() {
    let saved = "bands=103";
    // A colleague's link over your saved scenario: shown, kept in the address bar only.
    assert!(!AppState::at_load("patch=9", Some(saved), Lang::En).saves);
    // A reload: the address is the saved scenario's own.
    assert!(AppState::at_load("bands=103&lang=zh", Some(saved), Lang::En).saves);
    // Nothing saved yet: the link's scenario becomes the one the bare page opens.
    assert!(AppState::at_load("patch=9", None, Lang::En).saves);
    // The bare page and a link with only view settings go on saving yours.
    assert!(AppState::at_load("", Some(saved), Lang::En).saves);
    assert!(AppState::at_load("lang=zh", Some(saved), Lang::En).saves);
    // An embedded view only reads.
    assert!(!AppState::at_load("embed=1", Some(saved), Lang::En).saves);
    assert!(!AppState::at_load("embed=1&patch=9", None, Lang::En).saves);
}

#[test]
fn language_choice_is_kept_in_links_and_embed_is_not_shared() {
    let mut state = AppState::from_parsed(query::parse_query("embed=1&bands=50"), Lang::En);
    assert!(!state.share_query().contains("lang="));
    state = reduce(state, Action::Lang(Lang::Zh));
    let shared = state.share_query();
    assert!(shared.contains("lang=zh") && shared.contains("bands=50"));
    assert!(!shared.contains("embed"));
    assert!(state.location_query().contains("embed=1"));
    let reopened = AppState::from_parsed(query::parse_query(&shared), Lang::En);
    assert_eq!(reopened.scenario, state.scenario);
    assert_eq!(reopened.lang, Lang::Zh);
}

#[test]
fn a_new_card_takes_the_link_the_estimate_uses_where_it_lacks_the_chosen_one() {
    use hsi_gpu_core::scenario::Interconnect;
    let bridged = reduce(initial(), Action::Interconnect(Interconnect::NvlinkBridge));
    assert_eq!(bridged.scenario.interconnect, Interconnect::NvlinkBridge);
    // The RTX 4090 has no NVLink: PCIe, as the estimate would use.
    let geforce = reduce(bridged.clone(), Action::Gpu("rtx_4090".into()));
    assert_eq!(geforce.scenario.interconnect, Interconnect::Pcie);
    // An SXM card is on NVSwitch, whatever was chosen.
    let sxm = reduce(initial(), Action::Gpu("h100_sxm".into()));
    assert_eq!(
        sxm.scenario.interconnect,
        hsi_gpu_core::linked(&sxm.scenario).0.interconnect
    );
    assert_ne!(sxm.scenario.interconnect, Interconnect::Pcie);
    // A card that has the chosen link keeps it.
    let a6000 = reduce(bridged, Action::Gpu("rtx_a6000".into()));
    assert_eq!(a6000.scenario.interconnect, Interconnect::NvlinkBridge);
}
