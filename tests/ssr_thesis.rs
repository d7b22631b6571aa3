//! Server-side renders of the lever, inference and article views in both languages: each
//! figure shown is the core's, formatted by the core's formatter.

mod ssr_support;

use hsi_gpu_planner::SharedReport;

use hsi_gpu_core::whatifs::estimate_all;
use hsi_gpu_core::{format, Scenario};
use hsi_gpu_planner::components::chart_tile::Chart;
use hsi_gpu_planner::components::thesis::article_panel::{ArticlePanel, ArticlePanelProps};
use hsi_gpu_planner::components::thesis::inference_view::InferenceView;
use hsi_gpu_planner::components::thesis::levers_view::{LeversTable, LeversView};
use hsi_gpu_planner::components::thesis::text::{lever_label, X};
use hsi_gpu_planner::i18n::Lang;
use ssr_support::{count, render, render_chart, render_view, testid_text};

fn full_report(s: &Scenario) -> SharedReport {
    SharedReport::new(estimate_all(s).expect("valid scenario"))
}

#[tokio::test]
async fn levers_view_draws_a_bar_and_a_row_per_lever_and_names_the_best() {
    for lang in [Lang::En, Lang::Zh] {
        let report = full_report(&Scenario::default());
        let html = render_chart(Chart::Levers(LeversView {
            report: report.clone(),
            lang,
            on_map: None,
        }))
        .await;
        assert!(html.contains(X::LeversTitle.get(lang)));
        assert_eq!(count(&html, "<rect x="), report.levers.len());
        for o in &report.levers {
            // The label says what changes (never in ×, which the bar's value uses).
            let label = lever_label(o.lever, o.factor, lang);
            assert!(html.contains(&label), "{:?}", o.lever);
            assert!(!label.contains('×'), "{label}");
            if let Some(s) = o.speedup {
                assert!(html.contains(&format::times(s)), "{s}");
            }
        }
        let best = report
            .best_lever
            .expect("the default scenario has a best lever");
        let sentence = testid_text(&html, "best-lever").unwrap();
        assert!(
            sentence.contains(&lever_label(best.lever, best.factor, lang)),
            "{sentence}"
        );
        assert!(
            sentence.contains(&format::times(best.speedup.unwrap())),
            "{sentence}"
        );
        // The table below the dashboard: the scenario's row, then one per lever.
        let table = render_view(
            LeversTable {
                report: report.clone(),
                lang,
            }
            .view(),
        )
        .await;
        assert_eq!(count(&table, "<th scope=\"row\">"), report.levers.len() + 1);
    }
}

#[tokio::test]
async fn inference_view_shows_the_cores_times_and_the_deployment_cards() {
    for lang in [Lang::En, Lang::Zh] {
        let report = full_report(&Scenario::default());
        let inf = report.inference.clone().unwrap();
        let html = render_view(
            InferenceView {
                report: report.clone(),
                lang,
            }
            .view(),
        )
        .await;
        assert!(html.contains(X::InferenceTitle.get(lang)));
        assert_eq!(
            testid_text(&html, "scene-prediction"),
            Some(format::duration(inf.scene_prediction_s.unwrap()).as_str())
        );
        assert_eq!(
            testid_text(&html, "eval-pass"),
            Some(format::duration(inf.eval_pass_s.unwrap()).as_str())
        );
        for d in &inf.deployment {
            assert!(html.contains(&d.gpu), "{}", d.gpu);
        }
    }
}

#[tokio::test]
async fn inference_view_quotes_no_share_of_a_training_run_that_does_not_fit() {
    let s = Scenario {
        batch_per_gpu: 8192,
        ..Default::default()
    };
    let report = full_report(&s);
    assert!(!report.memory.fits && report.inference.is_some());
    for lang in [Lang::En, Lang::Zh] {
        let html = render_view(
            InferenceView {
                report: report.clone(),
                lang,
            }
            .view(),
        )
        .await;
        let sentence = testid_text(&html, "prediction-share").unwrap();
        assert_eq!(sentence, X::NoTrainingRun.get(lang));
        assert!(!sentence.contains('%'), "{sentence}");
    }
}

