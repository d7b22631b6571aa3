//! Evaluation and whole-scene prediction after training, and the same prediction on
//! smaller deployment cards.

use hsi_gpu_core::format;
use yew::prelude::*;

use crate::components::chart_parts::key_figure;

use super::text::{prediction_sentence, X};
use crate::i18n::Lang;
use crate::SharedReport;

pub struct InferenceView {
    pub report: SharedReport,
    pub lang: Lang,
}

fn seconds(t: Option<f64>, lang: Lang) -> String {
    t.map_or_else(|| X::DoesNotFit.get(lang).to_string(), format::duration)
}

impl InferenceView {
    pub fn view(self) -> Html {
        let lang = self.lang;
        let body = match &self.report.inference {
            None => html! { <p class="help">{ X::NoScene.get(lang) }</p> },
            Some(inf) => {
                let share = |t: Option<f64>| t.map_or_else(|| "—".into(), format::percent);
                html! {
                    <>
                        <p class="key-figures">
                            { key_figure(X::EvalPass.get(lang), Some("eval-pass"), seconds(inf.eval_pass_s, lang)) }
                            { key_figure(X::EvalEveryEpoch.get(lang), None, seconds(inf.eval_every_epoch_s, lang)) }
                            { key_figure(X::ScenePrediction.get(lang), Some("scene-prediction"), seconds(inf.scene_prediction_s, lang)) }
                        </p>
                        // Shares of a training run that cannot start would mislead.
                        <p class="help" data-testid="prediction-share">{
                            if self.report.memory.fits {
                                prediction_sentence(lang, &share(inf.prediction_vs_training), &share(inf.eval_vs_training))
                            } else {
                                X::NoTrainingRun.get(lang).to_string()
                            }
                        }</p>
                        <dl class="facts">
                            <dt>{ X::TestPixels.get(lang) }</dt><dd>{ format::count(inf.test_pixels) }</dd>
                            <dt>{ X::ScenePixels.get(lang) }</dt><dd>{ format::count(inf.scene_pixels) }</dd>
                            <dt>{ X::MaxBatchNoGrad.get(lang) }</dt><dd data-testid="max-batch-no-grad">{ format::count(inf.max_batch_no_grad.into()) }</dd>
                            <dt>{ X::NoGradPeak.get(lang) }</dt><dd>{ format::gib(inf.no_grad_peak_bytes) }</dd>
                        </dl>
                        <h3>{ X::Deployment.get(lang) }</h3>
                        <table data-testid="deployment-table">
                            <thead><tr>
                                <th scope="col">{ X::Card.get(lang) }</th>
                                <th scope="col" class="num">{ X::MaxBatchNoGrad.get(lang) }</th>
                                <th scope="col" class="num">{ X::ScenePrediction.get(lang) }</th>
                            </tr></thead>
                            <tbody>
                                { for inf.deployment.iter().map(|d| html! {
                                    <tr>
                                        <th scope="row">{ d.gpu.clone() }</th>
                                        <td class="num">{ format::count(d.max_batch_no_grad.into()) }</td>
                                        <td class="num">{ seconds(d.scene_prediction_s, lang) }</td>
                                    </tr>
                                }) }
                            </tbody>
                        </table>
                    </>
                }
            }
        };
        html! {
            <section class="panel view inference" aria-labelledby="inference-heading" data-testid="inference">
                <h2 id="inference-heading">{ X::InferenceTitle.get(lang) }</h2>
                <p class="help">{ X::InferenceHelp.get(lang) }</p>
                { body }
            </section>
        }
    }
}
