//! The app state: the Scenario plus view settings, changed only through `Action`s.

use std::rc::Rc;

use hsi_gpu_core::foundation::LORA_RANK;
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
    /// Whether the scenario is written to storage for the next bare visit. Not from an
    /// embedded view (it only reads), nor from a link opened over another saved scenario:
    /// a colleague's link must not replace yours; its state lives in the address bar.
    pub saves: bool,
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
            saves: !parsed.view.embed,
            notices: parsed.notices,
            rejected: None,
        }
    }

    /// State for a page load: a link naming scenario fields wins; otherwise the saved
    /// scenario (and saved language) is restored, while the link's view settings (embed,
    /// presentation, language) still apply. Notices come from whichever was read.
    pub fn at_load(url_query: &str, saved_query: Option<&str>, browser_lang: Lang) -> Self {
        let url = query::parse_query(url_query);
        // A reload of this page's own address reads the saved scenario back: it goes on saving.
        let keeps_saved = url.has_scenario
            && saved_query.is_some_and(|saved| query::parse_query(saved).scenario != url.scenario);
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
        let mut state = Self::from_parsed(parsed, browser_lang);
        state.saves &= !keeps_saved;
        state
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
            // A link the new card lacks gives way to the one the estimate would use, as
            // in the comparison's editor, so the select shows what is estimated.
            Action::Gpu(id) => {
                s.gpu = id;
                s.interconnect = hsi_gpu_core::linked(s).0.interconnect;
            }
            Action::Attention(v) => s.attention = v,
            Action::FineTuneMode(id) => {
                s.finetune = FineTune::for_mode(&id, lora_rank(s).unwrap_or(LORA_RANK))
            }
            Action::LoraRank(rank) => s.finetune = FineTune::for_mode("lora", rank),
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
                // A value out of range, or text that reads as no value, says what is
                // allowed: the reader names the field's range for a number of the wrong
                // kind (-5, 3.5, "abc", past the type's limit).
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
mod tests;
