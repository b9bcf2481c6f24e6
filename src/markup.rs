//! The first screen's markup as strings: the page shell, the stand-ins, the round trip's parts,
//! a verdict's check list. The first module draws the page from these without a framework (its
//! size budget leaves no room for one), and the second module uses the shared parts too, so
//! each piece of markup exists once. Pure: tested natively. Every text that is not a literal
//! here goes through [`esc`].

use std::fmt::Write;

use mrtr_core::Verdict;
use mrtr_world::geometry::Layout;
use mrtr_world::{Actor, Ending, MessageKind};

use crate::state::checks_view::{check_rows, headline, tone};
use crate::state::json_view::{explain, Token};
use crate::state::playback::{speed_text, SPEEDS};
use crate::state::stage::{kind_class, px, EDGES};
use crate::state::transcript::{explain_by_id, title, Line, GLOSSARY};
use mrtr_world::diff::Change;

/// Text made safe for element content and quoted attribute values.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The attribute on `<html>` that says where the second module is: "loading", "ready" once
/// every stand-in has its widget, "failed" if it could not be fetched.
pub const STATE_ATTR: &str = "data-widgets";

/// The stand-in id of the embed docs, the one stand-in that is not a widget.
pub const EMBED_DOCS: &str = "embed";

/// Where a widget of the second module goes. The stand-in holds the widget's id, so links and
/// the skip link land there even before it arrives.
pub fn stand_in(id: &str, title: &str) -> String {
    format!(
        r#"<div class="later" data-later="{id}"><section class="card widget stand-in" id="{id}" aria-busy="true"><h2>{title}</h2><p class="hint later-status" role="status">Loading this widget…</p></section></div>"#,
        id = esc(id),
        title = esc(title.trim_start_matches("MRTR Lab: ")),
    )
}

/// What could not be used from the link or query (nothing when everything could).
pub fn link_notes(notes: &[String]) -> String {
    if notes.is_empty() {
        return String::new();
    }
    format!(
        r#"<div class="note" role="status" data-testid="link-note"><strong>Some of this link could not be used, so those settings start from the beginning: </strong>{}<button type="button" class="link-button" data-act="dismiss">Dismiss</button></div>"#,
        esc(&notes.join("; "))
    )
}

/// The page around the widgets: skip link, masthead (the theme toggle goes into its bar),
/// `main` with the notes, the round trip's place and the stand-ins, and the colophon.
pub fn page(stand_ins: &[(&str, &str)]) -> String {
    let mut later = String::new();
    for (id, title) in stand_ins {
        later.push_str(&stand_in(id, title));
    }
    format!(
        r##"<a class="skip" href="#roundtrip-h">Skip to the round trip</a><header class="masthead"><div class="masthead-bar"><p class="kicker">MCP 2026-07-28 · SEP-2322</p><button type="button" class="theme-toggle" data-testid="theme-toggle"></button></div><h1 data-testid="title">MRTR Lab</h1><p class="lede">An MCP server may no longer interrupt a call to ask the user something. Instead it finishes the call early with <code>resultType: "input_required"</code>, listing its questions and handing the client a signed ticket, <code>requestState</code>, that holds the work done so far. The client gets the answers and sends the same request again, under a fresh id, carrying the answers and the untouched ticket. Because the ticket carries the state, any replica that holds the key can finish the job; because it is signed, anyone can change it, but the server notices and refuses it. This lab runs a real Rust MCP server and client in your browser so you can watch it happen, and try to break it.</p></header><main id="main"><div class="link-notes"></div><div class="slot"></div>{later}</main><footer class="colophon"><p>Every message, ticket and verdict on this page is computed by the lab's protocol core, compiled to WebAssembly. Natively, the same core passes all 40 server scenarios that the official MCP conformance suite (0.2.0-alpha.12) tags 2026-07-28, with no failures or warnings.</p></footer>"##
    )
}

