//! "About the article": where the seed article's figures are off, each corrected figure
//! computed by the core (`hsi_gpu_core::article`) beside the article's.

use hsi_gpu_core::article::{
    article_check, ArticleCheck, ARTICLE_ADAM_5M_BYTES, ARTICLE_FIRST_LAYER_AMP_BYTES,
    ARTICLE_FIRST_LAYER_FP32_BYTES, ARTICLE_PCIE4_BYTES_PER_S,
};
use hsi_gpu_core::format;
use yew::prelude::*;

use super::text::X;
use crate::i18n::Lang;

#[derive(Properties, PartialEq)]
pub struct ArticlePanelProps {
    pub lang: Lang,
}

/// Decimal gigabytes, as the article writes them.
fn gb(bytes: f64) -> String {
    format!("{} GB", format::significant(bytes / 1e9))
}

fn gb_s(bytes_per_s: f64) -> String {
    format!("{} GB/s", format::significant(bytes_per_s / 1e9))
}

/// One row per correction: what it is about, the article's figure, the computed one.
fn rows(c: &ArticleCheck, lang: Lang) -> Vec<(String, String, String)> {
    let f = &c.first_layer;
    let a = &c.adam_states;
    let l = &c.linear_layer;
    let bound: Vec<String> = l
        .cards
        .iter()
        .map(|card| {
            let kind = match (card.memory_bound, lang) {
                (true, Lang::En) => "memory-bound",
                (false, Lang::En) => "compute-bound",
                (true, Lang::Zh) => "带宽受限",
                (false, Lang::Zh) => "算力受限",
            };
            format!(
                "{} {} ({} / {} FLOP/B)",
                card.gpu,
                kind,
                format::significant(card.intensity),
                format::significant(card.ridge)
            )
        })
        .collect();
    let n = l.memory_bound_cards();
    match lang {
        Lang::En => vec![
            (
                format!("§5.2 first 3-D conv output, {} x 32 x 16 x 16 x 200 values", f.batch),
                format!("{} fp32, {} AMP", gb(ARTICLE_FIRST_LAYER_FP32_BYTES), gb(ARTICLE_FIRST_LAYER_AMP_BYTES)),
                format!("{} fp32, {} AMP ({} values x 4 B)", gb(f.fp32_bytes), gb(f.amp_bytes), format::count(f.elements as u64)),
            ),
            (
                format!("§5.2 weights, gradients and Adam states of a ~5 M-parameter model ({}, {} parameters)", a.model, format::count(a.params)),
                format!("about {}", gb(ARTICLE_ADAM_5M_BYTES)),
                format!("{} (16 B per parameter, fp32 or AMP)", gb(a.fp32_bytes)),
            ),
            (
                "§7.1 PCIe 4.0 x16".to_string(),
                format!("about {} both ways", gb_s(ARTICLE_PCIE4_BYTES_PER_S)),
                format!("{} each way, {} both ways", gb_s(c.pcie4.one_way_bytes_per_s), gb_s(c.pcie4.both_ways_bytes_per_s)),
            ),
            (
                format!("§6.2 fully connected layers lean compute-bound: {}'s first linear layer, batch {}, fp32", l.model, l.batch),
                "compute-bound".to_string(),
                format!("memory-bound on {n} of {} cards: {}", l.cards.len(), bound.join("; ")),
            ),
        ],
        Lang::Zh => vec![
            (
                format!("§5.2 首层三维卷积输出，{} x 32 x 16 x 16 x 200 个值", f.batch),
                format!("FP32 {}，AMP {}", gb(ARTICLE_FIRST_LAYER_FP32_BYTES), gb(ARTICLE_FIRST_LAYER_AMP_BYTES)),
                format!("FP32 {}，AMP {}（{} 个值 x 4 字节）", gb(f.fp32_bytes), gb(f.amp_bytes), format::count(f.elements as u64)),
            ),
            (
                format!("§5.2 约 5M 参数模型的参数、梯度与 Adam 状态（{}，{} 个参数）", a.model, format::count(a.params)),
                format!("约 {}", gb(ARTICLE_ADAM_5M_BYTES)),
                format!("{}（每参数 16 字节，FP32 与 AMP 相同）", gb(a.fp32_bytes)),
            ),
            (
                "§7.1 PCIe 4.0 x16".to_string(),
                format!("约 {}（双向）", gb_s(ARTICLE_PCIE4_BYTES_PER_S)),
                format!("单向 {}，双向合计 {}", gb_s(c.pcie4.one_way_bytes_per_s), gb_s(c.pcie4.both_ways_bytes_per_s)),
            ),
            (
                format!("§6.2 全连接层偏向算力受限：{} 第一个全连接层，批大小 {}，FP32", l.model, l.batch),
                "算力受限".to_string(),
                format!("{} 张卡中有 {n} 张带宽受限：{}", l.cards.len(), bound.join("；")),
            ),
        ],
    }
}

#[function_component]
pub fn ArticlePanel(props: &ArticlePanelProps) -> Html {
    let lang = props.lang;
    let check = use_memo((), |()| article_check());
    html! {
        <section class="panel view article" aria-labelledby="article-heading" data-testid="article-panel">
            <h2 id="article-heading">{ X::ArticleTitle.get(lang) }</h2>
            <p class="help">{ X::ArticleHelp.get(lang) }</p>
            <div class="table-scroll">
                <table>
                    <thead><tr>
                        <th scope="col"></th>
                        <th scope="col">{ X::ArticleSays.get(lang) }</th>
                        <th scope="col">{ X::Computed.get(lang) }</th>
                    </tr></thead>
                    <tbody>
                        { for rows(&check, lang).into_iter().map(|(what, says, computed)| html! {
                            <tr><th scope="row">{ what }</th><td>{ says }</td><td>{ computed }</td></tr>
                        }) }
                    </tbody>
                </table>
            </div>
        </section>
    }
}
