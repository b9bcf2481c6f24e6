//! Ticket decoding: any bytes, both seals. Must never panic, and nothing but a minted
//! ticket may ever open.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mrtr_core::ticket::{anatomy, payload_text, read_unverified, Codec, Key, Keyring, Seal};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = anatomy(text);
    let _ = payload_text(text);
    let _ = read_unverified(text);
    for seal in [Seal::Signed, Seal::Sealed] {
        let codec = Codec::new(Keyring::new(Key::new("k1", &[42u8; 32]).unwrap()), seal);
        assert!(
            codec.open(text).is_err(),
            "an unminted ticket opened: {text:?}"
        );
    }
});
