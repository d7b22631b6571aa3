//! The app state: the Scenario plus view settings, changed only through `Action`s.

use std::rc::Rc;

use hsi_gpu_core::graph::ModelSpec;
use hsi_gpu_core::scenario::{
    Attention, CpuClass, FineTune, Interconnect, ModelChoice, Optimizer, ParallelMode, Precision,
    VitSize,
};
use hsi_gpu_core::{dataset, zoo, Scenario};
use yew::Reducible;

use crate::i18n::Lang;
use crate::query::{self, Notice, Parsed, ViewParams};

#[derive(Clone, Debug, PartialEq)]
pub struct AppState {
    pub scenario: Scenario,
    pub lang: Lang,
    /// True once the language came from the link or the toggle: it is then kept in links.
    pub lang_chosen: bool,
    pub embed: bool,
    pub presentation: bool,
    /// Link parameters that were dropped, shown until dismissed.
    pub notices: Vec<Notice>,
    /// Text typed into a box that is not an allowed value: kept out of the Scenario (which
    /// keeps the last valid value) and shown, marked, in its box until fixed or Escape.
    pub rejected: Option<Rejected>,
}

/// A box's rejected text: `field` is the control's id or the assumption's Scenario path;
/// `allowed` is the core's reason for an assumption (a control knows its own range).
#[derive(Clone, Debug, PartialEq)]
pub struct Rejected {
    pub field: String,
    pub text: String,
    pub allowed: Option<String>,
}

impl AppState {
    /// State for a page load: the link's parameters, else `browser_lang`.
    pub fn from_parsed(parsed: Parsed, browser_lang: Lang) -> Self {
        AppState {
            scenario: parsed.scenario,
            lang: parsed.view.lang.unwrap_or(browser_lang),
            lang_chosen: parsed.view.lang.is_some(),
            embed: parsed.view.embed,
            presentation: parsed.view.presentation,
            notices: parsed.notices,
            rejected: None,
        }
    }

    /// State for a page load: a link naming scenario fields wins; otherwise the saved
    /// scenario (and saved language) is restored, while the link's view settings (embed,
    /// presentation, language) still apply. Notices come from whichever was read.
    pub fn at_load(url_query: &str, saved_query: Option<&str>, browser_lang: Lang) -> Self {
        let url = query::parse_query(url_query);
        let parsed = match saved_query {
            Some(saved) if !url.has_scenario => {
                let saved = query::parse_query(saved);
                Parsed {
                    view: ViewParams {
                        lang: url.view.lang.or(saved.view.lang),
                        embed: url.view.embed,
                        presentation: url.view.presentation || saved.view.presentation,
                    },
                    notices: [url.notices, saved.notices].concat(),
                    ..saved
                }
            }
            _ => url,
        };
        Self::from_parsed(parsed, browser_lang)
    }

    /// The query string that reproduces this view (without embed: a copied link opens the
    /// full page).
    pub fn share_query(&self) -> String {
        query::to_query(
            &self.scenario,
            &ViewParams {
                lang: self.lang_chosen.then_some(self.lang),
                embed: false,
                presentation: self.presentation,
            },
        )
    }

    /// The query string for the address bar (keeps embed).
    pub fn location_query(&self) -> String {
        query::to_query(
            &self.scenario,
            &ViewParams {
                lang: self.lang_chosen.then_some(self.lang),
                embed: self.embed,
                presentation: self.presentation,
            },
        )
    }

    /// The preset's size option, if it has one set.
    pub fn model_size(&self) -> Option<VitSize> {
        match &self.scenario.model {
            ModelChoice::Preset { size, .. } => *size,
            ModelChoice::Custom { .. } => None,
        }
    }

    /// The rejected text of the box for `field`, if it holds any.
    pub fn rejected_text(&self, field: &str) -> Option<&str> {
        self.rejected
            .as_ref()
            .filter(|r| r.field == field)
            .map(|r| r.text.as_str())
    }

    pub fn model_id(&self) -> Option<&str> {
        match &self.scenario.model {
            ModelChoice::Preset { id, .. } => Some(id),
            ModelChoice::Custom { .. } => None,
        }
    }
}

/// The page's fine-tuning modes by id (`full` for an unknown one).
pub fn finetune_of(id: &str, rank: u32) -> FineTune {
    match id {
        "frozen" => FineTune::Frozen {
            trainable: vec!["head".into()],
        },
        "lora" => FineTune::Lora {
            rank,
            targets: vec!["qkv".into(), "proj".into()],
        },
        _ => FineTune::Full,
    }
}

