//! Server-side renders of the whole page: controls, language, embed and presentation
//! modes, link notices and the error panel.

mod ssr_support;

use hsi_gpu_core::format;
use hsi_gpu_planner::app::{App, AppProps};
use hsi_gpu_planner::components::controls::NumberSlider;
use hsi_gpu_planner::i18n::{Lang, T};
use hsi_gpu_planner::state::AppState;
use hsi_gpu_planner::{query, ASSUMPTION_SECTIONS};
use ssr_support::{render, report, scenario, testid_text};
use yew::{function_component, Callback, Html};

fn state(query_text: &str) -> AppState {
    let mut state = AppState::at_load(query_text, None, Lang::En);
    if !query_text.contains("model") {
        state.scenario.model = scenario().model;
    }
    state
}

async fn page(state: AppState) -> String {
    render::<App>(AppProps { initial: state }).await
}

#[tokio::test]
async fn page_shows_controls_views_and_the_estimates_note() {
    let s = state("");
    let expected_total = format::bytes(report(&s.scenario).memory.total);
    let html = page(s).await;
    for id in [
        "step-time",
        "roofline-chart",
        "scaling-table",
        "tco",
        "layer-table",
        "patch-slider",
        "bands-slider",
        "batch-slider",
        "precision",
        "cards-slider",
        "dataset",
        "model",
        "gpu",
        "optimizer",
        "interconnect",
        "checkpointing",
        "cudnn-benchmark",
        "assumptions",
        "estimates-note",
        "verdict",
        "copy-link",
        "lang-toggle",
        "measured",
        "measurement-file",
    ] {
        assert!(
            html.contains(&format!("data-testid=\"{id}\"")),
            "{id} missing"
        );
    }
    assert_eq!(
        testid_text(&html, "total-memory"),
        Some(expected_total.as_str())
    );
    assert!(html.contains("<label for=\"patch-slider\">"));
}

#[tokio::test]
async fn figures_without_a_primary_source_are_named() {
    let card = hsi_gpu_core::gpu::GPUS
        .iter()
        .find(|g| !g.unverified.is_empty())
        .expect("the catalog marks some figures unverified");
    let mut s = state("");
    s.scenario.gpu = card.id.into();
    let html = page(s).await;
    let note = testid_text(&html, "unverified").expect("unverified note");
    assert!(note.contains(card.name), "{note}");
    // In words, not by field name.
    let words = hsi_gpu_planner::i18n::catalog_field_name(card.unverified[0], Lang::En);
    assert!(note.contains(words), "{note}");
    assert!(!note.contains(card.unverified[0]), "{note}");
}

#[tokio::test]
async fn a_custom_model_is_named_in_the_model_choice_with_its_fixed_input() {
    let query = "model.kind=custom&model.spec.name=mine&model.spec.input=%5B1%2C30%2C9%2C9%5D\
        &model.spec.layers=%5B%7B%22op%22%3A%22conv%22%2C%22dims%22%3A3%2C%22out_channels%22%3A4%2C%22kernel%22%3A%5B3%5D%7D%5D";
    let s = state(query);
    assert!(
        matches!(&s.scenario.model, hsi_gpu_core::scenario::ModelChoice::Custom { spec } if spec.name == "mine"),
        "{:?}",
        s.notices
    );
    let html = page(s).await;
    assert!(html.contains(">custom: mine</option>"), "custom option");
    let note = testid_text(&html, "custom-model-note").expect("custom model note");
    assert!(note.contains("[1, 30, 9, 9]"), "{note}");
    assert!(html.contains("data-testid=\"model-file\""));
}

#[tokio::test]
async fn chinese_page_uses_chinese_strings() {
    // A card without a known price, so that the core has a remark to word.
    let unpriced = ssr_support::unpriced_gpu();
    let query = format!("lang=zh&gpu={}", unpriced.id);
    let html = page(state(&query)).await;
    assert!(html.contains(T::Title.get(Lang::Zh)));
    assert!(html.contains(T::EstimatesNote.get(Lang::Zh)));
    assert!(!html.contains(T::EstimatesNote.get(Lang::En)));
    // The core's remarks too.
    let s = state(&query).scenario;
    let warning = &report(&s).warnings[0];
    assert!(html.contains(&hsi_gpu_planner::i18n::warning_text(warning, Lang::Zh)));
    assert!(!html.contains(&warning.to_string()));
}

