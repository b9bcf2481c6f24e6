//! The words an embedded widget uses, by their terms in the page's word lists (`dl.words` in
//! index.html, the one place their definitions are written): an embed, cut off from the page,
//! carries the definitions of its own words. A widget's gloss of a word (its hover and
//! focus note) is the same definition, read out of index.html at build time (`build.rs`).

use super::link::Widget;

include!(concat!(env!("OUT_DIR"), "/glossary.rs"));

/// The page's definition of `term`, as written in its word lists, as text.
pub fn definition(term: &str) -> Option<String> {
    marked(term).map(|d| d.replace('`', ""))
}

/// The page's definition of `term` in its parts, each with whether index.html sets it as
/// code: the embed's glossary draws them, so an embed's words read as the page's do.
pub fn parts(term: &str) -> Option<impl Iterator<Item = (&'static str, bool)>> {
    marked(term).map(|d| {
        d.split('`')
            .enumerate()
            .map(|(i, part)| (part, i % 2 == 1))
            .filter(|(part, _)| !part.is_empty())
    })
}

/// The definition as compiled: code between backticks (`build.rs`).
fn marked(term: &str) -> Option<&'static str> {
    WORDS.iter().find(|(t, _)| *t == term).map(|(_, d)| *d)
}

/// A widget's note on `term`: "Term: its definition", the definition's first letter lowered
/// unless it starts an acronym ("AEAD: authenticated encryption…", "HMAC: a keyed hash…").
pub fn tip(term: &str) -> String {
    let def = definition(term).unwrap_or_default();
    let def = def.as_str();
    // ASCII only: every definition starts with an ASCII letter, and the Unicode case tables
    // would cost the page's module kilobytes.
    let b = def.as_bytes();
    let lowered = if b.len() > 1 && b[0].is_ascii() && !b[1].is_ascii_uppercase() {
        format!("{}{}", (b[0] as char).to_ascii_lowercase(), &def[1..])
    } else {
        def.to_owned()
    };
    format!("{term}: {lowered}")
}

/// The terms `w` uses before defining them, in the order a reader meets them.
pub fn terms(w: Widget) -> &'static [&'static str] {
    match w {
        Widget::RoundTrip => &[
            "Host",
            "Client",
            "Server",
            "Tool",
            "Replica",
            "Load balancer",
            "Ticket",
            "Principal",
            "Signature",
        ],
        Widget::Ticket => &[
            "Ticket",
            "Principal",
            "Signature",
            "Digest",
            "base64url",
            "kid",
            "AEAD",
        ],
        Widget::Bench => &[
            "Ticket",
            "Replica",
            "Load balancer",
            "Principal",
            "Signature",
            "Digest",
        ],
        Widget::Task => &["Task", "Replica", "Load balancer", "Principal", "Ticket"],
        Widget::Raw => &["Client", "Server", "Elicitation", "Shim", "Ticket"],
        Widget::Code => &["Tool", "Ticket", "Principal", "Signature", "Digest"],
        Widget::Rules => &[
            "Client",
            "Server",
            "Elicitation",
            "Sampling",
            "Roots",
            "Error codes",
        ],
        Widget::Quiz => &["Ticket", "Replica", "Principal", "Signature"],
        Widget::Audit => &["Server", "Tool", "Ticket", "Principal", "Error codes"],
        Widget::Live => &[
            "Client",
            "Server",
            "Tool",
            "Ticket",
            "Replica",
            "Elicitation",
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every term is defined in index.html's word lists, exactly as spelled there.
    #[test]
    fn every_term_is_defined_on_the_page() {
        let page = include_str!("../../../index.html");
        for w in Widget::ALL {
            assert!(!terms(w).is_empty(), "{w:?}");
            for t in terms(w) {
                assert!(page.contains(&format!("<dt>{t}</dt>")), "{w:?}: {t}");
                assert!(definition(t).is_some(), "{w:?}: {t}");
            }
        }
    }

    /// The build reads every word of the page's lists, as text: tags gone, entities read.
    #[test]
    fn the_word_lists_are_read_as_text() {
        let page = include_str!("../../../index.html");
        assert_eq!(WORDS.len(), page.matches("<dt>").count());
        assert!(definition("Ticket")
            .unwrap()
            .starts_with("The requestState a server hands out"));
        for (t, d) in WORDS {
            assert!(!t.is_empty() && !d.is_empty(), "{t}");
            assert!(
                !d.contains('<') || d.contains("&lt;") || !d.contains("</"),
                "{t}: {d}"
            );
        }
        assert_eq!(definition("nothing such"), None);
    }

    /// A definition's code comes back as code, in order, and nothing else does.
    #[test]
    fn a_definition_keeps_its_code() {
        let ticket: Vec<_> = parts("Ticket").unwrap().collect();
        assert_eq!(ticket[0], ("The ", false));
        assert_eq!(ticket[1], ("requestState", true));
        assert!(!ticket[2].1 && ticket[2].0.starts_with(" a server hands out"));
        assert!(parts("Host").unwrap().all(|(_, code)| !code));
        let tool: Vec<_> = parts("Tool").unwrap().filter(|(_, code)| *code).collect();
        assert_eq!(tool, [("deploy", true), ("{\"env\": \"staging\"}", true)]);
        for (t, _) in WORDS {
            let text: String = parts(t).unwrap().map(|(p, _)| p).collect();
            assert_eq!(Some(text), definition(t), "{t}");
        }
        assert!(parts("nothing such").is_none());
    }

    /// Every word a page or widget glosses (`data-term`, `Gloss term=`) is in the lists.
    #[test]
    fn every_glossed_word_is_defined() {
        let page = include_str!("../../../index.html");
        for part in page.split("data-term=\"").skip(1) {
            let term = &part[..part.find('"').unwrap()];
            assert!(definition(term).is_some(), "index.html glosses {term}");
        }
        assert!(tip("AEAD").starts_with("AEAD: authenticated encryption: like a signature"));
        assert!(tip("Error codes").starts_with("Error codes: JSON-RPC numbers"));
        assert!(tip("Sampling").starts_with("Sampling: asking the host"));
    }
}
