//! The scenario inputs: dataset, model, GPU and its ECC, geometry, precision and
//! cudnn.benchmark, optimizer, cards.

use hsi_gpu_core::market::{self, Ecc};
use hsi_gpu_core::scenario::{
    self, CpuClass, Interconnect, ModelChoice, Optimizer, ParallelMode, Precision, VitSize,
};
use hsi_gpu_core::{dataset, gpu, zoo};
use yew::prelude::*;

use crate::components::advanced::advanced_group;
use crate::components::controls::{typing, Choice, NumberSlider, Toggle};
use crate::components::model_loader::use_model_loader;
use crate::components::thesis::text::X;
use crate::i18n::{self, T};
use crate::platform;
use crate::state::Action;
use crate::Store;

/// Slider ranges: where HSI patch classification lives. The number box beside each slider
/// takes anything the core accepts (up to scenario::MAX_*), e.g. whole-scene patches.
const SLIDER_MAX_PATCH: u32 = 64;
const SLIDER_MAX_BANDS: u32 = 300;
const SLIDER_MAX_BATCH: u32 = 4096;

/// The presets with sizes, and the size their builders use when none is set
/// (core/src/zoo/vit.rs, mae.rs).
const SIZED_MODELS: [&str; 3] = ["vit", zoo::mae::SPATIAL, zoo::mae::SPECTRAL];
const DEFAULT_VIT_SIZE: VitSize = VitSize::Base;

fn options<I: IntoIterator<Item = (String, String)>>(items: I) -> Vec<(AttrValue, AttrValue)> {
    items
        .into_iter()
        .map(|(value, label)| (value.into(), label.into()))
        .collect()
}