#[tokio::test]
async fn the_advanced_group_offers_sharding_offload_and_nodes_in_both_languages() {
    for lang in [Lang::En, Lang::Zh] {
        let query = format!(
            "lang={}&sharding=zero2&nodes=2&node_link=ib_ndr",
            lang.code()
        );
        let html = page(state(&query)).await;
        assert!(html.contains(T::Advanced.get(lang)), "{lang:?}");
        for field in ["sharding", "offload", "nodes", "node_link", "nics_per_node"] {
            let id = format!("field-{field}");
            assert!(
                html.contains(&format!("data-testid=\"{id}\"")),
                "{id} {lang:?}"
            );
        }
        let label = hsi_gpu_planner::i18n::field_label("node_link", lang);
        assert!(html.contains(&label), "{label}");
        assert!(html.contains("value=\"ib_ndr\""));
        assert!(html.contains("nodes-line"));
    }
}

#[tokio::test]
async fn the_advanced_group_offers_tensor_and_pipeline_parallelism_in_both_languages() {
    for lang in [Lang::En, Lang::Zh] {
        let query = format!(
            "lang={}&model.id=vit&patch=64&cards=4&tensor_parallel=2&pipeline_parallel=2\
             &micro_batches=8",
            lang.code()
        );
        let st = state(&query);
        assert_eq!(st.scenario.tensor_parallel, 2);
        assert!(report(&st.scenario).parallel.bubble_fraction > 0.0);
        let html = page(st).await;
        for (field, value) in [
            ("tensor_parallel", "2"),
            ("pipeline_parallel", "2"),
            ("micro_batches", "8"),
        ] {
            let label = hsi_gpu_planner::i18n::field_label(field, lang);
            assert_ne!(label, field, "{field} has no {lang:?} label");
            assert!(html.contains(&label), "{label}");
            let input = format!(
                "<input value=\"{value}\" type=\"text\" inputmode=\"decimal\" id=\"field-{field}\""
            );
            assert!(html.contains(&input), "{input} {lang:?}");
        }
        // The details say the layout, the all-reduces and the bubble.
        assert!(html.contains("data-testid=\"layout-line\""), "{lang:?}");
        assert!(html.contains("TP 2 × PP 2 × DP 1"), "{lang:?}");
        assert!(html.contains(T::PipelineBubble.get(lang)));
    }
    // A layout the model cannot take is an error that names the field.
    let html = page(state("model.id=vit&patch=64&cards=4&tensor_parallel=3")).await;
    assert!(
        html.contains("tensor_parallel"),
        "no error naming the field"
    );
}

#[tokio::test]
async fn embed_mode_is_compact_and_links_to_the_full_page() {
    let html = page(state("embed=1&bands=50")).await;
    assert!(html.contains("class=\"app embed\""));
    assert!(!html.contains("data-testid=\"copy-link\""));
    assert!(!html.contains("data-testid=\"assumptions\""));
    // Memory and speed stay; the roofline, cost, per-card and per-layer tables do not.
    assert!(html.contains("data-testid=\"total-memory\""));
    assert!(html.contains("data-testid=\"step-time\""));
    for gone in [
        "roofline-chart",
        "tco",
        "scaling-table",
        "layer-table",
        "measured",
        "model-file",
    ] {
        assert!(
            !html.contains(&format!("data-testid=\"{gone}\"")),
            "{gone} shown"
        );
    }
    let link_at = html
        .find("data-testid=\"open-full\"")
        .expect("link to full page");
    let anchor_start = html[..link_at].rfind("<a").unwrap();
    let anchor = &html[anchor_start..link_at];
    assert!(
        anchor.contains("bands=50") && !anchor.contains("embed"),
        "{anchor}"
    );
}

