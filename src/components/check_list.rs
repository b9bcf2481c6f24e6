use leptos::prelude::*;
use mrtr_core::ticket::Seal;
use mrtr_core::Verdict;

use mrtr_world::tone::{Harm, Tone};

use crate::state::checks_view::{check_rows, judged};

/// A verdict: the headline, then each check as symbol, question, word and reason (never colour
/// alone), all read off the core's `Verdict`.
#[component]
pub fn CheckList(
    verdict: Verdict,
    /// How the run's tickets are protected: what the signature check is asked.
    seal: Seal,
    #[prop(optional)] by: Option<&'static str>,
    /// What the world made of the work, when it was harm: drawn as a warning, not a success.
    harm: Option<Harm>,
) -> impl IntoView {
    let (headline, tone) = judged(&verdict, harm.as_ref());
    let warn = tone == Tone::Harm;
    let head = match by {
        Some(b) => format!("{b}: {headline}"),
        None => headline,
    };
    view! {
        <div class="check-list">
            <p class=format!("verdict {}", tone.class()) data-testid="verdict">
                {warn.then(|| view! { <span class="warn-symbol" aria-hidden="true">{format!("{} ", tone.glyph())}</span> })}
                {head}
            </p>
            {harm.map(|h| view! { <p class="harm-what" data-testid="harm">{h.what_went_wrong}"."</p> })}
            <ol class="checks">
                {check_rows(&verdict, seal).into_iter().map(|c| view! {
                    <li class=format!("check {}", c.word.replace(' ', "-")) data-check=c.id>
                        <span class="symbol" aria-hidden="true">{c.symbol}</span>
                        <span class="question">{c.question}</span>
                        <span class="word">{c.word}</span>
                        {c.reason.map(|r| view! { <span class="reason">{r}</span> })}
                    </li>
                }).collect_view()}
            </ol>
        </div>
    }
}