/// The scenario's LoRA rank, if it trains LoRA adapters.
pub fn lora_rank(s: &Scenario) -> Option<u32> {
    match s.finetune {
        FineTune::Lora { rank, .. } => Some(rank),
        _ => None,
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    Bands(u32),
    Patch(u32),
    Classes(u32),
    BatchPerGpu(u32),
    Cards(u32),
    Precision(Precision),
    CudnnBenchmark(bool),
    Optimizer(Optimizer),
    Interconnect(Interconnect),
    Mode(ParallelMode),
    Checkpointing(bool),
    Ecc(bool),
    Cpu(CpuClass),
    Workers(u32),
    CubeOnGpu(bool),
    Gpu(String),
    Attention(Attention),
    /// Picks a fine-tuning mode by id: `full`, `frozen` (the head trains) or `lora`
    /// (on the attention projections, the rank kept or 8).
    FineTuneMode(String),
    LoraRank(u32),
    /// Picks a dataset and takes its band and class counts.
    Dataset(String),
    /// Picks a zoo preset and takes the patch size its paper uses.
    Model(String),
    /// Size of a preset that has sizes (the ViT foundation model).
    ModelSize(VitSize),
    /// Sets the field at a Scenario path from typed text or a choice's id.
    Field {
        path: String,
        text: String,
    },
    /// Text typed into the box of control `field` that is not an allowed value.
    Rejected {
        field: String,
        text: String,
    },
    /// Escape in a box holding rejected text: back to the Scenario's value.
    Restore,
    /// A layer list of the user's own model (tools/export_model.py).
    CustomModel(ModelSpec),
    /// Replaces the whole scenario (a loaded Scenario JSON, calibration, its undo).
    Replace(Box<Scenario>),
    Lang(Lang),
    Presentation(bool),
    DismissNotices,
    Reset,
}

impl Action {
    /// The control (number box id or Scenario path) whose value this action sets, for the
    /// actions a box can send.
    fn control(&self) -> Option<&str> {
        Some(match self {
            Action::Patch(_) => "patch",
            Action::Bands(_) => "bands",
            Action::Classes(_) => "classes",
            Action::BatchPerGpu(_) => "batch",
            Action::Cards(_) => "cards",
            Action::Workers(_) => "workers",
            Action::LoraRank(_) => "lora-rank",
            Action::Field { path, .. } => path,
            _ => return None,
        })
    }
}

/// A whole-scene model's tile no wider than the dataset's scene: the largest patch the
/// model takes there (U-Net's 256 px tile on the 145 x 145 Indian Pines scene becomes
/// 144), else the patch as it is.
fn tile_within_scene(s: &Scenario) -> u32 {
    let Some(d) = dataset::dataset_by_id(&s.dataset) else {
        return s.patch;
    };
    let side = d.height.min(d.width);
    if s.patch <= side {
        return s.patch;
    }
    (side / 2..=side)
        .rev()
        .find(|&patch| hsi_gpu_core::build_model(&Scenario { patch, ..s.clone() }).is_ok())
        .unwrap_or(s.patch)
}

impl Reducible for AppState {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut next = (*self).clone();
        // A valid value for the box that held rejected text replaces it.
        if next.rejected.as_ref().map(|r| r.field.as_str()) == action.control() {
            next.rejected = None;
        }
        let s = &mut next.scenario;
        match action {
            Action::Bands(v) => s.bands = v,
            Action::Patch(v) => s.patch = v,
            Action::Classes(v) => s.classes = v,
            Action::BatchPerGpu(v) => s.batch_per_gpu = v,
            Action::Cards(v) => s.cards = v,
            Action::Precision(v) => s.precision = v,
            Action::CudnnBenchmark(v) => s.cudnn_benchmark = v,
            Action::Optimizer(v) => s.optimizer = v,
            Action::Interconnect(v) => s.interconnect = v,
            Action::Mode(v) => s.workload.mode = v,
            Action::Checkpointing(v) => s.checkpointing = v,
            Action::Ecc(v) => s.ecc = v,
            Action::Cpu(v) => s.cpu = v,
            Action::Workers(v) => s.pipeline.num_workers = v,
            Action::CubeOnGpu(v) => s.pipeline.cube_on_gpu = v,
            Action::Gpu(id) => s.gpu = id,
            Action::Attention(v) => s.attention = v,
            Action::FineTuneMode(id) => s.finetune = finetune_of(&id, lora_rank(s).unwrap_or(8)),
            Action::LoraRank(rank) => s.finetune = finetune_of("lora", rank),
            Action::Dataset(id) => {
                if let Some(d) = dataset::dataset_by_id(&id) {
                    s.bands = d.bands_used;
                    s.classes = d.classes;
                }
                s.dataset = id;
                s.patch = tile_within_scene(s);
            }
            Action::Model(id) => {
                if let Some(entry) = zoo::zoo_entry(&id) {
                    s.patch = entry.default_patch;
                }
                s.model = ModelChoice::Preset {
                    id,
                    width: None,
                    size: None,
                };
                s.patch = tile_within_scene(s);
            }
            Action::ModelSize(v) => {
                if let ModelChoice::Preset { size, .. } = &mut s.model {
                    *size = Some(v);
                }
            }
            Action::Field { path, text } => {
                // Text that does not read is "not a valid value"; a value that reads but is
                // out of range says what is allowed.
                // The reader names the field's range for a number of the wrong kind
                // (-5, 3.5, past the type's limit).
                let checked = query::set_field(s, &path, &text)
                    .map_err(|e| e.rsplit_once("; allowed: ").map(|(_, a)| a.to_string()))
                    .and_then(|updated| {
                        match updated.validate().into_iter().find(|p| p.field == path) {
                            Some(problem) => Err(Some(problem.allowed)),
                            None => Ok(updated),
                        }
                    });
                match checked {
                    Ok(updated) => *s = updated,
                    Err(allowed) => {
                        next.rejected = Some(Rejected {
                            field: path,
                            text,
                            allowed,
                        })
                    }
                }
            }
            Action::Rejected { field, text } => {
                next.rejected = Some(Rejected {
                    field,
                    text,
                    allowed: None,
                })
            }
            Action::Restore => next.rejected = None,
            Action::CustomModel(spec) => s.model = ModelChoice::Custom { spec },
            Action::Replace(scenario) => *s = *scenario,
            Action::Lang(lang) => {
                next.lang = lang;
                next.lang_chosen = true;
            }
            Action::Presentation(on) => next.presentation = on,
            Action::DismissNotices => next.notices.clear(),
            Action::Reset => next.scenario = Scenario::default(),
        }
        Rc::new(next)
    }
}

#[cfg(test)]
mod tests {
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
}
