//! Cost: the box's total cost of ownership term by term, then cost per million training
//! samples, per experiment and per sweep, next to renting the same GPU-hours.

use hsi_gpu_core::cost::PriceBasis;
use hsi_gpu_core::format;
use yew::prelude::*;

use crate::components::chart_parts::key_figure;

use crate::components::thesis::text::X;
use crate::i18n::{Lang, T};
use crate::SharedReport;

pub struct CostView {
    pub report: SharedReport,
    pub lang: Lang,
}

impl CostView {
    pub fn view(self) -> Html {
        let lang = self.lang;
        let c = &self.report.perf.cost;
        // Without a card price, a figure that contains it would be a guess: ask for one.
        let priced = |usd: f64| {
            if c.card_price_known {
                c.money(usd)
            } else {
                X::EnterPrice.get(lang).to_string()
            }
        };
        // Likewise without a cloud rate for the card.
        let rented = |usd: f64| {
            if c.cloud_rate_known {
                c.money(usd)
            } else {
                X::EnterRate.get(lang).to_string()
            }
        };
        // Where the card price comes from, and whether it is a listing or a guess.
        let basis = match c.card_price_basis {
            PriceBasis::Scenario => Some(T::PriceYours),
            PriceBasis::Listed => Some(T::PriceListed),
            PriceBasis::Guess => Some(T::PriceGuess),
            PriceBasis::Launch => Some(T::PriceLaunch),
            PriceBasis::Unknown => None,
        };
        let bridged = c.bridges_usd > 0.0 || !c.bridge_price_known;
        let tco_terms = [
            (T::CostCards, c.cards_usd),
            (T::CostBridges, c.bridges_usd),
            (T::CostPlatform, c.platform_usd),
            (T::CostPsu, c.psu_usd),
            (T::CostCooling, c.cooling_usd),
            (T::CostEnergy, c.energy_usd),
            (T::CostOps, c.ops_usd),
        ];
        let per_unit = [
            (
                T::PerMillionSamples,
                c.usd_per_million_samples,
                c.cloud_usd_per_million_samples,
                "cost-per-million",
            ),
            (
                T::PerExperiment,
                c.usd_per_experiment,
                c.cloud_usd_per_experiment,
                "cost-per-experiment",
            ),
            (
                T::PerSweep,
                c.sweep_usd,
                c.cloud_sweep_usd,
                "cost-per-sweep",
            ),
        ];
        // Chinese text takes full-width punctuation.
        let colon = lang.colon();
        let (open, close) = match lang {
            Lang::En => (" (", ")"),
            Lang::Zh => ("（", "）"),
        };
        html! {
            <section class="panel view cost" aria-labelledby="cost-heading">
                <h2 id="cost-heading">{ T::Cost.get(lang) }</h2>
                <p class="key-figures">
                    { key_figure(T::Tco.get(lang), Some("tco"), priced(c.tco_usd)) }
                    { key_figure(T::PerGpuHour.get(lang), None, priced(c.usd_per_gpu_hour)) }
                    { key_figure(T::SweepWall.get(lang), None, format::duration(c.sweep_wall_s)) }
                </p>
                if let Some(basis) = basis {
                    <p class={classes!("help", (c.card_price_basis == PriceBasis::Guess).then_some("notice"))}
                        data-testid="price-basis">
                        { T::CardPrice.get(lang) }{ colon }{ c.money(c.card_price_usd) }{ open }
                        { basis.get(lang) }
                        if !c.card_price_seen.is_empty() { { colon }{ price_seen(&c.card_price_seen, lang) } }
                        { close }
                    </p>
                }
                if !c.card_price_known {
                    <p class="notice" data-testid="price-unknown">{ T::PriceUnknown.get(lang) }</p>
                }
                if !c.bridge_price_known {
                    <p class="notice" data-testid="bridge-unknown">{ T::BridgeUnknown.get(lang) }</p>
                }
                <div class="table-scroll">
                    <table>
                        <caption class="help">{ T::TcoCaption.get(lang) }</caption>
                        <tbody>
                            { for tco_terms.iter().filter(|(term, _)| bridged || *term != T::CostBridges).map(|(term, usd)| html! {
                                <tr><th scope="row">{ term.get(lang) }</th><td class="num">{
                                    if *term == T::CostCards { priced(*usd) } else { c.money(*usd) }
                                }</td></tr>
                            }) }
                            if !c.bridge_price_seen.is_empty() {
                                <tr><td colspan="2" class="help" data-testid="bridge-seen">{ price_seen(&c.bridge_price_seen, lang) }</td></tr>
                            }
                            <tr class="total"><th scope="row">{ T::Tco.get(lang) }</th><td class="num">{ priced(c.tco_usd) }</td></tr>
                        </tbody>
                    </table>
                    <table>
                        <thead><tr>
                            <th scope="col"></th>
                            <th scope="col" class="num">{ T::OwnBox.get(lang) }</th>
                            <th scope="col" class="num">{ T::Cloud.get(lang) }</th>
                        </tr></thead>
                        <tbody>
                            { for per_unit.iter().map(|(label, own, cloud, testid)| html! {
                                <tr>
                                    <th scope="row">{ label.get(lang) }</th>
                                    <td class="num" data-testid={*testid}>{ priced(*own) }</td>
                                    <td class="num">{ rented(*cloud) }</td>
                                </tr>
                            }) }
                        </tbody>
                    </table>
                </div>
            </section>
        }
    }
}

/// Where the card price was seen: "date, source" (core's `card_price_seen`). The sources
/// are English citations, so in Chinese the date shows and the source is the tooltip.
fn price_seen(seen: &str, lang: Lang) -> Html {
    match (lang, seen.split_once(", ")) {
        (Lang::Zh, Some((date, source))) => {
            html! { <span title={source.to_string()}>{ date }</span> }
        }
        _ => html! { <>{ seen.to_string() }</> },
    }
}
