//! The spec's rules on requestState, each with the widget state that shows it.

/// One of the spec's rules on requestState, and a link to the widget state that shows it.
pub struct SpecRule {
    /// The rule, in a sentence or two.
    pub rule: &'static str,
    /// Who the rule binds, and how strongly (e.g. `server MUST`).
    pub who: &'static str,
    /// The fragment (without `#`) of the widget state that shows the rule.
    pub link: &'static str,
    /// What that state shows, after "See: ".
    pub see: &'static str,
}

/// The spec's rules on requestState, in the page's order.
pub const SPEC_RULES: &[SpecRule] = &[
    SpecRule { who: "server MUST", rule: "A returned ticket is untrusted input. If it steers authorization, resources or business logic, protect it with a MAC or AEAD, and refuse any that does not verify.", link: "w=roundtrip&end=tampered&step=5", see: "the edited ticket, refused" },
    SpecRule { who: "server SHOULD", rule: "Bind the state to the authenticated principal, and check it.", link: "w=bench&move=alice&predict=0", see: "alice with bob's ticket" },
    SpecRule { who: "server SHOULD", rule: "Give the state a short expiry, and check it.", link: "w=bench&move=wait&predict=0", see: "the honest retry, late" },
    SpecRule { who: "server SHOULD", rule: "Bind the state to the originating request, and check it.", link: "w=bench&move=prod&predict=0", see: "a staging ticket on prod" },
    SpecRule { who: "server MUST", rule: "If a second redemption would do harm, refuse it yourself: none of the checks above makes a ticket usable once.", link: "w=bench&move=twice&single=1&predict=0", see: "the repeat, with single use on" },
    SpecRule { who: "client MUST", rule: "Echo requestState exactly, and never inspect, parse or modify it.", link: "w=roundtrip&step=3", see: "the retry on the wire" },
    SpecRule { who: "client MUST", rule: "Send the retry as a new request, with a new id.", link: "w=roundtrip&step=3", see: "the ids of call and retry" },
    SpecRule { who: "server MUST", rule: "Return input_required only for tools/call, prompts/get and resources/read, and only ask for kinds the client declared in that request.", link: "w=rules&method=tools/list", see: "the rules explorer" },
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::link::Link;

    #[test]
    fn every_rule_links_to_a_valid_state() {
        for r in SPEC_RULES {
            let (_, notes) = Link::parse(r.link);
            assert!(notes.is_empty(), "{}: {notes:?}", r.link);
        }
    }
}