#[tokio::test]
async fn article_panel_shows_the_computed_corrections_in_both_languages() {
    let check = hsi_gpu_core::article::article_check();
    for lang in [Lang::En, Lang::Zh] {
        let html = render::<ArticlePanel>(ArticlePanelProps { lang }).await;
        assert!(html.contains(X::ArticleTitle.get(lang)));
        let gb = |b: f64| format!("{} GB", format::significant(b / 1e9));
        assert!(html.contains(&gb(check.first_layer.fp32_bytes)));
        assert!(html.contains(&gb(check.adam_states.fp32_bytes)));
        for card in &check.linear_layer.cards {
            assert!(html.contains(&card.gpu));
        }
    }
}

#[tokio::test]
async fn a_card_without_a_price_asks_for_one_instead_of_counting_zero() {
    use hsi_gpu_planner::components::cost_view::CostView;
    let unpriced = ssr_support::unpriced_gpu();
    let s = Scenario {
        gpu: unpriced.id.into(),
        interconnect: hsi_gpu_core::scaling::valid_interconnects(unpriced)[0],
        ..Scenario::default()
    };
    let report = SharedReport::new(hsi_gpu_core::estimate(&s).unwrap());
    assert!(!report.perf.cost.card_price_known);
    for lang in [Lang::En, Lang::Zh] {
        let html = render_view(
            CostView {
                report: report.clone(),
                lang,
            }
            .view(),
        )
        .await;
        assert_eq!(testid_text(&html, "tco"), Some(X::EnterPrice.get(lang)));
        assert_eq!(
            testid_text(&html, "cost-per-experiment"),
            Some(X::EnterPrice.get(lang))
        );
        assert!(html.contains("price-unknown"));
    }
}

#[tokio::test]
async fn memory_view_shows_what_ecc_takes_and_cost_view_the_currency() {
    use hsi_gpu_planner::components::cost_view::CostView;
    use hsi_gpu_planner::components::memory_view::MemoryView;
    let mut s = Scenario {
        ecc: true,
        ..Scenario::default()
    };
    s.cost.currency = hsi_gpu_core::choices::Currency::Cny;
    let report = SharedReport::new(hsi_gpu_core::estimate(&s).unwrap());
    let html = render_chart(Chart::Memory(MemoryView {
        report: report.clone(),
        lang: Lang::Zh,
        gpu_name: "RTX A5500".into(),
        headroom: s.memory.headroom,
        ghost: None,
    }))
    .await;
    assert_eq!(
        testid_text(&html, "ecc-reserved"),
        Some(format::bytes(report.memory.ecc_reserved).as_str())
    );
    let html = render_view(
        CostView {
            report: report.clone(),
            lang: Lang::En,
        }
        .view(),
    )
    .await;
    let c = &report.perf.cost;
    assert_eq!(testid_text(&html, "tco"), Some(c.money(c.tco_usd).as_str()));
    assert!(c.money(c.tco_usd).starts_with('¥'));
    // The RTX A5500 has no dated cloud rate: the cloud column asks for one.
    assert!(!c.cloud_rate_known);
    assert!(html.contains(X::EnterRate.get(Lang::En)));
}

