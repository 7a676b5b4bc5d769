//! No false hits: random printable text, random hex and random base64 of
//! random bytes never trip a registry of random 32-byte secrets.

use proptest::prelude::*;

use super::pem::encode_base64;
use super::*;

fn registry(secrets: &[Vec<u8>]) -> KnownSecrets {
    let mut known = KnownSecrets::new();
    for (i, secret) in secrets.iter().enumerate() {
        known.add(&format!("secret {i}"), secret).unwrap();
    }
    known
}

fn secrets() -> impl Strategy<Value = Vec<Vec<u8>>> {
    prop::collection::vec(prop::collection::vec(any::<u8>(), 32), 10)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    #[test]
    fn printable_text_never_trips(secrets in secrets(), text in "[ -~\n]{0,4000}") {
        prop_assert_eq!(registry(&secrets).find(&text), None);
    }

    #[test]
    fn hex_and_base64_of_random_bytes_never_trip(
        secrets in secrets(),
        bytes in prop::collection::vec(any::<u8>(), 0..3000),
    ) {
        let known = registry(&secrets);
        let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        prop_assert_eq!(known.find(&hex), None);
        prop_assert_eq!(known.find(&encode_base64(&bytes)), None);
        prop_assert_eq!(known.find(&String::from_utf8_lossy(&bytes)), None);
    }

    #[test]
    fn any_window_of_a_secret_trips(
        secrets in secrets(),
        which in 0usize..10,
        start in 0usize..=(32 - WINDOW),
        before in prop::collection::vec(any::<u8>(), 0..40),
    ) {
        let known = registry(&secrets);
        let mut blob = before;
        blob.extend_from_slice(&secrets[which][start..start + WINDOW]);
        let found = known.find(&encode_base64(&blob));
        prop_assert!(found.is_some());
    }
}