#[function_component]
pub fn ScenarioPanel() -> Html {
    let store = use_context::<Store>().expect("ScenarioPanel sits inside the app's store");
    let model_loader = use_model_loader(&store);
    // The inputs under the key ones lie below the first screen (the column scrolls; on a
    // phone they come after the charts): drawn once it is painted, so as not to delay it.
    // Rendered on the server (the native tests) there is no paint to wait for.
    let rest_drawn = use_state_eq(|| !cfg!(target_arch = "wasm32"));
    {
        let rest_drawn = rest_drawn.clone();
        use_effect_with((), move |()| {
            platform::after_paint(move || rest_drawn.set(true))
        });
    }
    let lang = store.lang;
    let s = &store.scenario;
    let send = |make: fn(String) -> Action| {
        let store = store.clone();
        Callback::from(move |v: String| store.dispatch(make(v)))
    };
    let send_u32 = |make: fn(u32) -> Action| {
        let store = store.clone();
        Callback::from(move |v: u32| store.dispatch(make(v)))
    };
    // A choice picked by its id; an id the core does not know changes nothing.
    fn send_id<T: 'static>(
        store: &Store,
        from_id: fn(&str) -> Option<T>,
        make: fn(T) -> Action,
    ) -> Callback<String> {
        let store = store.clone();
        Callback::from(move |id: String| {
            if let Some(v) = from_id(&id) {
                store.dispatch(make(v));
            }
        })
    }

    let typing = |field| typing(&store, field);

    let datasets = options(
        dataset::DATASETS
            .iter()
            .map(|d| (d.id.to_string(), d.name.to_string())),
    );
    let mut models = options(
        zoo::ZOO
            .iter()
            .map(|e| (e.id.to_string(), i18n::zoo_name(e, lang).to_string())),
    );
    if let ModelChoice::Custom { spec } = &s.model {
        let label = crate::i18n::summary::labelled(lang, T::Custom.get(lang), &spec.name);
        models.insert(0, ("".into(), label.into()));
    }
    let gpus = options(
        gpu::GPUS
            .iter()
            .map(|g| (g.id.to_string(), g.name.to_string())),
    );
    let optimizers = options(Optimizer::ALL.iter().map(|o| {
        (
            o.id().to_string(),
            i18n::optimizer_name(*o, lang).to_string(),
        )
    }));
    let interconnects = options(hsi_gpu_core::interconnect_choices(s).iter().map(|i| {
        (
            i.id().to_string(),
            i18n::interconnect_name(*i, lang).to_string(),
        )
    }));
    let modes = options(
        ParallelMode::ALL
            .iter()
            .map(|m| (m.id().to_string(), i18n::mode_name(*m, lang).to_string())),
    );
    let mode_id = s.workload.mode.id();
    let precisions = options(Precision::ALL.iter().map(|p| {
        (
            p.id().to_string(),
            i18n::precision_name(*p, lang).to_string(),
        )
    }));
    let on_precision = send_id(&store, Precision::from_id, Action::Precision);
    let on_cudnn_benchmark = {
        let store = store.clone();
        Callback::from(move |on: bool| store.dispatch(Action::CudnnBenchmark(on)))
    };
    let on_optimizer = send_id(&store, Optimizer::from_id, Action::Optimizer);
    let on_interconnect = send_id(&store, Interconnect::from_id, Action::Interconnect);
    let sizes = options(
        VitSize::ALL
            .iter()
            .map(|v| (v.id().to_string(), i18n::vit_size_name(*v).to_string())),
    );
    let size_id = store.model_size().unwrap_or(DEFAULT_VIT_SIZE).id();
    let on_size = send_id(&store, VitSize::from_id, Action::ModelSize);
    let on_mode = send_id(&store, ParallelMode::from_id, Action::Mode);
    let on_checkpointing = {
        let store = store.clone();
        Callback::from(move |on: bool| store.dispatch(Action::Checkpointing(on)))
    };
    let on_ecc = {
        let store = store.clone();
        Callback::from(move |on: bool| store.dispatch(Action::Ecc(on)))
    };
    // What turning ECC on costs this card (the core's market row).
    let ecc_note = match market::market_by_id(&s.gpu).map(|m| m.ecc) {
        Some(Ecc::Inline) => None,
        Some(Ecc::Free) => Some(X::EccFree.get(lang)),
        _ => Some(X::EccNone.get(lang)),
    };
    let cpus = options(
        CpuClass::ALL
            .iter()
            .map(|c| (c.id().to_string(), i18n::cpu_name(*c, lang).to_string())),
    );
    let on_cpu = send_id(&store, CpuClass::from_id, Action::Cpu);
    let on_cube = {
        let store = store.clone();
        Callback::from(move |on: bool| store.dispatch(Action::CubeOnGpu(on)))
    };

    // The meeting's inputs first: in presentation mode they are all the panel shows, the
    // rest waits in a drawer.
    let key_inputs = html! {
        <>
            { Choice { id: "dataset".into(), label: T::Dataset.get(lang).into(), options: datasets,
                selected: s.dataset.clone().into(), on_change: send(Action::Dataset) }.view() }
            { Choice { id: "model".into(), label: T::Model.get(lang).into(), options: models,
                selected: store.model_id().unwrap_or_default().to_string().into(),
                on_change: send(Action::Model) }.view() }
            if store.model_id().is_some_and(|id| SIZED_MODELS.contains(&id)) {
                { Choice { id: "model-size".into(), label: T::ModelSize.get(lang).into(), options: sizes,
                    selected: size_id.into(), on_change: on_size }.view() }
            }
            { Choice { id: "gpu".into(), label: T::Gpu.get(lang).into(), options: gpus,
                selected: s.gpu.clone().into(), on_change: send(Action::Gpu) }.view() }
            { NumberSlider { id: "patch".into(), label: T::Patch.get(lang).into(), unit: T::UnitPixels.get(lang).into(),
                value: s.patch, min: 1, max: SLIDER_MAX_PATCH, max_typed: scenario::MAX_PATCH, log2: false,
                typing: typing("patch"), lang, on_change: send_u32(Action::Patch) }.view() }
            { NumberSlider { id: "bands".into(), label: T::Bands.get(lang).into(), unit: T::UnitBands.get(lang).into(),
                value: s.bands, min: 1, max: SLIDER_MAX_BANDS, max_typed: scenario::MAX_BANDS, log2: false,
                typing: typing("bands"), lang, on_change: send_u32(Action::Bands) }.view() }
            { NumberSlider { id: "batch".into(), label: T::Batch.get(lang).into(), unit: "".into(),
                value: s.batch_per_gpu, min: 1, max: SLIDER_MAX_BATCH, max_typed: scenario::MAX_BATCH, log2: true,
                typing: typing("batch"), lang, on_change: send_u32(Action::BatchPerGpu) }.view() }
            { Choice { id: "precision".into(), label: T::Precision.get(lang).into(), options: precisions,
                selected: s.precision.id().into(), on_change: on_precision }.view() }
            { Toggle { id: "cudnn-benchmark".into(), label: T::CudnnBenchmark.get(lang).into(),
                checked: s.cudnn_benchmark, on_change: on_cudnn_benchmark }.view() }
            <p class="help">{ T::CudnnBenchmarkHelp.get(lang) }</p>
            { NumberSlider { id: "cards".into(), label: T::Cards.get(lang).into(), unit: "×".into(),
                value: s.cards, min: 1, max: scenario::MAX_CARDS, max_typed: scenario::MAX_CARDS, log2: false,
                typing: typing("cards"), lang, on_change: send_u32(Action::Cards) }.view() }
        </>
    };
    let more_inputs = html! {
        if *rest_drawn {
            { NumberSlider { id: "classes".into(), label: T::Classes.get(lang).into(), unit: "".into(),
                value: s.classes, min: 2, max: 64, max_typed: scenario::MAX_CLASSES, log2: false,
                typing: typing("classes"), lang, on_change: send_u32(Action::Classes) }.view() }
            { Choice { id: "optimizer".into(), label: T::Optimizer.get(lang).into(), options: optimizers,
                selected: s.optimizer.id().into(), on_change: on_optimizer }.view() }
            { Toggle { id: "checkpointing".into(), label: T::Checkpointing.get(lang).into(),
                checked: s.checkpointing, on_change: on_checkpointing }.view() }
            { Toggle { id: "ecc".into(), label: X::Ecc.get(lang).into(), checked: s.ecc, on_change: on_ecc }.view() }
            if let Some(note) = ecc_note {
                <p class="help">{ note }</p>
            }
            { Choice { id: "interconnect".into(), label: T::Interconnect.get(lang).into(), options: interconnects,
                selected: s.interconnect.id().into(), on_change: on_interconnect }.view() }
            { Choice { id: "mode".into(), label: T::Mode.get(lang).into(), options: modes,
                selected: mode_id.into(), on_change: on_mode }.view() }
            { Choice { id: "cpu".into(), label: T::Cpu.get(lang).into(), options: cpus,
                selected: s.cpu.id().into(), on_change: on_cpu }.view() }
            { NumberSlider { id: "workers".into(), label: T::Workers.get(lang).into(), unit: "".into(),
                value: s.pipeline.num_workers, min: 0, max: 16, max_typed: 256, log2: false,
                typing: typing("workers"), lang, on_change: send_u32(Action::Workers) }.view() }
            { Toggle { id: "cube-on-gpu".into(), label: T::CubeOnGpu.get(lang).into(),
                checked: s.pipeline.cube_on_gpu, on_change: on_cube }.view() }
            // Embedded (a wiki page), the panel keeps to the sliders.
            if !store.embed {
                { model_loader }
            }
            { advanced_group(&store) }
        }
    };

    html! {
        <section class="panel inputs" aria-labelledby="inputs-heading" data-testid="inputs">
            <h2 id="inputs-heading">{ T::Inputs.get(lang) }</h2>
            <div class="key-inputs">{ key_inputs }</div>
            if store.presentation {
                <details class="more-inputs" data-testid="more-inputs">
                    <summary>{ T::MoreInputs.get(lang) }</summary>
                    { more_inputs }
                </details>
            } else {
                <div class="more-inputs">{ more_inputs }</div>
            }
        </section>
    }
}
