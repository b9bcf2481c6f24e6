//! The guarantees of `crates/mrtr-core/tests/invariants.rs`, driven by the fuzzer: the same
//! model and invariants (`tests/history/`), with the operations decoded from raw bytes. The
//! first byte picks single use and the seed; every five bytes after it are one step.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../crates/mrtr-core/tests/history/mod.rs"]
mod history;

fuzz_target!(|data: &[u8]| {
    let Some((&head, rest)) = data.split_first() else {
        return;
    };
    // Long histories only slow the fuzzer down: the invariants hold step by step.
    let ops = history::Op::from_bytes(&rest[..rest.len().min(5 * 64)]);
    let mut h = history::History::new(head & 1 == 1, u64::from(head));
    if let Err(e) = h.run(&ops) {
        panic!("{e}");
    }
});
