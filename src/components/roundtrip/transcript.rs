use leptos::prelude::*;
use mrtr_world::diff::{retry_changes, Change};
use mrtr_world::{Actor, EventKind, MessageKind, Trace};

use crate::state::json_view::{explain, tokens, Token};

/// One message on the client's wire.
#[derive(Clone, Debug, PartialEq)]
struct Line {
    id: usize,
    outgoing: bool,
    kind: MessageKind,
    step: usize,
    tokens: Vec<Token>,
}

fn lines(t: &Trace, upto: usize) -> Vec<Line> {
    let first_call = t.events.iter().find_map(|e| match &e.kind {
        EventKind::Sent {
            from: Actor::Client,
            kind: MessageKind::Call,
            json,
            ..
        } => Some(json.clone()),
        _ => None,
    });
    let mut out = Vec::new();
    for (si, step) in t.steps.iter().enumerate().take(upto + 1) {
        for e in &t.events[step.events.clone()] {
            let EventKind::Sent {
                from,
                to,
                kind,
                json,
            } = &e.kind
            else {
                continue;
            };
            let on_client_wire = (*from == Actor::Client && *to == Actor::Balancer)
                || (*from == Actor::Balancer && *to == Actor::Client);
            if !on_client_wire || json.get("jsonrpc").is_none() {
                continue;
            }
            let changes = match (kind, &first_call) {
                (MessageKind::Retry, Some(call)) => retry_changes(call, json),
                _ => Vec::new(),
            };
            out.push(Line {
                id: e.id,
                outgoing: *from == Actor::Client,
                kind: *kind,
                step: si,
                tokens: tokens(json, &changes),
            });
        }
    }
    out
}

fn title(l: &Line) -> String {
    let what = match l.kind {
        MessageKind::Call => "the call",
        MessageKind::InputRequired => "input_required: a question and a ticket",
        MessageKind::Retry => "the retry",
        MessageKind::Complete => "the result",
        MessageKind::Error => "the refusal",
        MessageKind::Question | MessageKind::Answer => "host",
    };
    format!(
        "{} step {}: {what}",
        if l.outgoing { "-->" } else { "<--" },
        l.step + 1
    )
}

fn token_view(t: Token) -> AnyView {
    let change_class = match t.change {
        Some(Change::Changed) => " changed",
        Some(Change::Added) => " added",
        Some(Change::Removed) => " removed",
        _ => "",
    };
    match t.field.and_then(|f| explain_by_id(f).map(|tip| (f, tip))) {
        // The explanation is drawn from data-tip by CSS, so it never joins the JSON's text (copying
        // stays clean); screen readers get it through aria-describedby.
        Some((field, tip)) => view! {
            <span class=format!("field{change_class}") tabindex="0" data-field=field data-tip=tip
                aria-describedby=format!("tip-{field}")>
                {t.text}
            </span>
        }
        .into_any(),
        None if !change_class.is_empty() => {
            view! { <span class=format!("plain{change_class}")>{t.text}</span> }.into_any()
        }
        None => t.text.into_any(),
    }
}

const GLOSSARY: [&str; 16] = [
    "jsonrpc",
    "id",
    "method",
    "params",
    "_meta",
    "io.modelcontextprotocol/clientCapabilities",
    "io.modelcontextprotocol/protocolVersion",
    "name",
    "arguments",
    "result",
    "resultType",
    "inputRequests",
    "requestState",
    "inputResponses",
    "content",
    "error",
];

fn explain_by_id(id: &str) -> Option<&'static str> {
    let key = match id {
        "clientCapabilities" => "io.modelcontextprotocol/clientCapabilities",
        "protocolVersion" => "io.modelcontextprotocol/protocolVersion",
        other => other,
    };
    explain(key).map(|(_, text)| text)
}

/// The JSON-RPC messages on the client's side of the balancer, up to the current step: the
/// diagram as text. Keys the page explains are focusable; what the retry changed is marked.
#[component]
pub fn Transcript(trace: Memo<Trace>, step: Memo<usize>) -> impl IntoView {
    let all = Memo::new(move |_| trace.with(|t| lines(t, step.get())));
    let list = NodeRef::<leptos::html::Ol>::new();
    // Keep the newest message in view inside the list, without scrolling the page. Reading
    // a position forces layout, so it waits for the frame, and the first message (at the top
    // already) needs none: that read once cost a third of the start-up time.
    Effect::new(move |_| {
        if all.with(|ls| ls.len() <= 1) {
            return;
        }
        request_animation_frame(move || {
            let Some(ol) = list.get_untracked() else {
                return;
            };
            if let Some(cur) = ol
                .query_selector(".message.current:last-child")
                .ok()
                .flatten()
            {
                let cur: web_sys::HtmlElement = wasm_bindgen::JsCast::unchecked_into(cur);
                ol.set_scroll_top(cur.offset_top() - 8);
            }
        });
    });
    view! {
        <div class="transcript" data-testid="transcript">
            <h3>"On the wire"</h3>
            <p class="hint">"Underlined keys explain themselves on hover or focus. In the retry, "
                <span class="legend changed">"changed"</span>" and "<span class="legend added">"added"</span>" fields are marked."</p>
            <ul class="sr-only">
                {GLOSSARY.into_iter().filter_map(|k| explain(k)).map(|(id, text)| view! { <li id=format!("tip-{id}")>{text}</li> }).collect_view()}
            </ul>
            <ol class="messages" node_ref=list>
                <For each=move || all.get() key=|l: &Line| (l.id, l.tokens.len()) children=move |l: Line| {
                    let current = move || step.get() == l.step;
                    view! {
                        <li class=move || if current() { "message current" } else { "message" } data-kind=l.kind.id()>
                            <p class="message-title">{title(&l)}</p>
                            <pre class="json">{l.tokens.into_iter().map(token_view).collect_view()}</pre>
                        </li>
                    }
                }/>
            </ol>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::json_view::text;
    use mrtr_world::{round_trip, Ending, Knobs};

    #[test]
    fn the_transcript_is_the_client_side_wire() {
        let t = round_trip(Knobs::default(), Ending::Honest);
        let ls = lines(&t, t.steps.len() - 1);
        let kinds: Vec<MessageKind> = ls.iter().map(|l| l.kind).collect();
        assert_eq!(
            kinds,
            [
                MessageKind::Call,
                MessageKind::InputRequired,
                MessageKind::Retry,
                MessageKind::Complete
            ]
        );
        assert!(text(&ls[3].tokens).contains("deployed to staging"));
        let marked: Vec<(&str, Change)> = ls[2]
            .tokens
            .iter()
            .filter_map(|t| t.change.map(|c| (t.text.as_str(), c)))
            .collect();
        assert_eq!(
            marked,
            [
                ("\"id\"", Change::Changed),
                ("\"inputResponses\"", Change::Added),
                ("\"requestState\"", Change::Added)
            ]
        );
        assert_eq!(lines(&t, 0).len(), 1);
    }
}