#[tokio::test]
async fn presentation_mode_sets_its_class() {
    let html = page(state("present=1")).await;
    assert!(html.contains("class=\"app presentation\""));
}

#[tokio::test]
async fn bad_link_values_show_a_notice_and_the_page_still_renders() {
    let html = page(state("bands=banana&cards=99")).await;
    let notices_at = html.find("data-testid=\"notices\"").expect("notice shown");
    let notices = &html[notices_at..];
    // Each by its name (the parameter in a tooltip), its value and why.
    for (key, name, value) in [("bands", T::Bands, "banana"), ("cards", T::Cards, "99")] {
        assert!(
            notices.contains(&format!("title=\"{key}\">{}</span>", name.get(Lang::En))),
            "{notices}"
        );
        assert!(
            notices.contains(&format!("<code>{value}</code>")),
            "{notices}"
        );
    }
    assert!(html.contains("data-testid=\"total-memory\""));
}

#[tokio::test]
async fn a_scenario_the_core_rejects_lists_field_value_and_allowed() {
    let mut s = state("");
    s.scenario.bands = 5000; // typed past the limit: the core says what is allowed
    let html = page(s).await;
    let errors_at = html.find("data-testid=\"errors\"").expect("error panel");
    let errors = &html[errors_at..];
    assert!(
        errors.contains("bands") && errors.contains("5000"),
        "{errors}"
    );
    assert!(errors.contains("1024"), "allowed range shown: {errors}");
}

/// The batch slider as the scenario panel draws it.
#[function_component]
fn BatchSlider() -> Html {
    NumberSlider {
        id: "batch".into(),
        label: "Batch".into(),
        unit: "".into(),
        value: 64,
        min: 1,
        max: 4096,
        max_typed: 1 << 20,
        log2: true,
        typing: Default::default(),
        lang: Lang::En,
        on_change: Callback::noop(),
    }
    .view()
}

#[tokio::test]
async fn batch_slider_moves_in_powers_of_two() {
    let html = render::<BatchSlider>(()).await;
    // Slider 0..12 at position 6 (2^6 = 64); the number box shows 64 itself.
    assert!(
        html.contains("min=\"0\"") && html.contains("max=\"12\""),
        "{html}"
    );
    assert!(html.contains("value=\"6\""), "{html}");
    assert!(html.contains("value=\"64\""), "{html}");
}

#[test]
fn assumptions_listed_by_the_panel_round_trip_through_links() {
    let s = scenario();
    let fields = query::fields_under(&s, &ASSUMPTION_SECTIONS);
    assert!(fields.len() >= 4, "{fields:?}");
    for (path, text) in fields {
        let same = query::set_field(&s, &path, &text).expect("its own text parses");
        assert_eq!(same, s, "{path}={text}");
    }
}

#[tokio::test]
async fn the_advanced_group_offers_attention_and_fine_tuning_in_both_languages() {
    for lang in [Lang::En, Lang::Zh] {
        let query = format!(
            "lang={}&finetune.mode=lora&finetune.rank=16&finetune.targets=[\"qkv\",\"proj\"]",
            lang.code()
        );
        let html = page(state(&query)).await;
        assert!(
            html.contains(T::Advanced.get(lang)),
            "{lang:?}: no group legend"
        );
        for id in ["attention", "finetune", "lora-rank-slider"] {
            assert!(
                html.contains(&format!("data-testid=\"{id}\"")),
                "{lang:?}: {id} missing"
            );
        }
        for option in [
            T::AttentionSdpa,
            T::AttentionMath,
            T::FineTuneFull,
            T::FineTuneFrozen,
            T::FineTuneLora,
        ] {
            assert!(
                html.contains(option.get(lang)),
                "{lang:?}: {:?}",
                option.get(lang)
            );
        }
        assert!(
            html.contains("value=\"16\""),
            "{lang:?}: the rank from the link"
        );
    }
    // Without LoRA there is no rank to set.
    let html = page(state("")).await;
    assert!(!html.contains("data-testid=\"lora-rank-slider\""));
}