#[tokio::test]
async fn cost_view_says_where_the_card_and_bridge_prices_come_from() {
    use hsi_gpu_core::choices::Interconnect;
    use hsi_gpu_planner::components::cost_view::CostView;
    use hsi_gpu_planner::i18n::T;
    let view = |s: Scenario, lang: Lang| async move {
        let report = SharedReport::new(hsi_gpu_core::estimate(&s).unwrap());
        let c = report.perf.cost.clone();
        let html = render_view(CostView { report, lang }.view()).await;
        (html, c)
    };
    let bridged = |gpu: &str| Scenario {
        gpu: gpu.into(),
        cards: 4,
        interconnect: Interconnect::NvlinkBridge,
        ..Scenario::default()
    };
    for lang in [Lang::En, Lang::Zh] {
        // The A5500's price is a guess: the page says so, with why.
        let (html, c) = view(Scenario::default(), lang).await;
        assert!(html.contains("price-basis"));
        assert!(html.contains(T::PriceGuess.get(lang)));
        assert!(shows_seen(&html, &c.card_price_seen, lang), "{html}");
        // Chinese text with full-width punctuation.
        let mixed = [
            ": <strong",
            &format!("{}: ", T::CardPrice.get(lang)),
            "$2,500 (",
        ];
        assert!(
            lang == Lang::En || !mixed.iter().any(|m| html.contains(*m)),
            "{html}"
        );
        assert!(
            !html.contains(T::CostBridges.get(lang)),
            "no bridges on one card"
        );
        // Two bridged pairs: their cost and where it was seen.
        let (html, c) = view(bridged("rtx_a5500"), lang).await;
        assert!(html.contains(T::CostBridges.get(lang)));
        assert!(html.contains(&c.money(c.bridges_usd)));
        assert!(html.contains("bridge-seen") && shows_seen(&html, &c.bridge_price_seen, lang));
        // A dated listing is named as one.
        let (html, _) = view(
            Scenario {
                gpu: "rtx_4090".into(),
                ..Scenario::default()
            },
            lang,
        )
        .await;
        assert!(html.contains(T::PriceListed.get(lang)));
        // No known bridge price: said, not counted as zero.
        let (html, c) = view(bridged("h100_pcie"), lang).await;
        assert!(!c.bridge_price_known);
        assert!(html.contains("bridge-unknown"));
        assert!(html.contains(T::BridgeUnknown.get(lang)));
    }
}

#[tokio::test]
async fn the_thesis_map_draws_a_cell_per_model_and_patch_its_flips_and_the_claims() {
    use hsi_gpu_core::thesis::thesis_map;
    use hsi_gpu_planner::components::thesis::map_view::{MapView, SharedMap};
    use hsi_gpu_planner::i18n::thesis_map::{claim_detail, claim_finding, claim_short, M};
    let map = thesis_map(&Scenario {
        cards: 2,
        ..Scenario::default()
    })
    .unwrap();
    for lang in [Lang::En, Lang::Zh] {
        let html = render_chart(Chart::Map(MapView {
            map: Some(SharedMap::new(map.clone())),
            lang,
            stale: false,
            progress: None,
            on_back: yew::Callback::noop(),
        }))
        .await;
        assert!(html.contains("chart-thesis-map") && html.contains(M::Title.get(lang)));
        assert_eq!(count(&html, "data-testid=\"map-cell\""), map.cells.len());
        assert_eq!(count(&html, "data-testid=\"map-flip\""), map.flips.len());
        assert!(!map.flips.is_empty());
        // Every row is labelled with its model's size; every cell's speed-up is the core's.
        for row in &map.models {
            assert!(html.contains(&format::params(row.params)), "{}", row.model);
        }
        for c in &map.cells {
            if let Some(s) = c.best.and_then(|b| b.speedup) {
                assert!(
                    html.contains(&format::times(s)),
                    "{} at {}",
                    c.model,
                    c.patch
                );
            }
        }
        // Beside the map: each claim of the article and what the map finds, computed.
        assert_eq!(count(&html, "data-testid=\"map-claim\""), map.claims.len());
        for c in &map.claims {
            assert!(html.contains(&claim_detail(c, lang)), "{:?}", c.id);
            assert!(html.contains(claim_short(c.id, lang)), "{:?}", c.id);
            assert!(html.contains(&claim_finding(c, lang)), "{:?}", c.id);
        }
        assert!(!html.contains("map-progress"));
    }
}

/// Whether the page shows where a price was seen ("date, source"): whole in English; in
/// Chinese the date, with the (English) source as its tooltip.
fn shows_seen(html: &str, seen: &str, lang: Lang) -> bool {
    match (lang, seen.split_once(", ")) {
        (Lang::Zh, Some((date, source))) => {
            let escaped = source.replace('&', "&amp;").replace('"', "&quot;");
            html.contains(&format!(">{date}<")) && html.contains(&format!("title=\"{escaped}\""))
        }
        _ => html.contains(seen),
    }
}
