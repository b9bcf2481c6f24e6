//! Properties of the ticket codec and the checks, over many inputs.

mod common;

use common::*;
use mrtr_core::canonical::arguments_digest;
use mrtr_core::checks::{verify, CheckPolicy, Presented};
use mrtr_core::ticket::{Claims, Codec, Key, Keyring, Principal, Seal, MAX_TICKET_LEN};
use mrtr_core::SeededEntropy;
use proptest::prelude::*;
use serde_json::{json, Map, Value};

const ALPHABET: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=+/ ";

fn codec(seal: Seal) -> Codec {
    Codec::new(Keyring::new(Key::new("k1", SECRET).unwrap()), seal)
}

fn claims(sub: &str, env: &str) -> Claims {
    Claims {
        v: 1,
        kid: String::new(),
        tid: "tid".into(),
        iat: 1000,
        exp: 1120,
        sub: Some(sub.into()),
        method: "tools/call".into(),
        target: "deploy".into(),
        args: arguments_digest(&json!({"env": env})),
        awaits: std::collections::BTreeMap::from([("confirm".into(), "elicitation/create".into())]),
        state: json!({"env": env}),
    }
}

fn accepts(c: &Codec, ticket: &str, who: &str, env: &str) -> bool {
    let p = Principal::user(who);
    let args = json!({"env": env});
    let answered = vec![("confirm".to_owned(), "elicitation/create")];
    let presented = Presented {
        ticket,
        principal: &p,
        method: "tools/call",
        target: "deploy",
        arguments: &args,
        answered: &answered,
        now_s: 1010,
    };
    verify(c, &presented, &CheckPolicy::default(), None).accepted()
}

/// Exhaustive: every single-character substitution and every deletion of a valid ticket is
/// refused, for both seals. (The TypeScript SDK's codec accepts some of these.)
#[test]
fn every_single_character_change_is_refused() {
    for seal in [Seal::Signed, Seal::Sealed] {
        let c = codec(seal);
        let t = c
            .mint(&claims("bob", "staging"), &mut SeededEntropy::new(1))
            .unwrap();
        assert!(accepts(&c, &t, "bob", "staging"));
        let chars: Vec<char> = t.chars().collect();
        let mut tried = 0;
        for i in 0..chars.len() {
            for r in ALPHABET.chars().filter(|&r| r != chars[i]) {
                let mut v = chars.clone();
                v[i] = r;
                let edited: String = v.into_iter().collect();
                assert!(
                    !accepts(&c, &edited, "bob", "staging"),
                    "{seal:?} accepted a change at {i} to {r:?}"
                );
                tried += 1;
            }
            let mut v = chars.clone();
            v.remove(i);
            assert!(!accepts(
                &c,
                &v.into_iter().collect::<String>(),
                "bob",
                "staging"
            ));
        }
        for extra in ["=", "A", ".", " "] {
            assert!(!accepts(&c, &format!("{t}{extra}"), "bob", "staging"));
        }
        assert!(tried > 10_000);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn arbitrary_strings_never_panic_and_never_verify(s in ".{0,600}") {
        let c = codec(Seal::Signed);
        prop_assert!(!accepts(&c, &s, "bob", "staging"));
        let _ = mrtr_core::ticket::anatomy(&s);
        let _ = mrtr_core::ticket::payload_text(&s);
    }

    #[test]
    fn ticket_shaped_strings_never_verify(p in "[A-Za-z0-9_-]{0,300}", m in "[A-Za-z0-9_-]{0,60}", sealed in any::<bool>()) {
        let c = codec(if sealed { Seal::Sealed } else { Seal::Signed });
        let t = if sealed { format!("v1e.{p}{m}") } else { format!("v1.{p}.{m}") };
        prop_assert!(!accepts(&c, &t, "bob", "staging"));
    }

    #[test]
    fn oversized_input_is_refused_before_decoding(n in (MAX_TICKET_LEN + 1)..(MAX_TICKET_LEN * 4)) {
        let c = codec(Seal::Signed);
        prop_assert_eq!(c.open(&"A".repeat(n)), Err(mrtr_core::ticket::OpenError::TooLong(n)));
    }

    #[test]
    fn digest_ignores_key_order_and_whitespace_but_not_values(
        entries in proptest::collection::btree_map("[a-z]{1,6}", any::<i32>(), 1..8),
        change in any::<i32>(),
    ) {
        let forward: Map<String, Value> = entries.iter().map(|(k, v)| (k.clone(), json!(v))).collect();
        let backward: Map<String, Value> = entries.iter().rev().map(|(k, v)| (k.clone(), json!(v))).collect();
        let a = Value::Object(forward.clone());
        let spaced: Value = serde_json::from_str(&serde_json::to_string_pretty(&Value::Object(backward)).unwrap()).unwrap();
        prop_assert_eq!(arguments_digest(&a), arguments_digest(&spaced));
        let (k, v) = entries.iter().next().unwrap();
        if *v != change {
            let mut other = forward;
            other.insert(k.clone(), json!(change));
            prop_assert_ne!(arguments_digest(&a), arguments_digest(&Value::Object(other)));
        }
    }

    #[test]
    fn a_ticket_never_verifies_for_another_principal_request_or_key(
        who in "[a-z]{1,8}", other in "[a-z]{1,8}", env in "[a-z]{1,8}", other_env in "[a-z]{1,8}", seed in any::<u64>(), sealed in any::<bool>(),
    ) {
        let c = codec(if sealed { Seal::Sealed } else { Seal::Signed });
        let t = c.mint(&claims(&who, &env), &mut SeededEntropy::new(seed)).unwrap();
        prop_assert!(accepts(&c, &t, &who, &env));
        if other != who {
            prop_assert!(!accepts(&c, &t, &other, &env));
        }
        if other_env != env {
            prop_assert!(!accepts(&c, &t, &who, &other_env));
        }
        let stranger = Codec::new(Keyring::new(Key::new("k1", &[seed as u8 ^ 0x55; 32]).unwrap()), c.seal);
        prop_assert!(!accepts(&stranger, &t, &who, &env));
    }

    #[test]
    fn the_server_never_panics_on_arbitrary_requests(
        method in prop_oneof![Just("tools/call".to_owned()), Just("prompts/get".to_owned()), Just("resources/read".to_owned()), Just("server/discover".to_owned()), Just("tools/list".to_owned()), "[a-z/]{0,12}"],
        name in prop_oneof![Just("deploy".to_owned()), Just("test_input_required_result_multi_round".to_owned()), "[a-z_]{0,10}"],
        state in prop_oneof![Just(Value::Null), ".{0,80}".prop_map(Value::String), any::<i64>().prop_map(|n| json!(n))],
        responses in prop_oneof![Just(Value::Null), Just(json!({"confirm": {"action": "accept", "content": {"confirm": true}}})), Just(json!({"x": 1})), Just(json!("s"))],
        args in prop_oneof![Just(json!({"env": "staging"})), Just(json!(1)), Just(Value::Null)],
    ) {
        let mut s = lab();
        let msg = req(1, &method, json!({"name": name, "uri": name, "arguments": args, "requestState": state, "inputResponses": responses}));
        let r = send(&mut s, &msg);
        let resp = r.response.unwrap();
        prop_assert!(resp.get("result").is_some() || resp.get("error").is_some());
    }
}
