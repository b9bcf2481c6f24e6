//! The wire, message by message, up to the step on show: JSON with every key that explains
//! itself on hover or focus, and the retry's changed and added fields marked.

use leptos::prelude::*;
use mrtr_world::diff::Change;

use crate::state::json_view::{note, text, Folded, Token, NOTES};
use crate::state::transcript::{quiet_step, title, Line};

#[component]
pub fn Transcript(lines: Memo<Vec<Line>>, step: Signal<usize>) -> impl IntoView {
    let list = NodeRef::<leptos::html::Ol>::new();
    // Keep the newest message in view inside the list, without scrolling the page. Reading a
    // position forces layout, so it waits for the next frame.
    Effect::new(move |_| {
        let n = lines.with(Vec::len);
        step.track();
        if n > 1 {
            request_animation_frame(move || {
                let Some(ol) = list.get_untracked() else {
                    return;
                };
                // The step's own message, or on a step with none, the note that says so.
                let cur = ol
                    .query_selector(".message.current:last-child")
                    .ok()
                    .flatten()
                    .or_else(|| ol.last_element_child());
                if let Some(cur) = cur {
                    if let Ok(cur) = wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(cur) {
                        ol.set_scroll_top(cur.offset_top() - 8);
                    }
                }
            });
        }
    });
    // Folded until asked for: each message reads for what it says.
    let whole = RwSignal::new(false);
    // A compact embed folds the whole wire log away, its count in the summary.
    let compact = web_sys::window()
        .and_then(|w| w.location().search().ok())
        .is_some_and(|s| crate::state::embed::parse_query(&s).compact);
    let log = view! {
        <div class="transcript" data-testid="transcript">
            <div class="transcript-head">
                <h3>"On the wire"</h3>
                <button type="button" class="small-toggle" data-testid="whole-messages" aria-pressed=move || whole.get().to_string()
                    on:click=move |_| whole.update(|w| *w = !*w)>"Whole messages"</button>
            </div>
            <p class="hint">"Underlined keys explain themselves (hover or focus). The retry's "
                <span class="legend changed">"changed"</span>" and "<span class="legend added">"added"</span>" fields are marked; "
                <span class="legend folded">"{ … }"</span>" folds detail."</p>
            <ul class="sr-only">
                {NOTES.iter().map(|n| view! { <li id=format!("tip-{}", n.id)>{n.text}</li> }).collect_view()}
            </ul>
            <ol class="messages" class:whole=whole node_ref=list>
                // Keyed by content: a line the next trace shares stays, focus and all.
                <For each=move || lines.get() key=|l| (l.id, text(&l.tokens)) let:l>
                    <Message line=l step=step whole=whole lines=lines/>
                </For>
                // Last, so nothing above it moves when it comes and goes.
                {move || lines.with(|l| quiet_step(l, step.get())).map(|q| view! { <li class="quiet-step" data-testid="quiet-step">{q}</li> })}
            </ol>
        </div>
    };
    if compact {
        view! {
            <details class="fold wire-fold" data-testid="wire-fold">
                <summary>{move || format!("On the wire: {} messages so far", lines.with(Vec::len))}</summary>
                {log}
            </details>
        }
        .into_any()
    } else {
        log.into_any()
    }
}

#[component]
fn Message(
    line: Line,
    step: Signal<usize>,
    whole: RwSignal<bool>,
    lines: Memo<Vec<Line>>,
) -> impl IntoView {
    let own = line.step;
    let id = line.id;
    let Line { tokens, folded, .. } = line.clone();
    // The newest message so far: on a step that sends nothing, the one the step is about.
    let latest = move || lines.with(|l| l.last().map(|x| x.id) == Some(id));
    let class = move || match (step.get() == own, latest()) {
        (true, _) => "message current",
        (false, true) => "message latest",
        (false, false) => "message",
    };
    view! {
        <li class=class data-kind=line.kind.id()>
            <p class="message-title">{title(&line)}</p>
            {line.header.clone().map(|h| view! { <p class="http-header" title="Who is calling: the principal, on HTTP"><code>{h}</code></p> })}
            <pre class="json">{move || if whole.get() { tokens.clone() } else { folded.clone() }.into_iter().map(token).collect_view()}</pre>
        </li>
    }
}

fn token(t: Token) -> AnyView {
    let change = match t.change {
        Some(Change::Changed) => " changed",
        Some(Change::Added) => " added",
        Some(Change::Removed) => " removed",
        _ => "",
    };
    match t.folded {
        Some(Folded::Ticket) => {
            return view! { <span class="fold-chip ticket">{t.text}</span> }.into_any()
        }
        Some(Folded::EditedTicket) => {
            return view! { <span class="fold-chip ticket edited" data-testid="edited-ticket">{t.text}</span> }
                .into_any()
        }
        Some(Folded::Object) => {
            return view! { <span class="fold-chip">{t.text}</span> }.into_any()
        }
        None => {}
    }
    match t.field.and_then(|f| note(f).map(|n| (f, n.text))) {
        // The explanation is drawn from data-tip by CSS, so it never joins the JSON's text
        // (copying stays clean); screen readers get it through aria-describedby.
        Some((field, tip)) => view! {
            <span class=format!("field{change}") tabindex="0" data-field=field data-tip=tip aria-describedby=format!("tip-{field}")>{breakable(&t.text)}</span>
        }
        .into_any(),
        None if !change.is_empty() => view! { <span class=format!("plain{change}")>{t.text}</span> }.into_any(),
        None => t.text.into_any(),
    }
}

/// A key as text that may break after each `/` (a namespace's end, as in
/// `io.modelcontextprotocol/protocolVersion`), so a long key wraps between its parts rather
/// than inside a word. `<wbr>` adds no character: copying the JSON stays clean.
fn breakable(text: &str) -> impl IntoView {
    let parts: Vec<String> = text.split_inclusive('/').map(str::to_owned).collect();
    let last = parts.len().saturating_sub(1);
    parts
        .into_iter()
        .enumerate()
        .map(|(i, p)| view! { {p}{(i < last).then(|| view! { <wbr/> })} })
        .collect_view()
}
