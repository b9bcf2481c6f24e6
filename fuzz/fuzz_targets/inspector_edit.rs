//! The inspector's edit of a decoded ticket field: `edit_claim` with any ticket, JSON
//! Pointer and value, then `inspect` of the result (and of the ticket as typed). Never
//! panics, and an edited ticket that is not bob's own never completes: nothing is re-signed.
//!
//! Input: one byte of knobs, one byte of retry time, then three parts separated by
//! newlines: the ticket (empty: bob's own under those knobs), the pointer, and the value
//! (JSON, or else taken as a string).
#![no_main]

use libfuzzer_sys::fuzz_target;
use mrtr_core::Seal;
use mrtr_world::inspect::{edit_claim, inspect, minted_ticket};
use mrtr_world::setup::RequestOutcome;
use mrtr_world::Knobs;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let [k, at, rest @ ..] = data else { return };
    let Ok(rest) = std::str::from_utf8(rest) else {
        return;
    };
    let mut parts = rest.splitn(3, '\n');
    let (ticket, pointer, value) = (
        parts.next().unwrap_or(""),
        parts.next().unwrap_or(""),
        parts.next().unwrap_or(""),
    );
    let knobs = Knobs {
        seal: if k & 1 != 0 {
            Seal::Sealed
        } else {
            Seal::Signed
        },
        single_use: k & 2 != 0,
        b_key_differs: k & 4 != 0,
        ttl_s: if k & 8 != 0 { 5 } else { 120 },
        ..Knobs::default()
    };
    let at_s = u64::from(*at) * 3;
    let Some(bobs) = minted_ticket(knobs) else {
        return;
    };
    let ticket = if ticket.is_empty() {
        bobs.as_str()
    } else {
        ticket
    };
    let value = serde_json::from_str(value).unwrap_or_else(|_| Value::from(value));
    let _ = inspect(knobs, ticket, at_s);
    if let Some(edited) = edit_claim(ticket, pointer, value) {
        let i = inspect(knobs, &edited, at_s).expect("the knobs minted bob's ticket");
        if edited != bobs {
            assert!(
                !matches!(i.outcome, RequestOutcome::Completed(_)),
                "an edited ticket completed: {edited:?}"
            );
        }
    }
});