/// One widget alone, for an iframe: no page chrome, a credit. The widget goes into the slot.
pub fn embed_frame() -> String {
    r#"<main id="main" class="embedded" data-testid="embedded"><div class="link-notes"></div><div class="slot"></div><p class="embed-credit"><a href="./" target="_blank" rel="noopener">MRTR Lab</a>: computed live by a real MCP server and client.</p></main>"#.into()
}

/// A verdict's contents: the headline, then each check as symbol, question, word and reason
/// (never colour alone). The caller supplies the `check-list` element around it.
pub fn check_list_inner(verdict: &Verdict, by: Option<&str>) -> String {
    let mut out = format!(
        r#"<p class="verdict {}" data-testid="verdict">{}{}</p><ol class="checks">"#,
        tone(verdict),
        by.map(|b| format!("{}: ", esc(b))).unwrap_or_default(),
        esc(&headline(verdict)),
    );
    for c in check_rows(verdict) {
        let _ = write!(
            out,
            r#"<li class="check {}" data-check="{}"><span class="symbol" aria-hidden="true">{}</span><span class="question">{}</span><span class="word">{}</span>{}</li>"#,
            c.word.replace(' ', "-"),
            c.id,
            c.symbol,
            esc(c.question),
            c.word,
            c.reason
                .map(|r| format!(r#"<span class="reason">{}</span>"#, esc(&r)))
                .unwrap_or_default(),
        );
    }
    out.push_str("</ol>");
    out
}

/// A small filled icon; decorative (the button has the label).
fn icon(d: &str) -> String {
    format!(
        r#"<svg class="icon" viewBox="0 0 24 24" width="16" height="16" aria-hidden="true" focusable="false"><path d="{d}" fill="currentColor"/></svg>"#
    )
}

/// The round trip, without its moving parts: the view fills the caption, draws the diagram
/// into the stage and appends the transcript's messages.
pub fn round_trip() -> String {
    let endings: String = [Ending::Honest, Ending::Tampered]
        .into_iter()
        .map(|e| {
            let label = match e {
                Ending::Honest => "Honest retry",
                Ending::Tampered => "Ticket edited to prod",
            };
            format!(
                r#"<label class="seg"><input type="radio" name="roundtrip-ending" value="{}">{label}</label>"#,
                e.id()
            )
        })
        .collect();
    let glossary: String = GLOSSARY
        .into_iter()
        .filter_map(explain)
        .map(|(id, text)| format!(r#"<li id="tip-{id}">{}</li>"#, esc(text)))
        .collect();
    format!(
        r#"<section class="card widget roundtrip" id="roundtrip" aria-labelledby="roundtrip-h" data-testid="roundtrip"><div class="widget-head"><h2 id="roundtrip-h" tabindex="-1">Two replicas, one deploy, and the ticket in between</h2><fieldset class="segmented"><legend class="sr-only">Ending</legend>{endings}</fieldset></div><div class="caption" aria-live="polite" data-testid="caption"><h3></h3><p></p></div><div class="roundtrip-body"><div class="stage">{controls}</div><div class="transcript" data-testid="transcript"><h3>On the wire</h3><p class="hint">Underlined keys explain themselves on hover or focus. In the retry, <span class="legend changed">changed</span> and <span class="legend added">added</span> fields are marked.</p><ul class="sr-only">{glossary}</ul><ol class="messages"></ol></div></div></section>"#,
        controls = controls(),
    )
}

/// Play, pause, step, scrub, speed and the keyboard help's button. Buttons say what they do in
/// `data-act`; the view fills in the state.
fn controls() -> String {
    let speeds: String = SPEEDS
        .into_iter()
        .map(|s| {
            let t = speed_text(s);
            format!(r#"<option value="{t}">{t}×</option>"#)
        })
        .collect();
    format!(
        r#"<div class="controls" role="group" aria-label="Playback"><button type="button" data-act="restart" aria-label="Restart" title="Restart (Home)">{restart}</button><button type="button" data-act="back" aria-label="Step back" title="Step back (←)" data-testid="back">{back}</button><button type="button" class="primary" data-act="play" title="Play or pause (space)" data-testid="play"></button><button type="button" data-act="forward" aria-label="Step forward" title="Step forward (→)" data-testid="forward">{forward}</button><label class="scrub"><span class="sr-only">Step</span><input type="range" min="0" step="1"></label><span class="step-count" data-testid="step-count"></span><label class="speed">Speed <select>{speeds}</select></label><button type="button" data-act="help" aria-expanded="false" aria-controls="roundtrip-help" title="Keyboard shortcuts (?)">?</button></div>"#,
        restart = icon("M5 4v16M19 4 8 12l11 8z"),
        back = icon("M18 4 6 12l12 8z"),
        forward = icon("M6 4l12 8-12 8z"),
    )
}

/// The play button's face.
pub fn play_button(playing: bool) -> String {
    if playing {
        icon("M6 4h4v16H6zM14 4h4v16h-4z") + " Pause"
    } else {
        icon("M7 4l13 8-13 8z") + " Play"
    }
}

/// The keyboard help, shown below the controls while it is open.
pub fn help() -> String {
    r#"<div class="help" id="roundtrip-help" role="dialog" aria-label="Keyboard shortcuts" data-testid="help"><h4>Keyboard</h4><dl><dt><kbd>Space</kbd></dt><dd>play or pause</dd><dt><kbd>→</kbd> <kbd>←</kbd></dt><dd>step forward or back</dd><dt><kbd>Home</kbd></dt><dd>back to the start</dd><dt><kbd>?</kbd></dt><dd>show or hide this help</dd></dl><p>Shortcuts work while focus is inside the widget. With reduced motion, the widget steps without moving messages.</p><button type="button" data-act="close-help">Close</button></div>"#.into()
}

/// The actors in the order the diagram draws them.
pub const ACTORS: [Actor; 5] = [
    Actor::Host,
    Actor::Client,
    Actor::Balancer,
    Actor::ReplicaA,
    Actor::ReplicaB,
];

/// The diagram's fixed parts: the lines of [`EDGES`] and the boxes of [`ACTORS`], in that
/// order; the view sets their classes and notes, and adds the message.
pub fn diagram(layout: Layout) -> String {
    let id = layout.id();
    let (vw, vh) = layout.view_box();
    let position = |a| {
        let (x, y) = layout.position(a);
        (px(x), px(y))
    };
    let mut out = format!(
        r#"<svg class="diagram {id}" viewBox="0 0 {} {}" role="img" aria-labelledby="diagram-title-{id} diagram-desc-{id}" data-layout="{id}"><title id="diagram-title-{id}">Diagram: user and host, client, load balancer, replicas A and B</title><desc id="diagram-desc-{id}">The transcript beside the diagram lists every message it shows, in order.</desc>"#,
        px(vw),
        px(vh)
    );
    for (a, b) in EDGES {
        let (x1, y1) = position(a);
        let (x2, y2) = position(b);
        let _ = write!(
            out,
            r#"<line class="edge" x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}"/>"#
        );
    }
    for a in ACTORS {
        let (x, y) = position(a);
        let _ = write!(
            out,
            r#"<g class="actor {id}" data-actor="{id}"><rect x="{}" y="{}" width="132" height="48" rx="10"/><text x="{x}" y="{}" text-anchor="middle">{}</text><text class="actor-note" x="{x}" y="{}" text-anchor="middle"></text></g>"#,
            x - 66,
            y - 24,
            y + 5,
            esc(a.label()),
            y + 40,
            id = a.id(),
        );
    }
    out.push_str("</svg>");
    out
}

/// The message shown in the diagram, at `(x, y)` of its layout.
pub fn message(x: f64, y: f64, kind: MessageKind, label: &str) -> String {
    format!(
        r#"<g class="{}" data-testid="message"><circle cx="{}" cy="{}" r="9"/><text x="{}" y="{}" text-anchor="middle">{}</text></g>"#,
        kind_class(kind),
        px(x),
        px(y - 34.0),
        px(x),
        px(y - 50.0),
        esc(label)
    )
}

fn token(out: &mut String, t: &Token) {
    let change = match t.change {
        Some(Change::Changed) => " changed",
        Some(Change::Added) => " added",
        Some(Change::Removed) => " removed",
        _ => "",
    };
    match t.field.and_then(|f| explain_by_id(f).map(|tip| (f, tip))) {
        // The explanation is drawn from data-tip by CSS, so it never joins the JSON's text
        // (copying stays clean); screen readers get it through aria-describedby.
        Some((field, tip)) => {
            let _ = write!(
                out,
                r#"<span class="field{change}" tabindex="0" data-field="{field}" data-tip="{}" aria-describedby="tip-{field}">{}</span>"#,
                esc(tip),
                esc(&t.text)
            );
        }
        None if !change.is_empty() => {
            let _ = write!(
                out,
                r#"<span class="plain{change}">{}</span>"#,
                esc(&t.text)
            );
        }
        None => out.push_str(&esc(&t.text)),
    }
}

/// One message of the transcript.
pub fn transcript_line(l: &Line, current: bool) -> String {
    let mut out = format!(
        r#"<li class="{}" data-kind="{}"><p class="message-title">{}</p><pre class="json">"#,
        if current {
            "message current"
        } else {
            "message"
        },
        l.kind.id(),
        esc(&title(l)),
    );
    for t in &l.tokens {
        token(&mut out, t);
    }
    out.push_str("</pre></li>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::transcript::lines;
    use mrtr_world::{round_trip as trace_of, Knobs};

    #[test]
    fn text_is_escaped() {
        assert_eq!(
            esc(r#"<b a="1">&'x'</b>"#),
            "&lt;b a=&quot;1&quot;&gt;&amp;&#39;x&#39;&lt;/b&gt;"
        );
        let notes = link_notes(&["step=\"<img src=x>\"".into()]);
        assert!(notes.contains("step=&quot;&lt;img src=x&gt;&quot;") && !notes.contains("<img"));
        assert_eq!(link_notes(&[]), "");
    }

    #[test]
    fn the_check_list_comes_from_the_verdict() {
        let t = trace_of(Knobs::default(), Ending::Tampered);
        let html = check_list_inner(t.verdict().unwrap(), Some("Replica B"));
        assert!(html.starts_with(r#"<p class="verdict refused" data-testid="verdict">Replica B: Refused at the signature check</p>"#));
        assert_eq!(html.matches("<li ").count(), 5);
        assert!(html.contains(r#"<li class="check not-reached" data-check="principal">"#));
        assert!(html.contains(r#"<span class="reason">"#));
    }

    #[test]
    fn the_diagram_has_every_line_and_actor_and_a_labelled_message() {
        for layout in [Layout::Wide, Layout::Tall] {
            let svg = diagram(layout);
            assert_eq!(svg.matches("<line ").count(), EDGES.len());
            assert_eq!(svg.matches("data-actor=").count(), ACTORS.len());
            assert!(svg.contains(&format!(r#"class="diagram {}""#, layout.id())));
        }
        let m = message(100.4, 200.0, MessageKind::Error, "error -32602");
        assert!(
            m.contains(r#"class="msg bad""#)
                && m.contains(r#"cx="100""#)
                && m.contains(">error -32602<")
        );
    }

    #[test]
    fn transcript_lines_mark_fields_and_changes() {
        let t = trace_of(Knobs::default(), Ending::Honest);
        let ls = lines(&t, t.steps.len() - 1);
        let retry = transcript_line(&ls[2], true);
        assert!(retry.starts_with(r#"<li class="message current" data-kind="retry">"#));
        assert!(retry.contains(r#"data-field="requestState""#) && retry.contains(" added"));
        assert!(!transcript_line(&ls[0], false).contains("current"));
    }

    #[test]
    fn the_page_has_its_stand_ins_and_skip_link() {
        let html = page(&[("ticket", "MRTR Lab: inside the ticket")]);
        assert!(html.contains(r##"href="#roundtrip-h""##));
        assert!(html.contains(r#"<div class="later" data-later="ticket"><section class="card widget stand-in" id="ticket""#));
        assert!(html.contains("<h2>inside the ticket</h2>"));
        assert!(round_trip().matches("<option ").count() == SPEEDS.len());
    }
}
