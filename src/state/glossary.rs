//! The words an embedded widget uses, by their terms in the page's word lists (`dl.words` in
//! index.html, the one place their definitions are written): an embed, cut off from the page,
//! carries the definitions of its own words.

use super::link::Widget;

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
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every term is defined in index.html's word lists, exactly as spelled there.
    #[test]
    fn every_term_is_defined_on_the_page() {
        let page = include_str!("../../index.html");
        for w in Widget::ALL {
            assert!(!terms(w).is_empty(), "{w:?}");
            for t in terms(w) {
                assert!(page.contains(&format!("<dt>{t}</dt>")), "{w:?}: {t}");
            }
        }
    }
}
