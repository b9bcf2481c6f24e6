use leptos::prelude::*;
use mrtr_core::wire::ClientCapabilities;
use mrtr_world::checks::glyph;
use mrtr_world::kinds::KindLabel;
use mrtr_world::rules::{explore, METHODS};

use super::page_link::{use_link, EditLink};
use super::Gloss;
use crate::state::json_view::one_line;
use crate::state::link::{LinkStoreFields, Widget};
use crate::state::spec_rules::SPEC_RULES;

/// A declaration the reader can toggle: its id, its label, what the label's word means, and
/// the flag it sets.
/// A declared capability's checkbox: its id, its label, the word its label glosses (a term of
/// the page's word lists) and the field it sets.
type CapToggle = (
    &'static str,
    &'static str,
    &'static str,
    fn(&mut ClientCapabilities) -> &mut bool,
);

/// Which method, which declared capabilities: what the server may ask for, and what it does.
#[component]
pub fn RulesExplorer() -> impl IntoView {
    let link = use_link();
    let method = link.method();
    let caps = link.caps();
    let exploration = Memo::new(move |_| explore(method.get(), caps.get()));
    let toggles: [CapToggle; 4] = [
        ("form", "elicitation, form mode", "Elicitation", |c| {
            &mut c.elicitation_form
        }),
        ("url", "elicitation, url mode", "Elicitation", |c| {
            &mut c.elicitation_url
        }),
        ("sampling", "sampling", "Sampling", |c| &mut c.sampling),
        ("roots", "roots", "Roots", |c| &mut c.roots),
    ];
    view! {
        <div class="rules-body">
            <div class="rules-controls">
                <label>"Method "
                    <select data-testid="rules-method" on:change=move |ev| {
                        let v = event_target_value(&ev);
                        if let Some(m) = METHODS.iter().find(|m| **m == v) {
                            link.edit(Widget::Rules).method().set(m);
                        }
                    }>
                        {METHODS.into_iter().map(|m| view! { <option value=m selected=move || method.get() == m>{m}</option> }).collect_view()}
                    </select>
                </label>
                <fieldset class="inline">
                    <legend>"clientCapabilities declares"</legend>
                    {toggles.into_iter().map(|(id, label, term, field)| view! {
                        <label class="toggle"><input type="checkbox" data-cap=id
                            prop:checked=move || { let mut c = caps.get(); *field(&mut c) }
                            on:change=move |ev| { let on = event_target_checked(&ev); link.edit(Widget::Rules).caps().update(|c| *field(c) = on); }/><Gloss term=term word=label/></label>
                    }).collect_view()}
                </fieldset>
            </div>
            {move || {
                let e = exploration.get();
                let kinds = e.allowed.iter().map(|(k, ok)| view! {
                    <li class=if *ok { "kind ok" } else { "kind no" }>
                        <span aria-hidden="true">{if *ok { glyph::YES } else { glyph::NO }}</span>
                        {format!(" {} ", k.label())}
                        <span class="word">{if *ok { "may be asked" } else { "may not be asked" }}</span>
                    </li>
                }).collect_view();
                let headline = e.answer.headline();
                view! {
                    <p class="rules-answer" data-testid="rules-answer"><strong>"The server answers: "</strong>{headline}</p>
                    <p data-testid="rules-explanation">{e.explanation.clone()}</p>
                    <ul class="kinds">{kinds}</ul>
                    <div class="pair">
                        <details class="json-fold"><summary><strong>"Request: "</strong><code>{one_line(&e.request)}</code></summary><pre class="json small" tabindex="0">{serde_json::to_string_pretty(&e.request).unwrap_or_default()}</pre></details>
                        <details class="json-fold"><summary><strong>"Response: "</strong><code data-testid="rules-response-line">{one_line(&e.response)}</code></summary><pre class="json small" tabindex="0" data-testid="rules-response">{serde_json::to_string_pretty(&e.response).unwrap_or_default()}</pre></details>
                    </div>
                }
            }}
            // A reference list: folded to its count until asked for.
            <details class="fold spec-rules-fold" data-testid="spec-rules-fold">
                <summary><h3>{format!("The spec's {} rules on requestState, and where to see each one", SPEC_RULES.len())}</h3></summary>
                <ul class="spec-rules" data-testid="spec-rules">
                    {SPEC_RULES.iter().map(|r| view! {
                        <li><span class="who">{r.who}</span>" "{r.rule}" "<a href=format!("#{}", r.link)>{format!("See: {}", r.see)}</a></li>
                    }).collect_view()}
                </ul>
            </details>
        </div>
    }
}
